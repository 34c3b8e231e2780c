"""One connection per browser, flat sessions, one reader.

The reader decodes each message once (orjson), resolves the command it answers, and
dispatches events to plain callbacks: it never awaits user code, so a slow listener
can't stall responses. The connection is the single owner of routing state: the id
counter, the session table and every pending command. A session owns its listeners and
its closed state; everything that must happen when a session goes (its commands and
waits fail) hangs off that one close.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable, Generator, Iterator
from typing import Any

import orjson

from ..errors import CommandTimeoutError, ConnectionClosedError, ProtocolError, TargetClosedError
from .transport import Transport

log = logging.getLogger("cdp_engine.cdp")
# Every message sent and received, at debug (`--log-level debug`); formatted only when that level is on.
traffic = logging.getLogger("cdp_engine.cdp.traffic")
TRAFFIC_CLIP = 2000  # bytes of a message the traffic log shows (a snapshot is megabytes)

Listener = Callable[[dict[str, Any]], object]  # the return value is ignored
CloseListener = Callable[[BaseException], object]
DEFAULT_TIMEOUT = 30.0
# Messages above this size are decoded with the cyclic GC paused (see gc_paused).
LARGE_MESSAGE = 1 << 16


_gc_pauses = 0


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause CPython's cyclic GC while large CDP results are decoded and digested.

    A DOMSnapshot decodes into ~100k small lists; every 700 allocations a young collection
    rescans them, which tripled the decode of a 2 MB snapshot (15 ms → 60 ms), and each later
    collection rescans whatever is still alive. The data holds no cycles, so nothing is lost by
    waiting: callers keep the pause until they dropped the data, and refcounting frees it without
    the collector ever seeing it. Pauses may overlap (several tabs capturing at once); the
    collector is back on when the last one ends.
    """
    global _gc_pauses
    if _gc_pauses == 0 and not gc.isenabled():
        yield  # the application runs without the collector: leave that alone
        return
    _gc_pauses += 1
    gc.disable()
    try:
        yield
    finally:
        _gc_pauses -= 1
        if _gc_pauses == 0:
            gc.enable()


class EventWaiter:
    """An armed wait for one event: create it before the command that triggers the event."""

    def __init__(
        self, session: CDPSession, method: str, predicate: Callable[[dict[str, Any]], bool] | None
    ) -> None:
        self._future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._predicate = predicate
        self._session = session
        self.method = method
        self._unsubscribe = session.on(method, self._on_event)
        # Last: on a session that is already closed this fails the wait at once.
        self._unwatch = session.add_close_listener(self._on_close)

    def _on_close(self, reason: BaseException) -> None:
        if not self._future.done():
            self._future.set_exception(reason)
        self._unsubscribe()

    def _on_event(self, params: dict[str, Any]) -> None:
        if self._future.done():
            return
        try:
            if self._predicate is not None and not self._predicate(params):
                return
        except Exception as exc:
            self._future.set_exception(exc)
        else:
            self._future.set_result(params)
        self._unsubscribe()
        self._unwatch()

    async def wait(self, timeout: float | None = None) -> dict[str, Any]:
        """Wait for the event; TimeoutError after the deadline, TargetClosedError if the session dies."""
        timeout = self._session.connection.default_timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self._future)
        except TimeoutError:
            raise TimeoutError(f"no {self.method} event within {timeout:g} s") from None
        finally:
            self.cancel()

    def cancel(self) -> None:
        self._unsubscribe()
        self._unwatch()
        if not self._future.done():
            self._future.cancel()

    def done(self) -> bool:
        return self._future.done()

    def __await__(self) -> Generator[Any, None, dict[str, Any]]:
        return self.wait().__await__()


