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

from ..core import input
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
        """The element an index names, proven to be the same element still (or INVALID_ELEMENT_INDEX)."""
        element = capture.elements.get(index)
        if element is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX", f"Element with index {index} not found in the current element index."
            )
        if element.session.closed:
            raise ActionError("INVALID_ELEMENT_INDEX", f"Element {index} is gone: its frame was closed. Request a new state.")
        frame = self.tab.frames.get(element.frame_id)
        if frame is None or frame.loader_id != element.loader_id:
            raise ActionError(
                "INVALID_ELEMENT_INDEX",
                f"Element {index} is gone: its document navigated since the state was captured. Request a new state.",
            )
        key = await self.capturer.version_key()
        if key == capture.version_key and StateCapturer.key_is_stable(key):
            return element  # nothing changed since the state: the index is exact
        current = await self._fingerprint(element)
        if current is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX", f"Element {index} was removed from the page since the state was captured."
            )
        if current != element.fingerprint():
            raise ActionError(
                "INVALID_ELEMENT_INDEX",
                f"Element {index} changed since the state was captured (was {element.fingerprint()[4]!r}, "
                f"now {current[4]!r}). Request a new state.",
            )
        return element

    async def _call(self, element: Element, function: str, *args: Any) -> Any:
        """Call a function with `this` bound to the element; None when the node no longer exists."""
        try:
            return await input.call_on(element, function, *args)
        except JavaScriptError:
            raise
        except CDPEngineError:
            return None

    async def _fingerprint(self, element: Element) -> tuple[Any, ...] | None:
        value = await self._call(
            element,
            """function() {
                if (!this.isConnected) return null;
                const tag = this.localName;
                let text = null;
                if (tag === 'select') { const o = this.selectedOptions[0]; text = o ? o.text.replace(/\\s+/g, ' ').trim() : ''; }
                else if (tag === 'option') text = this.text.replace(/\\s+/g, ' ').trim();
                else if (tag !== 'input' && tag !== 'textarea') text = (this.innerText || '').replace(/\\s+/g, ' ').trim().slice(0, 200);
                let type = null;
                if (tag === 'input') type = this.type; else if (tag === 'button') type = this.type;
                return [tag, this.getAttribute('aria-label'), this.getAttribute('name'), type, text === '' ? null : text];
            }""",
        )
        return tuple(value) if value is not None else None

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
        # Inside an out-of-process frame the engine's isolated world there checks that the press arrived.
        ctx = None
        if element.session is not self.tab.session:
            ctx = self.capturer.world_context(element.frame_id, element.loader_id)

        async def click() -> None:
            try:
                await input.click_element(self.tab, element, world_context=ctx)
            except input.NotClickableError as exc:
                raise self._not_clickable(element, exc) from None

        await self._settled(click())

    async def point(self, element: Element) -> tuple[float, float]:
        """The element's visible point that takes the pointer (scrolled into view, hit-tested), or
        ELEMENT_NOT_INTERACTIVE in the protocol's words."""
        try:
            return await input.point_of(self.tab, element)
        except input.NotClickableError as exc:
            raise self._not_clickable(element, exc) from None

    @staticmethod
    def _not_clickable(element: Element, exc: input.NotClickableError) -> ActionError:
        if exc.reason == input.COVERED:
            return ActionError(
                "ELEMENT_NOT_INTERACTIVE", f"Element {element.index} is covered by another element at its visible point."
            )
        return ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} is not visible: {exc}.")

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
                await input.insert_text(self.tab, text)
            elif overwrite:
                await input.press(self.tab, "Delete")

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
