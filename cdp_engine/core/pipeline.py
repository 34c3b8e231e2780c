"""One action pipeline: every surface and the harness act on a page through `perform()` and `act()`.

Why one: an action assembled per surface drifts (one surface holds the keys, another forgets the delivery check,
a third settles with other knobs), and the same task with the same agent then fails on one surface only. Here an
action is a value (`Click`, `ClickAt`, `Hover`, `MoveTo`, `Drag`, `Wheel`, `MouseButton`, `Press`, `KeyDown`,
`KeyUp`, `Hold`, `TypeText`, `InsertText`, or `Call`: a surface's own page effect such as a value set or an option
chosen), and it runs one way:

    actionability and aim (core/actionability.py: attached, scrolled into view, stable, visible, enabled, takes
    the pointer; a target that is animating is aimed at again once the page is still) → keys held → dispatch
    (core/input.py) → delivery check (the press reached the element it was aimed at) → settle (core/settle.py,
    by the caller's named `Settling`) → the expectations the caller armed before the input (core/expectations.py)

`perform()` is the first half (what a surface's composite action, such as a fill then Enter, is made of);
`act()` is the whole, under one deadline: the settle's waits are each bounded by the settle's options, the
expectations get what is left of `timeout`. A refusal before the input is a NotClickableError with the core's
reason, which each surface words in its own vocabulary and which changed nothing on the page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from . import input
from .expectations import Condition, Expectation, Facts
from .inflight import NetworkTracker
from .settle import Arming, SettleProfile, SettleReport, Speculation, settle

if TYPE_CHECKING:
    from .tab import Tab

__all__ = [
    "Action",
    "Call",
    "Click",
    "ClickAt",
    "Drag",
    "Hold",
    "Hover",
    "InsertText",
    "KeyDown",
    "KeyUp",
    "MouseButton",
    "MoveTo",
    "Outcome",
    "Point",
    "Press",
    "Settling",
    "TypeText",
    "Wheel",
    "act",
    "perform",
]

Point: TypeAlias = tuple[float, float]


# ----- actions ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Click:
    """A click on an element: aimed, hit-tested, `keys` held ("shift", "Control+Alt"), delivery checked."""

    target: input.Target
    button: str = "left"
    count: int = 1
    keys: str = ""


@dataclass(frozen=True)
class ClickAt:
    """A click at a viewport point the caller chose (a coordinate agent): no element to check it against."""

    x: float
    y: float
    button: str = "left"
    count: int = 1
    keys: str = ""


@dataclass(frozen=True)
class Hover:
    """The pointer moved onto an element's visible point that takes it (a disabled element too)."""

    target: input.Target


@dataclass(frozen=True)
class MoveTo:
    x: float
    y: float


@dataclass(frozen=True)
class Drag:
    """Press at `start`, move in `steps`, release at `end`; an element end is aimed and hit-tested first."""

    start: input.Target | Point
    end: input.Target | Point
    steps: int = input.DRAG_STEPS


@dataclass(frozen=True)
class Wheel:
    """A wheel at a point: it scrolls the scroll container under the pointer, as a person's wheel does."""

    x: float
    y: float
    dx: float
    dy: float


@dataclass(frozen=True)
class MouseButton:
    """One press (`down`) or release of a button, at the current position or at (x, y)."""

    down: bool
    button: str = "left"
    x: float | None = None
    y: float | None = None
    count: int = 1
    moving: bool = False


@dataclass(frozen=True)
class Press:
    """Key chords and sequences ('ctrl+a Delete'), validated whole before anything is pressed."""

    keys: str
    repeat: int = 1
    implied_shift: bool = True


@dataclass(frozen=True)
class KeyDown:
    keys: str
    implied_shift: bool = True


@dataclass(frozen=True)
class KeyUp:
    keys: str
    implied_shift: bool = True


@dataclass(frozen=True)
class Hold:
    """Keys held down for `seconds` (the toolset's hold_key: holding for a time is what was asked)."""

    keys: str
    seconds: float


@dataclass(frozen=True)
class TypeText:
    """Text typed into the focused element: Enter and Tab as keys, the rest inserted (input.type_text)."""

    text: str


@dataclass(frozen=True)
class InsertText:
    """Text inserted into the focused element, its last character a key press (input.insert_text)."""

    text: str


@dataclass(frozen=True)
class Call:
    """A surface's own effect on the page (a value set, an option chosen, files given, or steps made of the
    actions above with perform()); `scrolls`: it may scroll an element (core.settle)."""

    run: Callable[[], Awaitable[Any]]
    scrolls: bool = True


Action: TypeAlias = (
    Click | ClickAt | Hover | MoveTo | Drag | Wheel | MouseButton | Press | KeyDown | KeyUp | Hold | TypeText
    | InsertText | Call
)