class CDPSession:
    """Commands and events of one attached target (or of the browser itself when session_id is None)."""

    def __init__(
        self,
        connection: Connection,
        session_id: str | None,
        target_info: dict[str, Any] | None = None,
    ) -> None:
        self.connection = connection
        self.id = session_id
        self.target_info: dict[str, Any] = target_info or {}
        self._listeners: dict[str, list[Listener]] = {}
        self._close_listeners: list[CloseListener] = []
        self.closed_reason: BaseException | None = None
        self.parent: CDPSession | None = None
        self.side = False  # a second session on a target its owner attached already (attach_side_session)

    @property
    def target_id(self) -> str:
        target_id: str = self.target_info.get("targetId", "")
        return target_id

    @property
    def target_type(self) -> str:
        target_type: str = self.target_info.get("type", "")
        return target_type

    @property
    def closed(self) -> bool:
        return self.closed_reason is not None

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> asyncio.Future[dict[str, Any]]:
        """Send a command now and return a future of its result; several can be in flight together."""
        return self.connection.send(method, params, session=self, timeout=timeout)

    def on(self, method: str, listener: Listener) -> Callable[[], None]:
        """Call listener(params) for each `method` event; returns a function that unsubscribes."""
        self._listeners.setdefault(method, []).append(listener)

        def unsubscribe() -> None:
            listeners = self._listeners.get(method)
            if listeners and listener in listeners:
                listeners.remove(listener)

        return unsubscribe

    def wait_for(
        self, method: str, predicate: Callable[[dict[str, Any]], bool] | None = None
    ) -> EventWaiter:
        """Arm a wait for the next `method` event matching predicate; await it (or .wait(timeout))."""
        return EventWaiter(self, method, predicate)

    def add_close_listener(self, listener: CloseListener) -> Callable[[], None]:
        """Call listener(reason) once when the session closes (at once if it already has); returns an unsubscribe."""
        if self.closed_reason is not None:
            listener(self.closed_reason)
            return _nothing
        self._close_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._close_listeners:
                self._close_listeners.remove(listener)

        return unsubscribe

    def dispatch(self, method: str, params: dict[str, Any]) -> None:
        """Hand one event to this session's listeners; a failing listener is logged, the others still run."""
        listeners = self._listeners.get(method)
        if not listeners:
            return
        for listener in list(listeners):
            try:
                listener(params)
            except Exception:
                log.exception("listener for %s failed", method)

    def mark_closed(self, reason: BaseException) -> None:
        """Mark the session gone: its commands in flight and armed waits fail with reason, later ones at once.

        The connection calls this when the target detaches or crashes, or the browser goes. It sends
        nothing to Chromium; it only settles what waits on a target that can no longer answer.
        """
        if self.closed_reason is not None:
            return
        self.closed_reason = reason
        listeners, self._close_listeners = self._close_listeners, []
        for listener in listeners:
            try:
                listener(reason)
            except Exception:
                log.exception("close listener of %r failed", self)

    def __repr__(self) -> str:
        return f"<CDPSession {self.id or 'browser'} {self.target_type} {self.target_info.get('url', '')}>"


def _nothing() -> None:
    return None


_Pending = tuple[asyncio.Future[dict[str, Any]], str, asyncio.TimerHandle, CDPSession]


