"""One settle after actions: run the input, then wait for what it caused.

Every surface (element index, browser toolset, harness) settles through `settle()`, so the rule
lives once: a navigation the input started is awaited through the lifecycle watcher, then the
DOM must be quiet (SETTLE_SCRIPT: no mutation for SETTLE_QUIET_MS, at most SETTLE_MAX_MS),
then requests the input started get a bounded time to finish (they usually re-render on
arrival). A held dialog ends the wait at once: the renderer is paused until it is answered.
Every step has a deadline; nothing sleeps a fixed time. The SettleReport says what was
waited for and how long each phase took, for timings.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import TargetClosedError
from .lifecycle import LifecycleWatcher
from .liveness import unless_dialog

if TYPE_CHECKING:
    from .browser import Tab

__all__ = [
    "NETWORK_QUIET_MAX",
    "SETTLE_MAX_MS",
    "SETTLE_QUIET_MS",
    "SETTLE_SCRIPT",
    "NetworkTracker",
    "SettleReport",
    "dom_quiet",
    "settle",
]

SETTLE_QUIET_MS = 40  # DOM must be quiet this long after an action …
SETTLE_MAX_MS = 1000  # … but the page gets no longer than this to get there.
NETWORK_QUIET_MAX = 1.0  # seconds to wait for requests the action started
STOP_GRACE = 0.3  # seconds a stopped navigation gets to announce the download it turned into

# Resolves once the document has been free of mutations for `quiet` ms, or after `max` ms.
SETTLE_SCRIPT = """new Promise(resolve => {
  const quiet = %d, max = %d, start = performance.now(); let last = start;
  const mo = new MutationObserver(() => { last = performance.now(); });
  mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const check = () => { const now = performance.now();
    if (now - last >= quiet || now - start >= max) { mo.disconnect(); resolve(now - start); }
    else setTimeout(check, Math.max(1, quiet - (now - last))); };
  setTimeout(check, quiet);  // a timer, not requestAnimationFrame: rAF never fires in a background tab
})"""


@dataclass
class SettleReport:
    """What one settle waited for, and how long each phase took (ms)."""

    value: Any = None  # what the input awaitable returned
    waited_for: list[str] = field(default_factory=list)  # "navigation", "dom", "network", in order
    navigated: bool = False
    loaded: bool = False  # the navigation's new document reached the lifecycle point
    dialog: bool = False  # a held dialog ended the settle
    closed: bool = False  # the tab closed (or crashed) during the settle
    abandoned: bool = False  # the navigation missed the deadline and was stopped (Tab.stop_loading)
    input_ms: float = 0.0
    navigation_ms: float = 0.0
    dom_ms: float = 0.0
    network_ms: float = 0.0
    settle_ms: float = 0.0  # everything after the input

    def timings(self) -> dict[str, float]:
        """The phases as timing fields (for tab.last_timings and harness infos)."""
        return {
            "settle_ms": self.settle_ms,
            "settle_navigation_ms": self.navigation_ms,
            "settle_dom_ms": self.dom_ms,
            "settle_network_ms": self.network_ms,
        }


class NetworkTracker:
    """Requests in flight on a tab's main session (Network domain, enabled on first use)."""

    IGNORED_TYPES = frozenset({"WebSocket", "EventSource", "Ping", "CSPViolationReport"})

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.pending: set[str] = set()
        self.enabled = False

    @property
    def inflight(self) -> int:
        return len(self.pending)

    async def enable(self) -> None:
        if self.enabled:
            return
        self.enabled = True
        s = self.tab.session
        s.on("Network.requestWillBeSent", self._on_request)
        s.on("Network.loadingFinished", self._on_done)
        s.on("Network.loadingFailed", self._on_done)
        s.on("Page.frameNavigated", lambda p: None if p["frame"].get("parentId") else self.pending.clear())
        # Small buffers: the engine never reads bodies through this session.
        await s.send("Network.enable", {"maxTotalBufferSize": 1_000_000, "maxResourceBufferSize": 100_000})

    def _on_request(self, params: dict[str, Any]) -> None:
        if params.get("type") in self.IGNORED_TYPES or params.get("request", {}).get("url", "").startswith("data:"):
            return
        self.pending.add(params["requestId"])

    def _on_done(self, params: dict[str, Any]) -> None:
        if params["requestId"] in self.pending:
            self.pending.discard(params["requestId"])
            if not self.pending:
                self.tab.check_conditions()


