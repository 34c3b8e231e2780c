"""Trusted pointer and keyboard input for every surface: one place that aims, dispatches and keeps state.

Every surface (element index, browser toolset, MCP tools, gym harness) acts through this module,
so a click, a drag or a key chord behaves the same everywhere. A click on an element runs one
pipeline: scroll it into view, take a visible point of its content quads clipped to the viewport,
offset by out-of-process frame owners, hit-test it in its own document along the flat tree (HIT_FUNCTION,
which also arms a guard that checks where the press is delivered), then send mouseMoved + mousePressed +
mouseReleased pipelined in one window: Chromium handles a session's input in order, so the move's
hover effects run before the press hit-tests, and the move costs no frame of its own (awaited alone
it is answered after the next frame, ~17 ms). Inside an out-of-process frame an optional check makes
sure the press reached the frame. Mouse position, pressed buttons and held modifier keys are
kept per tab (`InputState.of(tab)`, a `tab.extension`), so raw down/move/up sequences carry the
right `buttons` bitmask and a click while a modifier is held is a modified click. Key events all
come from the one key table in `keys.py`.

A mouse's pointer events carry pressure 0.5 while a button is down (`force`). Typing into a field
(`insert_text`) inserts the text but for its last character, which is a real key press when the key table
types it, so the page's key listeners hear a person type.

Failures a surface must word itself raise `NotClickableError` (a subclass of
`NotInteractableError`) with a stable `reason`: "not_visible", "covered", "disabled", "not_stable" (before the
click), "intercepted" (the press was delivered to another element, which the guard kept from the page),
"not_delivered" or "ignored", and `by`, what took the pointer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, TargetClosedError
from . import keys, scripts
from .actionability import (
    COVERED,
    DISABLED,
    IGNORED,
    INTERCEPTED,
    NOT_DELIVERED,
    NOT_VISIBLE,
    UNSTABLE,
    InputTab,
    NotClickableError,
    NotInteractableError,
    Target,
    clickable_point,
    drop_guard,
    frame_offset,
    hit_target,
    point_of,
    read_guard,
    refusal,
    world_context_of,
)

__all__ = [
    "BUTTONS",
    "COVERED",
    "DISABLED",
    "DRAG_STEPS",
    "FRAMES_DRAWN",
    "IGNORED",
    "INTERCEPTED",
    "NOT_DELIVERED",
    "NOT_VISIBLE",
    "PRESS_COUNTER",
    "UNSTABLE",
    "InputState",
    "InputTab",
    "NotClickableError",
    "NotInteractableError",
    "Target",
    "aim",
    "call_function_on",
    "call_on",
    "click_at",
    "click_delivered",
    "click_element",
    "clickable_point",
    "down",
    "drag",
    "focus",
    "frame_offset",
    "hit_target",
    "hold",
    "input_state",
    "insert_text",
    "key_down",
    "key_up",
    "move",
    "point_of",
    "press",
    "refusal",
    "scroll_into_view",
    "type_text",
    "up",
    "wheel",
]  # fmt: skip

log = logging.getLogger("cdp_engine")
_E = TypeVar("_E")

BUTTONS = {"left": 1, "right": 2, "middle": 4, "none": 0}
# A mouse's pointer events carry pressure 0.5 while a button is down and 0 otherwise (Pointer Events: "for
# hardware that does not support pressure"); Chromium takes a CDP event's `force` as that pressure, 0 unless sent.
PRESSED_FORCE = 0.5


def _pressure(buttons: int) -> dict[str, float]:
    """The `force` of a mouse event with `buttons` down (none sent when no button is: 0 is the default)."""
    return {"force": PRESSED_FORCE} if buttons else {}


DRAG_STEPS = 5  # intermediate moves of a drag, so drag handlers see movement
FRAMES_DRAWN = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"
# Counts presses that reach a frame, in the engine's isolated world (invisible to the page).
PRESS_COUNTER = (
    "(() => { const g = globalThis; if (!g.__cdpEnginePresses) { g.__cdpEnginePresses = {n: 0};"
    " addEventListener('mousedown', () => { g.__cdpEnginePresses.n++; }, {capture: true}); }"
    "%s return g.__cdpEnginePresses.n; })()"
)


@dataclass
class InputState:
    """One tab's pointer and keyboard state: where the mouse is, which buttons and modifier keys are down."""

    x: float = 0.0
    y: float = 0.0
    buttons: set[str] = field(default_factory=set)
    modifiers: int = 0  # CDP bitmask of modifier keys held down with key_down / hold

    @property
    def mask(self) -> int:
        """The CDP `buttons` bitmask of the pressed buttons."""
        return sum(BUTTONS[b] for b in self.buttons)

    @classmethod
    def of(cls, tab: InputTab) -> InputState:
        """The tab's one input state (created on first use; it lives as long as the tab)."""
        return tab.extension(cls, cls)


