"""The one input module (cdp_engine.core.input) on a real headless Chromium: aiming in every kind of frame,
hit testing, pointer and keyboard dispatch, and the per-tab mouse and modifier state."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import cdp_engine
from cdp_engine.cdp.connection import CDPSession
from cdp_engine.core import input
from cdp_engine.core.keys import CONTROL, SHIFT, UnknownKeyError

_paths = itertools.count()

# Every pointer event the page sees, in order, with what a handler would read from it.
RECORDER = """<script>
  window.log = [];
  for (const type of ['mousedown', 'mousemove', 'mouseup', 'click', 'dblclick', 'wheel', 'keydown', 'keyup']) {
    addEventListener(type, e => log.push({type, target: e.target.id || e.target.localName, x: e.clientX, y: e.clientY,
      buttons: e.buttons, button: e.button, detail: e.detail, shift: e.shiftKey, ctrl: e.ctrlKey, key: e.key,
      dy: e.deltaY, trusted: e.isTrusted}), true);
  }
</script>"""
BUTTON = '<button id="b" style="position:absolute;left:{x}px;top:{y}px;width:120px;height:40px">B</button>'


@dataclass
class Node:
    """A target as the surfaces hand one over: its document's session and its backend node id."""

    session: CDPSession
    backend_node_id: int


def path(name: str) -> str:
    return f"/input/{next(_paths)}/{name}"


def page(html: str) -> str:
    return f"<!doctype html><html><head><title>t</title></head><body style='margin:0'>{html}{RECORDER}</body></html>"


async def node(session: CDPSession, expression: str) -> Node:
    """The element an expression evaluates to, as a target."""
    result = await session.send("Runtime.evaluate", {"expression": expression})
    described = await session.send("DOM.describeNode", {"objectId": result["result"]["objectId"]})
    return Node(session, described["node"]["backendNodeId"])


async def events(tab: cdp_engine.Tab, type_: str, session: CDPSession | None = None) -> list[dict[str, Any]]:
    return await tab.evaluate(f"log.filter(e => e.type === {type_!r})", session=session)  # type: ignore[no-any-return]


async def until(tab: cdp_engine.Tab, expression: str, session: CDPSession | None = None, timeout: float = 5.0) -> None:
    """Poll a page condition (tests only) until it holds or the deadline passes."""
    async with asyncio.timeout(timeout):
        while not await tab.evaluate(expression, session=session):  # noqa: ASYNC110 - a page condition
            await asyncio.sleep(0.02)


async def test_click_element_in_the_main_frame(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("main"), page('<div style="height:1500px"></div>' + BUTTON.format(x=40, y=1600))))
    x, y = await input.click_element(tab, await node(tab.session, "document.getElementById('b')"))
    assert await tab.evaluate("scrollY") > 0, "scrolled into view first"
    clicks = await events(tab, "click")
    assert [(c["target"], c["trusted"], c["detail"]) for c in clicks] == [("b", True, 1)]
    assert (clicks[0]["x"], clicks[0]["y"]) == (round(x), round(y))
    assert 40 <= x <= 160
    assert input.input_state(tab).x == x and input.input_state(tab).y == y
    # a double click: two press/release pairs, click counts 1 and 2
    await input.click_element(tab, await node(tab.session, "document.getElementById('b')"), click_count=2)
    assert [c["detail"] for c in await events(tab, "click")] == [1, 1, 2]
    assert len(await events(tab, "dblclick")) == 1


async def test_click_element_in_a_same_origin_iframe(tab: cdp_engine.Tab, site: Any) -> None:
    inner = site.add(path("inner"), page(BUTTON.format(x=30, y=30)))
    await tab.goto(site.add(path("outer"), page(f'<iframe src="{inner}" style="margin:100px;width:300px;height:200px;border:0"></iframe>')))
    await until(tab, "document.querySelector('iframe').contentDocument?.getElementById('b') !== null")
    assert not tab.frame_sessions, "same-origin frames share the tab's session"
    target = await node(tab.session, "document.querySelector('iframe').contentDocument.getElementById('b')")
    x, y = await input.click_element(tab, target)
    assert 130 <= x <= 250 and 130 <= y <= 170, "top-level viewport coordinates"
    clicks = await tab.evaluate("document.querySelector('iframe').contentWindow.log.filter(e => e.type === 'click')")
    assert [(c["target"], c["x"], c["y"]) for c in clicks] == [("b", round(x) - 100, round(y) - 100)]


