"""Screencasts for a live view: one page's Page.startScreencast frames, each acknowledged; pages followed over CDP.

Chromium sends the next frame only after the last one was acknowledged, so the ack paces the stream: it
is sent at once, or as soon as `max_fps` allows, and never waits for a viewer (a slow viewer misses frames,
it never holds the page or the agent back). Nothing is started until a viewer connects (view/live.py, the one user).

A running screencast makes Chromium draw every frame of the page for real, which an animated page pays
for in every command of the agent (benchmarks/live_view.py measured 1.8x on a step with an acknowledged-
nothing screencast running). So the view pauses the screencast while a call of the agent runs
(core/activity.py `running()`) and resumes it once the engine has been idle a moment; the call's own result
reaches the viewer as the state's screenshot when it has one (view/live.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from ..cdp.connection import CDPSession, Connection
from ..cdp.discovery import discover_ws_url
from ..cdp.transport import WebSocketTransport
from ..errors import CDPEngineError, ConnectionClosedError

log = logging.getLogger("cdp_engine.core")

FrameListener = Callable[[str, str, dict[str, Any]], None]  # (tab id, base64 JPEG, frame metadata)


class Screencast:
    """Page.startScreencast on one page session, each frame handed to `on_frame` and acknowledged."""

    def __init__(
        self,
        session: CDPSession,
        key: str,
        on_frame: FrameListener,
        *,
        max_fps: float = 10.0,
        quality: int = 60,
        max_size: tuple[int, int] = (1280, 800),
    ) -> None:
        self.session = session
        self.key = key
        self.on_frame = on_frame
        self.interval = 1.0 / max_fps if max_fps > 0 else 0.0
        self.params = {"format": "jpeg", "quality": quality, "maxWidth": max_size[0], "maxHeight": max_size[1]}
        self.frames = 0  # frames received (tests and the benchmark read it)
        self.paused = False
        self._off: Callable[[], None] | None = None
        self._last_ack = 0.0
        self._pending: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        return self._off is not None

    async def start(self, *, paused: bool = False, timeout: float = 5.0) -> None:
        """Listen for frames and, unless `paused` (a call is running), start the screencast."""
        if self._off is not None:
            return
        self._off = self.session.on("Page.screencastFrame", self._on_frame)
        self.paused = paused
        if paused:
            return
        try:
            await self.session.send("Page.startScreencast", self.params, timeout=timeout)
        except (CDPEngineError, TimeoutError):
            log.debug("screencast of %s did not start", self.key, exc_info=True)
            self._unsubscribe()

    async def stop(self, timeout: float = 2.0) -> None:
        if self._off is None:
            return
        self._unsubscribe()
        if not self.paused:
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await self.session.send("Page.stopScreencast", timeout=timeout)

    def pause(self) -> None:
        """Stop the frames while the agent works (sent now, ahead of the call's own commands)."""
        if self._off is None or self.paused or self.session.closed:
            return
        self.paused = True
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self.session.send("Page.stopScreencast").add_done_callback(_quiet)

    def resume(self) -> None:
        """Frames again (Chromium sends the current picture first)."""
        if self._off is None or not self.paused or self.session.closed:
            return
        self.paused = False
        self.session.send("Page.startScreencast", self.params).add_done_callback(_quiet)

    def _unsubscribe(self) -> None:
        if self._off is not None:
            self._off()
            self._off = None
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _on_frame(self, params: dict[str, Any]) -> None:
        self.frames += 1
        if not self.paused:
            loop = asyncio.get_running_loop()
            delay = self._last_ack + self.interval - loop.time()
            frame_session = params.get("sessionId")
            if delay > 0:
                self._pending = loop.call_later(delay, self._ack, frame_session)
            else:
                self._ack(frame_session)
        try:
            self.on_frame(self.key, params.get("data", ""), params.get("metadata") or {})
        except Exception:
            log.exception("frame listener failed")

    def _ack(self, frame_session: Any) -> None:
        self._pending = None
        if self._off is None or self.paused or self.session.closed:
            return
        self._last_ack = asyncio.get_running_loop().time()
        self.session.send("Page.screencastFrameAck", {"sessionId": frame_session}).add_done_callback(_quiet)


PageListener = Callable[[str, CDPSession, dict[str, Any]], None]  # (target id, its side session, target info)


class PageWatcher:
    """The page targets of a browser of another process, each with a side session of its own.

    Its own CDP connection to `endpoint` (ws://… or http://host:port) follows the page targets
    (Target.setDiscoverTargets) and gives each one a session for the screencast, so it changes nothing
    the program driving that browser set up: no auto-attach, no download behaviour, no other domain.
    """

    def __init__(
        self,
        endpoint: str,
        on_page: PageListener,
        on_info: Callable[[dict[str, Any]], None],
        on_gone: Callable[[str], None],
        *,
        timeout: float = 10.0,
    ) -> None:
        self.endpoint = endpoint
        self.on_page, self.on_info, self.on_gone = on_page, on_info, on_gone
        self.timeout = timeout
        self.connection: Connection | None = None
        self.pages: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()  # the browser went

    async def start(self) -> PageWatcher:
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
        root.on("Target.targetDestroyed", self._on_destroyed)
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

    def _on_destroyed(self, params: dict[str, Any]) -> None:
        key = params.get("targetId", "")
        if key in self.pages:
            self.pages.discard(key)
            self.on_gone(key)

    def _on_target(self, params: dict[str, Any]) -> None:
        info = params.get("targetInfo") or {}
        if info.get("type") != "page":
            return
        key = info.get("targetId", "")
        if key in self.pages:
            self.on_info(info)
            return
        self.pages.add(key)
        task = asyncio.get_running_loop().create_task(self._attach(key, info))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _attach(self, key: str, info: dict[str, Any]) -> None:
        assert self.connection is not None
        try:
            session = await self.connection.attach_side_session(key, timeout=self.timeout)
        except (CDPEngineError, TimeoutError):
            self.pages.discard(key)
            return
        session.add_close_listener(lambda _reason: self._on_destroyed({"targetId": key}))
        self.on_page(key, session, info)


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
