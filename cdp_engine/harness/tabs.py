"""The tabs of an episode: the ones the environment opened and the popups its pages opened, which
one is active, and the episode's init scripts on each (popups included: added when the tab
attaches, before it runs). After each step a popup becomes active and a closed active tab gives way."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from ..core.browser import Browser, BrowserContext
from ..core.lifecycle import WaitUntil, wait_loaded
from ..core.settle import SettleReport, dom_quiet
from ..core.tab import Tab
from ..errors import CDPEngineError
from ..index.element_index import ElementIndex

if TYPE_CHECKING:
    from ..cdp.connection import CDPSession
    from .tasks import TaskSpec

__all__ = ["POPUP_WAIT", "EpisodeTabs", "Screenshot", "StepResult", "quiesce"]

POPUP_WAIT = 3.0  # s a step waits for a window its page asked for to appear
Screenshot = bool | Literal["png", "jpeg"]
StepResult = tuple[dict[str, Any], float]  # the state after a call, and the ms its capture took


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def quiesce(tab: Tab, timeout: float) -> None:
    """Wait for the main document's load, then for the DOM to be quiet (the engine's settle rule)."""
    await wait_loaded(tab, timeout)
    with contextlib.suppress(CDPEngineError, TimeoutError):
        await dom_quiet(tab)


async def load_page(
    tab: Tab, url: str, task: TaskSpec, wait_until: WaitUntil, screenshot: Screenshot
) -> tuple[dict[str, float], dict[str, Any]]:
    """A reset's page: navigated to the environment's `wait_until` (its readiness: never waited past it),
    given the settle's look at the DOM, set up (the task's setup_js) and captured; (phase ms, its state).

    Phases: navigation_ms (goto to wait_until), ready_ms (the DOM look, and setup_js with the load and look
    after it), capture_ms (the state)."""
    t0 = time.perf_counter()
    await tab.goto(url, wait_until=wait_until)
    t_navigated = time.perf_counter()
    with contextlib.suppress(CDPEngineError, TimeoutError):
        await dom_quiet(tab)
    if task.setup_js:
        await tab.evaluate(task.setup_js)
        await quiesce(tab, tab.navigation_timeout)
    t_ready = time.perf_counter()
    state = await ElementIndex.of(tab).state(screenshot=screenshot)
    phases = {
        "navigation_ms": (t_navigated - t0) * 1000,
        "ready_ms": (t_ready - t_navigated) * 1000,
        "capture_ms": (time.perf_counter() - t_ready) * 1000,
    }
    return phases, state


class EpisodeTabs:
    """One environment's episode tabs, in opening order. `begin` and `end` bracket an episode;
    `new_step` and `follow` bracket each step. `close` stops listening to the browser."""

    def __init__(
        self,
        browser: Browser,
        capture_format: Callable[[], Screenshot],
        settle_listener: Callable[[SettleReport], None],
        background: Callable[[Awaitable[Any]], asyncio.Future[Any]],
    ) -> None:
        self.browser = browser
        self.capture_format = capture_format
        self.settle_listener = settle_listener  # added to every tab's element index (phase timings)
        self.background = background
        self.context: BrowserContext | None = None
        self.tabs: list[Tab] = []
        self.active: Tab | None = None
        self.scripts: list[str] = []  # the episode's init scripts
        # Popups of the current step: tabs of the context the env did not open itself (by target id, from
        # the moment they attach), and how many windows the pages asked for (the tab's window_open events).
        self._popups: list[str] = []
        self._popup_attached = asyncio.Event()
        self._window_opens = 0
        self._opening = False  # set while the env opens a tab itself
        self._reactivations: set[asyncio.Future[Any]] = set()  # openers brought back to the front
        self.interactive: str | None = None  # the interactive set of every episode tab (None: the tab's own)
        browser.connection.on_session_attached.append(self._on_attached)
        self._unsubscribe_tab = browser.on_tab(self._on_tab)

    def begin(self, context: BrowserContext, tab: Tab, scripts: list[str]) -> None:
        """A new episode in `context`, its first tab active."""
        self.context, self.scripts = context, scripts
        self.adopt(tab)
        self.active = tab

    def end(self) -> BrowserContext | None:
        """Forget the episode's tabs; returns its context (for the caller to dispose)."""
        context, self.context = self.context, None
        self.tabs, self.active = [], None
        self.scripts = []
        return context

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.browser.connection.on_session_attached.remove(self._on_attached)
        self._unsubscribe_tab()

    def _on_attached(self, session: CDPSession, params: dict[str, Any]) -> None:
        """Per-context init scripts, sent before the tab's own setup and before it runs any script."""
        ctx = self.context
        info = params.get("targetInfo", {})
        if ctx is None or info.get("type") != "page" or info.get("browserContextId") != ctx.id:
            return
        if session.parent is not self.browser.connection.root:
            return
        tab = self.browser.tabs.get(info["targetId"])  # the Browser made it in its own attach callback
        if tab is not None:
            for source in self.scripts:  # sent now, so they go out before the tab's setup lets it run
                tab.add_init_script_nowait(source).add_done_callback(_quiet)
        if not self._opening:
            self._popups.append(info["targetId"])
            self._popup_attached.set()

    def _on_tab_event(self, kind: str, _payload: Any) -> None:
        if kind == "window_open":
            self._window_opens += 1

    def _on_tab(self, tab: Tab) -> None:
        ctx = self.context
        if ctx is None or tab.context_id != ctx.id or tab in self.tabs:
            return
        self.adopt(tab)
        if tab.target_id in self._popups:
            # The popup's tab hides its opener, and a hidden page runs no animation frames, which the
            # settle after the opener's click waits for: show the opener again until the step ends.
            opener = self.active
            if opener is not None and not opener.closed:
                self._reactivations.add(self.background(opener.activate()))

    async def new_tab(self) -> Tab:
        """A tab the environment opens itself (not a popup) in the episode's context."""
        assert self.context is not None
        self._opening = True
        try:
            tab = await self.context.new_tab()
        finally:
            self._opening = False
        self.adopt(tab)
        return tab

    def adopt(self, tab: Tab) -> None:
        if tab not in self.tabs:
            self.tabs.append(tab)
            tab.add_listener(self._on_tab_event)
        index = ElementIndex.of(tab)
        index.add_settle_listener(self.settle_listener)  # added once per tab
        if self.interactive is not None:
            index.interactive = self.interactive

    @property
    def open_tabs(self) -> list[Tab]:
        """The episode's open tabs, in opening order."""
        self.tabs = [t for t in self.tabs if not t.closed]
        return self.tabs

    async def info(self, title: str | None = None) -> list[dict[str, Any]]:
        """The open tabs: index, url, title, active. The active tab's title is read from its document
        (Chromium reports titles a little late), or is `title` when the caller has it from the state it just
        captured (the snapshot's title: no round trip); the others' are as Chromium last reported them."""
        active = self.active
        if title is None and active is not None and not active.closed and not active.renderer_hung:  # a hung one never answers
            with contextlib.suppress(CDPEngineError, TimeoutError):
                title = await active.evaluate("document.title", timeout=2.0)
        return [
            {
                "index": i,
                "url": t.url,
                "title": title if t is self.active and isinstance(title, str) else t.title,
                "active": t is self.active,
            }
            for i, t in enumerate(self.open_tabs)
        ]

    @property
    def active_closed(self) -> bool:
        return self.active is None or self.active.closed

    def new_step(self) -> None:
        """Forget the last step's popups."""
        self._popups.clear()
        self._popup_attached.clear()
        self._window_opens = 0

    async def _step_popups(self) -> list[Tab]:
        """The tabs the pages opened during this step, once ready (a window asked for is awaited a while)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + POPUP_WAIT
        while self._window_opens > len(self._popups) and loop.time() < deadline:
            self._popup_attached.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._popup_attached.wait(), deadline - loop.time())
        popups = []
        for target_id in self._popups:
            tab = self.browser.tabs.get(target_id)
            if tab is None:
                continue
            await asyncio.wait({tab.ready}, timeout=self.browser.navigation_timeout)  # never cancels ready
            if (
                tab.ready.done()
                and not tab.ready.cancelled()
                and tab.ready.exception() is None
                and not tab.closed
            ):
                self.adopt(tab)
                popups.append(tab)
        self._popups.clear()
        return popups

    async def follow(self) -> StepResult | None:
        """After a step: a popup the page opened becomes active; a closed active tab gives way."""
        popups = await self._step_popups()
        target: Tab | None = None
        if popups:
            target = popups[-1]
        elif self.active_closed:
            remaining = self.open_tabs
            target = remaining[-1] if remaining else await self.new_tab()
        if target is None:
            return None
        self.active = target
        if self._reactivations:  # an opener brought to the front must not end up in front of its popup
            await asyncio.wait(self._reactivations, timeout=5.0)
            self._reactivations.clear()
        with contextlib.suppress(CDPEngineError):
            await target.activate()
        await quiesce(target, 10.0)
        t = time.perf_counter()
        state = await ElementIndex.of(target).state(screenshot=self.capture_format())
        return state, (time.perf_counter() - t) * 1000

    async def switch(self, target: Tab) -> StepResult:
        """Make target the active tab; its state."""
        self.active = target
        with contextlib.suppress(CDPEngineError):
            await target.activate()
        t = time.perf_counter()
        state = await ElementIndex.of(target).state(screenshot=self.capture_format())
        return state, (time.perf_counter() - t) * 1000
