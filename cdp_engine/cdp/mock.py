"""A scripted browser for unit tests, in the spirit of httpx's MockTransport.

`Connection(MockTransport(handler))` runs the real connection (ids, sessions, deadlines,
decoding) against a handler instead of Chromium, so routing can be tested in milliseconds
and without a browser:

    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        if method == "Runtime.evaluate":
            return {"result": {"type": "number", "value": 2}}
        if method == "Page.navigate":
            return NO_ANSWER                                  # never answered: the deadline fires
        raise ProtocolError(method, -32601, f"'{method}' wasn't found")

    transport = MockTransport(handler)
    connection = Connection(transport)
    transport.attach("S1", {"targetId": "T1", "type": "page"})   # Target.attachedToTarget
    transport.emit("Page.loadEventFired", {"timestamp": 1.0}, session_id="S1")
    await transport.close()                                   # the browser is gone

Everything the mock sends travels as JSON bytes through the connection's own decoder, in the
order it was produced (an event the handler emits arrives before the answer, as in Chromium).
Handler answers may also be awaitables, to answer late or out of order.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Final

import orjson

from ..errors import ConnectionClosedError, ProtocolError
from .transport import OnClose, OnMessage


class _NoAnswer:
    """The type of NO_ANSWER (one instance)."""

    def __repr__(self) -> str:
        return "NO_ANSWER"


NO_ANSWER: Final = _NoAnswer()
"""Returned by a handler: the command is never answered (as from a hung renderer)."""

Answer = dict[str, Any] | _NoAnswer
Handler = Callable[[str, dict[str, Any], str | None], Answer | Awaitable[Answer]]


def _answer_everything(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
    return {}


class MockTransport:
    """A Transport whose peer is a handler: handler(method, params, session_id) answers each command.

    The handler returns the result dict, raises ProtocolError (sent as Chromium's error answer),
    or returns NO_ANSWER. Any other exception is sent as an internal error (-32603) and kept in
    `errors`, so a broken handler shows up in the test instead of vanishing. Every command written
    is kept, decoded, in `sent`.
    """

    NO_ANSWER: Final = NO_ANSWER

    def __init__(self, handler: Handler | None = None) -> None:
        self.handler: Handler = handler or _answer_everything
        self.sent: list[dict[str, Any]] = []
        self.errors: list[BaseException] = []
        self._on_message: OnMessage | None = None
        self._on_close: OnClose | None = None
        self._closed = False
        self._tasks: set[asyncio.Task[None]] = set()

    # ----- the Transport interface (what Connection calls)

    def start(self, on_message: OnMessage, on_close: OnClose) -> None:
        if self._on_message is not None:
            raise RuntimeError("MockTransport started twice")
        self._on_message = on_message
        self._on_close = on_close

    async def send(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionClosedError("mock browser is gone")
        command: dict[str, Any] = orjson.loads(data)
        self.sent.append(command)
        method: str = command["method"]
        session_id: str | None = command.get("sessionId")
        try:
            answer = self.handler(method, command.get("params", {}), session_id)
        except Exception as exc:
            self._answer_error(command, exc)
            return
        if inspect.isawaitable(answer):
            task = asyncio.get_running_loop().create_task(self._answer_later(command, answer))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        self._answer(command, answer)

    async def close(self) -> None:
        """The browser is gone (as after Browser.close): the same as disconnect() without an error."""
        self.disconnect()

    # ----- scripting the browser's side

    @property
    def closed(self) -> bool:
        return self._closed

    def disconnect(self, error: BaseException | None = None) -> None:
        """The browser died now (error: what the reader saw, None for a clean close); later sends fail."""
        if self._closed:
            return
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._on_close is not None:
            self._on_close(error)

    def emit(self, method: str, params: dict[str, Any] | None = None, session_id: str | None = None) -> None:
        """Deliver one event now, from the browser (session_id None) or from an attached session."""
        message: dict[str, Any] = {"method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        self.deliver(message)

    def attach(
        self,
        session_id: str,
        target_info: dict[str, Any] | None = None,
        *,
        parent_session_id: str | None = None,
        waiting_for_debugger: bool = False,
    ) -> None:
        """Target.attachedToTarget for a new flat session (nested when parent_session_id is given)."""
        info = {"targetId": f"target-{session_id}", "type": "page", "url": "about:blank", "attached": True}
        info.update(target_info or {})
        self.emit(
            "Target.attachedToTarget",
            {"sessionId": session_id, "targetInfo": info, "waitingForDebugger": waiting_for_debugger},
            session_id=parent_session_id,
        )

    def detach(self, session_id: str, *, parent_session_id: str | None = None) -> None:
        """Target.detachedFromTarget for session_id."""
        target_id = f"target-{session_id}"
        self.emit(
            "Target.detachedFromTarget",
            {"sessionId": session_id, "targetId": target_id},
            session_id=parent_session_id,
        )

    def reply(
        self,
        command_id: int,
        result: dict[str, Any] | None = None,
        *,
        error: tuple[int, str] | None = None,
    ) -> None:
        """Answer a command now (one the handler left unanswered, or any id at all).

        The answer carries the sessionId the command was sent with; deliver() sends any other message.
        """
        sent: dict[str, Any] = next((c for c in reversed(self.sent) if c["id"] == command_id), {})
        if error is not None:
            self._send_answer(command_id, sent.get("sessionId"), error={"code": error[0], "message": error[1]})
        else:
            self._send_answer(command_id, sent.get("sessionId"), result=result or {})

    def deliver(self, message: dict[str, Any] | bytes | str) -> None:
        """Hand one raw message to the connection's reader, as bytes off the wire."""
        if self._closed:
            raise ConnectionClosedError("mock browser is gone: nothing more arrives")
        if self._on_message is None:
            raise RuntimeError("MockTransport not started: create the Connection first")
        data = message if isinstance(message, bytes | str) else orjson.dumps(message)
        try:
            self._on_message(data)
        except Exception as exc:
            # A real reader dies on an exception in the message callback; so does this one.
            self.errors.append(exc)
            self.disconnect(exc)

    # ----- internals

    async def _answer_later(self, command: dict[str, Any], pending: Awaitable[Answer]) -> None:
        try:
            answer = await pending
        except Exception as exc:
            if not self._closed:
                self._answer_error(command, exc)
            return
        if not self._closed:
            self._answer(command, answer)

    def _answer(self, command: dict[str, Any], answer: Answer) -> None:
        if isinstance(answer, _NoAnswer):
            return
        self._send_answer(command["id"], command.get("sessionId"), result=answer)

    def _answer_error(self, command: dict[str, Any], exc: Exception) -> None:
        if isinstance(exc, ProtocolError):
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
        else:
            self.errors.append(exc)
            error = {"code": -32603, "message": f"mock handler failed: {exc!r}"}
        self._send_answer(command["id"], command.get("sessionId"), error=error)

    def _send_answer(
        self,
        command_id: int,
        session_id: str | None,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> None:
        message: dict[str, Any] = {"id": command_id}
        if error is not None:
            message["error"] = error
        else:
            message["result"] = result
        if session_id is not None:
            message["sessionId"] = session_id
        self.deliver(message)
