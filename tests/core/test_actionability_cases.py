"""The core's actionability and input on pages that change after the agent looked (issue 41), each driven
through the element index and, for a click, the browser toolset and the MCP tools too.

A control hidden after the state was read is refused as not rendered, never clicked at what holds it; a
target an animation moves is clicked once it stopped, and refused while an endless one moves it; a target a
sticky header covers is scrolled clear of it, one a modal backdrop covers is refused; a combobox input that
takes no pointer events is clicked through the field that draws it; pressed pointer events carry a mouse's
pressure; typing into a field ends with a person's key press, the value byte for byte the same.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from surfaces import SURFACES, Hand, open_hand
from test_web_defects import RECORD

import cdp_engine
from cdp_engine.core import input

_paths = itertools.count()


class Looking:
    """A surface as an agent uses it across a change (the shared hand of tests/core/surfaces.py): look (the
    handle the surface shows for a control), the page changes, then click that handle. click() answers None
    on success, else the surface's error text."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        self.name = hand.name

    async def open(self, url: str) -> None:
        await self.hand.open(url)

    async def evaluate(self, expression: str) -> Any:
        return await self.hand.evaluate(expression)

    async def look(self, label: str) -> str:
        await self.hand.look()
        return self.hand.key(label)

    async def click(self, handle: str) -> str | None:
        return await self.hand.click(handle)


