"""Screencasts for a live view: one page's frames, taken one at a time; pages followed over CDP.

Frames come from Page.startScreencast, each acknowledged, and nothing is started until a viewer connects
(view/live.py, the one user). A viewer never holds a capture back: frames go out as they come, and a slow
viewer misses some (it keeps only the newest per tab).

A screencast that keeps running makes Chromium draw every frame of the page for it, which an animated
page pays for in the agent's commands (measured: 1.8x per step with one running even when no frame was
acknowledged; 1.7x after a think pause with a 1280 px, 10 fps one; benchmarks/live_view.py). So a capture
here is one frame: start, take the frame, stop, and the next one `1 / max_fps` later (5 fps, 800x500 by
default: 1.02x in the same run); and the view pauses the captures while a call of the agent runs
(util/activity.py `running()`), showing the state's own screenshot for the call instead.
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
    """One page's frames for a live view, one capture at a time: start, take the frame, stop, and again.

    Each frame is taken by a Page.startScreencast that is stopped (and the frame acknowledged) as soon as
    the frame arrives; the next one starts `1 / max_fps` later. Between captures no screencast runs, so
    Chromium does not draw every frame of an animated page for it, and a call of the agent that begins
    finds at most one capture in flight. A page that did not change sends the same picture, which is not
    passed on. `pause()` holds the captures while a call runs; `resume()` takes one at once.
    """

    def __init__(
        self,
        session: CDPSession,
        key: str,
        on_frame: FrameListener,
        *,
        max_fps: float = 5.0,
        quality: int = 60,
        max_size: tuple[int, int] = (800, 500),
    ) -> None:
        self.session = session
        self.key = key
        self.on_frame = on_frame
        self.interval = 1.0 / max_fps if max_fps > 0 else 0.0
        self.params = {"format": "jpeg", "quality": quality, "maxWidth": max_size[0], "maxHeight": max_size[1]}
        self.frames = 0  # frames received (tests and the benchmark read it)
        self.paused = False
        self._off: Callable[[], None] | None = None
        self._capturing = False  # a Page.startScreencast is out and its frame has not come yet
        self._next: asyncio.TimerHandle | None = None
        self._last_data = ""

    @property
    def running(self) -> bool:
        return self._off is not None

    async def start(self, *, paused: bool = False, timeout: float = 5.0) -> None:
        """Listen for frames and, unless `paused` (a call is running), take the first one."""
        if self._off is not None:
            return
        self._off = self.session.on("Page.screencastFrame", self._on_frame)
        self.paused = paused
        if not paused:
            self._capture()

    async def stop(self, timeout: float = 2.0) -> None:
        if self._off is None:
            return
        self._off()
        self._off = None
        self._cancel_next()
        if self._capturing and not self.session.closed:
            self._capturing = False
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await self.session.send("Page.stopScreencast", timeout=timeout)

    def pause(self) -> None:
        """No capture while the agent works (a stop goes out now, ahead of the call's own commands)."""
        if self._off is None or self.paused:
            return
        self.paused = True
        self._cancel_next()
        self._stop_capture()

    def resume(self) -> None:
        """Captures again, the first at once."""
        if self._off is None or not self.paused:
            return
        self.paused = False
        self._capture()

    def _cancel_next(self) -> None:
        if self._next is not None:
            self._next.cancel()
            self._next = None

    def _capture(self) -> None:
        self._next = None
        if self._off is None or self.paused or self._capturing or self.session.closed:
            return
        self._capturing = True
        self.session.send("Page.startScreencast", self.params).add_done_callback(self._started)

    def _started(self, future: asyncio.Future[Any]) -> None:
        if future.cancelled() or future.exception() is not None:
            self._capturing = False
            log.debug("screencast of %s did not start: %s", self.key, None if future.cancelled() else future.exception())

    def _stop_capture(self) -> None:
        if self._capturing and not self.session.closed:
            self._capturing = False
            self.session.send("Page.stopScreencast").add_done_callback(_quiet)

    def _on_frame(self, params: dict[str, Any]) -> None:
        self.frames += 1
        self._stop_capture()  # first, so Chromium takes no second frame for the ack below
        if not self.session.closed:
            self.session.send("Page.screencastFrameAck", {"sessionId": params.get("sessionId")}).add_done_callback(_quiet)
        if self._off is not None and not self.paused and self._next is None:
            self._next = asyncio.get_running_loop().call_later(self.interval, self._capture)
        data = params.get("data", "")
        if data == self._last_data:
            return
        self._last_data = data
        try:
            self.on_frame(self.key, data, params.get("metadata") or {})
        except Exception:
            log.exception("frame listener failed")


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