class Connection:
    """Routes commands and events between the transport and its sessions."""

    def __init__(self, transport: Transport, default_timeout: float = DEFAULT_TIMEOUT) -> None:
        self.transport = transport
        self.default_timeout = default_timeout
        self._next_id = 0
        self._pending: dict[int, _Pending] = {}
        self.root = self._new_session(None, {"type": "browser"})
        self.sessions: dict[str, CDPSession] = {}
        self.closed_reason: BaseException | None = None
        self.on_session_attached: list[Callable[[CDPSession, dict[str, Any]], None]] = []
        self.on_session_detached: list[Callable[[CDPSession], None]] = []
        self.on_close: list[Callable[[BaseException], None]] = []
        self._side_attaching: dict[str, int] = {}  # target id -> side sessions being attached to it
        self._loop = asyncio.get_running_loop()
        transport.start(self._on_message, self._on_transport_close)

    @property
    def closed(self) -> bool:
        return self.closed_reason is not None

    def session(self, session_id: str | None) -> CDPSession | None:
        return self.root if session_id is None else self.sessions.get(session_id)

    def _new_session(self, session_id: str | None, target_info: dict[str, Any]) -> CDPSession:
        session = CDPSession(self, session_id, target_info)
        session.add_close_listener(lambda reason: self._fail_commands(session, reason))
        return session

    def _fail_commands(self, session: CDPSession, reason: BaseException) -> None:
        """Every command still waiting on session fails with reason, at once."""
        for command_id in [i for i, entry in self._pending.items() if entry[3] is session]:
            future, _method, timer, _session = self._pending.pop(command_id)
            timer.cancel()
            if not future.done():
                future.set_exception(reason)

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: CDPSession | None = None,
        timeout: float | None = None,
    ) -> asyncio.Future[dict[str, Any]]:
        """Number and write one command for session (the browser's own by default); a future of its result.

        The future fails with ProtocolError (Chromium's error answer), TargetClosedError (the session
        went), ConnectionClosedError (the browser went) or CommandTimeoutError (no answer in time).
        """
        session = self.root if session is None else session
        future: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        reason = session.closed_reason or self.closed_reason
        if reason is not None:
            future.set_exception(reason)
            return future
        self._next_id += 1
        command_id = self._next_id
        message: dict[str, Any] = {"id": command_id, "method": method, "params": params or {}}
        if session.id is not None:
            message["sessionId"] = session.id
        data = orjson.dumps(message)  # first: params orjson cannot write raise here and leave no pending command
        if traffic.isEnabledFor(logging.DEBUG):
            traffic.debug("send %s", _clip(data))
        timeout = self.default_timeout if timeout is None else timeout
        timer = self._loop.call_later(timeout, self._expire, command_id, method, timeout)
        self._pending[command_id] = (future, method, timer, session)
        self._loop.create_task(self._write(command_id, data))
        return future

    async def attach_side_session(self, target_id: str, timeout: float | None = None) -> CDPSession:
        """A second flat session on an attached target, for a job whose domain state must stay apart from the
        target's own session (a Fetch interception there would replace the one its owner set: see
        core/navigation.py). No attach or detach hook hears of it: it is no new target; it goes with the target."""
        self._side_attaching[target_id] = self._side_attaching.get(target_id, 0) + 1
        try:
            answer = await self.send("Target.attachToTarget", {"targetId": target_id, "flatten": True}, timeout=timeout)
        finally:
            self._side_attaching[target_id] -= 1
            if not self._side_attaching[target_id]:
                del self._side_attaching[target_id]
        session = self.sessions.get(answer.get("sessionId", ""))
        if session is None:
            raise TargetClosedError(f"target {target_id} closed")
        return session

    async def _write(self, command_id: int, data: bytes) -> None:
        try:
            await self.transport.send(data)
        except Exception as exc:
            entry = self._pending.pop(command_id, None)
            if entry is not None:
                future, _method, timer, _session = entry
                timer.cancel()
                if not future.done():
                    future.set_exception(
                        exc if isinstance(exc, ConnectionClosedError) else ConnectionClosedError(str(exc))
                    )

    def _expire(self, command_id: int, method: str, timeout: float) -> None:
        entry = self._pending.pop(command_id, None)
        if entry is not None and not entry[0].done():
            entry[0].set_exception(CommandTimeoutError(method, timeout))

    def _on_message(self, data: bytes | str) -> None:
        if traffic.isEnabledFor(logging.DEBUG):
            traffic.debug("recv %s", _clip(data))
        if len(data) > LARGE_MESSAGE:
            with gc_paused():
                message = orjson.loads(data)
        else:
            message = orjson.loads(data)
        session_id = message.get("sessionId")
        if "id" in message:
            entry = self._pending.get(message["id"])
            # An answer counts only from the session the command went to.
            if entry is None or entry[3].id != session_id:
                return
            del self._pending[message["id"]]
            future, method, timer, _session = entry
            timer.cancel()
            if future.done():
                return
            error = message.get("error")
            if error is None:
                future.set_result(message.get("result", {}))
            else:
                text = error.get("message", "")
                if "Session with given id not found" in text or "No target with given id" in text:
                    future.set_exception(TargetClosedError(f"{method}: target closed ({text})"))
                else:
                    future.set_exception(
                        ProtocolError(method, error.get("code", 0), text, error.get("data"))
                    )
            return
        method = message.get("method")
        if method is None:
            return
        params = message.get("params", {})
        if method == "Target.attachedToTarget":
            child_id: str = params["sessionId"]
            child = self._new_session(child_id, params["targetInfo"])
            child.parent = self.session(session_id)
            # A side session (attach_side_session) is no new target: the attach hooks never hear of it.
            child.side = session_id is None and params["targetInfo"].get("targetId") in self._side_attaching
            self.sessions[child_id] = child
            for attach_hook in [] if child.side else self.on_session_attached:
                try:
                    attach_hook(child, params)
                except Exception:
                    log.exception("session attach hook failed")
        elif method == "Target.detachedFromTarget":
            detached = self.sessions.pop(params.get("sessionId", ""), None)
            if detached is not None:
                # Sessions attached through this one (nested out-of-process frames) go with it:
                # Chromium sends no detach event for them.
                gone = [detached, *self._descendants(detached)]
                for closing in gone:
                    self.sessions.pop(closing.id or "", None)
                    closing.mark_closed(TargetClosedError(f"target {closing.target_id} closed"))
                for closing in gone:
                    for detach_hook in [] if closing.side else self.on_session_detached:
                        try:
                            detach_hook(closing)
                        except Exception:
                            log.exception("session detach hook failed")
        elif method == "Inspector.targetCrashed":
            crashed = self.session(session_id)
            if crashed is not None and crashed is not self.root:
                crashed.mark_closed(TargetClosedError(f"target {crashed.target_id} crashed"))
        session = self.session(session_id)
        if session is not None:
            session.dispatch(method, params)

    def _descendants(self, session: CDPSession) -> list[CDPSession]:
        out: list[CDPSession] = []
        frontier = [session]
        while frontier:
            parent = frontier.pop()
            children = [s for s in self.sessions.values() if s.parent is parent]
            out.extend(children)
            frontier.extend(children)
        return out

    def _on_transport_close(self, error: BaseException | None) -> None:
        if self.closed_reason is not None:
            return
        reason = ConnectionClosedError(f"connection to the browser closed{f': {error}' if error else ''}")
        self.closed_reason = reason
        for session in [self.root, *self.sessions.values()]:
            session.mark_closed(reason if session is self.root else TargetClosedError(str(reason)))
        for hook in self.on_close:
            try:
                hook(reason)
            except Exception:
                log.exception("close hook failed")

    async def close(self) -> None:
        await self.transport.close()
        self._on_transport_close(None)


def _clip(data: bytes | str) -> str:
    """A message for the traffic log: its start, and its size when it is longer."""
    text = data.decode(errors="replace") if isinstance(data, bytes) else data
    if len(text) <= TRAFFIC_CLIP:
        return text
    return f"{text[:TRAFFIC_CLIP]}... ({len(data):,} bytes)"
