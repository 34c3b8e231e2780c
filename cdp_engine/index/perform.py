"""The protocol's seven actions on one tab: what each does to the page, and its refusals in the protocol's words.

ElementIndex (index/element_index.py) owns the states, the lock and the one deadline of act(); a Performer runs
the action itself between two states. It keeps what one action's steps share and nothing longer: the settle's
arming and the node resolutions sent ahead with the identity check, and that check's version-key answer.
Every index it acts on is first proven to name the same element (core/identity.py), else INVALID_ELEMENT_INDEX.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from ..core import fields, input, scripts
from ..core.identity import DOM_LOOK, Verdict, verify
from ..core.pipeline import Action, Call, Click, InsertText, Press
from ..core.policies import Policies, PolicyError
from ..core.settle import Arming, SettleReport
from ..core.text_focus import FOCUS_FOR_TEXT, focus_refusal
from ..errors import CDPEngineError, JavaScriptError
from ..snapshot.capture import Capture, Element
from ..snapshot.capturer import StateCapturer
from ..snapshot.probes import ChangeProbes
from . import one_call
from .extended_scripts import LISTBOX_ROLES, OPTION_OF_SCRIPT, SCROLL_INNER_SCRIPT

if TYPE_CHECKING:
    from ..core.tab import Tab

__all__ = ["ActionError", "Performer", "invalid_index_message", "not_clickable"]

TEXT_INPUT_TYPES = frozenset(
    {
        "text",
        "email",
        "password",
        "search",
        "tel",
        "url",
        "number",
        "date",
        "datetime-local",
        "month",
        "time",
        "week",
    }
) | fields.VALUE_TYPES
TEXT_ROLES = frozenset({"textbox", "searchbox", "combobox"})
# Of what act()'s deadline leaves after a failed navigation, the share kept for reading the page afterwards
# (at most this many seconds, at most half): the restore (core/navigation.py) gets the rest.
READ_RESERVE = 1.0
NEXT_FRAME = "new Promise(done => { requestAnimationFrame(() => done()); setTimeout(done, 100); })"


async def _nothing() -> None:
    """An input with no event of its own (the focus given before it was the input)."""


class ActionError(Exception):
    """An action failed with one of the protocol's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _TakeTheLongWay(Exception):
    """A direct call found the page not as its state had it: nothing was armed or done."""


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
    return INVALID_INDEX_MESSAGES.get(
        verdict.reason, "Element {i} changed since the state was captured."
    ).format(i=index)


def not_clickable(element: Element, exc: input.NotClickableError) -> ActionError:
    """ELEMENT_NOT_INTERACTIVE in the protocol's words for input that cannot land on the element (the
    core's wording of why, input.refusal)."""
    return ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} {input.refusal(exc)}.")


def check_usable(element: Element) -> None:
    """ELEMENT_NOT_INTERACTIVE when the element is disabled."""
    if element.disabled:
        raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} ({element.tag}) is disabled.")


def _value_field(element: Element) -> bool:
    """Whether the element is an input whose value a person picks rather than types (core/fields.VALUE_TYPES)."""
    return element.tag == "input" and element.input_type in fields.VALUE_TYPES


async def _set_value(tab: Tab, element: Element, text: str) -> str:
    """core/fields.set_value's outcome, 'removed' when the node is gone."""
    try:
        return await fields.set_value(tab, element, text)
    except JavaScriptError:
        raise
    except CDPEngineError:
        return "removed"


def _value_refusal(element: Element, text: str, outcome: str) -> ActionError | None:
    """The protocol's error for a set_value outcome other than 'ok' (core/fields.set_value)."""
    hint = fields.rejected_hint(outcome)
    if outcome == "ok":
        return None
    if outcome == "removed":
        return ActionError("INVALID_ELEMENT_INDEX", f"Element {element.index} was removed from the page.")
    if hint is not None:
        return ActionError(
            "ELEMENT_NOT_INTERACTIVE",
            f"Element {element.index} (input type={element.input_type}) does not take {text!r}: it takes {hint}.",
        )
    return ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} {focus_refusal(outcome)}.")


