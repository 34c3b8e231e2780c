"""Interaction tools (by ref), coordinate mouse tools, and modal recovery (dialogs, file choosers).

Actions go through the core's one action pipeline (core/pipeline.py), the same as every surface's: scroll into
view, a hit-tested point, keys held, CDP Input events, the delivery check, then (ctx.run) the settle. Every action accepts `wait_for`
(see observe.py). browser_handle_dialog and browser_file_upload run on the instance's
recovery lock, so they can resolve a modal while the action that opened it still waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, Literal

import orjson

from ..core import fields, input, keys
from ..core.lifecycle import LifecycleWatcher
from ..core.pipeline import (
    Action,
    Click,
    ClickAt,
    Drag,
    Hover,
    InsertText,
    MouseButton,
    MoveTo,
    Press,
    TypeText,
    Wheel,
    perform,
)
from ..core.policies import PolicyError
from ..core.refs import NodeRef
from ..core.tab import Tab
from ..core.text_focus import FOCUS_FOR_TEXT, FOCUSED_VALUE, focus_refusal, ignored_text
from ..errors import CDPEngineError
from .envelope import ToolError
from .instances import Modal, Page
from .observe import WaitForSpec
from .params import Coordinate
from .registry import Ctx, tool

Button = Literal["left", "right", "middle"]
Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]
ENTER_LOAD_WAIT = 2.0
_TRUE = ("true", "1", "checked", "yes")
_FALSE = ("false", "0", "unchecked", "no")

# A field's kind, then (for one that takes typed text) text_focus.FOCUS_FOR_TEXT with the text selected:
# ['ok', the focused field's value] only when focus is on the field, so no key reaches another one (the value,
# read in the same call, is what the typing must change: text_focus.ignored_text).
FILL_PREPARE = f"""function() {{
  const el = this;
  if (el.tagName === 'INPUT') {{
    const t = (el.getAttribute('type') || 'text').toLowerCase();
    if (['checkbox', 'radio', 'file', 'button', 'submit', 'reset', 'image', 'hidden'].includes(t)) return 'input type=' + t;
    if (el.disabled || el.readOnly) return 'read-only';
    if (!['text', 'password', 'email', 'search', 'tel', 'url', 'number'].includes(t)) return 'set';
  }}
  const answer = ({FOCUS_FOR_TEXT}).call(el, true);
  if (answer === 'ok') return ['ok', ({FOCUSED_VALUE}).call(el)];
  return answer === 'not_editable' ? '<' + el.tagName.toLowerCase() + '>' : answer;
}}"""
CARET_END = f"""function() {{
  const answer = ({FOCUS_FOR_TEXT}).call(this, false);
  return answer === 'ok' ? ['ok', ({FOCUSED_VALUE}).call(this)] : answer;
}}"""
CHECK_STATE = """function() {
  const el = this;
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return {checked: el.checked, kind: el.type};
  const role = el.getAttribute('role');
  if (['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role))
    return {checked: el.getAttribute('aria-checked') === 'true', kind: role === 'radio' || role === 'menuitemradio' ? 'radio' : 'checkbox'};
  return {checked: null, kind: el.tagName.toLowerCase()};
}"""


def modifiers_chord(modifiers: Sequence[str] | None) -> str:
    """Playwright modifier names as a chord of keys to hold ("Control+Shift"; ControlOrMeta is Meta on macOS,
    Control elsewhere): held down around a click as a person holds them, as Playwright and the toolset do."""
    control_or_meta = "Meta" if sys.platform == "darwin" else "Control"
    return "+".join(control_or_meta if m == "ControlOrMeta" else m for m in modifiers or [])


async def on_node(tab: Tab, action: Action, *nodes: NodeRef) -> Any:
    """An input on a node through the core's one pipeline (core.pipeline.perform), its refusals worded for MCP
    (invalid_params) with the ref of the node refused (a drag's either end)."""
    try:
        return await perform(tab, action)
    except input.NotClickableError as exc:
        node = next((n for n in nodes if n is exc.target), nodes[0])
        raise input.NotInteractableError(f"{node.ref} {input.refusal(exc)}", exc.reason) from None


async def click(tab: Tab, node: NodeRef, *, button: str = "left", click_count: int = 1, hold_keys: str = "") -> None:
    """The core's one click on the node (actionability, keys held, delivery checked), refused in MCP's words."""
    await on_node(tab, Click(node, button=button, count=click_count, keys=hold_keys), node)


def coerce_bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    raise ToolError(
        "invalid_params",
        f"{what}: {value!r} is not a checked state (true/false, yes/no, checked/unchecked, 1/0).",
    )


class LoadWatch:
    """Armed before a key press; wait() gives a navigation the press started up to `timeout` for DOMContentLoaded.

    The core lifecycle watcher, with frameStartedLoading counting as a start; a held dialog does not end
    the wait (the tool's modal guard reports it).
    """

    def __init__(self, tab: Tab) -> None:
        self.watcher = LifecycleWatcher(tab, loading_counts=True)

    async def wait(self, timeout: float) -> None:
        try:
            await asyncio.sleep(0)  # events already received are dispatched first
            if not self.watcher.navigating:
                return
            with contextlib.suppress(CDPEngineError):
                await self.watcher.wait(
                    "domcontentloaded", timeout, dialog_ends=False, raise_on_timeout=False
                )
        finally:
            self.watcher.close()


async def fill(tab: Tab, node: NodeRef, text: str) -> None:
    """Replace the element's value at once (select all, then insert): trusted input events, no keystrokes."""
    kind, before = _prepared(await input.call_on(node, FILL_PREPARE))
    if kind == "set":
        outcome = await fields.set_value(tab, node, text)
        hint = fields.rejected_hint(outcome)
        if hint is not None:
            raise ToolError("invalid_params", f"{node.ref} does not accept {text!r}: it takes {hint}.")
        if outcome != "ok":
            raise ToolError("invalid_params", f"{node.ref} {focus_refusal(outcome) or 'cannot be set'}.")
        return
    if kind in ("disabled", "readonly", "unfocusable"):
        raise ToolError("invalid_params", f"{node.ref} {focus_refusal(kind)}.")
    if kind != "ok":
        raise ToolError(
            "invalid_params",
            f"{node.ref} cannot be filled ({kind}); use an input, textarea or contenteditable.",
        )
    if text:
        await perform(tab, InsertText(text))
        await _took(node, before, text, overwrite=True)
    else:
        await perform(tab, Press("Delete", implied_shift=False))


def _prepared(answer: Any) -> tuple[Any, Any]:
    """FILL_PREPARE's or CARET_END's answer as (the word, the focused field's value before typing)."""
    if isinstance(answer, list) and len(answer) == 2:
        return answer[0], answer[1]
    return answer, None


async def _took(node: NodeRef, before: Any, text: str, *, overwrite: bool) -> None:
    """invalid_params when the focused field's value did not change though `text` should have changed it."""
    ignored = ignored_text(before, await input.call_on(node, FOCUSED_VALUE), text, overwrite)
    if ignored is not None:
        raise ToolError("invalid_params", f"{node.ref} {ignored}.")


async def append(tab: Tab, node: NodeRef, text: str) -> None:
    """Put the caret at the end and type the text key by key."""
    answer, before = _prepared(await input.call_on(node, CARET_END))
    if answer == "not_editable":
        raise ToolError(
            "invalid_params", f"{node.ref} is not editable; use an input, textarea or contenteditable."
        )
    refusal = focus_refusal(answer)
    if refusal is not None:
        raise ToolError("invalid_params", f"{node.ref} {refusal}.")
    await perform(tab, TypeText(text))
    await _took(node, before, text, overwrite=False)


SELECT_ERRORS = {
    "not_select": "not a <select> element",
    "not_multiple": "the <select> does not allow multiple selection",
    "disabled": "the <select> is disabled",
    "option_disabled": "that option is disabled",
}


async def select_values(tab: Tab, node: NodeRef, values: list[str]) -> list[str]:
    """Choose the options (core/fields.choose: by value, else by label; a disabled one is refused)."""
    result = await fields.choose(tab, node, values)
    error = result.get("error")
    if error == "no_option":
        missing = ", ".join(orjson.dumps(v).decode() for v in result.get("missing", []))
        raise ToolError("invalid_params", f"Cannot select on {node.ref}: no option with value or label {missing}.")
    if error is not None:
        raise ToolError("invalid_params", f"Cannot select on {node.ref}: {SELECT_ERRORS.get(str(error), error)}.")
    return list(result["selected"])


async def set_checked(tab: Tab, node: NodeRef, want: bool) -> None:
    state = await input.call_on(node, CHECK_STATE)
    if state["checked"] is None:
        raise ToolError("invalid_params", f"{node.ref} is not a checkbox or radio (it is <{state['kind']}>).")
    if state["checked"] == want:
        return
    if state["kind"] == "radio" and not want:
        raise ToolError(
            "invalid_params", f"{node.ref} is a radio button: check another one instead of unchecking it."
        )
    await click(tab, node)
    if (await input.call_on(node, CHECK_STATE))["checked"] != want:  # the click landed; the page kept its state
        state = "checked" if not want else "unchecked"
        raise ToolError("invalid_params", f"{node.ref} did not change: it is still {state} (the page may be preventing it).")


# ----- ref-based actions -------------------------------------------------------------------------


@tool(
    docs={
        "double_click": "Double-click instead of a single click.",
        "modifiers": "Modifier keys held during the click.",
    }
)
async def browser_click(
    ctx: Ctx,
    ref: str,
    *,
    double_click: bool = False,
    button: Button = "left",
    modifiers: list[Modifier] | None = None,
    page_id: str | None = None,
    frame_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Click an element by ref: scrolled into view, clicked at a visible point with trusted mouse events."""
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None)
    chord = modifiers_chord(modifiers)

    async def action() -> dict[str, Any]:
        await click(page.tab, node, button=button, click_count=2 if double_click else 1, hold_keys=chord)
        return {"clicked": ref}

    return await ctx.run(
        page, action, wait_for=_spec(wait_for), cdp_frame=cdp_frame, explicit_frame=explicit, settles=True
    )


def _spec(wait_for: Any) -> dict[str, Any] | None:
    return wait_for if isinstance(wait_for, dict) else None


@tool(
    docs={
        "text": "Text to type.",
        "clear_first": "Replace the current value at once (default); false appends with keystrokes.",
        "submit": "Press Enter afterwards (then wait up to 2 s for a page load it starts).",
    }
)
async def browser_type(
    ctx: Ctx,
    ref: str,
    text: str,
    *,
    clear_first: bool = True,
    submit: bool = False,
    page_id: str | None = None,
    frame_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Type text into an editable element by ref."""
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None)

    async def action() -> dict[str, Any]:
        tab = page.tab
        if clear_first:
            await fill(tab, node, text)
        else:
            await append(tab, node, text)
        if submit:
            watch = LoadWatch(tab) if wait_for is None else None
            await perform(tab, Press("Enter", implied_shift=False))
            if watch is not None:
                await watch.wait(min(ENTER_LOAD_WAIT, ctx.remaining()))
        return {"typed_into": ref}

    # Text alone goes into the field; Enter (a submit) and Tab are keys, and clearing presses Delete.
    keys_pressed = submit or not text or "\n" in text or "\t" in text
    return await ctx.run(
        page, action, wait_for=_spec(wait_for), cdp_frame=cdp_frame, explicit_frame=explicit, settles=True,
        scrolls=keys_pressed,
    )


@tool(docs={"fields": "[{ref, value, type?}] with type textbox (default), checkbox, radio or combobox."})
async def browser_fill_form(
    ctx: Ctx,
    fields: list[dict[str, Any]],
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Fill several fields in order; stops at the first failing field (earlier fields keep their values)."""
    if not fields:
        raise ToolError("invalid_params", "fields must not be empty.")
    for i, field in enumerate(fields):
        unknown = set(field) - {
            "ref",
            "value",
            "type",
            "name",
            "element",
        }  # name/element: descriptions, ignored
        if unknown:
            raise ToolError(
                "invalid_params", f"fields[{i}] has unknown key(s): {', '.join(sorted(unknown))}."
            )
        if not isinstance(field.get("ref"), str):
            raise ToolError("invalid_params", f"fields[{i}].ref is required (a string).")
        kind = field.get("type", "textbox")
        if kind not in ("textbox", "checkbox", "radio", "combobox"):
            raise ToolError(
                "invalid_params", f"fields[{i}].type must be textbox, checkbox, radio or combobox."
            )
        value = field.get("value")
        if kind in ("checkbox", "radio"):
            coerce_bool(value, f"fields[{i}].value")
        elif not isinstance(value, str):
            raise ToolError("invalid_params", f"fields[{i}].value must be a string for type {kind}.")
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    await ctx.ref(
        page, fields[0]["ref"], cdp_frame if explicit else None
    )  # a stale first ref changes nothing

    async def action() -> dict[str, Any]:
        tab = page.tab
        filled = 0
        for field in fields:
            try:
                node = await ctx.ref(page, field["ref"], cdp_frame if explicit else None)
                kind = field.get("type", "textbox")
                if kind == "textbox":
                    await fill(tab, node, field["value"])
                elif kind == "combobox":
                    await select_values(page.tab, node, [field["value"]])
                else:
                    await set_checked(tab, node, coerce_bool(field["value"], "value"))
            except ToolError as exc:
                raise ToolError(
                    exc.error_type,
                    f"Field {filled + 1} ({field['ref']}): {exc.message}",
                    data={"filled_count": filled},
                ) from None
            filled += 1
        return {"filled_count": filled}

    return await ctx.run(
        page, action, wait_for=_spec(wait_for), cdp_frame=cdp_frame, explicit_frame=explicit, settles=True
    )


@tool(docs={"value": "Option value attribute(s) to select (not the label); a list for a multi-select."})
async def browser_select_option(
    ctx: Ctx,
    ref: str,
    value: str | list[str],
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Select option(s) of a <select> by their value attribute; fires input and change."""
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None)
    values = [value] if isinstance(value, str) else list(value)

    async def action() -> dict[str, Any]:
        await select_values(page.tab, node, values)
        return {"selected": value}

    return await ctx.run(
        page, action, wait_for=_spec(wait_for), cdp_frame=cdp_frame, explicit_frame=explicit, settles=True
    )


@tool()
async def browser_hover(
    ctx: Ctx,
    ref: str,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Move the mouse over an element by ref."""
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    node = await ctx.ref(page, ref, cdp_frame if explicit else None)

    async def action() -> dict[str, Any]:
        await on_node(page.tab, Hover(node), node)
        return {"hovered": ref}

    return await ctx.run(
        page, action, wait_for=_spec(wait_for), cdp_frame=cdp_frame, explicit_frame=explicit, settles=True
    )


@tool(docs={"source_ref": "Ref of the element to drag.", "target_ref": "Ref of the element to drop on."})
async def browser_drag(
    ctx: Ctx,
    source_ref: str,
    target_ref: str,
    *,
    page_id: str | None = None,
    frame_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Drag one element onto another: press on the source, move to the target's centre, release."""
    page = await ctx.page(page_id)
    cdp_frame, explicit = ctx.frame(page, frame_id)
    source = await ctx.ref(page, source_ref, cdp_frame if explicit else None)
    target = await ctx.ref(page, target_ref, cdp_frame if explicit else None)

    async def action() -> dict[str, Any]:
        await on_node(page.tab, Drag(source, target), source, target)  # both ends aimed, as a person's hand
        return {"dragged": source_ref, "to": target_ref}

    return await ctx.run(
        page, action, wait_for=_spec(wait_for), cdp_frame=cdp_frame, explicit_frame=explicit, settles=True
    )


@tool(docs={"key": "Playwright key syntax: Enter, Tab, Escape, ArrowDown, Control+A, Shift+Tab, a."})
async def browser_press_key(
    ctx: Ctx, key: str, *, page_id: str | None = None, wait_for: WaitForSpec | None = None
) -> dict[str, Any]:
    """Press a key or chord on the focused element (Enter waits up to 2 s for a page load it starts)."""
    if not key:
        raise ToolError("invalid_params", "key must not be empty.")
    page = await ctx.page(page_id)
    chord = key.replace("ControlOrMeta", "Meta" if sys.platform == "darwin" else "Control")
    keys.parse_chord(
        chord, implied_shift=False
    )  # an unknown key is invalid_params before anything is pressed

    async def action() -> dict[str, Any]:
        tab = page.tab
        watch = LoadWatch(tab) if wait_for is None and chord.split("+")[-1] in ("Enter", "Return") else None
        await perform(tab, Press(chord, implied_shift=False))
        if watch is not None:
            await watch.wait(min(ENTER_LOAD_WAIT, ctx.remaining()))
        return {"pressed": key}

    return await ctx.run(page, action, wait_for=_spec(wait_for), settles=True)


# ----- coordinate mouse tools --------------------------------------------------------------------


@tool(docs={"x": "Viewport X in CSS px.", "y": "Viewport Y in CSS px.", "click_count": "2 for a double click.",
            "delay_ms": "Milliseconds between press and release."})  # fmt: skip
async def browser_mouse_click_xy(
    ctx: Ctx,
    x: Coordinate,
    y: Coordinate,
    button: Button = "left",
    click_count: int = 1,
    delay_ms: int = 0,
    *,
    page_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Click at viewport coordinates (main-frame CSS pixels, (0,0) top-left)."""
    if not 1 <= click_count <= 3 or delay_ms < 0 or delay_ms > 10000:
        raise ToolError("invalid_params", "click_count must be 1-3 and delay_ms 0-10000.")
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        tab = page.tab
        if delay_ms == 0:
            await perform(tab, ClickAt(x, y, button=button, count=click_count))
        else:
            await perform(tab, MoveTo(x, y))
            for n in range(1, click_count + 1):
                await perform(tab, MouseButton(True, button, count=n))
                await asyncio.sleep(delay_ms / 1000)  # the caller's own delay between press and release
                await perform(tab, MouseButton(False, button, count=n))
        return {"clicked_at": [x, y], "button": button}

    return await ctx.run(page, action, wait_for=_spec(wait_for), settles=True)


@tool(docs={"x": "Viewport X in CSS px.", "y": "Viewport Y in CSS px."})
async def browser_mouse_move_xy(
    ctx: Ctx, x: Coordinate, y: Coordinate, *, page_id: str | None = None
) -> dict[str, Any]:
    """Move the mouse to viewport coordinates (use before browser_mouse_wheel to target a container)."""
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        await perform(page.tab, MoveTo(x, y))
        return {"moved_to": [x, y]}

    return await ctx.run(page, action, settles=True)


@tool()
async def browser_mouse_down(
    ctx: Ctx, button: Button = "left", *, page_id: str | None = None
) -> dict[str, Any]:
    """Press a mouse button at the current position."""
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        await perform(page.tab, MouseButton(True, button))
        return {"button_down": button}

    return await ctx.run(page, action, settles=True)


@tool()
async def browser_mouse_up(
    ctx: Ctx, button: Button = "left", *, page_id: str | None = None
) -> dict[str, Any]:
    """Release a mouse button at the current position (the button pressed with browser_mouse_down)."""
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        await perform(page.tab, MouseButton(False, button))
        return {"button_up": button}

    return await ctx.run(page, action, settles=True)


@tool()
async def browser_mouse_drag_xy(
    ctx: Ctx,
    from_x: Coordinate,
    from_y: Coordinate,
    to_x: Coordinate,
    to_y: Coordinate,
    *,
    page_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Drag with the left button from one viewport point to another (released even on failure)."""
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        await perform(page.tab, Drag((from_x, from_y), (to_x, to_y)))
        return {"from": [from_x, from_y], "to": [to_x, to_y]}

    return await ctx.run(page, action, wait_for=_spec(wait_for), settles=True)


@tool(docs={"delta_x": "CSS px, positive scrolls right.", "delta_y": "CSS px, positive scrolls down."})
async def browser_mouse_wheel(
    ctx: Ctx,
    delta_x: Coordinate = 0,
    delta_y: Coordinate = 0,
    *,
    page_id: str | None = None,
    wait_for: WaitForSpec | None = None,
) -> dict[str, Any]:
    """Scroll with the mouse wheel at the current cursor position."""
    if delta_x == 0 and delta_y == 0:
        raise ToolError("invalid_params", "At least one of delta_x and delta_y must be non-zero.")
    page = await ctx.page(page_id)

    async def action() -> dict[str, Any]:
        state = input.input_state(page.tab)
        await perform(page.tab, Wheel(state.x, state.y, delta_x, delta_y))
        return {"scrolled": [delta_x, delta_y]}

    return await ctx.run(page, action, wait_for=_spec(wait_for), settles=True)


# ----- modal recovery ----------------------------------------------------------------------------


def _oldest(ctx: Ctx, kind: str, page_id: str | None) -> Modal | None:
    inst = ctx.instance
    if page_id is not None:
        page = inst.by_id.get(page_id)
        if page is None or not page.live:
            raise ToolError("page_not_found", f"Page '{page_id}' is not open in instance '{inst.name}'.")
    for modal in inst.pending_modals():
        if modal.kind == kind and (page_id is None or modal.page.page_id == page_id):
            return modal
    return None


@tool(lock="recovery", modal_exempt=True, docs={"accept": "Accept (OK) or dismiss (Cancel).",
      "prompt_text": "Text to answer a prompt() with (prompts only)."})  # fmt: skip
async def browser_handle_dialog(
    ctx: Ctx, *, accept: bool, prompt_text: str | None = None, page_id: str | None = None
) -> dict[str, Any]:
    """Accept or dismiss the oldest pending JavaScript dialog (alert, confirm, prompt, beforeunload)."""
    modal = _oldest(ctx, "dialog", page_id)
    if modal is None or modal.dialog is None:
        raise ToolError("modal_state_blocked", "no dialog is currently pending")
    page: Page = modal.page
    ctx.op.page_id = page.page_id
    dialog = modal.dialog
    ctx.touch()
    text = prompt_text if dialog.type == "prompt" else None
    await page.tab.handle_dialog(accept, text, dialog=dialog)
    ctx.instance.resolved_modal(modal)
    return {
        "action": "accepted" if accept else "dismissed",
        "dialog_type": dialog.type,
        "message": dialog.message,
    }


@tool(
    lock="recovery",
    modal_exempt=True,
    docs={
        "paths": "Absolute file paths on the server, inside the configured upload folders; omit or [] to cancel."
    },
)
async def browser_file_upload(
    ctx: Ctx, paths: list[str] | None = None, *, page_id: str | None = None
) -> dict[str, Any]:
    """Resolve the oldest pending file chooser with these files (or cancel it)."""
    modal = _oldest(ctx, "file_chooser", page_id)
    if modal is None or modal.chooser is None:
        raise ToolError("modal_state_blocked", "no file chooser is currently pending")
    chooser = modal.chooser
    ctx.op.page_id = modal.page.page_id
    if not paths:
        ctx.touch()
        ctx.instance.resolved_modal(modal)
        with contextlib.suppress(CDPEngineError):
            await chooser.cancel()
        return {"cancelled": True}
    policy = ctx.manager.policies.files
    for path in paths:
        if not os.path.isabs(path):
            raise ToolError("invalid_params", f"'{path}' is not an absolute path.")
        try:
            policy.upload_path(path)
        except PolicyError as exc:
            if exc.rule == "files.not_a_file":
                raise ToolError("invalid_params", f"'{path}' does not exist or is not a file.") from None
            raise
    if len(paths) > 1 and not chooser.multiple:
        raise ToolError("invalid_params", "The file input accepts a single file.")
    ctx.touch()
    await chooser.set_files(paths, policy)
    ctx.instance.resolved_modal(modal)
    return {"uploaded_count": len(paths)}