@pytest_asyncio.fixture(params=SURFACES)
async def surface(
    request: pytest.FixtureRequest, browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[Looking]:
    async with open_hand(request.param, browser, context) as hand:
        yield Looking(hand)


async def opened(surface: Looking, site: Any, html: str) -> None:
    await surface.open(site.add(f"/actionability/{next(_paths)}-{surface.name}", html))


# Every trusted click on the page, named by what it reached (a data-t on the way up, else the tag).
CLICKS_SEEN = RECORD + """<script>
document.addEventListener('click', e => {
  if (!e.isTrusted) return;
  const n = e.composedPath()[0], named = n.closest ? n.closest('[data-t]') : null;
  rec(named ? named.dataset.t : n.localName);
}, true);
</script>"""


# ----- 1. a control hidden after the agent looked ----------------------------------------------------------

HIDDEN_LATER = CLICKS_SEEN + """
<div id=wrap style="padding:20px" data-t=wrap><button id=b data-t=button>Vanishing button</button></div>
"""


@pytest.mark.parametrize("how", ["b.style.display = 'none'", "wrap.style.display = 'none'"])
async def test_a_control_hidden_after_the_look_is_refused_never_clicked_elsewhere(
    surface: Looking, site: Any, how: str
) -> None:
    # It was "clicked" with success at <body>: the stand-in rule took a focusable element without a box for a
    # visually hidden keyboard target and aimed at the nearest ancestor a person sees.
    await opened(surface, site, HIDDEN_LATER)
    handle = await surface.look("Vanishing button")
    await surface.evaluate(how)
    error = await surface.click(handle)
    assert error is not None, "a display:none button was clicked"
    assert "not visible" in error or "not rendered" in error or "no longer" in error or "not found" in error, error
    assert await surface.evaluate("clicks") == []


STAND_IN = CLICKS_SEEN + """
<div id=field data-t=field style="width:200px; height:30px; border:1px solid" onclick="this.dataset.open = 1">
  <input aria-label="Pick a colour" style="width:1px; height:1px; opacity:0; border:0; padding:0">
</div>
"""


async def test_a_rendered_one_pixel_stand_in_still_stands_for_its_field(context: Any, site: Any) -> None:
    # The rule the fix narrows: a rendered 1 px input is still aimed at the field that draws it.
    tab = await context.new_tab()
    await tab.goto(site.add(f"/actionability/{next(_paths)}", STAND_IN), wait_until="load")
    state = await tab.state()
    key = next(k for k, el in state["element_index"].items() if el["aria-label"] == "Pick a colour")
    after = await tab.act({"action": "click_element", "element_index": int(key)})
    assert "error" not in after, after["error"]
    assert await tab.evaluate("clicks") == ["field"]


# ----- 2. a target still moving ----------------------------------------------------------------------------

MOVING = CLICKS_SEEN + """
<style>
  @keyframes sway { from { transform: translateX(0) } to { transform: translateX(300px) } }
  @keyframes glow { from { background: #fff } to { background: #ff0 } }
  #slide { position: relative; left: 0; }
</style>
<div id=slide><button id=b data-t=mover onclick="rec(document.getAnimations().some(a => a.playState === 'running') ? 'moving' : 'still')"
  style="transition: transform 700ms linear">Moving button</button></div>
<p style="height:40px"></p>
"""
STARTS_MOVING = {
    "transition on it": "b.style.transform = 'translateX(300px)'",
    "animation of an ancestor": "slide.animate([{left: '0px'}, {left: '300px'}], {duration: 700, fill: 'forwards'})",
}


@pytest.mark.parametrize("how", list(STARTS_MOVING))
async def test_a_target_still_moving_is_clicked_once_it_stopped(surface: Looking, site: Any, how: str) -> None:
    # It was clicked mid-flight, at a point it had already left (or the guard saw the press land elsewhere).
    await opened(surface, site, MOVING)
    handle = await surface.look("Moving button")
    await surface.evaluate(STARTS_MOVING[how])
    assert await surface.click(handle) is None
    assert await surface.evaluate("clicks") == ["mover", "still"]


async def test_a_target_an_endless_animation_moves_is_refused(surface: Looking, site: Any) -> None:
    await opened(surface, site, MOVING)
    handle = await surface.look("Moving button")
    await surface.evaluate("slide.style.animation = 'sway 1s linear infinite alternate'")
    error = await surface.click(handle)
    assert error is not None and "still moving" in error, error
    assert await surface.evaluate("clicks") == []


async def test_an_endless_animation_of_colour_alone_does_not_stop_a_click(surface: Looking, site: Any) -> None:
    await opened(surface, site, MOVING)
    handle = await surface.look("Moving button")
    await surface.evaluate("slide.style.animation = 'glow 1s linear infinite alternate'")
    assert await surface.click(handle) is None
    assert await surface.evaluate("clicks") == ["mover", "moving"]  # the colour animates; the button stays


# ----- 4. a sticky header over the target; a modal backdrop over it ----------------------------------------

HEADER = CLICKS_SEEN + """
<header id=masthead data-t=header style="display:none; position:fixed; top:0; left:0; right:0; height:120px;
  background:#ddd; z-index:5">Site header</header>
<div style="height:1000px">content</div>
<button data-t=target style="height:60px">Under the header</button>
<div style="height:2000px">more</div>
<div id=backdrop data-t=backdrop style="display:none; position:fixed; inset:0; background:rgba(0,0,0,.4);
  z-index:9"></div>
<script>scrollTo(0, 1030)</script>
"""


async def test_a_target_under_a_sticky_header_is_scrolled_clear_of_it(surface: Looking, site: Any) -> None:
    # The button shows half at the top of the viewport; the header appears (as one does on scrolling up).
    # Scrolled into view by its top edge it stayed under the header and was refused as covered.
    await opened(surface, site, HEADER)
    handle = await surface.look("Under the header")
    await surface.evaluate("masthead.style.display = 'block'")
    assert await surface.click(handle) is None
    assert await surface.evaluate("clicks") == ["target"]


async def test_a_target_under_a_modal_backdrop_is_still_refused(surface: Looking, site: Any) -> None:
    await opened(surface, site, HEADER)
    handle = await surface.look("Under the header")
    await surface.evaluate("backdrop.style.display = 'block'")
    error = await surface.click(handle)
    assert error is not None and "covered" in error, error
    assert await surface.evaluate("clicks") == []


# ----- 5. a combobox input that takes no pointer events ----------------------------------------------------

COMBOBOX = CLICKS_SEEN + """
<div id=field data-t=field onmousedown="list.hidden = false"
  style="display:inline-block; border:1px solid #888; padding:6px; width:220px">
  <input role=combobox aria-label="Country" aria-expanded=false style="pointer-events:none; width:200px; border:0">
</div>
<ul id=list hidden><li>France</li></ul>
<div style="position:relative; margin-top:20px">
  <input aria-label="Covered city" style="pointer-events:none; width:200px">
  <div data-t=sheet style="position:absolute; inset:0; background:#eee"></div>
</div>
"""


async def test_a_combobox_input_without_pointer_events_is_clicked_through_its_field(
    surface: Looking, site: Any
) -> None:
    # A person's click opens it (the field wrapping it takes the press); it was refused as covered by that field.
    await opened(surface, site, COMBOBOX)
    handle = await surface.look("Country")
    assert await surface.click(handle) is None
    assert await surface.evaluate("[clicks, list.hidden]") == [["field"], False]


async def test_an_input_without_pointer_events_under_another_element_is_refused(context: Any, site: Any) -> None:
    tab = await context.new_tab()
    await tab.goto(site.add(f"/actionability/{next(_paths)}", COMBOBOX), wait_until="load")
    node = await _node(tab, "input[aria-label='Covered city']")
    with pytest.raises(input.NotClickableError) as refused:
        await input.click_element(tab, node)
    assert refused.value.reason == input.COVERED
    assert await tab.evaluate("clicks") == []


# ----- 3. a mouse's pressure while a button is down --------------------------------------------------------

PRESSURE = """<div id=pad style="width:400px; height:300px; background:#eee"></div>
<script>window.seen = [];
for (const t of ['pointerdown', 'pointermove', 'pointerup'])
  pad.addEventListener(t, e => seen.push([t, e.buttons, e.pressure]));</script>"""


async def test_pointer_events_carry_a_mouse_pressure_while_a_button_is_down(context: Any, site: Any) -> None:
    # Every pressed pointer event said pressure 0; the Pointer Events spec gives a mouse 0.5 while a button is down.
    tab = await context.new_tab()
    await tab.goto(site.add(f"/actionability/{next(_paths)}", PRESSURE), wait_until="load")
    await input.move(tab, 50, 50)
    await input.click_at(tab, 60, 60)
    await input.down(tab, x=70, y=70)
    await input.move(tab, 80, 80)
    await input.up(tab, x=90, y=90, moving=True)
    await input.drag(tab, 100, 100, 200, 150, steps=2)
    seen = await tab.evaluate("seen")
    assert seen, "no pointer event"
    for kind, buttons, pressure in seen:
        assert pressure == (0.5 if buttons else 0), (kind, buttons, pressure, seen)
    assert {k for k, b, _ in seen if b} >= {"pointerdown", "pointermove"}
    assert [k for k, _, _ in seen].count("pointerup") == 3


# ----- 6. typing ends with a person's key press ------------------------------------------------------------

TYPING = """<input id=f aria-label="Search"><textarea id=t aria-label="Notes"></textarea>
<ul id=list hidden><li>result</li></ul>
<script>window.keys = [];
for (const el of [f, t]) {
  el.addEventListener('keydown', e => { keys.push('down ' + e.key); list.hidden = false; });
  el.addEventListener('keyup', e => keys.push('up ' + e.key));
}</script>"""
TEXTS = ["hello", "x", "Hello, World!", "trailing space ", "naïve café", "日本語", "smile 😀", "a\"b'c\\d", "Tab\tin", ""]


async def test_input_text_opens_a_list_that_listens_for_keys(context: Any, site: Any) -> None:
    # The text arrived by Input.insertText alone: no keydown, no keyup, and a search list never opened.
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add(f"/actionability/{next(_paths)}", TYPING), wait_until="load")
    state = await tab.state()
    key = next(k for k, el in state["element_index"].items() if el["aria-label"] == "Search")
    after = await tab.act({"action": "input_text", "element_index": int(key), "text": "Paris"})
    assert "error" not in after, after["error"]
    assert await tab.evaluate("[f.value, keys, list.hidden]") == ["Paris", ["down s", "up s"], False]


@pytest.mark.parametrize("field", ["f", "t"])
async def test_typed_text_is_byte_for_byte_the_value(context: Any, site: Any, field: str) -> None:
    tab = await context.new_tab()
    await tab.goto(site.add(f"/actionability/{next(_paths)}", TYPING), wait_until="load")
    for text in TEXTS + (["two\nlines\n"] if field == "t" else []):
        await tab.evaluate(f"{field}.value = ''; {field}.focus()")
        await input.insert_text(tab, text)
        assert await tab.evaluate(f"{field}.value") == text, text
        if "\t" not in text:  # type_text presses Tab for a tab, which moves focus on
            await tab.evaluate(f"{field}.value = ''")
            await input.type_text(tab, text)
            assert await tab.evaluate(f"{field}.value") == text, text


async def _node(tab: Any, selector: str) -> Any:
    """The element a selector names, as a surface hands one to the core (session, backend node id)."""
    from test_input import Node

    doc = await tab.session.send("DOM.getDocument", {"depth": 0})
    found = await tab.session.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": selector})
    described = await tab.session.send("DOM.describeNode", {"nodeId": found["nodeId"]})
    return Node(tab.session, described["node"]["backendNodeId"])