class ActionHost(Protocol):
    """What a Performer needs of the ElementIndex it acts for (a protocol: perform.py never imports it)."""

    tab: Tab
    capturer: StateCapturer
    current: Capture | None  # the state last returned: where its elements were
    policies: Policies
    finished: dict[str, str] | None  # set by finish_task / fail_task

    async def apply(self, action: Action | None = None, *, arming: Arming | None = None) -> SettleReport: ...


class Performer:
    """Runs one tab's actions for its ElementIndex (which holds the lock while one runs)."""

    def __init__(self, index: ActionHost) -> None:
        self.index = index
        self.tab = index.tab
        self._arming: Arming | None = None  # the next settle's arming, sent ahead with the identity check
        self._unchanged: tuple[Capture, asyncio.Future[bool]] | None = None  # this action's version-key check
        self._resolutions: dict[
            int, asyncio.Future[dict[str, Any]]
        ] = {}  # backend id -> DOM.resolveNode sent ahead

    async def run(self, action: dict[str, Any], previous: Capture, end: float) -> None:
        """Do a parsed action on the page `previous` was read from, within `end` (time.perf_counter())."""
        name = action["action"]
        if name == "finish_task" or name == "fail_task":
            self.index.finished = {"action": name, "message": action["message"]}
            return
        if name == "navigate":
            await self.navigate(action["url"], end)
            return
        if name == "scroll":
            await self._scroll(action["direction"], action.get("pixels"), previous)
            return
        if (name == "input_text" or name == "select_option") and await self._direct(action, previous):
            return
        # The settle's arming, and the resolution of the node a script will run on, go out with the identity
        # check (core.settle.Arming, scripts.send_resolve): no round trip of their own.
        self._arming = Arming(self.tab)
        target = previous.elements.get(action["option_index" if name == "select_option" else "element_index"])
        if target is not None and name != "click_element":
            self._resolutions[target.backend_node_id] = scripts.send_resolve(
                target.session, target.backend_node_id
            )
        try:
            element = await self.resolve(previous, action["element_index"])
            if name == "click_element":
                await self._click(element)
            elif name == "input_text":
                await self._input_text(element, action["text"], bool(action.get("overwrite", False)))
            elif name == "select_option":
                await self._select_option(element, previous, action["option_index"])
        finally:
            if self._arming is not None:  # refused before its input: nothing to settle
                self._arming.cancel()
                self._arming = None
            if target is not None:
                for resolved in self._resolutions.values():
                    scripts.drop_resolve(target.session, resolved)
            self._resolutions.clear()
            self._unchanged = None

    async def apply(self, action: Action | None = None) -> SettleReport:
        """The action through the core's pipeline and the index's settle (ElementIndex.apply), with the arming
        this action sent ahead (if any)."""
        arming, self._arming = self._arming, None
        return await self.index.apply(action, arming=arming)

    async def resolve(self, capture: Capture, index: int) -> Element:
        """The element an index names, proven to be the same element still (core.identity), else
        INVALID_ELEMENT_INDEX; no round trip beyond the version key while the page is unchanged."""
        element = capture.elements.get(index)
        if element is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX", f"Element with index {index} not found in the current element index."
            )
        capturer = self.index.capturer

        async def read() -> bool:
            key = await capturer.probes.version_key()
            return key == capture.version_key and ChangeProbes.key_is_stable(key)

        async def unchanged() -> bool:
            # One probe per action: a second index it names (select_option's option) is checked by the same
            # answer, as nothing was sent between them that could change the page.
            if self._unchanged is None or self._unchanged[0] is not capture:
                self._unchanged = (capture, asyncio.ensure_future(read()))
            return await asyncio.shield(self._unchanged[1])

        verdict = await verify(self.tab, element, element.fingerprint(), DOM_LOOK, unchanged=unchanged)
        if not verdict.same:
            raise ActionError("INVALID_ELEMENT_INDEX", invalid_index_message(index, verdict))
        return element

    async def call(self, element: Element, function: str, *args: Any) -> Any:
        """Call a function with `this` bound to the element; None when the node no longer exists."""
        try:
            resolved = self._resolutions.pop(element.backend_node_id, None)
            return await input.call_on(element, function, *args, resolved=resolved)
        except JavaScriptError:
            raise
        except CDPEngineError:
            return None

    async def _click(self, element: Element) -> None:
        check_usable(element)
        if element.tag == "option":
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {element.index} is an <option>: use select_option with its select's index.",
            )

        try:  # the core's one click (in an out-of-process frame, checked to arrive there)
            await self.apply(Click(element))
        except input.NotClickableError as exc:
            raise not_clickable(element, exc) from None

    async def _direct(self, action: dict[str, Any], capture: Capture) -> bool:
        """input_text or select_option in one call when the page is provably the capture's (index/one_call.py);
        False, with nothing done, when it must take the long way (which also reports any refusal, in its order)."""
        element = capture.elements.get(action["element_index"])
        if element is None:
            return False
        try:
            if action["action"] == "input_text":
                self._check_text_target(element)
                if _value_field(element):
                    return False  # set, not typed: the long way (core/fields.py)
                target: Element | None = element
            else:
                target = self._native_option(element, capture, action["option_index"])
        except ActionError:
            return False
        planned = one_call.plan(self.tab, capture, target) if target is not None else None
        if planned is None:
            return False
        if action["action"] == "input_text":
            answer = await one_call.send(self.tab, planned, "text", bool(action.get("overwrite", False)))
            if answer is None:
                return False
            if answer.get("readonly"):
                raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} is read-only.")
            self._arming = Arming.in_call(self.tab, self.tab.session, planned.context)
            refusal = focus_refusal(answer.get("value"))
            if refusal is not None:  # focus did not reach the field: nothing to type, nothing to settle
                raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} {refusal}.")
            await self.apply(self._typing(action["text"], bool(action.get("overwrite", False))))
            return True

        async def choose() -> Any:
            answer = await one_call.send(self.tab, planned, "option")
            if answer is None:
                raise _TakeTheLongWay
            return answer["value"]

        self._arming = Arming.in_call(self.tab, self.tab.session, planned.context)
        try:
            await self.apply(Call(choose))
        except _TakeTheLongWay:
            return False
        return True

    def _check_text_target(self, element: Element) -> None:
        """ELEMENT_NOT_INTERACTIVE unless the element is enabled and takes text."""
        check_usable(element)
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

    async def _input_text(self, element: Element, text: str, overwrite: bool) -> None:
        self._check_text_target(element)
        if _value_field(element):
            await self._set_value(element, text)
            return
        answer = await self.call(element, FOCUS_FOR_TEXT, overwrite)
        if answer is None:
            raise ActionError("INVALID_ELEMENT_INDEX", f"Element {element.index} was removed from the page.")
        refusal = focus_refusal(answer)
        if refusal is not None:  # no key is sent: focus is not on the field
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Element {element.index} {refusal}.")
        await self.apply(self._typing(text, overwrite))

    async def _set_value(self, element: Element, text: str) -> None:
        """input_text on a field that takes a value rather than keys (a date, a time, a colour, a range): the
        value set as a person's pick when the field would keep it (core/fields.set_value), else
        ELEMENT_NOT_INTERACTIVE naming what the field takes, with the field unchanged."""
        refusal = _value_refusal(element, text, str((await self.apply(Call(lambda: _set_value(self.tab, element, text)))).value))
        if refusal is not None:
            raise refusal

    @staticmethod
    def _typing(text: str, overwrite: bool) -> Action:
        """The typing into the focused field: the text as trusted input, or Delete to clear it (else nothing
        more: the focus given was the input)."""
        if text:
            return InsertText(text)
        return Press("Delete") if overwrite else Call(_nothing)

    async def _select_option(self, element: Element, capture: Capture, option_index: int) -> None:
        if self._native_option(element, capture, option_index) is None:
            await self._select_custom(element, capture, option_index)
            return
        option = await self.resolve(capture, option_index)
        await self.apply(Call(lambda: self.call(option, one_call.CHOOSE_OPTION)))

    def _native_option(self, element: Element, capture: Capture, option_index: int) -> Element | None:
        """The option of a native select that select_option names (its refusals as ActionError); None for a
        custom listbox or combobox (extended mode), which is chosen by a click instead."""
        if (
            element.tag != "select"
            and capture.interactive == "extended"
            and element.descriptor.get("role") in LISTBOX_ROLES
        ):
            return None
        if element.tag != "select":
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {element.index} is a <{element.tag}>, not a <select>: select_option needs a select's index.",
            )
        check_usable(element)
        option = capture.elements.get(option_index)
        if option is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX",
                f"Element with index {option_index} not found in the current element index.",
            )
        if option.tag != "option" or option.select_index != element.index:
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {option_index} is not an <option> of the select at index {element.index}.",
            )
        if option.disabled:
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Option {option_index} is disabled.")
        return option

    async def _select_custom(self, element: Element, capture: Capture, option_index: int) -> None:
        """select_option on a custom listbox or combobox (extended mode): a trusted click on the option, which
        must be an element of the same state inside the listbox or in what it controls or owns (aria-controls,
        aria-owns). The same identity checks and error codes as a native select's."""
        check_usable(element)
        option = capture.elements.get(option_index)
        if option is None:
            raise ActionError(
                "INVALID_ELEMENT_INDEX",
                f"Element with index {option_index} not found in the current element index.",
            )
        if option.disabled:
            raise ActionError("ELEMENT_NOT_INTERACTIVE", f"Option {option_index} is disabled.")
        option = await self.resolve(capture, option_index)
        token = f"cdp-engine-option-{option_index}-{time.perf_counter_ns()}"
        await self.call(option, "function(t) { this.__cdpEngineOption = t; }", token)
        inside = await self.call(element, OPTION_OF_SCRIPT, token)
        await self.call(option, "function() { delete this.__cdpEngineOption; }")
        if inside is not True:
            raise ActionError(
                "ELEMENT_NOT_INTERACTIVE",
                f"Element {option_index} is not an option of the listbox at index {element.index}.",
            )
        await self._click(option)

    async def _scroll(self, direction: str, pixels: int | None, capture: Capture) -> None:
        width, height = capture.viewport[0], capture.viewport[1]
        amount = pixels if pixels is not None else (height if direction in ("up", "down") else width)
        dx = {"left": -amount, "right": amount}.get(direction, 0)
        dy = {"up": -amount, "down": amount}.get(direction, 0)
        if capture.interactive == "extended":
            # Extended mode also reaches content in an inner scroll container when the page cannot move.
            scroll = f"({SCROLL_INNER_SCRIPT})({dx}, {dy}, {'true' if pixels is None else 'false'})"
        else:
            scroll = f"window.scrollBy({{left: {dx}, top: {dy}, behavior: 'instant'}})"
        # Scroll events fire with the next frame, before its animation-frame callbacks: the page's scroll
        # listeners have run once one has (at most 100 ms, for a page that draws no frames).
        script = f"(async () => {{ {scroll}; await {NEXT_FRAME}; }})()"
        await self.apply(Call(lambda: self.tab.evaluate(script, timeout=5.0)))

    async def navigate(self, url: str, end: float) -> None:
        """The navigate action: the index's navigation policy and the tab's origins first (nothing is sent
        for a refused URL), then a load within `end` less what reading the page afterwards needs."""
        try:
            self.index.policies.navigation.check(url)
            self.tab.check_navigation(
                url
            )  # the origins of the tab's context or browser (launch(allowed_origins=...))
        except PolicyError as exc:
            raise ActionError("ACTION_VALIDATION_FAILED", f"navigate: {exc}") from None
        # A failed navigation leaves the tab on its page (core/navigation.py).
        left = end - time.perf_counter()
        deadline = asyncio.get_running_loop().time() + left - min(READ_RESERVE, left / 2)
        await self.tab.goto(url, wait_until="load", deadline=deadline)
        await self.apply()
