"""One settle after actions: arm, run the input, then wait only for what the input caused.

Every surface (element index, browser toolset, harness) settles through `settle()`, so the rule
lives once (docs/protocol.md, "Settle", docs/architecture.md). Before the input an observer in the engine's
isolated world of each frame document is armed (it counts DOM mutations, telling apart the ones made
while a trusted input event was dispatched, and notes the animations already running), the request
tracker marks where it is, and a lifecycle watcher listens. The input's acknowledgement comes once
the page's handlers for it ran. Then:

- changed at once (the handlers changed the DOM): that is the input's effect, no wait for more;
- nothing changed at once: the page gets `allowance_ms` (0: one task turn, so microtasks and
  zero-delay timers the handlers set have run; a Chromium with DeferRendererTasksAfterInput, which a
  launched one is not, runs that turn only after the frame it draws for a click or a key press); a
  longer timer is not waited for;
- changes after that (a timer's render, a ticker the input started): the quiet window: the settle
  ends once none came for `quiet_ms`, at most `max_ms` (then `deadline` is reported). A page that
  was changing by itself when armed (three changes of its own within 100 ms, outside any input and
  any settle; one within three quiet windows on a page observed for less than 100 ms; or a last look that
  ran to its deadline) is not waited for that way: they are not the input's;
- a finite CSS transition or animation the input started, of a property that shows or moves an
  element (opacity, visibility, transform, size, position): until it ends (at most `max_ms`);
- a wheel over something that can scroll that way: until the scroll ends (scrollend);
- a navigation the input requested or committed: the lifecycle watcher, to the profile's `wait_until`;
  the new document then gets a look of its own (SettleProfile.look_after_load): a task turn, the quiet
  window if it changes;
- requests started after the arming (fetch, XHR, images; not WebSocket, EventSource, beacons): until
  they finish, at most `network_max`, then `response_ms` for their answers' first change.
The caller's next read (`speculative`, the state capture) may be sent right behind the first look, and
again behind the look at the caused requests' answers: the renderer runs it after the look, so when that
look ended within its own call (the change it looks for was there already) and nothing else is to be
waited for, its result is the read after the settle, one round trip sooner (report.speculated). When the
look waited (a task turn, a quiet window) the read ran before it ended: it still stands when the change
probe's key each look ended with (LOOK_FUNCTION's `key`) is the key the read was taken at
(`Speculation.stands`), since nothing the state depends on changed in between. Otherwise it is awaited,
dropped, and the caller reads again.
A held dialog ends the settle at once (the renderer is paused until it is answered). Every wait has
a deadline and nothing sleeps a fixed time; the SettleReport says what was waited for, how long each
phase took, whether a wait ran to its deadline, and with which knobs (SettleOptions).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, TargetClosedError
from .inflight import NetworkTracker
from .lifecycle import LifecycleWatcher
from .liveness import unless_dialog
from .settle_page import ARM_FULL, ARM_FUNCTION, DISARM_FUNCTION, LOOK_FULL, LOOK_FUNCTION, OBSERVE_SCRIPT
from .worlds import Worlds

if TYPE_CHECKING:
    from .tab import Tab

__all__ = [
    "ARM_FUNCTION",
    "GUARDED_TOOL_CALL",
    "LOOK_FUNCTION",
    "NETWORK_QUIET_MAX",
    "SETTLE_ALLOWANCE_MS",
    "SETTLE_MAX_MS",
    "SETTLE_QUIET_MS",
    "SETTLE_RESPONSE_MS",
    "STATE",
    "TOOL_CALL",
    "Arming",
    "NetworkTracker",
    "SettleOptions",
    "SettleProfile",
    "SettleReport",
    "Speculation",
    "dom_quiet",
    "observe",
    "settle",
]

SETTLE_ALLOWANCE_MS = 0  # after the input: one task turn for what its handlers scheduled
SETTLE_QUIET_MS = 10  # changes that continue past the input's own task must pause this long …
SETTLE_MAX_MS = 1000  # … and the page gets no longer than this to get there (animations too)
SETTLE_RESPONSE_MS = 10  # after the caused requests finished: the time their answers get to change the page
NETWORK_QUIET_MAX = 1.0  # seconds to wait for requests the action started
STOP_GRACE = 0.3  # seconds a stopped navigation gets to announce the download it turned into
ARM_TIMEOUT = 2.0  # seconds for arming a frame's observer (a renderer that does not answer is not armed)


@dataclass(frozen=True)
class SettleOptions:
    """The settle's knobs (module docstring, docs/protocol.md, "Settle"); per tab with `use`, else the defaults."""

    allowance_ms: float = SETTLE_ALLOWANCE_MS
    quiet_ms: float = SETTLE_QUIET_MS
    max_ms: float = SETTLE_MAX_MS
    response_ms: float = SETTLE_RESPONSE_MS
    network_max: float = NETWORK_QUIET_MAX  # seconds

    @classmethod
    def of(cls, tab: Tab) -> SettleOptions:
        """The tab's options (the defaults unless `use` set others)."""
        return tab.extension(cls, cls)

    def use(self, tab: Tab) -> None:
        """Make these the options of every settle on the tab, whichever surface acts."""
        tab.extensions[SettleOptions] = self


