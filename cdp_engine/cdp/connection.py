"""One connection per browser, flat sessions, one reader.

The reader decodes each message once (orjson), resolves the command it answers, and
dispatches events to plain callbacks: it never awaits user code, so a slow listener
can't stall responses. The connection is the single owner of routing state: the id
counter, the session table and every pending command.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ..errors import CommandTimeoutError, ConnectionClosedError, ProtocolError, TargetClosedError
from .transport import Transport

log = logging.getLogger("cdp_engine")

Listener = Callable[[dict[str, Any]], None]
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

    def __init__(self, session: CDPSession, method: str, predicate: Callable[[dict[str, Any]], bool] | None):
        self._future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._predicate = predicate
        self._session = session
        self._unsubscribe = session.on(method, self._on_event)
        session._waiters.add(self._future)
        self.method = method

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
        self._session._waiters.discard(self._future)
        if not self._future.done():
            self._future.cancel()

    def done(self) -> bool:
        return self._future.done()

    def __await__(self):  # type: ignore[no-untyped-def]
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
        self._pending: dict[int, tuple[asyncio.Future[dict[str, Any]], str, asyncio.TimerHandle | None]] = {}
        self._waiters: set[asyncio.Future[dict[str, Any]]] = set()
        self.closed_reason: BaseException | None = None
        self.parent: CDPSession | None = None

    @property
    def target_id(self) -> str:
        return self.target_info.get("targetId", "")

    @property
    def target_type(self) -> str:
        return self.target_info.get("type", "")

    @property
    def closed(self) -> bool:
        return self.closed_reason is not None

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> asyncio.Future[dict[str, Any]]:
        """Send a command now and return a future of its result; several can be in flight together."""
        return self.connection._send(self, method, params, timeout)

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

    def _dispatch(self, method: str, params: dict[str, Any]) -> None:
        listeners = self._listeners.get(method)
        if not listeners:
            return
        for listener in list(listeners):
            try:
                listener(params)
            except Exception:
                log.exception("listener for %s failed", method)

    def _close(self, reason: BaseException) -> None:
        if self.closed_reason is not None:
            return
        self.closed_reason = reason
        pending, self._pending = self._pending, {}
        for future, _method, timer in pending.values():
            if timer is not None:
                timer.cancel()
            if not future.done():
                future.set_exception(reason)
        for future in list(self._waiters):
            if not future.done():
                future.set_exception(reason)
        self._waiters.clear()

    def __repr__(self) -> str:
        return f"<CDPSession {self.id or 'browser'} {self.target_type} {self.target_info.get('url', '')}>"


class Connection:
    """Routes commands and events between the transport and its sessions."""

    def __init__(self, transport: Transport, default_timeout: float = DEFAULT_TIMEOUT) -> None:
        self.transport = transport
        self.default_timeout = default_timeout
        self._next_id = 0
        self.root = CDPSession(self, None, {"type": "browser"})
        self.sessions: dict[str, CDPSession] = {}
        self.closed_reason: BaseException | None = None
        self.on_session_attached: list[Callable[[CDPSession, dict[str, Any]], None]] = []
        self.on_session_detached: list[Callable[[CDPSession], None]] = []
        self.on_close: list[Callable[[BaseException], None]] = []
        self._loop = asyncio.get_running_loop()
        transport.start(self._on_message, self._on_transport_close)

    @property
    def closed(self) -> bool:
        return self.closed_reason is not None

    def session(self, session_id: str | None) -> CDPSession | None:
        return self.root if session_id is None else self.sessions.get(session_id)

    def _send(
        self, session: CDPSession, method: str, params: dict[str, Any] | None, timeout: float | None
    ) -> asyncio.Future[dict[str, Any]]:
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
        timeout = self.default_timeout if timeout is None else timeout
        timer = self._loop.call_later(timeout, self._expire, session, command_id, method, timeout)
        session._pending[command_id] = (future, method, timer)
        self._loop.create_task(self._write(session, command_id, orjson.dumps(message)))
        return future

    async def _write(self, session: CDPSession, command_id: int, data: bytes) -> None:
        try:
            await self.transport.send(data)
        except Exception as exc:
            entry = session._pending.pop(command_id, None)
            if entry is not None:
                future, _method, timer = entry
                if timer is not None:
                    timer.cancel()
                if not future.done():
                    future.set_exception(
                        exc if isinstance(exc, ConnectionClosedError) else ConnectionClosedError(str(exc))
                    )

    def _expire(self, session: CDPSession, command_id: int, method: str, timeout: float) -> None:
        entry = session._pending.pop(command_id, None)
        if entry is not None and not entry[0].done():
            entry[0].set_exception(CommandTimeoutError(method, timeout))

    def _on_message(self, data: bytes | str) -> None:
        if len(data) > LARGE_MESSAGE:
            with gc_paused():
                message = orjson.loads(data)
        else:
            message = orjson.loads(data)
        session_id = message.get("sessionId")
        if "id" in message:
            session = self.session(session_id)
            if session is None:
                return
            entry = session._pending.pop(message["id"], None)
            if entry is None:
                return
            future, method, timer = entry
            if timer is not None:
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
            child = CDPSession(self, params["sessionId"], params["targetInfo"])
            child.parent = self.session(session_id)
            self.sessions[child.id] = child  # type: ignore[index]
            for hook in self.on_session_attached:
                try:
                    hook(child, params)
                except Exception:
                    log.exception("session attach hook failed")
        elif method == "Target.detachedFromTarget":
            child = self.sessions.pop(params.get("sessionId", ""), None)
            if child is not None:
                # Sessions attached through this one (nested out-of-process frames) go with it:
                # Chromium sends no detach event for them.
                gone = [child, *self._descendants(child)]
                for session in gone:
                    self.sessions.pop(session.id or "", None)
                    session._close(TargetClosedError(f"target {session.target_id} closed"))
                for session in gone:
                    for hook in self.on_session_detached:
                        try:
                            hook(session)
                        except Exception:
                            log.exception("session detach hook failed")
        elif method == "Inspector.targetCrashed":
            crashed = self.session(session_id)
            if crashed is not None and crashed is not self.root:
                crashed._close(TargetClosedError(f"target {crashed.target_id} crashed"))
        session = self.session(session_id)
        if session is not None:
            session._dispatch(method, params)

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
            session._close(reason if session is self.root else TargetClosedError(str(reason)))
        for hook in self.on_close:
            try:
                hook(reason)
            except Exception:
                log.exception("close hook failed")

    async def close(self) -> None:
        await self.transport.close()
        self._on_transport_close(None)
