"""Actionability: where an element can take the pointer, and whether it really does.

One home for the questions every surface asks before and after input on an element, as Playwright's
server-side dom.ts is: scroll it into view and find a visible point of its content quads (in top-level
viewport CSS pixels, out-of-process frame owners added); hit-test that point in the element's own document
(HIT_FUNCTION: the point moved into the document's client coordinates, every shadow root asked from the
document down, the hit climbing the flat tree, so a slotted label counts as its button); and, for a click,
arm a guard that checks the element the press is delivered to, since the move before the press can open
something over the element. `core/input.py` sends the events and reads the guard after the click.

As Playwright's retries, an aim is made again in two cases only, so a still, uncovered page pays nothing: a
target an animation of its geometry moves (on it or above it in the flat tree) is aimed at once its finite
animations end, and refused as not stable while an endless one runs; a covered one is scrolled to the
viewport's centre, end and start in turn before it is refused (a sticky header over the edge it was scrolled
to). A target without pointer events takes a hit on the ancestor that draws it, a combobox one on its own
placeholder (el-select's); a stand-in is rendered. The page-side scripts are in `core/aim_page.py`.

Coordinates are named by their space: `point` is top-level visual viewport CSS px (what
Input.dispatchMouseEvent takes, and DOM.getContentQuads gives: with a pinch zoom, the part that shows), `local`
the client coordinates of the element's local root (its layout viewport: the visual one's offset added), and the
page script converts those to its own document's client coordinates (what elementsFromPoint takes).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, ProtocolError
from . import scripts
from .aim_page import (
    CLICK_EVENTS,
    CLICK_PATH_FUNCTION,
    GUARD_VERDICT,
    HIT_FUNCTION,
    SCROLL_TO_FUNCTION,
    STILL_FUNCTION,
)
from .stand_ins import stand_in

_E = TypeVar("_E")

NOT_VISIBLE = "not_visible"
COVERED = "covered"
INTERCEPTED = "intercepted"  # the hit test passed, but the press was delivered to another element
DISABLED = "disabled"  # a click on a disabled element (native :disabled, or aria-disabled on a control)
NOT_DELIVERED = "not_delivered"  # no press of the click reached the element's document
IGNORED = "ignored"  # the press reached the element, but nothing on the page handles it and nothing changed
UNSTABLE = "not_stable"  # an animation of its geometry moves it and does not end (within STABLE_WAIT)

STABLE_WAIT = 5.0  # seconds an aim waits, in all, for the finite animations that move its element to end
# The alignments a covered element is scrolled to before it is refused as covered (Playwright's retries): a
# sticky or fixed header over the edge it was scrolled to leaves it clear at the centre, or else at an edge.
SCROLL_ALIGNMENTS = ("center", "end", "start")

class InputTab(Protocol):
    """What input needs of a tab (the core Tab satisfies it; no import of browser.py here)."""

    @property
    def session(self) -> CDPSession: ...

    def extension(self, kind: type[_E], make: Callable[[], _E] | None = None) -> _E: ...


class Target(Protocol):
    """An element to aim at: its document's session and its backend node id (a ref, an indexed element)."""

    @property
    def session(self) -> CDPSession: ...

    @property
    def backend_node_id(self) -> int: ...


class NotInteractableError(CDPEngineError):
    """The target cannot take the requested input; `reason` is a stable code a surface maps to its text."""

    def __init__(self, message: str, reason: str = "not_interactable") -> None:
        super().__init__(message)
        self.reason = reason


class NotClickableError(NotInteractableError):
    """No visible point of the element receives the pointer: reason NOT_VISIBLE, COVERED or INTERCEPTED; `by`
    what takes the pointer there ('<div class="overlay">'); `target`: which end of a drag was refused."""

    def __init__(self, message: str, reason: str = NOT_VISIBLE, *, by: str | None = None) -> None:
        super().__init__(message, reason)
        self.by = by
        self.target: Target | None = None