@dataclass(frozen=True)
class SettleProfile:
    """How a caller takes what its input may bring besides DOM changes: a navigation, a held dialog, the tab
    closing. One named profile per kind of caller (STATE, TOOL_CALL, GUARDED_TOOL_CALL) instead of each
    spelling the flags; the rule of the settle is the same for all of them (module docstring).

    `look_after_load`: the new document after a navigation gets its own look (and its requests are waited
    for); `dialog_ends`: a held dialog ends the settle (else the caller's own guard answers it while the input
    waits); `stop_ends`: a navigation that stops without a new document (a download, a 204) ends it;
    `raise_closed`: the tab closing raises TargetClosedError (else report.closed); `wait_until`: the
    lifecycle point a navigation is waited for to."""

    name: str
    look_after_load: bool = True
    dialog_ends: bool = True
    stop_ends: bool = False
    raise_closed: bool = True
    wait_until: str = "load"


# The state after an action (the element index, the harness through it): the new document is read as it loaded.
STATE = SettleProfile("state")
# A tool's result (the browser toolset): the next read looks at the new document itself; a download or a
# stopped navigation ends the wait; a closed tab is the result, not an exception.
TOOL_CALL = SettleProfile("tool_call", look_after_load=False, stop_ends=True, raise_closed=False)
# A tool call under a modal guard (MCP): a dialog the input opens is the guard's to report and answer.
GUARDED_TOOL_CALL = SettleProfile("guarded_tool_call", look_after_load=False, dialog_ends=False, raise_closed=False)


@dataclass(frozen=True)
class Speculation:
    """The caller's read after the settle, sent behind its first look (module docstring). `stands(result,
    keys)`: whether a result read while a look still waited is the read after it, given the change probe's key
    each look ended with, by (session id, execution context id) of its frame document."""

    read: Callable[[], Awaitable[Any]]
    stands: Callable[[Any, Mapping[tuple[str, int], str]], bool] | None = None


@dataclass
class SettleReport:
    """What one settle waited for, and how long each phase took (ms)."""

    value: Any = None  # what the input awaitable returned
    speculated: Any = None  # the `speculative` read's result, when it is the read after the settle
    speculated_after: str = ""  # the look that read was sent behind: "input" (or "now"), or "response"
    waited_for: list[str] = field(default_factory=list)  # "navigation", "dom", "network", in order
    options: SettleOptions = field(default_factory=SettleOptions)
    changed: bool = False  # the DOM changed after the arming (or during a look without one)
    continued: bool = False  # changes went on past the input's own task: the quiet window ran
    deadline: bool = False  # a wait ran to its deadline (changes never paused, requests never ended)
    navigated: bool = False
    loaded: bool = False  # the navigation's new document reached the lifecycle point
    dialog: bool = False  # a held dialog ended the settle
    closed: bool = False  # the tab closed (or crashed) during the settle
    abandoned: bool = False  # the navigation missed the deadline and was stopped (Tab.stop_loading)
    requests: int = 0  # requests the input started that the settle waited for
    arm_ms: float = 0.0
    input_ms: float = 0.0
    navigation_ms: float = 0.0
    dom_ms: float = 0.0
    network_ms: float = 0.0
    settle_ms: float = 0.0  # everything after the input (the speculative read that stood excluded)
    read_ms: float = 0.0  # the wait for the speculative read that stood

    def timings(self) -> dict[str, float]:
        """The phases, the flags (1.0 / 0.0) and the knobs as timing fields (tab.last_timings, harness infos)."""
        o = self.options
        return {
            "settle_ms": self.settle_ms,
            "settle_arm_ms": self.arm_ms,
            "settle_navigation_ms": self.navigation_ms,
            "settle_dom_ms": self.dom_ms,
            "settle_network_ms": self.network_ms,
            "settle_changed": float(self.changed),
            "settle_deadline": float(self.deadline),
            "settle_requests": float(self.requests),
            "settle_continued": float(self.continued),
            "settle_speculated": float(self.speculated is not None),
            "settle_speculated_response": float(self.speculated is not None and self.speculated_after == "response"),
            "settle_read_ms": self.read_ms,
            "settle_allowance_ms": float(o.allowance_ms),
            "settle_quiet_ms": float(o.quiet_ms),
            "settle_max_ms": float(o.max_ms),
        }