def input_state(tab: InputTab) -> InputState:
    """The tab's pointer and keyboard state (position, pressed buttons, held modifiers)."""
    return InputState.of(tab)


# ----- pointer --------------------------------------------------------------------------------------


async def click_at(
    tab: InputTab, x: float, y: float, *, button: str = "left", click_count: int = 1, modifiers: int = 0
) -> None:
    """A full trusted click at viewport CSS pixels: move, press, release (`click_count` times for double
    and triple clicks), sent without awaiting between. Buttons already down stay in every event's
    `buttons`; held modifier keys are added to `modifiers`.

    A page that closes itself in the click's handler (window.close()) may be gone before Chromium answers
    the release: every event went out, so the click happened; the caller finds the page gone at its next
    step (the MCP observation says "Observed page closed or crashed", the index's settle "the tab was closed").

    After a click aimed with an armed guard (point_of(arm=True)), the guard's verdict: NotClickableError
    INTERCEPTED (another element received the press), NOT_DELIVERED (no press reached the page) or IGNORED
    (nothing on the page handles the click and nothing changed)."""
    if await _send_click(tab, x, y, button=button, click_count=click_count, modifiers=modifiers):
        await read_guard(tab, x, y)


async def _send_click(
    tab: InputTab, x: float, y: float, *, button: str = "left", click_count: int = 1, modifiers: int = 0
) -> bool:
    """The click's events (click_at); False when the page closed before answering them."""
    state = InputState.of(tab)
    s = tab.session
    held, bit = state.mask, BUTTONS[button]
    base = {"x": x, "y": y, "modifiers": modifiers | state.modifiers}
    closed_before = s.closed  # then nothing goes out: the error stands
    futures = [
        s.send(
            "Input.dispatchMouseEvent",
            {**base, "type": "mouseMoved", "button": "none", "buttons": held, **_pressure(held)},
        )
    ]
    for n in range(1, click_count + 1):
        futures.append(
            s.send(
                "Input.dispatchMouseEvent",
                {**base, "type": "mousePressed", "button": button, "buttons": held | bit, "clickCount": n,
                 **_pressure(held | bit)},
            )
        )  # fmt: skip
        futures.append(
            s.send(
                "Input.dispatchMouseEvent",
                {**base, "type": "mouseReleased", "button": button, "buttons": held, "clickCount": n,
                 **_pressure(held)},
            )
        )  # fmt: skip
    state.x, state.y = x, y
    try:
        await asyncio.gather(*futures)
    except TargetClosedError:
        if closed_before:
            raise
        log.debug("the page closed before answering the click at (%s, %s): the click was sent", x, y)
        drop_guard(tab)
        return False
    return True


async def click_element(
    tab: InputTab,
    target: Target,
    *,
    button: str = "left",
    click_count: int = 1,
    hold_keys: str = "",
    check_hit: bool = True,
    world_context: int | None = None,
) -> tuple[float, float]:
    """The one click on an element every surface sends; the point clicked.

    Actionability first (core/actionability.py): scrolled into view, a visible point, enabled, and that
    point's hit test in the element's own document (NotClickableError NOT_VISIBLE, DISABLED, COVERED); then
    the modifier keys in `hold_keys` ("shift", "Control+Alt") go down as a person holds them, the click is
    sent, and where its press was delivered is checked: INTERCEPTED (another element received it, and the
    page never saw it), NOT_DELIVERED, or IGNORED (nothing on the page handles it and nothing changed).
    In an out-of-process frame the press is made sure to reach the frame (click_delivered). `world_context`
    is the isolated world there to count presses in (found from the target's frame when not given).
    """
    x, y = await aim(tab, target, check_hit=check_hit, arm=check_hit)
    try:
        async with hold(tab, hold_keys):
            await click_delivered(
                tab, target, x, y, world_context=world_context, button=button, click_count=click_count
            )
    finally:
        drop_guard(tab)  # a click the keys failed to wrap leaves no guard armed for a later one
    return x, y