def refusal(exc: NotClickableError) -> str:
    """Why input could not land, as the rest of a sentence whose subject is the element ("is disabled"): one
    wording that every surface puts behind its own name for the element (index, ref) and its own error."""
    by = exc.by or "another element"
    if exc.reason == COVERED:
        return "is covered by another element at its visible point" + (f" ({exc.by})" if exc.by else "")
    if exc.reason == INTERCEPTED:
        return f"did not receive the click: {by} received the press instead (it was kept from the page)"
    if exc.reason == DISABLED:
        return "is disabled"
    if exc.reason == NOT_DELIVERED:
        return "did not receive the click: no press of it reached the page"
    if exc.reason == IGNORED:
        return "ignored the click: nothing on the page handles a click on it, and the page did not change"
    if exc.reason == UNSTABLE:
        return "is still moving (an animation that does not end moves it)"
    return f"is not visible: {exc}"


async def frame_offset(tab: InputTab, session: CDPSession) -> tuple[float, float]:
    """Top-level viewport position of an out-of-process frame's viewport (0, 0 for the tab itself)."""
    x = y = 0.0
    while session is not tab.session and session.parent is not None:
        parent = session.parent
        owner = await parent.send("DOM.getFrameOwner", {"frameId": session.target_id})
        box = await parent.send("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]})
        q = box["model"]["content"]
        x += q[0]
        y += q[1]
        session = parent
    return x, y


def _quad_area(q: list[float]) -> float:
    area = 0.0
    for i in range(4):
        x1, y1 = q[2 * i], q[2 * i + 1]
        x2, y2 = q[(2 * i + 2) % 8], q[(2 * i + 3) % 8]
        area += (x1 * y2 - x2 * y1) / 2
    return abs(area)


async def clickable_point(tab: InputTab, target: Target) -> tuple[float, float]:
    """Scroll the element into view and return a visible point of it in top-level viewport CSS pixels.

    NotClickableError(NOT_VISIBLE) when no part of it shows in the viewport.
    """
    return (await _aim_or_stand_in(tab, target, resolve=False))[0].point


async def _aim_or_stand_in(tab: InputTab, target: Target, *, resolve: bool) -> tuple[_Aim, Target]:
    """_aim at the element; when it has no visible area, at what it stands for if it is a stand-in
    (STAND_IN_FUNCTION: asked only then, so an ordinary aim pays nothing for it)."""
    try:
        return await _aim(tab, target, resolve=resolve), target
    except NotClickableError as exc:
        if exc.reason != NOT_VISIBLE:
            raise
        stand_for = await stand_in(target)
        if stand_for is target:
            raise
    return await _aim(tab, stand_for, resolve=resolve), stand_for


@dataclass
class _Aim:
    point: tuple[float, float]  # top-level viewport CSS px
    local: tuple[float, float]  # the same point in the client coordinates of the element's local root
    object_id: str | None  # the element in its world, when resolved (release it)


@dataclass
class Guard:
    """A delivery guard armed in the element's document for the click about to be sent at `point`.

    A click that starts a navigation was delivered (the guard stops a press it refuses before any default
    action), and while a navigation to a slow server is pending the old document answers no script: so the
    guard listens for one (`navigated`) and its verdict is not awaited once one was requested."""

    session: CDPSession
    object_id: str
    point: tuple[float, float]
    backend_node_id: int
    navigated: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    _unsubscribe: list[Callable[[], None]] = field(default_factory=list)

    def listen(self, sessions: list[CDPSession]) -> None:
        for s in sessions:
            self._unsubscribe.append(s.on("Page.frameRequestedNavigation", self._on_navigation))

    def _on_navigation(self, _params: dict[str, Any]) -> None:
        if not self.navigated.done():
            self.navigated.set_result(None)

    def close(self) -> None:
        """Stop listening and release the element's object."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        scripts.release(self.session, self.object_id)


@dataclass
class _Guards:
    """One tab's armed guard (a tab extension): the last hit test's, for the click that follows."""

    armed: Guard | None = None

    @classmethod
    def of(cls, tab: InputTab) -> _Guards:
        return tab.extension(cls, cls)


async def _aim(tab: InputTab, target: Target, *, resolve: bool) -> _Aim:
    """Scroll into view, then a visible point of the element's content quads clipped to the viewport; with
    `resolve`, the element's remote object in its frame's isolated world, resolved in the same burst."""
    session, backend_node_id = target.session, target.backend_node_id
    # Sent together: the renderer runs a session's DOM and Page commands in order, so the quads and the
    # metrics are read after the scroll, one round trip instead of two.
    scrolled = session.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend_node_id})
    quads_future = session.send("DOM.getContentQuads", {"backendNodeId": backend_node_id})
    metrics_future = session.send("Page.getLayoutMetrics")
    sent = [scrolled, quads_future, metrics_future]
    resolved = None
    if resolve:
        params: dict[str, Any] = {"backendNodeId": backend_node_id}
        context = world_context_of(tab, target)
        if context is not None:
            params["executionContextId"] = context
        resolved = session.send("DOM.resolveNode", params)
        sent.append(resolved)
    try:
        await asyncio.gather(*sent)
    except BaseException as exc:
        if resolved is not None:
            scripts.drop_resolve(session, resolved)
        if isinstance(exc, ProtocolError) and (
            "layout object" in exc.message or "content quads" in exc.message
        ):
            # Chromium's words for an element that is not rendered: never shown to an agent raw.
            raise NotClickableError(
                "the element is not rendered (it has no layout box)", NOT_VISIBLE
            ) from None
        raise
    quads_result, metrics = quads_future.result(), metrics_future.result()
    object_id = str(resolved.result()["object"]["objectId"]) if resolved is not None else None
    # The quads and Input's points are in the visual viewport (what shows, pinch-zoomed or not); the page's
    # client coordinates (the hit test's, the events' clientX) are the layout viewport's: the visual one sits
    # at (offsetX, offsetY) in it (0, 0 unless the page is pinch-zoomed and panned).
    vp = metrics["cssVisualViewport"]
    width, height = vp["clientWidth"], vp["clientHeight"]
    shift_x, shift_y = vp.get("offsetX", 0.0), vp.get("offsetY", 0.0)
    best: tuple[float, float] | None = None
    for quad in quads_result.get("quads", []):
        clipped = [
            min(max(quad[i], 0.0), width) if i % 2 == 0 else min(max(quad[i], 0.0), height) for i in range(8)
        ]
        if _quad_area(clipped) > 1:
            best = (sum(clipped[0::2]) / 4, sum(clipped[1::2]) / 4)
            break
    if best is None:
        if object_id is not None:
            scripts.release(session, object_id)
        raise NotClickableError("the element has no visible area in the viewport", NOT_VISIBLE)
    local = (best[0] + shift_x, best[1] + shift_y)
    if session is tab.session:
        return _Aim(best, local, object_id)
    try:
        ox, oy = await frame_offset(tab, session)
    except BaseException:
        if object_id is not None:
            scripts.release(session, object_id)
        raise
    return _Aim((best[0] + ox, best[1] + oy), local, object_id)


def world_context_of(tab: InputTab, target: Target) -> int | None:
    """The isolated world of the element's document, where the engine's listeners stay out of the page's
    sight; None (the page's own world) when the target names no frame or the world is not there yet."""
    frame_id = getattr(target, "frame_id", None)
    if not isinstance(frame_id, str):
        return None
    from .worlds import Worlds  # worlds.py imports nothing of input; a lazy import keeps the module light

    worlds = Worlds.of(tab)  # type: ignore[arg-type]  # every tab with frames is a core Tab
    return worlds.get(frame_id, getattr(target, "loader_id", None))


async def hit_target(tab: InputTab, target: Target, *, arm: bool = False) -> tuple[float, float]:
    """Aim at the element and check that its point takes the pointer (the hit test in its own document, the
    flat tree followed); with `arm`, a delivery guard is armed for a click sent next at that point
    (click_at reads it). The point in top-level viewport CSS pixels; NotClickableError otherwise.

    Two verdicts aim again, as Playwright's retries do, and cost nothing on a still, uncovered page: an
    element an animation of its geometry moves (on it or above it) waits for finite ones to end (at most
    STABLE_WAIT in all; an endless one is refused at once: UNSTABLE); a covered one is scrolled to each of
    SCROLL_ALIGNMENTS in turn (a sticky header over the edge it was scrolled to) before it is refused."""
    deadline = asyncio.get_running_loop().time() + STABLE_WAIT
    alignments = iter(SCROLL_ALIGNMENTS)
    while True:
        try:
            return await _hit_once(tab, target, arm=arm, deadline=deadline)
        except _AimAgain:
            continue
        except NotClickableError as exc:
            align = next(alignments, None) if exc.reason == COVERED else None
            if align is None or not await _scrolled_to(tab, target, align):
                raise


class _AimAgain(Exception):
    """The element was moving and its finite animations were waited for: aim at it again."""


async def _scrolled_to(tab: InputTab, target: Target, align: str) -> bool:
    """Scroll the element to `align` (SCROLL_TO_FUNCTION); False when it could not be."""
    try:
        await scripts.call_on_node(target.session, target.backend_node_id, SCROLL_TO_FUNCTION, align)
    except CDPEngineError:
        return False
    return True


async def _wait_still(session: CDPSession, object_id: str, seconds: float) -> None:
    """Wait (at most `seconds`) for the finite animations that move the element to end (STILL_FUNCTION)."""
    ms = max(int(seconds * 1000), 0)
    with contextlib.suppress(CDPEngineError):
        await session.send(
            "Runtime.callFunctionOn",
            {"objectId": object_id, "functionDeclaration": STILL_FUNCTION, "arguments": [{"value": ms}],
             "awaitPromise": True, "returnByValue": True},
            timeout=seconds + 1.0,
        )  # fmt: skip


async def _hit_once(tab: InputTab, target: Target, *, arm: bool, deadline: float) -> tuple[float, float]:
    """One aim and hit test (hit_target); _AimAgain after waiting for the element to stop moving."""
    aim, target = await _aim_or_stand_in(tab, target, resolve=True)
    assert aim.object_id is not None
    session = target.session
    try:
        result = await session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": aim.object_id,
                "functionDeclaration": HIT_FUNCTION,
                "arguments": [{"value": aim.local[0]}, {"value": aim.local[1]}, {"value": arm}],
                "returnByValue": True,
            },
        )
    except BaseException:
        scripts.release(session, aim.object_id)
        raise
    verdict = result.get("result", {}).get("value") or {}
    if not verdict.get("ok"):
        if verdict.get("reason") == "moving":
            left = deadline - asyncio.get_running_loop().time()
            try:
                if verdict.get("endless") or left <= 0:
                    raise NotClickableError(
                        "the element is still moving: an animation of its position or size does not end",
                        UNSTABLE,
                    )
                await _wait_still(session, aim.object_id, left)
            finally:
                scripts.release(session, aim.object_id)
            raise _AimAgain
        scripts.release(session, aim.object_id)
        if verdict.get("reason") == "outside":
            raise NotClickableError("no part of the element shows at its visible point", NOT_VISIBLE)
        if verdict.get("reason") == "disabled":
            raise NotClickableError("the element is disabled", DISABLED)
        by = str(verdict.get("by") or "another element")
        raise NotClickableError(f"the element is covered by {by} at its visible point", COVERED, by=by)
    guards = _Guards.of(tab)
    if guards.armed is not None:
        guards.armed.close()
    if arm:
        guards.armed = Guard(session, aim.object_id, aim.point, target.backend_node_id)
        guards.armed.listen([session] if session is tab.session else [session, tab.session])
    else:
        guards.armed = None
        scripts.release(session, aim.object_id)
    return aim.point


