"""The DOM Action and Element Index protocol on one tab: state() and act().

An index is valid for the state it came from (the latest state this tab returned). Acting
on it when the page changed since either reaches the very same element — same session,
same document (loader), same backendNodeId, same fingerprint (tag, aria-label, name, type,
text) — or fails with INVALID_ELEMENT_INDEX. A failed action changes nothing and returns
the previous state, every field identical, plus `error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..core.identity import DOM_LOOK, Verdict, verify
from ..core.input import (
    NotClickableError,
    call_function_on,
    click_at,
    clickable_point,
    hit_target,
    insert_text,
    press_events,
)
from ..errors import CDPEngineError, JavaScriptError, NavigationError
from ..snapshot.capture import Capture, Element, StateCapturer
from .actions import ActionValidationError, parse_action

if TYPE_CHECKING:
    from ..core.browser import Tab

log = logging.getLogger("cdp_engine")

TEXT_INPUT_TYPES = frozenset(
    {"text", "email", "password", "search", "tel", "url", "number", "date", "datetime-local", "month", "time", "week"}
)
TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox"})
NAVIGABLE_SCHEMES = frozenset({"http", "https", "file", "about", "data"})
SETTLE_QUIET_MS = 40  # DOM must be quiet this long after an action …
SETTLE_MAX_MS = 1000  # … but the page gets no longer than this to get there.
NETWORK_QUIET_MAX = 1.0  # seconds to wait for requests the action started

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


class ActionError(Exception):
    """An action failed with one of the protocol's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# The protocol's INVALID_ELEMENT_INDEX texts for each identity verdict ({i}: the index).
INVALID_INDEX_MESSAGES: dict[str, str] = {
    "frame_closed": "Element {i} is gone: its frame was closed. Request a new state.",
    "frame_detached": "Element {i} is gone: its document navigated since the state was captured. Request a new state.",
    "navigated": "Element {i} is gone: its document navigated since the state was captured. Request a new state.",
    "removed": "Element {i} was removed from the page since the state was captured.",
}


def invalid_index_message(index: int, verdict: Verdict) -> str:
    """The INVALID_ELEMENT_INDEX message for a failed identity verdict."""
    if verdict.reason == "changed" and verdict.was and verdict.now:
        return (
            f"Element {index} changed since the state was captured (was {verdict.was[4]!r}, "
            f"now {verdict.now[4]!r}). Request a new state."
        )
    return INVALID_INDEX_MESSAGES.get(verdict.reason, "Element {i} changed since the state was captured.").format(
        i=index
    )


