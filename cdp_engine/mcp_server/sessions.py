"""Which MCP session a tool call belongs to, and when a streamable HTTP session ends.

A tool handler gets the HTTP request of its call (so its `Mcp-Session-Id` header) from the SDK, but the SDK
has no public hook for the end of a session. `SessionWatch`, an ASGI middleware in front of the SDK's app,
therefore reads what the SDK answers: a session begins when a response first carries its id, and ends when
the client's DELETE succeeds, when a request with its id is answered 404 (the SDK no longer knows it), or
when none of its requests has been in flight for the SDK's session idle timeout (the SDK then expires it).
stdio has one session: the process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .server_config import STDIO_SESSION

log = logging.getLogger("cdp_engine.mcp")

SESSION_HEADER = b"mcp-session-id"
# Our idle expiry fires this long after the SDK's, so an instance is never destroyed while its session is alive.
EXPIRY_MARGIN = 1.0

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def session_of(request: Any) -> str | None:
    """The transport session of a tool call: stdio's one session when there is no HTTP request, else the
    request's Mcp-Session-Id (None for a stateless request, as in the 2026-07-28 protocol)."""
    if request is None:
        return STDIO_SESSION
    headers = getattr(request, "headers", None)
    value = headers.get("mcp-session-id") if headers is not None else None
    return value if isinstance(value, str) and value else None


class SessionWatch:
    """ASGI middleware: calls `on_end(session_id)` once a streamable HTTP session has ended."""

    def __init__(self, app: ASGIApp, on_end: Callable[[str], Awaitable[object]], idle_timeout: float) -> None:
        self.app = app
        self.on_end = on_end
        self.idle_timeout = idle_timeout
        self.in_flight: dict[str, int] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[object]] = set()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = dict(scope.get("headers") or []).get(SESSION_HEADER)
        session = raw.decode("latin-1") if raw else None
        status: int | None = None
        opened: str | None = None

        async def watch(message: Any) -> None:
            nonlocal status, opened
            if message["type"] == "http.response.start":
                status = int(message["status"])
                if session is None:
                    found = dict(message.get("headers") or []).get(SESSION_HEADER)
                    opened = found.decode("latin-1") if found else None
            await send(message)

        if session is not None:
            self._enter(session)
        try:
            await self.app(scope, receive, watch)
        finally:
            if session is not None:
                deleted = scope.get("method") == "DELETE" and status is not None and status < 400
                if status == 404 or deleted:
                    self._end(session)
                else:
                    self._leave(session)
            elif opened is not None and status is not None and status < 400:
                self.in_flight.setdefault(opened, 0)
                self._arm(opened)

    def _enter(self, session: str) -> None:
        self.in_flight[session] = self.in_flight.get(session, 0) + 1
        timer = self._timers.pop(session, None)
        if timer is not None:
            timer.cancel()

    def _leave(self, session: str) -> None:
        count = self.in_flight.get(session, 1) - 1
        self.in_flight[session] = max(0, count)
        if count <= 0:
            self._arm(session)

    def _arm(self, session: str) -> None:
        old = self._timers.pop(session, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._timers[session] = loop.call_later(self.idle_timeout + EXPIRY_MARGIN, self._expire, session)

    def _expire(self, session: str) -> None:
        self._timers.pop(session, None)
        if self.in_flight.get(session) == 0:
            self._end(session)

    def _end(self, session: str) -> None:
        timer = self._timers.pop(session, None)
        if timer is not None:
            timer.cancel()
        self.in_flight.pop(session, None)
        task = asyncio.get_running_loop().create_task(self._run_end(session))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_end(self, session: str) -> object:
        try:
            return await self.on_end(session)
        except Exception:  # a failed teardown is the manager's to record; the transport goes on
            log.exception("ending MCP session %s failed", session[:16])
            return None