@dataclass
class _Armed:
    """One frame document's observer: where its looks run."""

    session: CDPSession
    context: int


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _call(session: CDPSession, context: int, function: str, *args: Any, timeout: float) -> asyncio.Future[Any]:
    return session.send(
        "Runtime.callFunctionOn",
        {"functionDeclaration": function, "executionContextId": context, "arguments": [{"value": a} for a in args],
         "returnByValue": True, "awaitPromise": True},
        timeout=timeout,
    )  # fmt: skip


def _value(result: Any) -> Any:
    if isinstance(result, BaseException) or not isinstance(result, dict) or "exceptionDetails" in result:
        return None
    return (result.get("result") or {}).get("value")


def observe(tab: Tab) -> None:
    """Observe each document of the tab from its commit on (idempotent), so the settle after the first action
    on a page knows whether the page was changing by itself before it; a surface calls this as it takes a
    tab on, and every settle does."""
    Worlds.of(tab).add_init_script(OBSERVE_SCRIPT)


async def _frames(tab: Tab) -> list[tuple[CDPSession, int]]:
    """(session, isolated world) of each frame document with a world (the main frame's made if needed)."""
    observe(tab)
    worlds = Worlds.of(tab)
    with contextlib.suppress(CDPEngineError, TimeoutError):
        await asyncio.wait_for(worlds.ensure(tab.main_frame_id), ARM_TIMEOUT)
    return _known_frames(tab, worlds)


def _known_frames(tab: Tab, worlds: Worlds) -> list[tuple[CDPSession, int]]:
    """(session, isolated world) of each frame document whose world is known now."""
    out = []
    for fid, frame in list(tab.frames.items()):
        ctx = worlds.get(fid)
        if ctx is not None and not frame.session.closed:
            out.append((frame.session, ctx))
    return out


async def _arm(tab: Tab, quiet_ms: float) -> list[_Armed]:
    """Arm the observer of every frame document; the ones that answered."""
    frames = await _frames(tab)
    calls = [_call(s, ctx, ARM_FUNCTION, quiet_ms, timeout=ARM_TIMEOUT) for s, ctx in frames]
    return await _armed(frames, calls, quiet_ms)


async def _armed(
    frames: list[tuple[CDPSession, int]], calls: list[asyncio.Future[Any]], quiet_ms: float
) -> list[_Armed]:
    results = list(await asyncio.gather(*calls, return_exceptions=True))
    # A world without the observer's functions (its init script did not run there) answers null: install and arm.
    missing = [i for i, r in enumerate(results) if not isinstance(r, BaseException) and _value(r) is None]
    if missing:
        again = await asyncio.gather(
            *[_call(*frames[i], ARM_FULL, quiet_ms, timeout=ARM_TIMEOUT) for i in missing], return_exceptions=True
        )
        for i, result in zip(missing, again, strict=True):
            results[i] = result
    return [_Armed(s, ctx) for (s, ctx), result in zip(frames, results, strict=True) if isinstance(_value(result), int)]


