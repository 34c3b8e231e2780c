"""One tab's screencast while someone watches: Page.startScreencast frames, each acknowledged, newest only.

Chromium sends the next frame only after the last one was acknowledged, so the ack paces the stream: it
is sent at once, or as soon as `max_fps` allows, and never waits for a viewer (a slow viewer misses frames,
it never holds the page or the agent back). Nothing is started until a viewer connects (view/live.py).

A running screencast makes Chromium draw every frame of the page for real, which an animated page pays
for in every command of the agent (benchmarks/live_view.py measured 1.8x on a step with an acknowledged-
nothing screencast running). So the view pauses the screencast while a call of the agent runs
(core/activity.running()) and resumes it once the engine has been idle a moment; the call's own result
reaches the viewer as the state's screenshot when it has one (view/live.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError

log = logging.getLogger("cdp_engine.view")

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


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