async def oopif(tab: cdp_engine.Tab, site: Any, wait: Callable[..., Awaitable[None]]) -> CDPSession:
    inner = site.other_url + path("cross")
    site.add(inner.removeprefix(site.other_url), page(BUTTON.format(x=30, y=30)))
    await tab.goto(site.add(path("host"), page(f'<iframe src="{inner}" style="margin:100px;width:300px;height:200px;border:0"></iframe>')))
    await wait(lambda: len(tab.frame_sessions) == 1)
    (session,) = tab.frame_sessions.values()
    await until(tab, "document.readyState === 'complete' && typeof log === 'object'", session)
    return session


async def test_click_element_in_an_out_of_process_iframe(
    tab: cdp_engine.Tab, site: Any, wait: Callable[..., Awaitable[None]]
) -> None:
    session = await oopif(tab, site, wait)
    target = await node(session, "document.getElementById('b')")
    offset = await input.frame_offset(tab, session)
    assert offset == (100, 100)
    # A frame that has just loaded may not be composited yet, and a press then lands on the parent's <iframe>:
    # with an isolated world in the frame the press is counted there and the click repeated when it was lost.
    world = await session.send("Page.createIsolatedWorld", {"frameId": session.target_id, "worldName": "input-test"})
    x, y = await input.click_element(tab, target, world_context=world["executionContextId"])
    assert 130 <= x <= 250 and 130 <= y <= 170
    await until(tab, "log.some(e => e.type === 'click')", session)
    clicks = await events(tab, "click", session)
    assert [(c["target"], c["x"], c["y"]) for c in clicks] == [("b", round(x) - 100, round(y) - 100)]
    assert len(await events(tab, "mousedown", session)) == 1, "exactly one press reached the frame"
    # the frame is drawn now: a plain click reaches it, and so does one with a world that is gone
    await input.click_element(tab, target)
    await until(tab, "log.filter(e => e.type === 'click').length === 2", session)
    await input.click_element(tab, target, world_context=987654)
    await until(tab, "log.filter(e => e.type === 'click').length === 3", session)
    assert len(await events(tab, "mousedown", session)) == 3


async def test_covered_and_hidden_elements_are_not_clicked(tab: cdp_engine.Tab, site: Any) -> None:
    html = (
        BUTTON.format(x=20, y=20)
        + '<div id="glass" style="position:absolute;left:0;top:0;width:400px;height:200px"></div>'
        + '<button id="gone" style="position:absolute;left:500px;top:20px;width:0;height:0;padding:0;border:0">G</button>'
        + '<div id="pass" style="position:absolute;left:0;top:0;width:400px;height:200px;pointer-events:none"></div>'
    )
    await tab.goto(site.add(path("covered"), page(html)))
    button = await node(tab.session, "document.getElementById('b')")
    with pytest.raises(input.NotClickableError) as covered:
        await input.click_element(tab, button)
    assert covered.value.reason == input.COVERED and isinstance(covered.value, input.NotInteractableError)
    with pytest.raises(input.NotClickableError) as hidden:
        await input.click_element(tab, await node(tab.session, "document.getElementById('gone')"))
    assert hidden.value.reason == input.NOT_VISIBLE
    assert str(hidden.value) == "the element has no visible area in the viewport"
    assert await events(tab, "mousedown") == [], "nothing was pressed"
    # without the hit test the point is still the button's (a drop target may sit under the drag)
    x, y = await input.point_of(tab, button, check_hit=False)
    assert 20 <= x <= 140 and 20 <= y <= 60
    # a pointer-events:none overlay does not cover: a real click passes through it
    await tab.evaluate("document.getElementById('glass').remove()")
    await input.click_element(tab, button)
    assert [c["target"] for c in await events(tab, "click")] == ["b"]


async def test_modifiers_and_held_keys_reach_the_click(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("mods"), page(BUTTON.format(x=20, y=20))))
    await input.click_at(tab, 50, 40, modifiers=CONTROL)
    async with input.hold(tab, "shift"):
        assert input.input_state(tab).modifiers == SHIFT
        await input.click_at(tab, 50, 40)
    assert input.input_state(tab).modifiers == 0
    await input.click_at(tab, 50, 40)
    clicks = await events(tab, "click")
    assert [(c["ctrl"], c["shift"]) for c in clicks] == [(True, False), (False, True), (False, False)]
    keys = [(e["type"], e["key"]) for e in await tab.evaluate("log.filter(e => e.type.startsWith('key'))")]
    assert keys == [("keydown", "Shift"), ("keyup", "Shift")]
    # a blank chord holds nothing; an unknown key fails before anything is pressed
    async with input.hold(tab, ""):
        assert input.input_state(tab).modifiers == 0
    with pytest.raises(UnknownKeyError):
        async with input.hold(tab, "ctrl+banana"):
            pass
    assert input.input_state(tab).modifiers == 0
    assert len(await tab.evaluate("log.filter(e => e.type.startsWith('key'))")) == 2