async def aim(tab: InputTab, target: Target, *, check_hit: bool = True, arm: bool = False) -> tuple[float, float]:
    """The one aim of pointer input at an element, for every surface and every input (a click, a hover, either
    end of a drag): point_of (actionability: scrolled into view, stable, a visible point that takes the pointer).
    Not visible or covered while the page animates (a list sliding open, a dialog fading in, a jQuery fadeOut
    that restyles the element each frame): once the animations running now end and the document stops
    changing (at most ANIMATION_WAIT), aim once more, as Playwright retries a covered target. A page that
    neither animates nor changes answers at once and the refusal (NotClickableError) stands."""
    try:
        return await point_of(tab, target, check_hit=check_hit, arm=arm)
    except NotClickableError as exc:
        if exc.reason not in (NOT_VISIBLE, COVERED) or not await animations_ended(tab, target):
            raise
        return await point_of(tab, target, check_hit=check_hit, arm=arm)


ANIMATION_WAIT = 1.0  # seconds a refused aim waits for the page's running finite animations to end
CHANGING_MS = 50  # the document changed this recently: an animation driven by timers (jQuery's fx) may run
# Resolves with the number of finite animations that were running, or 1 when the document was changing (0:
# nothing to wait for), once they ended and no change came for CHANGING_MS, or at the deadline, whichever
# comes first. In the engine's world the change probe's list is read, which holds the animations of the shadow
# roots it watches too (document.getAnimations() leaves those out); the settle's observer there
# (core/settle_page.py) says when the document last changed.
ANIMATIONS_ENDED = """(() => {
  const p = globalThis.__cdpEngineProbe, s = globalThis.__cdpEngineSettle;
  const all = p && p.animations ? p.animations() : document.getAnimations();
  const running = all.filter(a => a.playState === 'running'
    && a.effect && Number.isFinite(a.effect.getComputedTiming().endTime));
  const changing = () => !!s && performance.now() - s.last < CHANGING;
  if (!running.length && !changing()) return 0;
  const ended = Promise.allSettled(running.map(a => a.finished));
  const still = new Promise(r => { const look = () => changing() ? setTimeout(look, CHANGING / 2) : r(); look(); });
  return Promise.race([Promise.all([ended, still]), new Promise(r => setTimeout(r, MS))])
    .then(() => Math.max(running.length, 1));
})()""".replace("MS", str(int(ANIMATION_WAIT * 1000))).replace("CHANGING", str(CHANGING_MS))


async def animations_ended(tab: InputTab, target: Target) -> bool:
    """Whether the element's document was animating (then its animations ended, or ANIMATION_WAIT passed)."""
    params: dict[str, Any] = {"expression": ANIMATIONS_ENDED, "awaitPromise": True, "returnByValue": True}
    context = world_context_of(tab, target)
    if context is not None:
        params["contextId"] = context
    try:
        result = await target.session.send("Runtime.evaluate", params, timeout=ANIMATION_WAIT + 1.0)
    except CDPEngineError:
        return False
    return bool(result.get("result", {}).get("value"))


async def click_delivered(
    tab: InputTab,
    target: Target,
    x: float,
    y: float,
    *,
    world_context: int | None,
    button: str = "left",
    click_count: int = 1,
    modifiers: int = 0,
) -> None:
    """Click at (x, y), already aimed at `target`; in an out-of-process frame, make sure the press reached
    the frame: Chromium routes input to an OOPIF by the compositor's hit-test data, and while the frame has
    not been composited yet (just loaded) the press lands on the parent's <iframe> element and is lost. A
    listener in the frame's isolated world (`world_context`) counts presses; when none arrived, wait for
    both frames to draw and click once more. Then the armed guard's verdict (click_at)."""
    session = target.session
    if world_context is None and session is not tab.session:
        world_context = world_context_of(tab, target)
    if world_context is None or session is tab.session:
        await click_at(tab, x, y, button=button, click_count=click_count, modifiers=modifiers)
        return
    counted = await _count_presses(session, world_context, arm=True)
    if not await _send_click(tab, x, y, button=button, click_count=click_count, modifiers=modifiers):
        return
    if counted is not None and await _count_presses(session, world_context) == 0:
        log.debug("click at (%s, %s) did not reach its frame: clicking again once it is drawn", x, y)
        with contextlib.suppress(CDPEngineError):  # a timeout too: clicking again is still right
            await asyncio.gather(
                *[
                    s.send(
                        "Runtime.evaluate", {"expression": FRAMES_DRAWN, "awaitPromise": True}, timeout=1.0
                    )
                    for s in (session, tab.session)
                ]
            )
        if not await _send_click(tab, x, y, button=button, click_count=click_count, modifiers=modifiers):
            return
    await read_guard(tab, x, y)