async def point_of(
    tab: InputTab, target: Target, *, check_hit: bool = True, arm: bool = False
) -> tuple[float, float]:
    """A visible point of the element (scrolled into view) that receives the pointer, in top-level viewport
    CSS pixels. NotClickableError(NOT_VISIBLE) or, with `check_hit`, NotClickableError(COVERED). With
    `arm`: a delivery guard is armed too (for a click): a click_at at that point next checks where its press
    landed."""
    if not check_hit:
        return await clickable_point(tab, target)
    return await hit_target(tab, target, arm=arm)


def drop_guard(tab: InputTab) -> None:
    """Forget the armed guard without reading it (its click was never answered: the page went away)."""
    guards = _Guards.of(tab)
    if guards.armed is not None:
        guards.armed.close()
        guards.armed = None


async def read_guard(tab: InputTab, x: float, y: float) -> None:
    """After a click at (x, y): the armed guard's verdict (NotClickableError(INTERCEPTED) when the press landed
    on another element, which the guard kept from the page). A guard armed for another point is dropped."""
    guards = _Guards.of(tab)
    guard, guards.armed = guards.armed, None
    if guard is None:
        return
    try:
        if guard.point != (x, y) or guard.navigated.done():
            return
        verdict = guard.session.send(
            "Runtime.callFunctionOn",
            {"objectId": guard.object_id, "functionDeclaration": GUARD_VERDICT, "returnByValue": True},
        )
        verdict.add_done_callback(scripts.retrieve_quietly)
        either: list[asyncio.Future[Any]] = [verdict, guard.navigated]
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if not verdict.done() or verdict.exception() is not None:
            return  # the click started a navigation, or its document went away with it: it was delivered
        answer = verdict.result().get("result", {}).get("value")
        if not isinstance(answer, dict):
            return
        by = answer.get("by")
        if isinstance(by, str):
            raise NotClickableError(
                f"the click was intercepted by {by}: it received the press instead of the element",
                INTERCEPTED,
                by=by,
            )
        if not answer.get("seen"):
            raise NotClickableError("no press of the click reached the page", NOT_DELIVERED)
        if not answer.get("reacts") and not await _page_handles_click(guard.session, guard.backend_node_id):
            raise NotClickableError(
                "nothing on the page handles a click on it and the page did not change", IGNORED
            )
    finally:
        guard.close()


