"""Running a step's actions on the core: protocol actions through the element index, BrowserGym calls
it has no action for (clicks with modifiers, hover, keys, mouse, drag, uploads, history, tabs) through
the core's one action pipeline (core/pipeline.py, by ElementIndex.apply: the same aim, keys held, delivery
check and settle as every surface), under the index's lock with its identity rules. An element-targeted input
is refused in the protocol's words (index/perform.py `not_clickable`); coordinate input (`mouse_click(x, y)`)
stays coordinate input.

`BGymActions` is the part of `BrowserEnv.step` that turns one parsed call into a new state; the
environment keeps the episode's tabs and hands it the few tab operations it needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from typing import Any

import orjson

from ..core import input
from ..core.browser import Browser
from ..core.files import set_input_files
from ..core.pipeline import (
    Action,
    Call,
    Click,
    ClickAt,
    Drag,
    Hover,
    InsertText,
    KeyDown,
    KeyUp,
    MouseButton,
    MoveTo,
    Press,
)
from ..core.policies import FilePolicy, PolicyError
from ..core.tab import Tab
from ..errors import CDPEngineError, NavigationError
from ..index.actions import ActionValidationError
from ..index.element_index import ElementIndex
from ..index.perform import ActionError, not_clickable
from ..snapshot.capture import Capture, Element
from .bgym import BGymCall, is_bgym_text, parse_bgym, to_protocol
from .tabs import EpisodeTabs, StepResult

__all__ = ["BGymActions", "parse_action"]

log = logging.getLogger("cdp_engine.harness")
# Focus the element, then whether focus is on it or inside it (the active element of its own document or shadow
# root): a disabled, hidden, inert or unfocusable element leaves focus where it was, and a key pressed then
# would go to another element.
FOCUS_ON_IT = """function() {
  this.focus();
  const active = this.getRootNode().activeElement;
  return !!active && (active === this || this.contains(active));
}"""


def parse_action(action: Any) -> list[Any]:
    """Parse everything before anything runs: a malformed action changes nothing."""
    if isinstance(action, Mapping):
        return [dict(action)]
    if isinstance(action, (bytes, bytearray)):
        action = action.decode("utf-8", "replace")
    if isinstance(action, str):
        if not is_bgym_text(action):
            try:
                decoded = orjson.loads(action)
            except orjson.JSONDecodeError:
                return [action]  # the engine reports the JSON error, as the protocol says
            return [decoded]
        return parse_bgym(action)
    raise ActionValidationError(
        f"an action is a protocol action object, its JSON text, or a BrowserGym call string; got {type(action).__name__}",
        failed_action=repr(action),
    )


class BGymActions:
    """Runs a step's calls on the episode's tabs (`tabs`: the active one, opening and switching
    tabs, the screenshot format) and returns the state after them."""

    def __init__(self, browser: Browser, tabs: EpisodeTabs) -> None:
        self.browser = browser
        self.tabs = tabs

    async def run_calls(
        self, tab: Tab, calls: list[Any], action: Any
    ) -> tuple[dict[str, Any], float, list[Any], dict[str, str] | None]:
        """A step's parsed calls in order, each on the tab active then, until one fails or closes its tab:
        (state, capture ms, what ran, the finish_task/fail_task that ran if one did)."""
        state: dict[str, Any] = {}
        capture_ms = 0.0
        ran: list[Any] = []
        finished: dict[str, str] | None = None
        for call in calls:
            tab = self.tabs.active or tab
            protocol: Any = None
            try:
                if isinstance(call, BGymCall):
                    state, cms, protocol = await self.run(tab, call, action)
                    ran.append(protocol if protocol is not None else call.source)
                else:
                    state, cms = await self.act(tab, call)
                    protocol = call
                    ran.append(call)
            except CDPEngineError as exc:
                if not tab.closed:  # the page is gone in another way: report it as the protocol does
                    state = await self.fault_state(tab, exc, action)
                    break
                state, cms = {}, 0.0  # the action closed its own tab (window.close()): follow below
            capture_ms += cms
            if "error" in state or tab.closed:
                break
            if isinstance(protocol, Mapping) and protocol.get("action") in ("finish_task", "fail_task"):
                finished = {"action": protocol["action"], "message": protocol.get("message", "")}
        return state, capture_ms, ran, finished

    async def fault_state(self, tab: Tab, exc: CDPEngineError, action: Any) -> dict[str, Any]:
        """The state before the step plus INTERNAL_BROWSER_ERROR: a browser fault, reported as the protocol does."""
        index = ElementIndex.of(tab)
        if index.current is None and not (tab.closed or tab.renderer_hung):
            with contextlib.suppress(CDPEngineError):
                await self.previous_state(tab)
        return index.error_state(index.current, "INTERNAL_BROWSER_ERROR", f"{type(exc).__name__}: {exc}", action)

    async def previous_state(self, tab: Tab) -> dict[str, Any]:
        """The state before the step (the last capture when there is one): what a failed action leaves."""
        index = ElementIndex.of(tab)
        if index.current is not None:
            return dict(index.current.state)
        return await ElementIndex.of(tab).state(screenshot=self.tabs.capture_format())

    async def act(self, tab: Tab, action: Any) -> StepResult:
        """A protocol action through the element index (its errors come back in the state)."""
        state = await ElementIndex.of(tab).act(action, screenshot=self.tabs.capture_format())
        if tab.closed and "error" in state:
            return {}, 0.0  # the action closed its own tab (window.close()): the step follows the tabs
        capture_ms = 0.0 if "error" in state else float(tab.last_timings.get("total_ms", 0.0))
        return state, capture_ms

    async def run(self, tab: Tab, call: BGymCall, raw: Any) -> tuple[dict[str, Any], float, Any]:
        """One BrowserGym call: (state, capture ms, the protocol action it ran as, or None)."""
        name, a = call.name, call.args
        index = ElementIndex.of(tab)
        failed = raw if isinstance(raw, str) else call.source
        if index.current is None:
            await ElementIndex.of(tab).state(screenshot=self.tabs.capture_format())
        current = index.current
        assert current is not None  # state() above sets it
        try:
            if name == "select_option":
                options_of: dict[int, list[int]] = {}
                for el in current.elements.values():
                    if el.select_index is not None:
                        options_of.setdefault(el.select_index, []).append(el.index)
                protocol = to_protocol(call, current.state, options_of)
                if protocol is None:
                    picked = current.elements.get(a["bid"])
                    if picked is None:
                        raise ActionError(
                            "INVALID_ELEMENT_INDEX",
                            f"Element with index {a['bid']} not found in the current element index.",
                        )
                    raise ActionError(
                        "ELEMENT_NOT_INTERACTIVE",
                        f"Element {a['bid']} is a <{picked.tag}>, not a <select> with options.",
                    )
            elif name in ("check", "uncheck"):
                desc = current.state["element_index"].get(str(a["bid"]))
                checked = desc["attributes"].get("checked") if desc else None
                if desc is not None and checked is None:
                    raise ActionError(
                        "ELEMENT_NOT_INTERACTIVE",
                        f"Element {a['bid']} ({desc['tag']}) has no checked state to {name}.",
                    )
                if checked == (name == "check"):
                    return dict(current.state), 0.0, None  # already so: nothing to do
                protocol = {"action": "click_element", "element_index": a["bid"]}
            else:
                protocol = to_protocol(call, current.state)
        except ActionValidationError as exc:
            return self._error(current, exc.code, exc.message, failed), 0.0, None
        except ActionError as exc:
            return self._error(current, exc.code, exc.message, failed), 0.0, None
        if protocol is not None:
            state, cms = await self.act(tab, protocol)
            if "error" in state:
                state["error"]["failed_action"] = failed
            return state, cms, protocol

        if name == "noop":
            await asyncio.sleep(max(0.0, float(a["wait_ms"])) / 1000)
            t = time.perf_counter()
            state = await ElementIndex.of(tab).state(screenshot=self.tabs.capture_format())
            return state, (time.perf_counter() - t) * 1000, None
        if name == "new_tab":
            new = await self.tabs.new_tab()
            state, cms = await self.tabs.switch(new)
            return state, cms, None
        if name == "tab_focus":
            tabs = self.tabs.open_tabs
            if not 0 <= a["index"] < len(tabs):
                msg = f"tab_focus: no tab {a['index']}; {len(tabs)} tab(s) open (0..{len(tabs) - 1})"
                return self._error(current, "ACTION_VALIDATION_FAILED", msg, failed), 0.0, None
            state, cms = await self.tabs.switch(tabs[a["index"]])
            return state, cms, None
        if name == "tab_close":
            await tab.close()
            remaining = self.tabs.open_tabs
            target = remaining[-1] if remaining else await self.tabs.new_tab()
            state, cms = await self.tabs.switch(target)
            return state, cms, None
        state, cms = await self._custom(tab, call, failed)
        return state, cms, None

    def _error(self, capture: Capture, code: str, message: str, failed: Any) -> dict[str, Any]:
        state = dict(capture.state)
        state["error"] = {"code": code, "message": message, "failed_action": failed}
        return state

    async def _custom(self, tab: Tab, call: BGymCall, failed: Any) -> StepResult:
        """Run a call the protocol has no action for, under the tab's element index lock, like act():
        resolve indices against the last state (same identity rules), act, settle, capture."""
        index: ElementIndex = ElementIndex.of(tab)
        shot = self.tabs.capture_format()
        async with index.lock:
            if index.current is None:
                index.current = await index.capturer.capture(screenshot=shot, interactive=index.interactive)
            previous = index.current
            try:
                await self._perform(tab, index, previous, call)
            except ActionError as exc:
                return index.error_state(previous, exc.code, exc.message, failed), 0.0
            except NavigationError as exc:
                return index.error_state(previous, "NAVIGATION_FAILED", str(exc), failed), 0.0
            except PolicyError as exc:  # an upload path that is no path (empty, NUL, too long)
                return index.error_state(previous, "ACTION_VALIDATION_FAILED", exc.message, failed), 0.0
            except (CDPEngineError, TimeoutError) as exc:
                log.debug("harness action failed", exc_info=True)
                return index.error_state(
                    previous, "INTERNAL_BROWSER_ERROR", f"{type(exc).__name__}: {exc}", failed
                ), 0.0
            index.capturer.invalidate()
            t = time.perf_counter()
            mode = previous.interactive  # the set of the state the call's indices came from
            capture = await index.capturer.capture(screenshot=shot, interactive=mode)
            index.current = capture
            return dict(capture.state), (time.perf_counter() - t) * 1000

    async def _element(self, index: ElementIndex, previous: Capture, bid: int, *, usable: bool = True) -> Element:
        """The element a bid names, proven the same (INVALID_ELEMENT_INDEX otherwise); `usable`: and enabled."""
        element = await index.resolve(previous, bid)
        if usable:
            index.check_usable(element)
        return element

    @staticmethod
    async def _apply(index: ElementIndex, action: Action, *elements: Element) -> None:
        """The action through the core's one pipeline and the index's settle (ElementIndex.apply); a target that
        cannot take it (not visible, covered, disabled, the press intercepted) refused in the protocol's words,
        naming the element of `elements` it was aimed at."""
        try:
            await index.apply(action)
        except input.NotClickableError as exc:
            aimed = next((element for element in elements if element is exc.target), elements[0])
            raise not_clickable(aimed, exc) from None

    async def _focus(self, index: ElementIndex, element: Element, bid: int, name: str) -> None:
        """Focus the element and prove focus is on it, so the keys of a press go to no other element."""
        answer = await index.call(element, FOCUS_ON_IT)
        if answer is None:
            raise ActionError("INVALID_ELEMENT_INDEX", f"Element {bid} was removed from the page.")
        if answer is not True:
            then = "nothing was pressed" if name == "press" else "focus did not move"
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {bid} cannot take focus (it is disabled, not rendered, inert or not focusable): {then}.",
            )

    async def _perform(self, tab: Tab, index: ElementIndex, previous: Capture, call: BGymCall) -> None:
        name, a = call.name, call.args
        if name in ("click", "dblclick"):  # BrowserGym's ControlOrMeta is Control (Chromium on Linux)
            element = await self._element(index, previous, a["bid"])
            held = "+".join(dict.fromkeys("Control" if m == "ControlOrMeta" else m for m in a["modifiers"]))
            count = 2 if name == "dblclick" else 1
            await self._apply(index, Click(element, button=a["button"], count=count, keys=held), element)
        elif name == "hover":  # as Playwright's hover: visible, receives the pointer; a disabled element too
            element = await self._element(index, previous, a["bid"], usable=False)
            await self._apply(index, Hover(element), element)
        elif name in ("press", "focus"):
            element = await self._element(index, previous, a["bid"], usable=False)
            await self._focus(index, element, a["bid"], name)
            await index.apply(Press(a["key_comb"], implied_shift=False) if name == "press" else None)
        elif name == "keyboard_press":
            await index.apply(Press(a["key"], implied_shift=False))
        elif name == "keyboard_down":
            await index.apply(KeyDown(a["key"], implied_shift=False))
        elif name == "keyboard_up":
            await index.apply(KeyUp(a["key"], implied_shift=False))
        elif name in ("keyboard_type", "keyboard_insert_text"):
            await index.apply(InsertText(a["text"]))
        elif name == "scroll":
            dx, dy = float(a["delta_x"]), float(a["delta_y"])
            script = f"window.scrollBy({{left: {dx}, top: {dy}, behavior: 'instant'}})"
            await index.apply(Call(lambda: tab.evaluate(script, timeout=5.0)))
        elif name == "mouse_move":
            await index.apply(MoveTo(a["x"], a["y"]))
        elif name in ("mouse_click", "mouse_dblclick"):
            count = 2 if name == "mouse_dblclick" else 1
            await index.apply(ClickAt(a["x"], a["y"], button=a["button"], count=count))
        elif name in ("mouse_down", "mouse_up"):
            await index.apply(MouseButton(name == "mouse_down", a["button"], x=a["x"], y=a["y"]))
        elif name == "drag_and_drop":  # both ends aimed and hit-tested before the press
            source = await self._element(index, previous, a["from_bid"])
            dest = await self._element(index, previous, a["to_bid"], usable=False)
            await self._apply(index, Drag(source, dest), source, dest)
        elif name == "mouse_drag_and_drop":
            await index.apply(Drag((a["from_x"], a["from_y"]), (a["to_x"], a["to_y"])))
        elif name == "upload_file":
            element = await index.resolve(previous, a["bid"])
            if element.tag != "input" or element.input_type != "file":
                raise ActionError(
                    "ELEMENT_NOT_INTERACTIVE", f"Element {a['bid']} is not an <input type=file>."
                )
            # The harness names its tasks' files itself; they live on the browser's host (resolved
            # here when that is this machine). Checked before the page is touched.
            policy = FilePolicy.unrestricted(local=self.browser.process is not None)
            files = policy.upload_paths(a["file"])
            await index.apply(Call(lambda: set_input_files(element.session, element.backend_node_id, files, policy)))
        elif name in ("go_back", "go_forward"):  # under the core rule: a failed step leaves the tab on its page
            await (tab.back if name == "go_back" else tab.forward)(wait_until="load")
            await index.apply()
        else:  # pragma: no cover - every parsed name is handled above or by to_protocol
            raise ActionError("ACTION_VALIDATION_FAILED", f"{name} is not supported")