class Arming:
    """The arming of a settle sent ahead of it: with the checks before an input (an element's identity,
    its aim), so it costs no round trip of its own. The arming changes nothing the page can see; an action
    refused after it calls `cancel()`, which lets the observers go back to watching the page on its own."""

    def __init__(self, tab: Tab, options: SettleOptions | None = None) -> None:
        self.tab = tab
        quiet = (options or SettleOptions.of(tab)).quiet_ms
        observe(tab)
        worlds = Worlds.of(tab)
        if worlds.get(tab.main_frame_id) is not None:  # known: the calls go out now, behind what was sent before
            frames = _known_frames(tab, worlds)
            calls = [_call(s, ctx, ARM_FUNCTION, quiet, timeout=ARM_TIMEOUT) for s, ctx in frames]
            self.future: asyncio.Future[list[_Armed]] = asyncio.ensure_future(_armed(frames, calls, quiet))
        else:
            self.future = asyncio.ensure_future(_arm(tab, quiet))
        self.used = False

    @classmethod
    def in_call(cls, tab: Tab, session: CDPSession, context: int) -> Arming:
        """The arming a caller's own call in the page did (the index's direct actions arm the observer of
        `context` in the call that then acts, index/one_call.py): nothing is sent; `cancel()` still disarms."""
        arming = cls.__new__(cls)
        arming.tab = tab
        arming.future = asyncio.get_running_loop().create_future()
        arming.future.set_result([_Armed(session, context)])
        arming.used = False
        return arming

    async def frames(self) -> list[_Armed]:
        self.used = True
        return await self.future

    def cancel(self) -> None:
        """The settle will not run: disarm what was armed (not awaited; a closed tab needs nothing)."""
        if self.used:
            return
        self.used = True

        def disarm(future: asyncio.Future[list[_Armed]]) -> None:
            if future.cancelled() or future.exception() is not None:
                return
            for armed in future.result():
                if not armed.session.closed:
                    sent = _call(armed.session, armed.context, DISARM_FUNCTION, timeout=ARM_TIMEOUT)
                    sent.add_done_callback(_retrieve)

        self.future.add_done_callback(disarm)


async def settle(
    tab: Tab,
    action: Awaitable[Any] | None = None,
    *,
    profile: SettleProfile = STATE,
    watcher: LifecycleWatcher | None = None,
    options: SettleOptions | None = None,
    load_timeout: float | None = None,
    network: NetworkTracker | None = None,
    until: asyncio.Event | None = None,
    speculative: Speculation | None = None,
    arming: Arming | None = None,
    scrolls: bool = True,
) -> SettleReport:
    """Run `action` (an input), then wait for what it caused (module docstring); the report says what.

    The observers, the request tracker (`network`, enabled here) and a lifecycle watcher are armed
    before the input (or pass a watcher armed earlier); without an action the current documents get
    a look (no arming: what changes from now on counts). Options: `options`, else the tab's.
    `profile` (SettleProfile): how navigations, dialogs and a closing tab are taken. Navigation: one the
    input requested or committed gets `load_timeout` (the browser's navigation timeout) to reach the
    profile's `wait_until`, and is stopped there (report.abandoned; a committed document stays, one that
    never committed never will); `until` is the caller's own end signal (a download began), given
    STOP_GRACE after a stop. `speculative`: the caller's read after the settle,
    sent behind the first look (module docstring); its result is report.speculated when it stands.
    `scrolls`: the input may scroll an element (every input but text typed into a focused field; Tab.scroll_epoch).
    """
    report = SettleReport(options=options or SettleOptions.of(tab))
    own = watcher is None and action is not None
    if own:
        watcher = LifecycleWatcher(tab)
    try:
        t0 = time.perf_counter()
        mark = 0
        armed: list[_Armed] | None = None
        if network is not None and not tab.closed:
            with contextlib.suppress(CDPEngineError):
                await network.enable()
            mark = network.started
        if action is not None and not tab.closed and not (profile.dialog_ends and tab.pending_dialog is not None):
            armed = await arming.frames() if arming is not None else await _arm(tab, report.options.quiet_ms)
        t_armed = time.perf_counter()
        report.arm_ms = (t_armed - t0) * 1000
        if action is not None:
            if scrolls:
                tab.scroll_epoch += 1
            # The input's ack waits for its handlers: one that opens a held dialog answers only after it.
            if profile.dialog_ends:
                finished, report.value = await unless_dialog(tab, action)
                report.dialog = not finished
            else:
                report.value = await action
        t_input = time.perf_counter()
        report.input_ms = (t_input - t_armed) * 1000
        try:
            if not report.dialog:  # else the renderer is paused: nothing more can settle until the answer
                await _Settling(tab, report, profile, watcher, network, mark, speculative).run(
                    armed, load_timeout, until
                )
        finally:
            report.settle_ms = (time.perf_counter() - t_input) * 1000 - report.read_ms
        return report
    finally:
        if own and watcher is not None:
            watcher.close()
        if arming is not None:
            arming.cancel()  # a settle that ended before its input (a deadline, a cancellation): disarm; else nothing