async def _count_presses(session: CDPSession, ctx: int, *, arm: bool = False) -> int | None:
    """Presses the frame received since the last arming (None when the isolated world is gone)."""
    expression = PRESS_COUNTER % (" g.__cdpEnginePresses.n = 0;" if arm else "")
    try:
        result = await session.send(
            "Runtime.evaluate",
            {"expression": expression, "contextId": ctx, "returnByValue": True},
            timeout=5.0,
        )
    except CDPEngineError:
        return None
    value = result.get("result", {}).get("value")
    return value if isinstance(value, int) else None


async def move(tab: InputTab, x: float, y: float, *, modifiers: int = 0) -> None:
    """Move the mouse to a viewport point (pressed buttons stay pressed: a drag step). Chromium answers a
    move after the next frame (its effects, hover handlers, run then): awaited alone it costs that frame."""
    await _moved(tab, x, y, modifiers)


def _moved(tab: InputTab, x: float, y: float, modifiers: int) -> asyncio.Future[dict[str, Any]]:
    """Send a move (not awaited: a press sent after it is handled after it); the position becomes (x, y)."""
    state = InputState.of(tab)
    future = tab.session.send(
        "Input.dispatchMouseEvent",
        {"type": "mouseMoved", "x": x, "y": y, "modifiers": modifiers | state.modifiers, "buttons": state.mask,
         "button": "none", **_pressure(state.mask)},
    )  # fmt: skip
    state.x, state.y = x, y
    return future


async def down(
    tab: InputTab,
    button: str = "left",
    *,
    x: float | None = None,
    y: float | None = None,
    click_count: int = 1,
    modifiers: int = 0,
    moving: bool = False,
) -> None:
    """Press a mouse button at the current position (or at x, y, which becomes the position); `moving`:
    move there first, sent with the press (the move is handled first, without a frame's wait between)."""
    await _button(tab, "mousePressed", button, x, y, click_count, modifiers, moving)


async def up(
    tab: InputTab,
    button: str = "left",
    *,
    x: float | None = None,
    y: float | None = None,
    click_count: int = 1,
    modifiers: int = 0,
    moving: bool = False,
) -> None:
    """Release a mouse button at the current position (or at x, y, which becomes the position); `moving`:
    move there first, sent with the release."""
    await _button(tab, "mouseReleased", button, x, y, click_count, modifiers, moving)


async def _button(
    tab: InputTab,
    kind: str,
    button: str,
    x: float | None,
    y: float | None,
    click_count: int,
    modifiers: int,
    moving: bool = False,
) -> None:
    """One press or release (after a move to x, y when `moving`, pipelined: CDP handles a session's input in
    order); the tab's state keeps the position and the pressed buttons for the next event."""
    state = InputState.of(tab)
    sent = []
    if x is not None and y is not None:
        if moving:
            sent.append(_moved(tab, x, y, modifiers))
        state.x, state.y = x, y
    if kind == "mousePressed":
        state.buttons.add(button)
    else:
        state.buttons.discard(button)
    params = {
        "type": kind, "x": state.x, "y": state.y, "button": button, "buttons": state.mask,
        "clickCount": click_count, "modifiers": modifiers | state.modifiers, **_pressure(state.mask),
    }  # fmt: skip
    sent.append(tab.session.send("Input.dispatchMouseEvent", params))
    await asyncio.gather(*sent)