async def test_mouse_state_bitmask_across_down_move_up(
    tab: cdp_engine.Tab, context: cdp_engine.BrowserContext, site: Any
) -> None:
    await tab.goto(site.add(path("mask"), page('<div id="pad" style="width:600px;height:400px"></div>')))
    state = input.input_state(tab)
    assert state is input.InputState.of(tab), "one state per tab"
    await input.move(tab, 100, 100)
    await input.down(tab, "left")
    assert state.mask == 1
    await input.down(tab, "right")
    assert state.mask == 3
    await input.move(tab, 150, 120)
    await input.up(tab, "left")
    assert state.mask == 2
    await input.up(tab, "right", x=160, y=130)
    assert state.mask == 0 and (state.x, state.y) == (160, 130)
    seen = [(e["type"], e["buttons"], e["x"], e["y"]) for e in await tab.evaluate("log.filter(e => e.type.startsWith('mouse'))")]
    assert seen == [
        ("mousemove", 0, 100, 100),
        ("mousedown", 1, 100, 100),
        ("mousedown", 3, 100, 100),
        ("mousemove", 3, 150, 120),
        ("mouseup", 2, 150, 120),
        ("mouseup", 0, 160, 130),  # released at the point given, which becomes the position
    ]
    # another tab has its own state
    other = await context.new_tab()
    assert input.input_state(other).mask == 0 and input.input_state(other) is not state


# A card whose "delete" control appears under the pointer only while the card is hovered: by a mouseover
# handler, or by CSS :hover.
HOVER_CARD = """<div id="card" style="position:absolute;left:100px;top:100px;width:200px;height:100px">card
  <button id="del" onclick="window.deleted = true" style="display:none;position:absolute;left:50px;top:25px;
    width:100px;height:50px">Delete</button></div>
  <div id="css" style="position:absolute;left:400px;top:100px;width:200px;height:100px">css
    <button id="del2" onclick="window.deleted2 = true" style="position:absolute;left:50px;top:25px;width:100px;
      height:50px">Delete</button></div>
  <style>#css #del2 { display: none } #css:hover #del2 { display: block }</style>
  <script>document.getElementById('card').addEventListener('mouseover', () => {
    document.getElementById('del').style.display = 'block'; });</script>"""


async def test_a_pipelined_click_reaches_what_the_hover_shows(tab: cdp_engine.Tab, site: Any) -> None:
    # Move, press and release are sent together: the move (and its mouseover handler, or :hover style) is
    # handled before the press hit-tests, as for a user whose pointer comes to rest and clicks.
    await tab.goto(site.add(path("hover-card"), page(HOVER_CARD)))
    await input.move(tab, 5, 5)
    await input.click_at(tab, 200, 150)
    await input.click_at(tab, 500, 150)
    assert await tab.evaluate("[window.deleted === true, window.deleted2 === true]") == [True, True]
    clicks = await events(tab, "click")
    assert [c["target"] for c in clicks] == ["del", "del2"]
    moves = await events(tab, "mousemove")
    assert (moves[-1]["x"], moves[-1]["y"]) == (500, 150)


HOVER_MENU = """<div id="menu" style="display:inline-block;padding:4px">
  <button id="open" style="font-size:20px">Menu</button>
  <div id="items" style="display:none"><button onclick="document.getElementById('o').textContent = 'picked'"
    style="font-size:20px">Item</button></div></div><p id="o">none</p>
  <script>const m = document.getElementById('menu'), items = document.getElementById('items');
    m.addEventListener('mouseover', () => { items.style.display = 'block'; });
    m.addEventListener('mouseleave', () => { items.style.display = 'none'; });</script>"""


async def test_a_mouseover_menu_through_the_element_index(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("hover-menu"), page(HOVER_MENU)))
    state = await tab.state(screenshot=False)
    menu = next(int(k) for k, d in state["element_index"].items() if "Menu" in str(d))
    state = await tab.act({"action": "click_element", "element_index": menu}, screenshot=False)
    assert "error" not in state and "Item" in state["page_content"], "the hover opened the menu"
    item = next(int(k) for k, d in state["element_index"].items() if "Item" in str(d))
    state = await tab.act({"action": "click_element", "element_index": item}, screenshot=False)
    assert "error" not in state and "picked" in state["page_content"]