async def dom_quiet(tab: Tab, quiet_ms: int = SETTLE_QUIET_MS, max_ms: int = SETTLE_MAX_MS) -> Any:
    """Wait in the page until its DOM had no mutation for `quiet_ms` (at most `max_ms`); the ms it took."""
    return await tab.evaluate(SETTLE_SCRIPT % (quiet_ms, max_ms), timeout=max_ms / 1000 + 2)


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def settle(
    tab: Tab,
    action: Awaitable[Any] | None = None,
    *,
    watcher: LifecycleWatcher | None = None,
    quiet_ms: int = SETTLE_QUIET_MS,
    max_ms: int = SETTLE_MAX_MS,
    wait_until: str = "load",
    load_timeout: float | None = None,
    network: NetworkTracker | None = None,
    network_max: float = NETWORK_QUIET_MAX,
    quiet_after_load: bool = True,
    dialog_ends: bool = True,
    stop_ends: bool = False,
    until: asyncio.Event | None = None,
    raise_closed: bool = True,
) -> SettleReport:
    """Run `action` (an input), then wait for the page to settle; the report says what was waited for.

    A lifecycle watcher is armed before the input (or pass one armed earlier; without an action and a
    watcher there is no navigation to wait for). Phases:
    - navigation: one the input requested or committed gets `load_timeout` (the browser's navigation
      timeout) to reach `wait_until`, and is stopped there (report.abandoned; a committed document
      stays, one that never committed never will); `stop_ends` lets the frame stopping to load end it (a download,
      a 204) and `until` is the caller's own end signal (a download began), given STOP_GRACE after a stop;
    - DOM quiet: SETTLE_SCRIPT with `quiet_ms` / `max_ms` (defaults 40 ms / 1000 ms), run from the
      input and, with `quiet_after_load`, again on the new document;
    - network: with a `network` tracker, requests in flight get up to `network_max` s, then DOM quiet.
    A held dialog ends the settle at once (`dialog_ends`). The tab closing during the navigation
    phase raises TargetClosedError unless `raise_closed` is off (then report.closed).
    """
    own = watcher is None and action is not None
    if own:
        watcher = LifecycleWatcher(tab)
    report = SettleReport()
    try:
        t0 = time.perf_counter()
        if action is not None:
            # The input's ack waits for its handlers: one that opens a held dialog answers only after it.
            if dialog_ends:
                finished, report.value = await unless_dialog(tab, action)
                report.dialog = not finished
            else:
                report.value = await action
        t_input = time.perf_counter()
        report.input_ms = (t_input - t0) * 1000
        try:
            if report.dialog:  # the renderer is paused: nothing more can settle until the answer
                return report
            await _settle_after(
                tab, report, watcher, quiet_ms=quiet_ms, max_ms=max_ms, wait_until=wait_until,
                load_timeout=load_timeout, network=network, network_max=network_max,
                quiet_after_load=quiet_after_load, dialog_ends=dialog_ends, stop_ends=stop_ends,
                until=until, raise_closed=raise_closed,
            )  # fmt: skip
        finally:
            report.settle_ms = (time.perf_counter() - t_input) * 1000
        return report
    finally:
        if own and watcher is not None:
            watcher.close()


async def _settle_after(
    tab: Tab,
    report: SettleReport,
    watcher: LifecycleWatcher | None,
    *,
    quiet_ms: int,
    max_ms: int,
    wait_until: str,
    load_timeout: float | None,
    network: NetworkTracker | None,
    network_max: float,
    quiet_after_load: bool,
    dialog_ends: bool,
    stop_ends: bool,
    until: asyncio.Event | None,
    raise_closed: bool,
) -> None:
    if tab.closed:
        report.closed = True
        return
    budget = max_ms / 1000 + 2

    def held() -> bool:
        return dialog_ends and tab.pending_dialog is not None

    t = time.perf_counter()
    quiet: asyncio.Future[Any] = asyncio.ensure_future(dom_quiet(tab, quiet_ms, max_ms))
    # Ends the first phase early: a held dialog, or a navigation the input started.
    early = asyncio.ensure_future(
        tab.wait_for_condition(lambda: held() or (watcher is not None and watcher.requested), budget)
    )
    futures = [quiet, early]
    try:
        await asyncio.wait({quiet, early}, return_when=asyncio.FIRST_COMPLETED, timeout=budget)
        if held():
            report.dialog = True
            return
        if watcher is not None and watcher.navigating:
            report.navigated = True
            report.waited_for.append("navigation")
            t = time.perf_counter()
            try:
                outcome = await watcher.wait(
                    wait_until, load_timeout, dialog_ends=dialog_ends, stop_ends=stop_ends, until=until,
                    raise_on_timeout=False,
                )  # fmt: skip
            except TargetClosedError:
                report.closed = True
                if raise_closed:
                    raise
                return
            finally:
                report.navigation_ms = (time.perf_counter() - t) * 1000
            report.loaded = outcome.reached
            if outcome.timed_out:
                # Abandoned at the settle's deadline: stopped, so it cannot jam the renderer (script and
                # snapshots wait behind a pending navigation) nor commit when its server answers later.
                report.abandoned = True
                await tab.stop_loading()
            if outcome.dialog:
                report.dialog = True
                return
            if outcome.stopped and until is not None and not until.is_set():
                # Chromium stops the navigation just before it announces the download.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(until.wait(), STOP_GRACE)
            if not quiet_after_load:
                return
            quiet.cancel()
            quiet = asyncio.ensure_future(dom_quiet(tab, quiet_ms, max_ms))
            futures.append(quiet)
            t = time.perf_counter()
        report.waited_for.append("dom")
        await asyncio.wait({quiet}, timeout=budget)
        report.dom_ms = (time.perf_counter() - t) * 1000
        # Bounded network quiet: requests the action started (fetch/XHR) usually re-render on arrival.
        if network is not None and network.inflight and not held():
            report.waited_for.append("network")
            t = time.perf_counter()
            with contextlib.suppress(TimeoutError):
                await tab.wait_for_condition(lambda: not network.inflight or held(), network_max)
            if held():
                report.dialog = True
            else:
                quiet = asyncio.ensure_future(dom_quiet(tab, quiet_ms, max_ms))
                futures.append(quiet)
                await asyncio.wait({quiet}, timeout=budget)
            report.network_ms = (time.perf_counter() - t) * 1000
    finally:
        for future in futures:
            if not future.done():
                future.cancel()
            future.add_done_callback(_retrieve)