class _Settling:
    """The phases after one input: looks at the documents, the navigation, the caused requests."""

    def __init__(
        self,
        tab: Tab,
        report: SettleReport,
        profile: SettleProfile,
        watcher: LifecycleWatcher | None,
        network: NetworkTracker | None,
        mark: int,
        speculative: Speculation | None = None,
    ) -> None:
        self.speculative = speculative
        self.speculation: asyncio.Future[Any] | None = None
        self.speculated_after = ""  # the look the speculation in flight went out behind
        self.in_call = False  # every look ended within its own call (LOOK_FUNCTION's `sync`)
        self.end_keys: dict[tuple[str, int], str] = {}  # the change probe's key each look of the last ended with
        self.tab = tab
        self.report = report
        self.options = report.options
        self.watcher = watcher
        self.network = network
        self.mark = mark
        self.profile = profile

    def held(self) -> bool:
        return self.profile.dialog_ends and self.tab.pending_dialog is not None

    def requested(self) -> bool:
        return self.watcher is not None and self.watcher.requested and not self.report.navigated

    async def run(self, armed: list[_Armed] | None, load_timeout: float | None, until: asyncio.Event | None) -> None:
        try:
            await self._phases(armed, load_timeout, until)
        finally:
            self.report.closed = self.report.closed or self.tab.closed
            if self.report.speculated is None:
                await self._drop_speculation()

    async def _drop_speculation(self) -> None:
        """A read that is not the read after the settle: let it end (it shares the caller's state), then drop it."""
        if self.speculation is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self.speculation
            self.speculation = None

    async def _phases(self, armed: list[_Armed] | None, load_timeout: float | None, until: asyncio.Event | None) -> None:
        tab, report = self.tab, self.report
        if tab.closed:
            return
        frames = armed if armed is not None else [_Armed(s, c) for s, c in await _frames(tab)]
        await self._look(frames, "input" if armed is not None else "now", speculate=armed is not None)
        if await self._took_speculation():
            return
        network_end = time.perf_counter() + self.options.network_max
        while not tab.closed:
            if self.held():
                report.dialog = True
                return
            if self.watcher is not None and self.watcher.navigating and not report.navigated:
                if not await self._navigation(load_timeout, until):
                    return
                if not self.profile.look_after_load:
                    return
                frames = [_Armed(s, c) for s, c in await _frames(tab)]
                await self._look(frames, "now")
                network_end = time.perf_counter() + self.options.network_max
                continue
            if not self._caused() or report.deadline:
                return
            # Requests started since the arming: until they finish, then their answers get to change the page.
            await self._requests(network_end)
            t = time.perf_counter()
            # The read goes out behind this look too: it stands when the answers' change was there already.
            await self._drop_speculation()
            await self._look(frames, "response", self.options.response_ms, speculate=True)
            report.network_ms += (time.perf_counter() - t) * 1000
            if await self._took_speculation():
                return

    async def _took_speculation(self) -> bool:
        """Whether the read sent behind the last look is the read after the settle (module docstring): nothing
        else is to be waited for, and every look ended within its own call or the read's key is the one the
        looks ended with (Speculation.stands)."""
        report = self.report
        if (
            self.speculation is None
            or self.held()
            or (self.watcher is not None and self.watcher.navigating)
            or self._caused()
            or report.deadline
        ):
            return False
        t = time.perf_counter()
        result = None
        with contextlib.suppress(CDPEngineError, TimeoutError):
            result = await self.speculation
        stands = self.speculative.stands if self.speculative is not None else None
        if result is None or not (self.in_call or (stands is not None and stands(result, self.end_keys))):
            self.speculation = None
            return False
        report.speculated = result
        report.speculated_after = self.speculated_after
        report.read_ms = (time.perf_counter() - t) * 1000
        return True

    def _caused(self) -> int:
        return self.network.since(self.mark) if self.network is not None else 0

    async def _requests(self, end: float) -> None:
        """Until the requests started since the arming finish (a held dialog ends it), at most until `end`."""
        report = self.report
        if "network" not in report.waited_for:
            report.waited_for.append("network")
        if self.network is not None:
            report.requests = self.network.started - self.mark
        t = time.perf_counter()
        try:
            if end <= t:
                raise TimeoutError
            await self.tab.wait_for_condition(lambda: not self._caused() or self.held(), end - t)
        except TimeoutError:
            report.deadline = True
        except CDPEngineError:
            report.closed = self.tab.closed
        report.network_ms += (time.perf_counter() - t) * 1000

    async def _look(
        self, frames: list[_Armed], mode: str, expect: float = 0.0, *, speculate: bool = False,
        function: str = LOOK_FUNCTION,
    ) -> None:  # fmt: skip
        """Run the look (LOOK_FUNCTION's `mode`) in every frame document, racing a held dialog and a
        navigation request; with `speculate`, send the caller's speculative read right behind it."""
        self.in_call = False
        self.end_keys = {}
        if not frames or self.tab.closed:
            return
        o = self.options
        budget = (o.max_ms + expect) / 1000 + 2
        t = time.perf_counter()
        looks = [
            _call(f.session, f.context, function, mode, expect, o.allowance_ms, o.quiet_ms, o.max_ms,
                  timeout=budget)
            for f in frames
        ]  # fmt: skip
        if speculate and self.speculative is not None:
            self.speculation = asyncio.ensure_future(self.speculative.read())  # its commands go out behind the looks
            self.speculated_after = mode
        gathered = asyncio.ensure_future(asyncio.gather(*looks, return_exceptions=True))
        early = asyncio.ensure_future(self.tab.wait_for_condition(lambda: self.held() or self.requested(), budget))
        try:
            await asyncio.wait({gathered, early}, return_when=asyncio.FIRST_COMPLETED, timeout=budget)
        finally:
            self.report.dom_ms += (time.perf_counter() - t) * 1000
            for future in (gathered, early):
                if not future.done():
                    future.cancel()
                future.add_done_callback(_retrieve)
            for look in looks:
                look.add_done_callback(_retrieve)
        if self.requested():
            return  # a navigation superseded this look: its document is going
        if "dom" not in self.report.waited_for:
            self.report.waited_for.append("dom")
        if not gathered.done() or gathered.cancelled():
            return
        results = gathered.result()
        values = [_value(result) for result in results]
        self.in_call = all(isinstance(value, dict) and value.get("sync") for value in values)
        self.end_keys = {
            (f.session.id or "", f.context): value["key"]
            for f, value in zip(frames, values, strict=True)
            if isinstance(value, dict) and isinstance(value.get("key"), str)
        }
        missing = [f for f, r, v in zip(frames, results, values, strict=True) if v is None and not isinstance(r, BaseException)]
        if missing and function is LOOK_FUNCTION:  # worlds without the observer's functions: install and look there
            await self._look(missing, mode, expect, function=LOOK_FULL)
            self.in_call = False  # the speculative read ran before these looks: not the read after them
        for value in values:
            if isinstance(value, dict):
                self.report.changed = self.report.changed or bool(value.get("changed"))
                self.report.continued = self.report.continued or bool(value.get("continued"))
                self.report.deadline = self.report.deadline or bool(value.get("deadline"))

    async def _navigation(self, load_timeout: float | None, until: asyncio.Event | None) -> bool:
        """The navigation the input started, to the profile's `wait_until`; False when the settle ends with it."""
        tab, report, watcher, profile = self.tab, self.report, self.watcher, self.profile
        assert watcher is not None
        report.navigated = True
        report.waited_for.append("navigation")
        t = time.perf_counter()
        try:
            outcome = await watcher.wait(
                profile.wait_until, load_timeout, dialog_ends=profile.dialog_ends, stop_ends=profile.stop_ends,
                until=until, raise_on_timeout=False,
            )  # fmt: skip
        except TargetClosedError:
            report.closed = True
            if profile.raise_closed:
                raise
            return False
        finally:
            report.navigation_ms = (time.perf_counter() - t) * 1000
        report.loaded = outcome.reached
        if outcome.timed_out:
            # Abandoned at the settle's deadline: stopped, so it cannot jam the renderer (script and
            # snapshots wait behind a pending navigation) nor commit when its server answers later.
            report.abandoned = report.deadline = True
            await tab.stop_loading()
        if outcome.dialog:
            report.dialog = True
            return False
        if outcome.stopped and until is not None and not until.is_set():
            # Chromium stops the navigation just before it announces the download.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until.wait(), STOP_GRACE)
        return True


async def dom_quiet(tab: Tab, options: SettleOptions | None = None) -> float:
    """A look at the current documents without an input (after a load the caller awaited): until what
    changes from now on has settled by the settle's rule; the ms it took."""
    return (await settle(tab, options=options)).dom_ms