async def drag(tab: InputTab, x0: float, y0: float, x1: float, y1: float, *, steps: int = DRAG_STEPS) -> None:
    """Press at the start, move in steps, release at the end (a release is attempted on failure). The first
    move goes with the press; each step is awaited (drag handlers see every one: moves in flight together
    would be coalesced into one)."""
    await down(tab, "left", x=x0, y=y0, moving=True)
    try:
        for i in range(1, steps + 1):
            await move(tab, x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
    finally:
        await up(tab, "left")


async def wheel(tab: InputTab, x: float, y: float, dx: float, dy: float) -> None:
    """A trusted wheel event at a point (scrolls whatever is under it, as a user's wheel does)."""
    state = InputState.of(tab)
    params = {"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy, "buttons": state.mask}
    if state.modifiers:
        params["modifiers"] = state.modifiers
    await tab.session.send("Input.dispatchMouseEvent", params)
    state.x, state.y = x, y


# ----- keyboard -------------------------------------------------------------------------------------


async def _send_keys(tab: InputTab, events: list[dict[str, Any]]) -> None:
    """Key events one after another, each landing before the next: a key may move focus or start a
    navigation, and what waits for that (e.g. a load watch armed before Enter) must see it begin."""
    for event in events:
        await tab.session.send("Input.dispatchKeyEvent", event)


async def press(
    tab: InputTab, chord_or_sequence: str, *, repeat: int = 1, implied_shift: bool = True
) -> None:
    """Key chords and space-separated sequences ('ctrl+a Delete'), xdotool, Playwright or DOM names.

    The whole text is validated before anything is pressed (UnknownKeyError); the events go in order.
    """
    await _send_keys(tab, keys.sequence_events(chord_or_sequence, repeat, implied_shift=implied_shift))


def _chord_modifiers(chord: str, implied_shift: bool) -> int:
    mods, main = keys.parse_chord(chord, implied_shift=implied_shift)
    return keys.modifiers_mask([k for k in (*mods, main) if k.is_modifier])


async def key_down(tab: InputTab, chord: str, *, implied_shift: bool = True) -> None:
    """Press and keep a chord down (modifiers first); held modifiers then apply to mouse events."""
    events = keys.key_down_events(chord, implied_shift=implied_shift)
    state = InputState.of(tab)
    state.modifiers |= _chord_modifiers(chord, implied_shift)
    await _send_keys(tab, events)


async def key_up(tab: InputTab, chord: str, *, implied_shift: bool = True) -> None:
    """Release a chord pressed with key_down (main key first, modifiers in reverse)."""
    events = keys.key_up_events(chord, implied_shift=implied_shift)
    state = InputState.of(tab)
    state.modifiers &= ~_chord_modifiers(chord, implied_shift)
    await _send_keys(tab, events)


@contextlib.asynccontextmanager
async def hold(tab: InputTab, chord: str, *, implied_shift: bool = True) -> AsyncIterator[None]:
    """`async with hold(tab, "shift"):` keys down for the block, released even when it fails.

    A blank chord holds nothing (a click with no modifiers).
    """
    if not chord.strip():
        yield
        return
    keys.parse_chord(chord, implied_shift=implied_shift)  # an unknown key fails before anything is pressed
    await key_down(tab, chord, implied_shift=implied_shift)
    try:
        yield
    finally:
        await key_up(tab, chord, implied_shift=implied_shift)


async def insert_text(tab: InputTab, text: str) -> None:
    """Type a run of text into the focused element: all but its last character as one trusted insertion
    (input events fire), the last one as a person's key press (keydown, keypress, input, keyup) when the key
    table can type it, so a list that opens on a key event opens. The value is the same as one insertion's;
    a last character no key types (an emoji, CJK, a line break or a tab, which would press Enter or Tab) is
    inserted too. The events go out together: the session handles them in order."""
    session = tab.session
    last = text[-1:]
    if not last or not last.isprintable() or not keys.is_on_layout(last):
        await session.send("Input.insertText", {"text": text})
        return
    sent = [session.send("Input.insertText", {"text": text[:-1]})] if len(text) > 1 else []
    sent += [session.send("Input.dispatchKeyEvent", event) for event in keys.text_events(last)]
    await asyncio.gather(*sent)


async def type_text(tab: InputTab, text: str) -> None:
    """Type text into the focused element: Enter and Tab as key events, runs of the rest by insertText."""
    run: list[str] = []

    async def flush() -> None:
        if run:
            await insert_text(tab, "".join(run))
            run.clear()

    for ch in text:
        if ch in "\n\t" and keys.is_on_layout(ch):
            await flush()
            await _send_keys(tab, keys.text_events(ch))
        else:
            run.append(ch)
    await flush()


# ----- element helpers ------------------------------------------------------------------------------


async def call_function_on(
    session: CDPSession,
    backend_node_id: int,
    function: str,
    *args: Any,
    resolved: asyncio.Future[dict[str, Any]] | None = None,
) -> Any:
    """Call a JS function with `this` bound to a node; its JSON value. CDPEngineError if the node is gone,
    JavaScriptError if the function throws. `resolved`: as for scripts.call_on_node."""
    return (await scripts.call_on_node(session, backend_node_id, function, *args, resolved=resolved)).get(
        "value"
    )


async def call_on(
    target: Target, function: str, *args: Any, resolved: asyncio.Future[dict[str, Any]] | None = None
) -> Any:
    """Call a JS function with `this` bound to the element; returns its JSON value."""
    return await call_function_on(target.session, target.backend_node_id, function, *args, resolved=resolved)


async def focus(target: Target) -> None:
    """Focus the element (no pointer event)."""
    await target.session.send("DOM.focus", {"backendNodeId": target.backend_node_id})


async def scroll_into_view(target: Target) -> None:
    """Scroll the element into view if it is not (no pointer event)."""
    await target.session.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": target.backend_node_id})
