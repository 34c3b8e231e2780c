"""Trusted input through the Input domain, and the geometry needed to aim it.

Clicks go to a visible point of the element after it is scrolled into view: content quads
clipped to the viewport, offset by out-of-process frame owners, checked against hit
testing, then mouseMoved + mousePressed + mouseReleased pipelined in one window.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, JavaScriptError

if TYPE_CHECKING:
    from .browser import Tab

BUTTONS = {"left": 1, "right": 2, "middle": 4, "none": 0}


class NotClickableError(CDPEngineError):
    """The element has no visible point that receives the pointer."""


async def frame_offset(tab: Tab, session: CDPSession) -> tuple[float, float]:
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


async def clickable_point(tab: Tab, session: CDPSession, backend_node_id: int) -> tuple[float, float]:
    """Scroll the element into view and return a visible point of it in top-level viewport CSS pixels."""
    await session.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend_node_id})
    quads_result, metrics = await asyncio.gather(
        session.send("DOM.getContentQuads", {"backendNodeId": backend_node_id}),
        session.send("Page.getLayoutMetrics"),
    )
    vp = metrics["cssLayoutViewport"]
    width, height = vp["clientWidth"], vp["clientHeight"]
    best: tuple[float, float] | None = None
    for quad in quads_result.get("quads", []):
        clipped = [
            min(max(quad[i], 0.0), width) if i % 2 == 0 else min(max(quad[i], 0.0), height) for i in range(8)
        ]
        if _quad_area(clipped) > 1:
            best = (sum(clipped[0::2]) / 4, sum(clipped[1::2]) / 4)
            break
    if best is None:
        raise NotClickableError("the element has no visible area in the viewport")
    ox, oy = await frame_offset(tab, session) if session is not tab.session else (0.0, 0.0)
    return best[0] + ox, best[1] + oy


async def hit_target(tab: Tab, session: CDPSession, backend_node_id: int, x: float, y: float) -> bool:
    """True when the point hits the element or something inside it (or a label that targets it)."""
    ox, oy = await frame_offset(tab, session) if session is not tab.session else (0.0, 0.0)
    try:
        # ignorePointerEventsNone=True would hit-test pointer-events:none overlays too: a real click passes them.
        hit = await session.send(
            "DOM.getNodeForLocation",
            {"x": round(x - ox), "y": round(y - oy), "includeUserAgentShadowDOM": False, "ignorePointerEventsNone": False},
        )
    except CDPEngineError:
        return True  # no answer (e.g. point in a nested OOPIF): trust the geometry
    hit_id = hit.get("backendNodeId")
    if hit_id == backend_node_id:
        return True
    resolved = await session.send("DOM.resolveNode", {"backendNodeId": backend_node_id})
    hit_obj = await session.send("DOM.resolveNode", {"backendNodeId": hit_id})
    try:
        result = await session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": resolved["object"]["objectId"],
                "functionDeclaration": """function(other) {
                    for (let n = other; n; n = n.parentNode || n.host) { if (n === this) return true; }
                    if (other && other.control === this) return true;
                    if (other && other.closest) { const l = other.closest('label'); if (l && l.control === this) return true; }
                    return false; }""",
                "arguments": [{"objectId": hit_obj["object"]["objectId"]}],
                "returnByValue": True,
            },
        )
    finally:
        for obj in (resolved, hit_obj):
            session.send("Runtime.releaseObject", {"objectId": obj["object"]["objectId"]}).add_done_callback(_quiet)
    return bool(result.get("result", {}).get("value"))


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def click_at(
    tab: Tab,
    x: float,
    y: float,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: int = 0,
    held: int = 0,
) -> None:
    """A full trusted click at viewport CSS pixels: move, press, release, sent without awaiting between.

    `held` is the bitmask of other buttons already down (kept in every event's `buttons`).
    """
    s = tab.session
    bit = BUTTONS[button]
    base = {"x": x, "y": y, "modifiers": modifiers}
    futures = [s.send("Input.dispatchMouseEvent", {**base, "type": "mouseMoved", "button": "none", "buttons": held})]
    for n in range(1, click_count + 1):
        futures.append(
            s.send(
                "Input.dispatchMouseEvent",
                {**base, "type": "mousePressed", "button": button, "buttons": held | bit, "clickCount": n},
            )
        )
        futures.append(
            s.send(
                "Input.dispatchMouseEvent",
                {**base, "type": "mouseReleased", "button": button, "buttons": held, "clickCount": n},
            )
        )
    await asyncio.gather(*futures)


async def call_function_on(session: CDPSession, backend_node_id: int, function: str, *args: Any) -> Any:
    """Call a JS function with `this` bound to a node; its JSON value. CDPEngineError if the node is gone,
    JavaScriptError if the function throws."""
    resolved = await session.send("DOM.resolveNode", {"backendNodeId": backend_node_id})
    object_id = resolved["object"]["objectId"]
    try:
        result = await session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": object_id,
                "functionDeclaration": function,
                "arguments": [{"value": a} for a in args],
                "returnByValue": True,
                "awaitPromise": True,
                "userGesture": True,
            },
        )
    finally:
        session.send("Runtime.releaseObject", {"objectId": object_id}).add_done_callback(_quiet)
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        message = (details.get("exception") or {}).get("description") or details.get("text") or "script failed"
        raise JavaScriptError(str(message), details)
    return result.get("result", {}).get("value")


async def insert_text(tab: Tab, text: str) -> None:
    """Type a run of text into the focused element as one trusted insertion (input events fire)."""
    await tab.session.send("Input.insertText", {"text": text})


async def press_events(tab: Tab, events: list[dict[str, Any]]) -> None:
    """Send prepared Input.dispatchKeyEvent parameter dicts in order, pipelined."""
    await asyncio.gather(*[tab.session.send("Input.dispatchKeyEvent", e) for e in events])
