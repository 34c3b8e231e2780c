"""Pointer and keyboard operations on a tab, by ref or by viewport coordinate.

The browser toolset and the MCP surface both act through this module, so a click, a drag or a
key chord behaves the same on every surface. Mouse state (position, pressed buttons) is kept
per tab so raw down/move/up sequences carry the right `buttons` bitmask.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CDPEngineError
from . import keys
from .input import BUTTONS, NotClickableError, call_function_on, click_at, clickable_point, hit_target
from .refs import NodeRef

if TYPE_CHECKING:
    from .browser import Tab


class NotInteractableError(CDPEngineError):
    """The element cannot take the requested input (hidden, covered, disabled or the wrong kind)."""


@dataclass
class MouseState:
    x: float = 0.0
    y: float = 0.0
    buttons: set[str] = field(default_factory=set)

    @property
    def mask(self) -> int:
        return sum(BUTTONS[b] for b in self.buttons)


def mouse_state(tab: Tab) -> MouseState:
    state = getattr(tab, "_mouse_state", None)
    if state is None:
        state = MouseState()
        tab._mouse_state = state  # type: ignore[attr-defined]
    return state


async def point_of(tab: Tab, node: NodeRef, *, check_hit: bool = True) -> tuple[float, float]:
    """A visible point of the node (scrolled into view), in top-level viewport CSS pixels."""
    try:
        x, y = await clickable_point(tab, node.session, node.backend_node_id)
    except NotClickableError as exc:
        raise NotInteractableError(f"{node.ref} is not visible: {exc}") from None
    if check_hit and not await hit_target(tab, node.session, node.backend_node_id, x, y):
        raise NotInteractableError(f"{node.ref} is covered by another element")
    return x, y


async def move(tab: Tab, x: float, y: float, *, modifiers: int = 0) -> None:
    state = mouse_state(tab)
    await tab.session.send(
        "Input.dispatchMouseEvent",
        {"type": "mouseMoved", "x": x, "y": y, "modifiers": modifiers, "buttons": state.mask, "button": "none"},
    )
    state.x, state.y = x, y


async def down(tab: Tab, button: str = "left", *, click_count: int = 1, modifiers: int = 0) -> None:
    state = mouse_state(tab)
    state.buttons.add(button)
    await tab.session.send(
        "Input.dispatchMouseEvent",
        {
            "type": "mousePressed", "x": state.x, "y": state.y, "button": button, "buttons": state.mask,
            "clickCount": click_count, "modifiers": modifiers,
        },
    )  # fmt: skip


async def up(tab: Tab, button: str = "left", *, click_count: int = 1, modifiers: int = 0) -> None:
    state = mouse_state(tab)
    state.buttons.discard(button)
    await tab.session.send(
        "Input.dispatchMouseEvent",
        {
            "type": "mouseReleased", "x": state.x, "y": state.y, "button": button, "buttons": state.mask,
            "clickCount": click_count, "modifiers": modifiers,
        },
    )  # fmt: skip


async def click(
    tab: Tab, x: float, y: float, *, button: str = "left", click_count: int = 1, modifiers: int = 0
) -> None:
    """Move, then press and release `click_count` times (double and triple clicks), pipelined."""
    state = mouse_state(tab)
    await click_at(tab, x, y, button=button, click_count=click_count, modifiers=modifiers, held=state.mask)
    state.x, state.y = x, y


async def drag(tab: Tab, x0: float, y0: float, x1: float, y1: float, *, steps: int = 5) -> None:
    """Press at the start, move in steps, release at the end (a release is attempted on failure)."""
    await move(tab, x0, y0)
    await down(tab, "left")
    try:
        for i in range(1, steps + 1):
            await move(tab, x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
    finally:
        await up(tab, "left")


async def wheel(tab: Tab, x: float, y: float, dx: float, dy: float) -> None:
    """A trusted wheel event at a point (scrolls whatever is under it, as a user's wheel does)."""
    state = mouse_state(tab)
    await tab.session.send(
        "Input.dispatchMouseEvent",
        {"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy, "buttons": state.mask},
    )
    state.x, state.y = x, y


async def press(tab: Tab, chord_or_sequence: str, *, repeat: int = 1, implied_shift: bool = True) -> None:
    """Key chords and space-separated sequences ('ctrl+a Delete'), xdotool or DOM names."""
    events = keys.sequence_events(chord_or_sequence, repeat, implied_shift=implied_shift)
    for event in events:  # in order: each key event must land before the next
        await tab.session.send("Input.dispatchKeyEvent", event)


async def type_text(tab: Tab, text: str) -> None:
    """Type text into the focused element: layout characters as key events, the rest by insertText."""
    run: list[str] = []

    async def flush() -> None:
        if run:
            await tab.session.send("Input.insertText", {"text": "".join(run)})
            run.clear()

    for ch in text:
        if ch in "\n\t" and keys.is_on_layout(ch):
            await flush()
            for event in keys.text_events(ch):
                await tab.session.send("Input.dispatchKeyEvent", event)
        else:
            run.append(ch)
    await flush()


async def call_on(node: NodeRef, function: str, *args: Any) -> Any:
    """Call a JS function with `this` bound to the node; returns its JSON value."""
    return await call_function_on(node.session, node.backend_node_id, function, *args)


async def focus(node: NodeRef) -> None:
    await node.session.send("DOM.focus", {"backendNodeId": node.backend_node_id})


async def scroll_into_view(node: NodeRef) -> None:
    await node.session.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": node.backend_node_id})
