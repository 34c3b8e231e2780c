"""One lifecycle watcher: the single home of "wait for the main frame to navigate and load".

Modelled on Puppeteer's LifecycleWatcher. A watcher is armed BEFORE the navigation or the
action that may start one, so it knows the document (loader) that was there before and sees
every signal that follows: a requested or started navigation, a new loader, a same-document
navigation, the lifecycle events (commit, DOMContentLoaded, load, networkAlmostIdle,
networkIdle), a frame that stopped loading without a new document (a download, a 204). A
held dialog ends a wait at once (the renderer is paused until someone answers it), a closed
or crashed tab fails it at once, and every wait has one deadline.

Tab.goto/back/forward/reload, the settle after actions (settle.py) and every surface's
"wait for load" use it; nobody else polls frames for lifecycle events.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, NavigationTimeoutError, TargetClosedError
from .event_records import Dialog, Frame

__all__ = [
    "LIFECYCLE_NAMES",
    "LifecycleResult",
    "LifecycleWatcher",
    "WaitUntil",
    "is_loaded",
    "wait_loaded",
]



class Tab(Protocol):
    """What a watcher needs of a tab (core.browser.Tab is one); a Protocol, so that the tab's module can
    use the watcher without this module importing it back."""

    session: CDPSession
    url: str
    target_id: str
    main_frame_id: str
    frames: dict[str, Frame]
    pending_dialog: Dialog | None
    closed: bool
    crashed: bool

    @property
    def navigation_timeout(self) -> float: ...

    async def wait_for_condition(self, predicate: Callable[[], bool], timeout: float) -> None: ...

    def check_conditions(self) -> None: ...


WaitUntil = Literal["commit", "domcontentloaded", "load", "networkidle", "networkalmostidle"]
# The wait names callers use, mapped to the Page.lifecycleEvent names Chromium sends.
LIFECYCLE_NAMES: dict[str, str] = {
    "domcontentloaded": "DOMContentLoaded",
    "load": "load",
    "networkidle": "networkIdle",
    "networkalmostidle": "networkAlmostIdle",
}
# Page.frameStartedNavigating types that keep the document.
SAME_DOCUMENT_TYPES = frozenset({"sameDocument", "historySameDocument"})


def check_wait_until(wait_until: str) -> None:
    """ValueError for a wait name the watcher does not know."""
    if wait_until != "commit" and wait_until not in LIFECYCLE_NAMES:
        raise ValueError(f"wait_until must be one of commit, {', '.join(LIFECYCLE_NAMES)}; not {wait_until!r}")


@dataclass
class LifecycleResult:
    """How a wait ended: which of its signals it saw, and how long it took."""

    reached: bool = False  # the new document got to the lifecycle point
    navigated: bool = False  # a navigation was requested or a new document committed
    same_document: bool = False  # the main frame navigated within its document
    stopped: bool = False  # the main frame stopped loading without reaching the point (download, 204)
    dialog: bool = False  # a held dialog ended the wait
    ended: bool = False  # the caller's own `until` event ended it
    timed_out: bool = False
    elapsed_ms: float = 0.0


class LifecycleWatcher:
    """Watches the tab's main frame from the moment it is built until close() (or the `with` block ends).

    `loading_counts`: Page.frameStartedLoading also counts as a navigation start (the MCP surface's rule
    for a pressed Enter); by default only frameRequestedNavigation, a cross-document
    frameStartedNavigating or a new loader do.
    """

    def __init__(self, tab: Tab, *, loading_counts: bool = False) -> None:
        self.tab = tab
        main = tab.frames.get(tab.main_frame_id)
        self.loader_before: str = main.loader_id if main else ""
        self.url_before: str = tab.url
        self.requested = False
        self.stopped = False
        self.same_document = False
        self.expected_loader: str | None = None
        self._seen_expected = False
        self._loading_counts = loading_counts
        self.t0 = time.perf_counter()
        s = tab.session
        self._unsubscribe: list[Callable[[], None]] = [
            s.on("Page.frameRequestedNavigation", self._on_requested),
            s.on("Page.frameStartedNavigating", self._on_started_navigating),
            s.on("Page.frameStartedLoading", self._on_started_loading),
            s.on("Page.frameStoppedLoading", self._on_stopped),
            s.on("Page.navigatedWithinDocument", self._on_same_document),
        ]

    # ----- signals ----------------------------------------------------------------------------

    def _is_main(self, params: dict[str, Any]) -> bool:
        return params.get("frameId") == self.tab.main_frame_id

    def _mark_requested(self) -> None:
        if not self.requested:
            self.requested = True
            self.tab.check_conditions()

    def _on_requested(self, params: dict[str, Any]) -> None:
        if self._is_main(params):
            self._mark_requested()

    def _on_started_navigating(self, params: dict[str, Any]) -> None:
        if self._is_main(params) and params.get("navigationType") not in SAME_DOCUMENT_TYPES:
            self._mark_requested()

    def _on_started_loading(self, params: dict[str, Any]) -> None:
        if self._loading_counts and self._is_main(params):
            self._mark_requested()

    def _on_stopped(self, params: dict[str, Any]) -> None:
        if self._is_main(params) and self.requested and not self.stopped:
            self.stopped = True
            self.tab.check_conditions()

    def _on_same_document(self, params: dict[str, Any]) -> None:
        # The tab's own listener (registered first) has already updated its url, and checked the waits
        # before this flag was set: check them again, or a same-document wait runs to its deadline.
        if self._is_main(params) and not self.same_document:
            self.same_document = True
            self.tab.check_conditions()

    def expect(self, loader_id: str) -> None:
        """The navigation's own document (Page.navigate answered with it): only it, or a client-side
        redirect that replaced it, counts as loaded."""
        self.expected_loader = loader_id

    # ----- state ------------------------------------------------------------------------------

    @property
    def committed(self) -> bool:
        """A new main document committed since the watcher was armed."""
        frame = self.tab.frames.get(self.tab.main_frame_id)
        if frame is None:
            return False
        if self.expected_loader is not None:
            return self._seen_expected or frame.loader_id == self.expected_loader
        return bool(self.loader_before) and frame.loader_id != self.loader_before

    @property
    def navigating(self) -> bool:
        """A navigation was requested or started, or a new document committed."""
        return self.requested or self.committed

    def reached(self, wait_until: str) -> bool:
        """The new main document got to `wait_until` (commit: it exists)."""
        frame = self.tab.frames.get(self.tab.main_frame_id)
        if frame is None:
            return False
        if self.expected_loader is not None:
            if frame.loader_id == self.expected_loader:
                self._seen_expected = True
            elif not self._seen_expected:
                return False
            # else: a client-side redirect replaced our document; the newest one counts once it gets there
        elif frame.loader_id == self.loader_before:
            return False
        return wait_until == "commit" or LIFECYCLE_NAMES[wait_until] in frame.lifecycle

    # ----- waiting ----------------------------------------------------------------------------

    async def wait(
        self,
        wait_until: str = "load",
        timeout: float | None = None,
        *,
        same_document: bool = False,
        stop_ends: bool = False,
        until: asyncio.Event | None = None,
        dialog_ends: bool = True,
        raise_on_timeout: bool = True,
        url: str | None = None,
    ) -> LifecycleResult:
        """Wait for the new main document to reach `wait_until`, within `timeout` (the browser's
        navigation timeout by default).

        Also ends the wait: a same-document navigation (`same_document`), the frame stopping to load
        without a new document (`stop_ends`), the caller's `until` event (a download began), a held
        dialog (`dialog_ends`, on by default). NavigationTimeoutError at the deadline unless
        `raise_on_timeout` is off; TargetClosedError at once when the tab closes or crashes.
        """
        check_wait_until(wait_until)
        tab = self.tab
        timeout = tab.navigation_timeout if timeout is None else timeout
        t0 = time.perf_counter()
        result = LifecycleResult()

        def done() -> bool:
            if self.reached(wait_until):
                result.reached = True
            elif dialog_ends and tab.pending_dialog is not None:
                result.dialog = True
            elif same_document and self.same_document and not self.committed:
                result.same_document = True
            elif stop_ends and self.stopped:
                result.stopped = True
            elif until is not None and until.is_set():
                result.ended = True
            else:
                return False
            return True

        if tab.closed or tab.crashed:
            raise TargetClosedError(f"tab {tab.target_id} is closed")
        condition = asyncio.ensure_future(tab.wait_for_condition(done, timeout))
        waiters: set[asyncio.Future[Any]] = {condition}
        if until is not None:
            waiters.add(asyncio.ensure_future(until.wait()))
        try:
            finished, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            if condition in finished:
                try:
                    condition.result()
                except TimeoutError:
                    result.timed_out = True
            elif not done():  # `until` was set: record it
                result.ended = True
        finally:
            for waiter in waiters:
                if not waiter.done():
                    waiter.cancel()
                waiter.add_done_callback(_retrieve)
        result.navigated = self.navigating
        result.same_document = result.same_document or (self.same_document and not self.committed)
        result.elapsed_ms = (time.perf_counter() - t0) * 1000
        if result.timed_out and raise_on_timeout:
            raise NavigationTimeoutError(url if url is not None else tab.url, wait_until, timeout)
        return result

    def close(self) -> None:
        """Stop watching (idempotent)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    def __enter__(self) -> LifecycleWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a finished helper's exception as seen (it was reported through the wait, or not needed)."""
    if not future.cancelled():
        future.exception()


def is_loaded(tab: Tab, wait_until: str = "load", *, missing: bool = False) -> bool:
    """The current main document has reached `wait_until` (`missing`: the answer when there is no
    main frame yet)."""
    frame = tab.frames.get(tab.main_frame_id)
    if frame is None:
        return missing
    return wait_until == "commit" or LIFECYCLE_NAMES[wait_until] in frame.lifecycle


async def wait_loaded(
    tab: Tab, timeout: float, wait_until: str = "load", *, missing: bool = False, dialog_ends: bool = False
) -> bool:
    """Up to `timeout` for the current main document to reach `wait_until`; never raises.

    For a page already navigated to (goto to DOMContentLoaded, then a bounded grace for `load`).
    True when it got there; False on timeout, a closed tab, or (`dialog_ends`) a held dialog.
    """
    check_wait_until(wait_until)

    def done() -> bool:
        return is_loaded(tab, wait_until, missing=missing) or (dialog_ends and tab.pending_dialog is not None)

    if tab.closed:
        return False
    with contextlib.suppress(TimeoutError, CDPEngineError):
        await tab.wait_for_condition(done, timeout)
    return is_loaded(tab, wait_until, missing=missing)
