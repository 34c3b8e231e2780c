"""The episode context pool: a fresh browser context with one blank tab per episode, the next one
prepared while the current episode runs (a new context needs a new renderer process, the one slow
part of a reset), and old contexts disposed in the background once the new episode's page is up (a
disposal keeps Chromium's browser process busy: during the next page's load it slows that load)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable
from typing import Any

from ..core.browser import Browser, BrowserContext
from ..core.tab import Tab
from ..errors import CDPEngineError

__all__ = ["ContextPool"]

log = logging.getLogger("cdp_engine")


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class ContextPool:
    """Contexts for one environment's episodes; `close()` waits for everything still running."""

    def __init__(self, browser: Browser, storage_state: dict[str, Any] | None = None) -> None:
        self.browser = browser
        self.storage_state = storage_state  # checked logins loaded into every episode's context
        self.last_teardown_ms = 0.0  # how long the last disposal took
        self._spare: asyncio.Future[tuple[BrowserContext, Tab]] | None = None
        self._running: set[asyncio.Future[Any]] = set()

    async def blank(self) -> tuple[BrowserContext, Tab]:
        """A fresh context with one blank tab: the part of a reset that costs a renderer process."""
        context = await self.browser.new_context(storage_state=self.storage_state)
        try:
            tab = await self.browser.new_tab(context=context)
        except BaseException:
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await context.close()
            raise
        return context, tab

    async def take(self) -> tuple[BrowserContext, Tab]:
        """The spare made during the last episode when it is good, else a new one."""
        spare, self._spare = self._spare, None
        if spare is not None:
            try:
                context, tab = await spare
                if not tab.closed and not context.closed:
                    return context, tab
                self.dispose(context)
            except (CDPEngineError, TimeoutError) as exc:
                log.debug("spare context failed: %s", exc)
        return await self.blank()

    def dispose(self, context: BrowserContext | None) -> None:
        """Dispose a context in the background (close() waits for every disposal); None: nothing to do."""
        if context is None:
            return

        async def dispose() -> None:
            t = time.perf_counter()
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await context.close()
            self.last_teardown_ms = (time.perf_counter() - t) * 1000

        self.background(dispose())

    def background(self, coro: Awaitable[Any]) -> asyncio.Future[Any]:
        """Run coro without waiting for it; close() waits for what is still running."""
        task = asyncio.ensure_future(coro)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        task.add_done_callback(_quiet)
        return task

    def prepare(self) -> None:
        """Start the next episode's context now (after a reset: its renderer start would slow that load)."""
        self._spare = asyncio.ensure_future(self.blank())

    async def close(self) -> None:
        """Dispose the spare, then wait for every disposal and background task."""
        spare, self._spare = self._spare, None
        if spare is not None:
            with contextlib.suppress(CDPEngineError, TimeoutError):
                context, _tab = await spare
                self.dispose(context)
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