class ElementIndex:
    """State capture and protocol actions for one tab; `ElementIndex.of(tab)` is the tab's one instance."""

    @classmethod
    def of(cls, tab: Tab) -> ElementIndex:
        """The tab's element index (created on first use; it lives as long as the tab)."""
        index = tab.extensions.get("element_index")
        if index is None:
            index = tab.extensions["element_index"] = cls(tab)
        return index  # type: ignore[no-any-return]

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.capturer = StateCapturer(tab)
        self.current: Capture | None = None
        self.finished: dict[str, str] | None = None  # set by finish_task / fail_task
        self._lock = asyncio.Lock()
        self.network = NetworkTracker(tab)

    async def state(self, *, screenshot: bool | str = True, jpeg_quality: int = 80) -> dict[str, Any]:
        """The current state object (cached while the page has not changed)."""
        async with self._lock:
            capture = await self.capturer.capture(screenshot=screenshot, jpeg_quality=jpeg_quality)
            self.current = capture
            return dict(capture.state)

    async def act(self, raw_action: Any, *, screenshot: bool | str = True) -> dict[str, Any]:
        """Run one action; the next state on success, the previous state plus `error` on failure."""
        async with self._lock:
            t0 = time.perf_counter()
            if self.current is None:
                self.current = await self.capturer.capture(screenshot=screenshot)
            previous = self.current
            await self.network.enable()
            try:
                action = parse_action(raw_action)
            except ActionValidationError as exc:
                return self._error(previous, "ACTION_VALIDATION_FAILED", exc.message, exc.failed_action)
            try:
                await self._run(action, previous)
            except ActionError as exc:
                return self._error(previous, exc.code, exc.message, action)
            except NavigationError as exc:
                return self._error(previous, "NAVIGATION_FAILED", str(exc), action)
            except (CDPEngineError, TimeoutError) as exc:
                log.debug("action failed", exc_info=True)
                return self._error(previous, "INTERNAL_BROWSER_ERROR", f"{type(exc).__name__}: {exc}", action)
            t_action = time.perf_counter()
            if action["action"] not in ("finish_task", "fail_task"):
                self.capturer.invalidate()
            capture = await self.capturer.capture(screenshot=screenshot)
            self.current = capture
            capture.timings = {
                **capture.timings,
                "action_ms": (t_action - t0) * 1000,
                "total_action_ms": (time.perf_counter() - t0) * 1000,
            }
            self.tab.last_timings = capture.timings
            return dict(capture.state)

    def _error(self, previous: Capture, code: str, message: str, failed_action: Any) -> dict[str, Any]:
        state = dict(previous.state)
        state["error"] = {"code": code, "message": message, "failed_action": failed_action}
        return state

    # ----- actions ----------------------------------------------------------------------------

    async def _run(self, action: dict[str, Any], previous: Capture) -> None:
        name = action["action"]
        if name == "finish_task" or name == "fail_task":
            self.finished = {"action": name, "message": action["message"]}
            return
        if name == "navigate":
            await self._navigate(action["url"])
            return
        if name == "scroll":
            await self._scroll(action["direction"], action.get("pixels"), previous)
            return
        element = await self._resolve(previous, action["element_index"])
        if name == "click_element":
            await self._click(element)
        elif name == "input_text":
            await self._input_text(element, action["text"], bool(action.get("overwrite", False)))
        elif name == "select_option":
            await self._select_option(element, previous, action["option_index"])

    async def _resolve(self, capture: Capture, index: int) -> Element:
        """The element an index names, proven to be the same element still (core.identity), else
        INVALID_ELEMENT_INDEX; no round trip beyond the version key while the page is unchanged."""
        element = capture.elements.get(index)
        if element is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX", f"Element with index {index} not found in the current element index."
            )

        async def unchanged() -> bool:
            key = await self.capturer.version_key()
            return key == capture.version_key and StateCapturer.key_is_stable(key)

        verdict = await verify(self.tab, element, element.fingerprint(), DOM_LOOK, unchanged=unchanged)
        if not verdict.same:
            raise ActionError("INVALID_ELEMENT_INDEX", invalid_index_message(index, verdict))
        return element

    async def _call(self, element: Element, function: str, *args: Any) -> Any:
        """Call a function with `this` bound to the element; None when the node no longer exists."""
        try:
            return await call_function_on(element.session, element.backend_node_id, function, *args)
        except JavaScriptError:
            raise
        except CDPEngineError:
            return None

    def _check_usable(self, element: Element, index: int) -> None:
        if element.disabled:
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {index} ({element.tag}) is disabled.")

    async def _click(self, element: Element) -> None:
        self._check_usable(element, element.index)
        if element.tag == "option":
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {element.index} is an <option>: use select_option with its select's index.",
            )
        try:
            x, y = await clickable_point(self.tab, element.session, element.backend_node_id)
        except NotClickableError as exc:
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} is not visible: {exc}.") from None
        if not await hit_target(self.tab, element.session, element.backend_node_id, x, y):
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {element.index} is covered by another element at its visible point.",
            )
        await self._settled(self._click_delivered(element, x, y))

    async def _click_delivered(self, element: Element, x: float, y: float) -> None:
        """Click at (x, y); inside an out-of-process frame, make sure the press reached that frame.

        Chromium routes input to an OOPIF by the compositor's hit-test data; while the frame has not been
        composited yet (just loaded), the press lands on the parent's <iframe> element and is lost. A
        listener in the frame's isolated world (invisible to the page) counts presses: when none arrived,
        wait for both frames to draw and click once more.
        """
        ctx = None
        if element.session is not self.tab.session:
            ctx = self.capturer.world_context(element.frame_id, element.loader_id)
        if ctx is None:
            await click_at(self.tab, x, y)
            return
        session = element.session
        counted = await self._count_presses(session, ctx, arm=True)
        await click_at(self.tab, x, y)
        if counted is None or await self._count_presses(session, ctx) != 0:
            return
        log.debug("click at (%s, %s) did not reach frame %s: clicking again once it is drawn", x, y, element.frame_id)
        frames_drawn = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"
        with contextlib.suppress(CDPEngineError):  # a timeout too: clicking again is still right
            await asyncio.gather(
                *[
                    s.send("Runtime.evaluate", {"expression": frames_drawn, "awaitPromise": True}, timeout=1.0)
                    for s in (session, self.tab.session)
                ]
            )
        await click_at(self.tab, x, y)

    @staticmethod
    async def _count_presses(session: Any, ctx: int, *, arm: bool = False) -> int | None:
        """Presses the frame received since the last arming (None when the isolated world is gone)."""
        expression = (
            "(() => { const g = globalThis; if (!g.__cdpEnginePresses) { g.__cdpEnginePresses = {n: 0};"
            " addEventListener('mousedown', () => { g.__cdpEnginePresses.n++; }, {capture: true}); }"
            + (" g.__cdpEnginePresses.n = 0;" if arm else "")
            + " return g.__cdpEnginePresses.n; })()"
        )
        try:
            result = await session.send(
                "Runtime.evaluate", {"expression": expression, "contextId": ctx, "returnByValue": True}, timeout=5.0
            )
        except CDPEngineError:
            return None
        value = result.get("result", {}).get("value")
        return value if isinstance(value, int) else None

    async def _input_text(self, element: Element, text: str, overwrite: bool) -> None:
        self._check_usable(element, element.index)
        accepts = (
            element.tag == "textarea"
            or (element.tag == "input" and element.input_type in TEXT_INPUT_TYPES)
            or element.editable
            or (element.descriptor.get("role") in TEXT_ROLES and element.tag not in ("select", "button", "a"))
        )
        if not accepts:
            kind = f"input type={element.input_type}" if element.tag == "input" else element.tag
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE", f"Element {element.index} ({kind}) does not accept text input."
            )
        readonly = await self._call(
            element,
            """function(overwrite) {
                if (this.readOnly) return 'readonly';
                this.focus();
                if (this.isContentEditable) {
                    const r = document.createRange(); r.selectNodeContents(this);
                    if (!overwrite) r.collapse(false);
                    const s = getSelection(); s.removeAllRanges(); s.addRange(r);
                } else if (typeof this.select === 'function') {
                    try { if (overwrite) this.select(); else { const n = this.value.length; this.setSelectionRange(n, n); } }
                    catch (e) { if (overwrite) this.select(); }
                }
                return 'ok';
            }""",
            overwrite,
        )
        if readonly is None:
            raise ActionError("INVALID_ELEMENT_INDEX", f"Element {element.index} was removed from the page.")
        if readonly == "readonly":
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} is read-only.")

        async def typing() -> None:
            if text:
                await insert_text(self.tab, text)
            elif overwrite:
                from ..core.keys import chord_events

                await press_events(self.tab, chord_events("Delete"))

        await self._settled(typing())

    async def _select_option(self, element: Element, capture: Capture, option_index: int) -> None:
        if element.tag != "select":
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {element.index} is a <{element.tag}>, not a <select>: select_option needs a select's index.",
            )
        self._check_usable(element, element.index)
        option = capture.elements.get(option_index)
        if option is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX", f"Element with index {option_index} not found in the current element index."
            )
        if option.tag != "option" or option.select_index != element.index:
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {option_index} is not an <option> of the select at index {element.index}.",
            )
        if option.disabled:
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Option {option_index} is disabled.")
        option = await self._resolve(capture, option_index)
        # No trusted path exists for a native select's popup in headless Chromium: select by script and
        # fire the same input and change events the browser fires (documented fallback).
        changed = self._call(
            option,
            """function() {
                const select = this.closest('select');
                if (!select) return false;
                select.focus();
                if (this.selected) return true;
                this.selected = true;
                select.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
                select.dispatchEvent(new Event('change', {bubbles: true}));
                return true;
            }""",
        )
        await self._settled(changed)

    async def _scroll(self, direction: str, pixels: int | None, capture: Capture) -> None:
        width, height = capture.viewport[0], capture.viewport[1]
        amount = pixels if pixels is not None else (height if direction in ("up", "down") else width)
        dx = {"left": -amount, "right": amount}.get(direction, 0)
        dy = {"up": -amount, "down": amount}.get(direction, 0)
        await self._settled(
            self.tab.evaluate(f"window.scrollBy({{left: {dx}, top: {dy}, behavior: 'instant'}})", timeout=5.0)
        )

    async def _navigate(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme.lower() not in NAVIGABLE_SCHEMES or (parts.scheme in ("http", "https") and not parts.netloc):
            raise ActionError(
                "ACTION_VALIDATION_FAILED",
                f"navigate: url must be an absolute http(s), file, data or about URL, got {url!r}",
            )
        try:
            await self.tab.goto(url, wait_until="load")
        except NavigationError as exc:
            await self._restore()
            raise NavigationError(url, exc.error_text) from None
        await self._settle_after(time.perf_counter())

    async def _restore(self) -> None:
        """Put the tab back where it was: Chromium commits an error page after a failed navigation."""
        tab = self.tab
        try:
            await tab.wait_for_condition(lambda: tab.url.startswith("chrome-error:"), 3.0)
        except TimeoutError:
            return  # nothing committed: the tab is still on its page
        for _attempt in range(3):
            try:
                await tab.back(wait_until="load", timeout=10.0)
                return
            except CDPEngineError:
                # Right after the error page commits its session is briefly not ready: wait for its load.
                with contextlib.suppress(TimeoutError):
                    await tab.wait_for_condition(
                        lambda: "load" in getattr(tab.frames.get(tab.main_frame_id), "lifecycle", ()), 1.0
                    )
        log.debug("could not restore the page after a failed navigation")

    # ----- settling ---------------------------------------------------------------------------

    async def _settled(self, input_coro: Any) -> None:
        """Run the input, then wait for the page to settle: a navigation it caused, DOM quiet, network quiet."""
        main = self.tab.frames.get(self.tab.main_frame_id)
        loader_before = main.loader_id if main else ""
        requested = asyncio.get_running_loop().create_future()
        unsubscribe = self.tab.session.on(
            "Page.frameRequestedNavigation",
            lambda p: p.get("frameId") == self.tab.main_frame_id and not requested.done() and requested.set_result(p),
        )
        unsubscribe2 = self.tab.session.on(
            "Page.frameStartedNavigating",
            lambda p: p.get("frameId") == self.tab.main_frame_id
            and p.get("navigationType") not in ("sameDocument",)
            and not requested.done()
            and requested.set_result(p),
        )
        try:
            await input_coro
            t_input = time.perf_counter()
            await self._settle_after(t_input, requested, loader_before)
        finally:
            unsubscribe()
            unsubscribe2()

    async def _dom_quiet(self) -> None:
        await self.tab.evaluate(SETTLE_SCRIPT % (SETTLE_QUIET_MS, SETTLE_MAX_MS), timeout=SETTLE_MAX_MS / 1000 + 2)

    async def _settle_after(
        self, t_start: float, requested: asyncio.Future[Any] | None = None, loader_before: str = ""
    ) -> None:
        """Event-driven settle, every step with a deadline: navigation, DOM quiet, then network quiet."""
        tab = self.tab
        budget = SETTLE_MAX_MS / 1000 + 2
        quiet: asyncio.Future[Any] = asyncio.ensure_future(self._dom_quiet())
        dialog = asyncio.ensure_future(tab.wait_for_condition(lambda: tab.pending_dialog is not None, budget))
        waiters: set[asyncio.Future[Any]] = {quiet, dialog}
        if requested is not None:
            waiters.add(requested)
        try:
            done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED, timeout=budget)
            if dialog in done and not dialog.exception():
                return  # a held dialog blocks the page: report now, never wait on a paused renderer
            main = tab.frames.get(tab.main_frame_id)
            navigating = (requested is not None and requested.done()) or (
                bool(loader_before) and main is not None and main.loader_id != loader_before
            )
            if navigating:

                def loaded() -> bool:
                    frame = tab.frames.get(tab.main_frame_id)
                    return tab.pending_dialog is not None or (
                        frame is not None and frame.loader_id != loader_before and "load" in frame.lifecycle
                    )

                try:
                    await tab.wait_for_condition(loaded, tab.browser.navigation_timeout)
                except TimeoutError:
                    log.debug("navigation after action did not load before the deadline")
                if tab.pending_dialog is not None:
                    return
                quiet.cancel()
                quiet = asyncio.ensure_future(self._dom_quiet())
            await asyncio.wait({quiet}, timeout=budget)
            # Bounded network quiet: requests the action started (fetch/XHR) usually re-render on arrival.
            if self.network.inflight and tab.pending_dialog is None:
                with contextlib.suppress(TimeoutError):
                    await tab.wait_for_condition(
                        lambda: not self.network.inflight or tab.pending_dialog is not None, NETWORK_QUIET_MAX
                    )
                if tab.pending_dialog is None:
                    quiet = asyncio.ensure_future(self._dom_quiet())
                    await asyncio.wait({quiet}, timeout=budget)
        finally:
            for w in (quiet, dialog):
                if not w.done():
                    w.cancel()
                elif not w.cancelled():
                    w.exception()


class NetworkTracker:
    """Requests in flight on a tab's main session (Network domain, enabled on the tab's first action)."""

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
                self.tab._check_conditions()
