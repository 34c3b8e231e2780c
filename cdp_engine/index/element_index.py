"""The DOM Action and Element Index protocol on one tab: state() and act().

An index is valid for the state it came from (the latest state this tab returned). Acting
on it when the page changed since either reaches the very same element — same session,
same document (loader), same backendNodeId, same fingerprint (tag, aria-label, name, type,
text) — or fails with INVALID_ELEMENT_INDEX. A failed action changes nothing and returns
the previous state, every field identical, plus `error`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.files import Screenshot, ScreenshotSpec, image_size_base64, mark_image, screenshot_options
from ..core.inflight import NetworkTracker
from ..core.liveness import bounded, unless_dialog
from ..core.marks import Mark
from ..core.pipeline import Action, Settling, act
from ..core.policies import INDEX_SCHEMES, RESULT_CHARS, Policies
from ..core.settle import STATE, Arming, SettleReport, Speculation, observe
from ..core.text_focus import ignored_text
from ..core.worlds import Worlds
from ..errors import (
    CDPEngineError,
    NavigationError,
    RendererHungError,
    TargetClosedError,
)
from ..snapshot.boxes import shot_transform, state_boxes, state_marks
from ..snapshot.capture import Capture, ContentWindow, Element, state_hash
from ..snapshot.capturer import StateCapturer
from ..snapshot.changes import Observation, index_changes
from ..snapshot.extended import check_mode
from ..util import activity, tracing
from ..util.text_windows import check_budget, check_offset
from . import one_call, watch
from .actions import ActionValidationError, json_safe, parse_action
from .perform import ActionError, Performer, check_usable

if TYPE_CHECKING:
    from ..core.tab import Tab

log = logging.getLogger("cdp_engine.index")

# A restored page is the page of a state when these agree (then its indices name the same elements).
SAME_PAGE_FIELDS = ("url", "title", "page_content", "element_index", "state_hash")
# The prefix of an INTERNAL_BROWSER_ERROR message when a held dialog pauses the page (docs/protocol.md).
DIALOG_OPEN = "DIALOG_OPEN"
NAVIGABLE_SCHEMES = INDEX_SCHEMES  # the default navigation policy (core/policies.py); see ElementIndex.policies


def typing_ignored(previous: Capture, capture: Capture, action: dict[str, Any]) -> str | None:
    """The message when input_text's keys reached the field (focus was proven on it) but the page ignored them:
    its value in the new capture is the value the previous one showed, though the text should have changed it
    (a number field given letters, a full field, a controlled input that rejects them). None when it changed,
    or when the captures cannot tell (no text, a password, a wrapper whose field is inside, a field no longer
    indexed). Never a success that changed nothing."""
    if action["action"] != "input_text" or not action["text"]:
        return None
    field = previous.elements.get(action["element_index"])
    if field is None or field.input_type == "password":
        return None
    before = field.descriptor["attributes"].get("value")
    now = next(
        (e for e in capture.elements.values()
         if e.backend_node_id == field.backend_node_id and e.session is field.session),
        None,
    )  # fmt: skip
    if now is None:
        return None
    ignored = ignored_text(before, now.descriptor["attributes"].get("value"), action["text"], bool(action.get("overwrite")))
    return None if ignored is None else f"Element {field.index} {ignored}."


class ElementIndex:
    """State capture and protocol actions for one tab; `ElementIndex.of(tab)` is the tab's one instance."""

    @classmethod
    def of(cls, tab: Tab) -> ElementIndex:
        """The tab's element index (created on first use; it lives as long as the tab)."""
        return tab.extension(cls)

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.capturer = StateCapturer(tab)
        observe(tab)  # the settle's observer in each document from its commit (with the capture's probe)
        one_call.install(tab)  # and the index's direct actions (index/one_call.py)
        self.current: Capture | None = None
        self.finished: dict[str, str] | None = None  # set by finish_task / fail_task
        self._lock = asyncio.Lock()
        self.network = NetworkTracker.of(tab)
        self.last_settle: SettleReport | None = None  # the report of the latest settle on this tab
        self._settle_listeners: list[Callable[[SettleReport], None]] = []
        # What navigate may reach; a server replaces it with its own (the HTTP service: Policies.for_service()).
        self.policies: Policies = Policies.for_index()
        self._end = 0.0  # the running act()'s deadline (time.perf_counter())
        self._speculative: Speculation | None = None  # the read the settle may send early
        # The budget of page_content in characters (util/text_windows.py): a longer text is cut after a whole line with
        # a marker naming the offset to read on. A server sets its own (the HTTP service: --result-chars).
        self.result_chars: int = RESULT_CHARS
        # The last two states returned (state() or act()), for changes(); the capture of the latest.
        self._observed: Observation | None = None
        self._prior: Observation | None = None
        self._observed_capture: Capture | None = None
        # The interactive set states hold: "strict" (the spec's list, the default) or "extended"
        # (snapshot/extended.py). A tab of launch(interactive="extended") starts extended; a call may override.
        self.interactive: str = check_mode(getattr(tab, "default_interactive", "strict"))
        self.perform = Performer(self)  # the actions themselves (index/perform.py)

    async def state(
        self,
        *,
        screenshot: ScreenshotSpec = True,
        jpeg_quality: int = 80,
        offset: int | None = None,
        max_chars: int | None = None,
        interactive: str | None = None,
    ) -> dict[str, Any]:
        """The current state object (see _state); a span with its timings when tracing is on (util/tracing.py),
        an Activity for the watchers when any (util/activity.py, index/watch.py).

        `offset` / `max_chars`: which part of the page's text page_content holds (default: from the start,
        `result_chars` characters); a cut page_content ends with a marker naming the next offset. A bad value
        is a ValueError (util.text_windows.BudgetError) before anything is captured; an offset past the end of the
        text is one after the capture, and the state of the last good call stays current. `interactive`
        ("strict" or "extended") overrides the tab's set for this call."""
        mode = self._mode(interactive)
        content = (check_offset(offset), check_budget(max_chars) if max_chars is not None else self.result_chars)
        if activity.watching():
            return await watch.observed(
                self.tab, watch.STATE, self._traced_state(screenshot, jpeg_quality, content, mode), self.boxes_with_viewport
            )
        return await self._traced_state(screenshot, jpeg_quality, content, mode)

    async def act(
        self, raw_action: Any, *, screenshot: ScreenshotSpec = True, interactive: str | None = None
    ) -> dict[str, Any]:
        """Run one action (see _act); a span and an Activity as state() has. The state after it holds
        `interactive`'s set (default: that of the state the action's indices came from, else the tab's)."""
        mode = self._mode(interactive if interactive is not None or self.current is None else self.current.interactive)
        if activity.watching():
            return await watch.observed(
                self.tab, raw_action, self._traced_act(raw_action, screenshot, mode), self.boxes_with_viewport
            )
        return await self._traced_act(raw_action, screenshot, mode)

    async def _traced_state(
        self, screenshot: ScreenshotSpec, jpeg_quality: int, content: ContentWindow, mode: str
    ) -> dict[str, Any]:
        if not tracing.enabled():
            return self._observe(
                await self._state(screenshot=screenshot, jpeg_quality=jpeg_quality, content=content, interactive=mode)
            )
        with tracing.span("cdp_engine.state", {"cdp_engine.url": self.tab.url}) as current:
            state = await self._state(screenshot=screenshot, jpeg_quality=jpeg_quality, content=content, interactive=mode)
            tracing.add_timings(current, self.tab.last_timings)
            return self._observe(state)

    async def _traced_act(self, raw_action: Any, screenshot: ScreenshotSpec, mode: str) -> dict[str, Any]:
        if not tracing.enabled():
            return self._observe(await self._act(raw_action, screenshot=screenshot, interactive=mode))
        name = raw_action.get("action") if isinstance(raw_action, dict) else None
        with tracing.span("cdp_engine.act", {"cdp_engine.action": str(name or "?")}) as current:
            state = await self._act(raw_action, screenshot=screenshot, interactive=mode)
            error = state.get("error")
            if current is not None and isinstance(error, dict):
                current.set_attribute("cdp_engine.error", str(error.get("code")))
            tracing.add_timings(current, self.tab.last_timings)
            return self._observe(state)

    # ----- what changed (snapshot/changes.py; docs/changes.md) ----------------------------------

    def changes(self, state: dict[str, Any] | None = None) -> dict[str, Any]:
        """What changed from the state returned before the latest one to the latest one (state() or act()):
        added, removed and changed elements and page_content lines, always with every current index. An
        extra beside the state: the state object and its state_hash are untouched. `state`: a state a
        surface handed on that is not the latest returned here (it is observed first). LookupError before
        any state was returned."""
        if state is not None and (self._observed is None or self._observed.state["element_index"] is not
                                  state.get("element_index")):  # fmt: skip
            self._observe(state)
        if self._observed is None:
            raise LookupError("no state was returned yet: request a state first")
        return index_changes(self._prior, self._observed)

    def _observe(self, state: dict[str, Any]) -> dict[str, Any]:
        """Remember a state returned to the caller (cheap: references, no diff) for changes()."""
        index = state.get("element_index")
        capture = next(
            (c for c in (self.current, self._observed_capture) if c is not None and c.state.get("element_index") is index),
            None,
        )
        frame = self.tab.frames.get(self.tab.main_frame_id)
        kept = {key: state.get(key) for key in ("url", "page_content", "element_index", "state_hash")}
        self._prior, self._observed = self._observed, Observation.of(kept, capture, frame.loader_id if frame else "")
        self._observed_capture = capture
        return state

    def _mode(self, interactive: str | None) -> str:
        return self.interactive if interactive is None else check_mode(interactive)

    def reasons(self) -> dict[str, str]:
        """Why each extended element of the latest state is indexed ({index: reason code}, only elements
        outside the strict list): the opt-in field outside the hashed state (docs/extended.md)."""
        if self.current is None:
            return {}
        return {str(i): el.reason for i, el in self.current.elements.items() if el.reason is not None}

    async def _state(
        self,
        *,
        screenshot: ScreenshotSpec = True,
        jpeg_quality: int = 80,
        content: ContentWindow | None = None,
        interactive: str = "strict",
    ) -> dict[str, Any]:
        """The current state object (cached while the page has not changed), within one command deadline.

        A held dialog: the last state at once, plus `error` DIALOG_OPEN (the paused page cannot be read).
        A hung renderer raises RendererHungError; a closed tab or dead browser raises its typed error
        (there may be no previous state to return)."""
        async with self._lock:
            capture = await self._capture(screenshot, jpeg_quality, content=content, interactive=interactive)
            if capture is None:
                return self._dialog_state(self.current, None, ran=False)
            self.current = capture
            return dict(capture.state)

    async def _act(
        self, raw_action: Any, *, screenshot: ScreenshotSpec = True, interactive: str = "strict"
    ) -> dict[str, Any]:
        """Run one action; the next state on success, the previous state plus `error` on failure.

        Never raises for a browser fault (a closed or crashed tab, a dead browser, a hung renderer): that is
        INTERNAL_BROWSER_ERROR on the previous state. A held dialog ends the action at once (DIALOG_OPEN)."""
        async with self._lock:
            t0 = time.perf_counter()
            end = self._end = t0 + self.act_timeout  # the one overall deadline: every phase gets what is left of it
            invalid: ActionValidationError | None = None
            try:
                action = parse_action(raw_action)
                failed: Any = action
            except ActionValidationError as exc:
                invalid, failed = exc, exc.failed_action
            try:
                if self.tab.pending_dialog is not None:  # the page is paused: nothing can run on it
                    if invalid is not None:
                        return self._error(self.current, "ACTION_VALIDATION_FAILED", invalid.message, failed)
                    return self._dialog_state(self.current, failed, ran=False)
                if self.current is None:
                    first = await self._capture(screenshot, timeout=end - time.perf_counter(), interactive=interactive)
                    if first is None:
                        return self._dialog_state(None, failed, ran=False)
                    self.current = first
                previous = self.current
                self.last_settle = None
                await self.network.enable()
                if invalid is not None:
                    return self._error(previous, "ACTION_VALIDATION_FAILED", invalid.message, failed)
                try:
                    self.tab.check_open()  # a crashed or closed tab: a browser fault, not a stale index
                    if screenshot_options(screenshot) is None:  # a DOM-only read can go out behind the settle's look
                        read = functools.partial(self._next_capture, interactive, action["action"])
                        self._speculative = Speculation(read, self._read_at)
                    await bounded(self.tab, self.perform.run(action, previous, end), action["action"], end - time.perf_counter())
                except ActionError as exc:
                    self.tab.check_open()  # the tab went during the action: say so rather than "element gone"
                    return self._error(previous, exc.code, exc.message, action)
                except NavigationError as exc:
                    return await self._navigation_error(previous, exc, action, screenshot)
                finally:
                    self._speculative = None
                t_action = time.perf_counter()
                speculated = self.last_settle.speculated if self.last_settle is not None else None
                if isinstance(speculated, Capture):
                    capture: Capture | None = speculated
                else:
                    if action["action"] not in ("finish_task", "fail_task"):
                        self.capturer.invalidate(scrolled=action["action"] != "input_text")
                    capture = await self._capture(
                        screenshot, timeout=end - time.perf_counter(), interactive=interactive
                    )
                if capture is None:
                    return self._dialog_state(previous, action, ran=True)
                ignored = typing_ignored(previous, capture, action)
                if ignored is not None:  # the keys went to the field and its value did not change
                    return self._error(previous, "ELEMENT_NOT_INTERACTIVE", ignored, action)
            except (CDPEngineError, TimeoutError) as exc:
                # A browser fault, never raised: a surface that follows tabs checks tab.closed on the error.
                log.debug("action failed", exc_info=True)
                return self._error(self.current, "INTERNAL_BROWSER_ERROR", self._fault_message(exc), failed)
            self.current = capture
            capture.timings = {
                **capture.timings,
                "action_ms": (t_action - t0) * 1000,
                "total_action_ms": (time.perf_counter() - t0) * 1000,
                **(self.last_settle.timings() if self.last_settle is not None else {}),
            }
            self.tab.last_timings = capture.timings
            return dict(capture.state)

    async def _navigation_error(
        self, previous: Capture, exc: NavigationError, failed_action: Any, screenshot: ScreenshotSpec
    ) -> dict[str, Any]:
        """NAVIGATION_FAILED, describing the page truthfully.

        A failed navigation leaves the tab on its page (core/navigation.py). When the old document was
        never replaced (the network failed it, nothing committed, or the navigation was stopped before it
        did) this is the previous state and its indices stay valid. When it was (an error page Chromium
        names only "Failed"; a page that never finished loading) the tab went back and the page was loaded
        again as a new document: it is captured again, within what is left of act()'s deadline, and when
        that state equals the previous one the previous state is returned and its indices name the restored
        page's elements; otherwise the new state is returned, so no index names an element that is not there.
        """
        message = str(exc)
        if not exc.replaced:
            return self._error(previous, "NAVIGATION_FAILED", message, failed_action)
        self.capturer.invalidate()
        try:
            fresh = await self._capture(screenshot, timeout=self._end - time.perf_counter())
        except (CDPEngineError, TimeoutError) as fault:
            log.debug("no state after a failed navigation", exc_info=True)
            fresh, note = None, f"; the page could not be read afterwards ({type(fault).__name__}): request a new state"
        else:
            note = "; a dialog opened on the page afterwards: request a new state once it is answered"
        if fresh is None:
            self.current = None
            return self._error(previous, "NAVIGATION_FAILED", message + note, failed_action)
        self.current = fresh
        if exc.on_page and all(fresh.state.get(key) == previous.state.get(key) for key in SAME_PAGE_FIELDS):
            return self._error(previous, "NAVIGATION_FAILED", message, failed_action)
        if exc.on_page:
            note = "; the page was reloaded and changed: this state is the page now"
        else:
            note = "; the tab could not be put back on its page: this state is what it shows now"
        return self._error(fresh, "NAVIGATION_FAILED", message + note, failed_action)

    @property
    def command_timeout(self) -> float:
        """The deadline of one capture (launch(command_timeout=...)); an action adds its navigation's."""
        return self.tab.browser.connection.default_timeout

    @property
    def act_timeout(self) -> float:
        """act()'s one overall deadline: an action may navigate (navigation_timeout), then the state is
        captured (command_timeout); every phase is bounded by what is left of it."""
        return self.tab.navigation_timeout + self.command_timeout

    def _read_at(self, capture: Any, keys: Mapping[tuple[str, int], str]) -> bool:
        """Whether the speculative read was taken at the change probe's keys the settle's looks ended with. Not
        for a page with shadow content of its own (or one not known to have none): what changes in a shadow
        tree (a web component's popup rendering, its animation) is out of the probe's sight."""
        return (
            isinstance(capture, Capture)
            and capture.source is not None
            and not capture.source.shadow
            and self.capturer.probes.is_key_now(capture.version_key, keys)
        )

    async def _next_capture(self, interactive: str, action: str) -> Capture | None:
        """The state after an action, without a screenshot, as the settle's speculative read (core/settle.py)."""
        self.capturer.invalidate(scrolled=action != "input_text")
        return await self._capture(False, timeout=self._end - time.perf_counter(), interactive=interactive)

    async def _capture(
        self,
        screenshot: ScreenshotSpec,
        jpeg_quality: int = 80,
        *,
        timeout: float | None = None,
        content: ContentWindow | None = None,
        interactive: str | None = None,
    ) -> Capture | None:
        """A capture within one command deadline (or `timeout`, what is left of the caller's, if sooner); None
        at once when a dialog is held (the renderer is paused and would answer nothing). A renderer found
        hung is probed first on the next call."""
        tab = self.tab
        if tab.pending_dialog is not None:
            return None
        window = content if content is not None else (0, self.result_chars)
        mode = interactive or (self.current.interactive if self.current is not None else self.interactive)
        work = self.capturer.capture(screenshot=screenshot, jpeg_quality=jpeg_quality, content=window, interactive=mode)
        limit = self.command_timeout if timeout is None else max(0.0, min(timeout, self.command_timeout))
        finished, capture = await unless_dialog(tab, bounded(tab, work, "the state capture", limit))
        return capture if finished else None

    def _fault_message(self, exc: BaseException) -> str:
        """The INTERNAL_BROWSER_ERROR text for a browser fault: what happened, in the caller's terms."""
        if isinstance(exc, RendererHungError):
            return str(exc)
        if self.tab.crashed:
            return f"the tab crashed (its renderer is gone); close it and open a new tab ({type(exc).__name__})"
        if self.tab.browser.connection.closed:
            return f"the browser is gone (its connection closed): {exc}"
        if self.tab.closed or isinstance(exc, TargetClosedError):
            return f"the tab was closed: {exc}"
        return f"{type(exc).__name__}: {exc}"

    def _dialog_state(self, previous: Capture | None, failed_action: Any, *, ran: bool) -> dict[str, Any]:
        """The last state plus `error` DIALOG_OPEN: a held dialog pauses the page until tab.handle_dialog()."""
        dialog = self.tab.pending_dialog
        kind, text = (dialog.type, dialog.message) if dialog is not None else ("", "")
        what = "the action ran and the page opened" if ran else "the action did not run: the page has"
        if failed_action is None:
            what = "the page has"
        message = (
            f"{DIALOG_OPEN}: {what} a JavaScript {kind} dialog open ({text!r}); the page is paused until it is "
            "answered with tab.handle_dialog(accept, prompt_text). This is the last state captured before it."
        )
        return self._error(previous, "INTERNAL_BROWSER_ERROR", message, failed_action)

    def _error(self, previous: Capture | None, code: str, message: str, failed_action: Any) -> dict[str, Any]:
        state = dict(previous.state) if previous is not None else self._blank_state()
        state["error"] = {"code": code, "message": message, "failed_action": json_safe(failed_action)}
        return state

    def _blank_state(self) -> dict[str, Any]:
        """The state when no capture was ever possible (the page faulted first): its URL and nothing else."""
        url = self.tab.url
        return {"url": url, "page_content": "", "element_index": {}, "screenshot": "", "state_hash": state_hash(url, "")}

    def boxes_with_viewport(self) -> tuple[dict[int, dict[str, Any]], tuple[float, ...] | None]:
        """boxes() and the viewport they were measured in (its scroll), for a live view's overlay."""
        return self.boxes(), (self.current.viewport if self.current is not None else None)

    def boxes(self) -> dict[int, dict[str, Any]]:
        """Each indexed element's box for the state last returned, keyed by index (snapshot/boxes.py): read
        off the capture that state came from, so no round trip; {} before any state."""
        return state_boxes(self.current)

    async def marks(self) -> list[Mark]:
        """The marks (index labels, viewport boxes) of the state last returned; a state is captured first
        (without a screenshot) when none was returned yet."""
        if self.current is None:
            await self.state(screenshot=False)
        return state_marks(self.current)

    async def marked_state_screenshot(self, *, timeout: float | None = None) -> Screenshot | None:
        """The screenshot of the state last returned with its marks drawn on it (the very image and boxes
        the agent got, so they agree even if the page moved since); None when that state has no screenshot."""
        capture = self.current
        transform = shot_transform(capture) if capture is not None else None
        if capture is None or transform is None or capture.shot_options is None:
            return None
        shot = capture.state["screenshot"]
        size = image_size_base64(shot) or (None, None)
        image = Screenshot(shot, capture.shot_options.format, size[0], size[1])
        world = await Worlds.of(self.tab).context(self.tab.main_frame_id)
        return await mark_image(
            self.tab.session,
            world,
            image,
            state_marks(capture),
            transform,
            quality=capture.shot_options.quality,
            timeout=self.command_timeout if timeout is None else timeout,
        )

    # ----- public hooks for surfaces that add their own actions (the harness) ------------------

    @property
    def lock(self) -> asyncio.Lock:
        """Held by state() and act(); hold it to run an action of your own between them."""
        return self._lock

    def error_state(self, previous: Capture | None, code: str, message: str, failed_action: Any) -> dict[str, Any]:
        """The previous state (None: a page never read, its URL and nothing else) plus the protocol's `error`
        field: what a failed action returns."""
        return self._error(previous, code, message, failed_action)

    async def resolve(self, capture: Capture, index: int) -> Element:
        """The element an index of `capture` names, proven to be the same element still (ActionError if not)."""
        return await self.perform.resolve(capture, index)

    def check_usable(self, element: Element) -> None:
        """ActionError ELEMENT_NOT_INTERACTIVE when the element is disabled."""
        check_usable(element)

    async def call(self, element: Element, function: str, *args: Any) -> Any:
        """Call a function with `this` bound to the element; None when the node no longer exists."""
        return await self.perform.call(element, function, *args)

    def add_settle_listener(self, listener: Callable[[SettleReport], None]) -> Callable[[], None]:
        """listener(report) after every settle on this tab (for phase timings); added once per listener."""
        if listener not in self._settle_listeners:
            self._settle_listeners.append(listener)
        return lambda: self._settle_listeners.remove(listener) if listener in self._settle_listeners else None

    async def apply(self, action: Action | None = None, *, arming: Arming | None = None) -> SettleReport:
        """Run an action (if any) through the core's one pipeline (core.pipeline.act), settled for the state read
        next (settle.STATE) with this tab's request tracker: what the input caused (DOM changes, transitions, a
        navigation, the requests it started), each with a deadline, by the tab's SettleOptions; a held dialog
        ends it at once. `arming`: the observer's arming an action sent ahead of its input (index/perform.py)."""
        settling = Settling(STATE, network=self.network, speculative=self._speculative)
        report = (await act(self.tab, action, settling, arming=arming)).report
        self.last_settle = report
        for listener in list(self._settle_listeners):
            try:
                listener(report)
            except Exception:
                log.exception("settle listener failed")
        return report