async def test_press_and_release_at_a_point_with_the_move_sent_along(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("moving"), page('<div id="pad" style="width:600px;height:400px"></div>')))
    await input.down(tab, "left", x=120, y=80, moving=True)
    await input.up(tab, "left", x=200, y=90, moving=True)
    seen = [(e["type"], e["buttons"], e["x"], e["y"]) for e in await tab.evaluate("log.filter(e => e.type.startsWith('mouse'))")]
    assert seen == [
        ("mousemove", 0, 120, 80), ("mousedown", 1, 120, 80), ("mousemove", 1, 200, 90), ("mouseup", 0, 200, 90),
    ]  # fmt: skip
    assert input.input_state(tab).mask == 0 and (input.input_state(tab).x, input.input_state(tab).y) == (200, 90)


async def test_drag_holds_the_button_through_every_move(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("drag"), page('<div id="pad" style="width:600px;height:400px"></div>')))
    await input.drag(tab, 50, 50, 250, 150, steps=4)
    log = await tab.evaluate("log.filter(e => e.type.startsWith('mouse'))")
    assert [(e["type"], e["buttons"]) for e in log] == [
        ("mousemove", 0), ("mousedown", 1), ("mousemove", 1), ("mousemove", 1), ("mousemove", 1), ("mousemove", 1),
        ("mouseup", 0),
    ]  # fmt: skip
    assert (log[-1]["x"], log[-1]["y"]) == (250, 150) and (log[-2]["x"], log[-2]["y"]) == (250, 150)
    assert input.input_state(tab).mask == 0


async def test_wheel_scrolls_what_is_under_the_pointer(tab: cdp_engine.Tab, site: Any) -> None:
    html = '<div id="box" style="height:200px;width:300px;overflow:auto"><div id="inner" style="height:2000px"></div></div>'
    await tab.goto(site.add(path("wheel"), page(html + '<div style="height:3000px"></div>')))
    await input.wheel(tab, 100, 100, 0, 300)
    await until(tab, "document.getElementById('box').scrollTop > 0")
    assert await tab.evaluate("scrollY") == 0, "the page under the box stays put"
    wheels = await events(tab, "wheel")
    assert [(w["target"], w["dy"], w["x"], w["y"]) for w in wheels][:1] == [("inner", 300, 100, 100)]
    assert (input.input_state(tab).x, input.input_state(tab).y) == (100, 100)


async def test_key_chords_sequences_and_text(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("keys"), page('<input id="q" value="old"><textarea id="ta"></textarea>')))
    await tab.evaluate("document.getElementById('q').focus()")
    await input.press(tab, "ctrl+a")
    await input.press(tab, "Delete")
    assert await tab.evaluate("q.value") == ""
    await input.press(tab, "shift+a b C")
    assert await tab.evaluate("q.value") == "AbC"
    await input.press(tab, "BackSpace", repeat=2)
    assert await tab.evaluate("q.value") == "A"
    with pytest.raises(UnknownKeyError):
        await input.press(tab, "x banana")  # the whole sequence is checked before anything is pressed
    assert await tab.evaluate("q.value") == "A"
    await input.insert_text(tab, " ünïcode")
    assert await tab.evaluate("q.value") == "A ünïcode"
    await input.press(tab, "Tab")
    assert await tab.evaluate("document.activeElement.id") == "ta"
    await input.type_text(tab, "one\ntwo")
    assert await tab.evaluate("ta.value") == "one\ntwo"


async def test_key_down_and_up_hold_a_key(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(path("hold"), page('<input id="q">')))
    await tab.evaluate("document.getElementById('q').focus()")
    await input.key_down(tab, "Shift")
    assert input.input_state(tab).modifiers == SHIFT
    await input.click_at(tab, 500, 500)
    await input.key_up(tab, "Shift")
    assert input.input_state(tab).modifiers == 0
    log = await tab.evaluate("log.filter(e => ['keydown', 'keyup', 'click'].includes(e.type))")
    assert [(e["type"], e["key"] if e["type"] != "click" else e["shift"]) for e in log] == [
        ("keydown", "Shift"), ("click", True), ("keyup", "Shift"),
    ]  # fmt: skip
    await tab.evaluate("document.getElementById('q').focus()")  # the click took the focus
    async with input.hold(tab, "a"):  # a held character key types once (no auto-repeat)
        pass
    assert await tab.evaluate("q.value") == "a"


def test_only_the_input_module_sends_input_events() -> None:
    """Surfaces act through cdp_engine.core.input: no raw Input.* CDP anywhere else in the package."""
    root = Path(input.__file__).resolve().parents[1]
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p != Path(input.__file__).resolve() and re.search(r"[\"']Input\.\w+[\"']", p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
