"""Watching a browser of another process: its page targets over CDP, shown in a LiveView.

`cdp-engine view --attach ENDPOINT` (ws://… or http://host:port) opens its own CDP connection to the
browser, follows its page targets (Target.setDiscoverTargets) and gives each one a side session of its
own for the screencast, so it changes nothing the program driving the browser set up (no auto-attach, no
download behaviour, no domains beyond Page on its own sessions). It sees frames and URLs only: the action
log needs the viewer in the driving process (`--view`, or `cdp_engine.view.LiveView` there).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from ..cdp.connection import Connection
from ..cdp.launcher import discover_ws_url
from ..cdp.transport import WebSocketTransport
from ..errors import CDPEngineError, ConnectionClosedError
from .live import LiveView, Watched

__all__ = ["Attached"]

log = logging.getLogger("cdp_engine.view")


class Attached:
    """The page targets of the browser at `endpoint`, added to `view` as they come and go."""

    def __init__(self, endpoint: str, view: LiveView, *, timeout: float = 10.0) -> None:
        self.endpoint = endpoint
        self.view = view
        self.timeout = timeout
        self.connection: Connection | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()  # the browser went

    async def start(self) -> Attached:
        try:
            ws_url = await discover_ws_url(self.endpoint, self.timeout)
            transport = await WebSocketTransport.connect(ws_url, timeout=self.timeout)
        except (OSError, ValueError, CDPEngineError, TimeoutError) as exc:
            raise ConnectionClosedError(f"cannot reach a browser at {self.endpoint}: {exc}") from None
        self.connection = connection = Connection(transport, self.timeout)
        connection.on_close.append(self._on_close)
        root = connection.root
        root.on("Target.targetCreated", self._on_target)
        root.on("Target.targetInfoChanged", self._on_target)
        root.on("Target.targetDestroyed", lambda p: self.view.remove(p.get("targetId", "")))
        await root.send("Target.setDiscoverTargets", {"discover": True, "filter": [{"type": "page"}]})
        return self

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self.connection is not None:
            await self.connection.close()

    def _on_close(self, _reason: BaseException) -> None:
        if not self.gone.done():
            self.gone.set_result(None)

    def _on_target(self, params: dict[str, Any]) -> None:
        info = params.get("targetInfo") or {}
        if info.get("type") != "page":
            return
        key = info.get("targetId", "")
        watched = self.view.watched.get(key)
        if watched is not None:
            watched.update(info.get("url", ""), info.get("title", ""))
            return
        task = asyncio.get_running_loop().create_task(self._attach(key, info))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _attach(self, key: str, info: dict[str, Any]) -> None:
        assert self.connection is not None
        with contextlib.suppress(CDPEngineError, TimeoutError):
            session = await self.connection.attach_side_session(key, timeout=self.timeout)
            if key not in self.view.watched:
                session.add_close_listener(lambda _reason: self.view.remove(key))
                self.view.add(Watched(key, session, url=info.get("url", ""), title=info.get("title", "")))