def _scrolls(action: Action) -> bool:
    """Whether the input may scroll an element (settle's `scrolls`): text typed into the focused field does not,
    unless it presses Enter or Tab (a submit, a move of focus)."""
    if isinstance(action, TypeText):
        return not action.text or "\n" in action.text or "\t" in action.text
    if isinstance(action, InsertText):
        return not action.text
    if isinstance(action, Call):
        return action.scrolls
    return True


# ----- the pipeline -----------------------------------------------------------------------------------------


async def _point(tab: Tab, end: input.Target | Point) -> Point:
    """A drag's end: a point as given, an element aimed at (a refusal names which end: NotClickableError.target)."""
    if isinstance(end, tuple):
        return end
    try:
        return await input.aim(tab, end)
    except input.NotClickableError as exc:
        exc.target = end
        raise


async def perform(tab: Tab, action: Action) -> Any:
    """Aim, hold keys, dispatch and check delivery (module docstring), without a settle; the value a Call
    returned, else the point an element action aimed at (None for keys and text). NotClickableError when
    the target cannot take the input (nothing was sent)."""
    if isinstance(action, Click):
        return await input.click_element(
            tab, action.target, button=action.button, click_count=action.count, hold_keys=action.keys
        )
    if isinstance(action, ClickAt):
        async with input.hold(tab, action.keys, implied_shift=False):
            await input.click_at(tab, action.x, action.y, button=action.button, click_count=action.count)
        return action.x, action.y
    if isinstance(action, Hover):
        x, y = await input.aim(tab, action.target)
        await input.move(tab, x, y)
        return x, y
    if isinstance(action, MoveTo):
        await input.move(tab, action.x, action.y)
        return action.x, action.y
    if isinstance(action, Drag):
        (x0, y0), (x1, y1) = await _point(tab, action.start), await _point(tab, action.end)
        await input.drag(tab, x0, y0, x1, y1, steps=action.steps)
        return x1, y1
    if isinstance(action, Wheel):
        await input.wheel(tab, action.x, action.y, action.dx, action.dy)
        return action.x, action.y
    if isinstance(action, MouseButton):
        send = input.down if action.down else input.up
        await send(tab, action.button, x=action.x, y=action.y, click_count=action.count, moving=action.moving)
        return None
    if isinstance(action, Press):
        await input.press(tab, action.keys, repeat=action.repeat, implied_shift=action.implied_shift)
    elif isinstance(action, KeyDown):
        await input.key_down(tab, action.keys, implied_shift=action.implied_shift)
    elif isinstance(action, KeyUp):
        await input.key_up(tab, action.keys, implied_shift=action.implied_shift)
    elif isinstance(action, Hold):
        async with input.hold(tab, action.keys):
            await asyncio.sleep(action.seconds)
    elif isinstance(action, TypeText):
        await input.type_text(tab, action.text)
    elif isinstance(action, InsertText):
        await input.insert_text(tab, action.text)
    else:
        return await action.run()
    return None


@dataclass(frozen=True)
class Settling:
    """How a surface's settle after an action runs: the named profile (settle.STATE for a state read next,
    TOOL_CALL, GUARDED_TOOL_CALL for the MCP server's modal guard) and what the surface keeps for it: its
    request tracker, the browser's navigation timeout, its own end signal (a download began) and the read it
    sends behind the settle's first look (the index's state capture)."""

    profile: SettleProfile
    network: NetworkTracker | None = None
    load_timeout: float | None = None
    until: asyncio.Event | None = None
    speculative: Speculation | None = None


@dataclass
class Outcome:
    """What an action did: `value` (perform's), the settle's report, and the facts of each expectation met
    (by kind)."""

    value: Any
    report: SettleReport
    expected: dict[str, Facts]


async def act(
    tab: Tab,
    action: Action | None,
    settling: Settling,
    *,
    expect: Sequence[Condition] = (),
    timeout: float = 30.0,
    arming: Arming | None = None,
    dialog_ends: bool = True,
) -> Outcome:
    """The whole pipeline (module docstring): `expect` armed before the input, the action performed, the
    settle by `settling`, then each expectation within what is left of `timeout` (ExpectationTimeout,
    PageClosedError, DialogOpenedError). `action` None: a settle of the page as it is (a look). `arming`: the
    settle's observers armed ahead of the input (sent with the index's identity check, core.settle.Arming)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    expectations = [Expectation(tab, condition, dialog_ends=dialog_ends) for condition in expect]
    try:
        for expectation in expectations:
            expectation.arm()
        for expectation in expectations:
            await expectation.ready()
        report = await settle(
            tab, perform(tab, action) if action is not None else None, profile=settling.profile,
            options=None, load_timeout=settling.load_timeout, network=settling.network, until=settling.until,
            speculative=settling.speculative, arming=arming, scrolls=action is None or _scrolls(action),
        )  # fmt: skip
        met = {e.condition.kind: await e.wait(max(0.0, end - loop.time())) for e in expectations}
        return Outcome(report.value, report, met)
    finally:
        for expectation in expectations:
            expectation.disarm()