async def _page_handles_click(session: CDPSession, backend_node_id: int) -> bool:
    """Whether the page (its own world) listens for a click's events on the element, inside it, or on the way
    up its flat tree to the window. Asked only after a click that changed nothing at once on an element
    without a default action (read_guard); True whenever the answer is not certain."""
    group = "cdp-engine-click-path"
    try:
        resolved = await session.send(
            "DOM.resolveNode", {"backendNodeId": backend_node_id, "objectGroup": group}
        )
        path = await session.send(
            "Runtime.callFunctionOn",
            {"objectId": resolved["object"]["objectId"], "functionDeclaration": CLICK_PATH_FUNCTION,
             "objectGroup": group},
        )  # fmt: skip
        props = await session.send(
            "Runtime.getProperties", {"objectId": path["result"]["objectId"], "ownProperties": True}
        )
        ids = [
            p["value"]["objectId"]
            for p in props["result"]
            if p["name"].isdigit() and "objectId" in p.get("value", {})
        ]
        answers = await asyncio.gather(
            *[
                session.send(
                    "DOMDebugger.getEventListeners",
                    {"objectId": object_id, "depth": -1 if i == 0 else 0, "pierce": i == 0},
                )
                for i, object_id in enumerate(ids)
            ]
        )
    except CDPEngineError:
        return True
    finally:
        session.send("Runtime.releaseObjectGroup", {"objectGroup": group}).add_done_callback(
            scripts.retrieve_quietly
        )
    return not ids or any(e["type"] in CLICK_EVENTS for a in answers for e in a.get("listeners", []))
