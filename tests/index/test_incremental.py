"""When the engine builds a state on the last one and when it captures in full (docs/incremental.md).

Each case changes a page one way and checks two things: how the state was served (`timings`: "incremental",
"cached" or a full capture) and that it equals a full capture of the page byte for byte. The random
differential test is tests/stress/test_differential_state.py.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from cdp_engine import ElementIndex
from cdp_engine.snapshot.capture import Capture

pytestmark = pytest.mark.asyncio

NEXT_FRAME = "new Promise(done => { requestAnimationFrame(() => done()); setTimeout(done, 100); })"
PAGE = """<!doctype html><html><head><style>
  a:hover { color: red; }
  input:focus { outline: 2px solid blue; }
  .grow:placeholder-shown { height: 60px; }
  li:hover > .more { display: inline; }
  .more { display: none; }
</style></head><body>
<h1>Incremental</h1>
<input id="plain" placeholder="Plain field"> <input id="grow" class="grow" placeholder="Grows while empty">
<textarea id="notes">Some notes</textarea>
<ul><li id="hot">Hover me <span class="more">more</span></li><li><a href="#x">A link</a></li></ul>
<div id="hidden" style="display: none"><p>Hidden</p><ul id="hidden-list"><li><button>h1</button></li></ul></div>
<button id="go">Go</button>
</body></html>"""


def served_as(capture: Capture) -> str:
    return next((k for k in ("incremental", "cached") if capture.timings.get(k)), "full")


def state_bytes(capture: Capture) -> bytes:
    keys = ("url", "page_content", "element_index", "state_hash")
    return orjson.dumps({k: capture.state[k] for k in keys}, option=orjson.OPT_SORT_KEYS)


async def check(tab: Any) -> str:
    """The served state equals a full capture; how it was served."""
    capturer = ElementIndex.of(tab).capturer
    served = await capturer.capture(screenshot=False)
    full = await capturer.capture_full()
    assert state_bytes(served) == state_bytes(full)
    assert [(i, e.backend_node_id) for i, e in sorted(served.elements.items())] == [
        (i, e.backend_node_id) for i, e in sorted(full.elements.items())
    ]
    return served_as(served)


async def opened(site: Any, tab: Any) -> Any:
    await tab.goto(site.add("/incremental.html", PAGE))
    capturer = ElementIndex.of(tab).capturer
    capturer.increment_worth_ms = 0.0  # a small page: build on the last state even where a full capture is as cheap
    await capturer.capture(screenshot=False)
    return tab


async def test_typing_into_a_focused_field_is_built_on_the_last_state(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('plain').focus()")
    assert await check(tab) == "incremental"  # focus: a paint-only :focus rule
    for text in ("a", "bc", " d"):
        await tab.session.send("Input.insertText", {"text": text})
        assert await check(tab) == "incremental"
    state = ElementIndex.of(tab).capturer.last
    assert state is not None and 'value="abc d"' in state.state["page_content"]


async def test_a_textarea_and_a_value_set_by_script_too(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("(() => { const t = document.getElementById('notes'); t.value = 'new notes';"
                       " t.dispatchEvent(new Event('input', {bubbles: true})); })()")
    assert await check(tab) == "incremental"


async def test_a_rule_that_moves_boxes_by_a_value_means_a_full_capture(site: Any, tab: Any) -> None:
    # .grow:placeholder-shown sets a height: typing into #grow changes its box and everything after it.
    await opened(site, tab)
    await tab.evaluate("document.getElementById('grow').focus()")
    await check(tab)
    await tab.session.send("Input.insertText", {"text": "x"})
    assert await check(tab) == "full"


async def test_changes_inside_a_hidden_subtree_leave_the_state_standing(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('hidden-list').insertAdjacentHTML('beforeend', '<li><button>h2</button></li>')")
    assert await check(tab) == "incremental"
    await tab.evaluate("document.querySelector('#hidden p').textContent = 'still hidden'")
    assert await check(tab) == "incremental"
    await tab.evaluate("document.getElementById('hidden').style.display = 'block'")  # shown: its own attribute
    assert await check(tab) == "full"


async def test_a_control_named_by_a_label_in_view_is_no_hidden_change(site: Any, tab: Any) -> None:
    # A <label for> is indexed when a control with that id exists, shown or not: a control added to (or renamed
    # in) a hidden subtree changes the state outside it.
    await opened(site, tab)
    await tab.evaluate("document.body.insertAdjacentHTML('afterbegin', '<label for=later>Later</label>')")
    assert await check(tab) == "full"
    await tab.evaluate("document.getElementById('hidden').insertAdjacentHTML('beforeend', '<input id=later>')")
    assert await check(tab) == "full"
    await tab.evaluate("document.getElementById('later').id = 'renamed'")
    assert await check(tab) == "full"


async def test_a_hover_that_reveals_content_means_a_full_capture(site: Any, tab: Any) -> None:
    await opened(site, tab)
    box = await tab.evaluate("(() => { const r = document.getElementById('hot').getBoundingClientRect(); return [r.x + 5, r.y + 5]; })()")
    await tab.session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    await tab.evaluate(NEXT_FRAME)
    assert await check(tab) == "full"  # li:hover > .more shows text
    link = await tab.evaluate("(() => { const r = document.querySelector('a').getBoundingClientRect(); return [r.x + 2, r.y + 2]; })()")
    await tab.session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": link[0], "y": link[1]})
    await tab.evaluate(NEXT_FRAME)
    # Leaving the list item hides .more again (a change the hover rule makes); the link's own rule is paint.
    assert await check(tab) == "full"
    await tab.session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": link[0] + 1, "y": link[1]})
    await tab.evaluate(NEXT_FRAME)
    assert await check(tab) in ("incremental", "cached")


async def test_a_visible_change_means_a_full_capture(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('go').textContent = 'Went'")
    assert await check(tab) == "full"


async def test_the_input_text_action_is_answered_with_an_incremental_state(site: Any, tab: Any) -> None:
    await tab.goto(site.add("/incremental-act.html", PAGE))
    index = ElementIndex.of(tab)
    index.capturer.increment_worth_ms = 0.0
    state = await index.state(screenshot=False)
    field = next(k for k, d in state["element_index"].items() if d["attributes"]["placeholder"] == "Plain field")
    after = await index.act({"action": "input_text", "element_index": int(field), "text": "hello"}, screenshot=False)
    assert "error" not in after
    assert tab.last_timings.get("incremental") == 1.0
    assert after["element_index"][field]["attributes"]["value"] == "hello"
    full = await index.capturer.capture_full()
    assert {k: after[k] for k in ("page_content", "element_index", "state_hash")} == {
        k: full.state[k] for k in ("page_content", "element_index", "state_hash")
    }


async def test_a_click_is_answered_with_a_full_capture(site: Any, tab: Any) -> None:
    # A click may scroll an element into view, whose scroll event comes a frame later: never built on.
    await tab.goto(site.add("/incremental-click.html", PAGE))
    index = ElementIndex.of(tab)
    state = await index.state(screenshot=False)
    go = next(k for k, d in state["element_index"].items() if d["text_content"] == "Go")
    await index.act({"action": "click", "element_index": int(go)}, screenshot=False)
    assert not tab.last_timings.get("incremental")


async def test_a_small_page_is_captured_again_in_full(site: Any, tab: Any) -> None:
    # A snapshot that cost little is cheaper to take again than the probe's round trips and a walk.
    await tab.goto(site.add("/incremental-small.html", PAGE))
    capturer = ElementIndex.of(tab).capturer
    first = await capturer.capture(screenshot=False)
    assert first.source is not None
    capturer.increment_worth_ms = first.source.snapshot_ms + 1_000.0  # this snapshot counts as cheap, whatever the load
    await tab.evaluate("document.getElementById('plain').focus()")
    await tab.session.send("Input.insertText", {"text": "a"})
    assert await check(tab) == "full"


async def test_a_hover_restyled_by_paint_alone_gets_a_new_screenshot(site: Any, tab: Any) -> None:
    # a:hover only changes a colour: the state stands, but the pixels do not, so the screenshot is taken again.
    page = ("<style>a { color: blue; font-size: 40px; } a:hover { color: red; }</style>"
            "<p>Text</p><a href='#x'>A large link</a><button>Go</button>")
    await tab.goto(site.add("/incremental-paint.html", page))
    capturer = ElementIndex.of(tab).capturer
    capturer.increment_worth_ms = 0.0
    before = dict((await capturer.capture(screenshot=True)).state)
    link = await tab.evaluate("(() => { const r = document.querySelector('a').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    await tab.session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": link[0], "y": link[1]})
    await tab.evaluate(NEXT_FRAME)
    hovered = await capturer.capture(screenshot=True)
    assert await tab.evaluate("document.querySelector('a').matches(':hover')")
    assert served_as(hovered) == "incremental"
    assert not hovered.timings.get("screenshot_reused")
    assert hovered.state["screenshot"] != before["screenshot"]  # the link is red now
    assert {k: hovered.state[k] for k in ("page_content", "element_index", "state_hash")} == {
        k: before[k] for k in ("page_content", "element_index", "state_hash")
    }


async def test_a_hidden_page_is_captured_in_full(site: Any, tab: Any, context: Any) -> None:
    """A page behind another tab draws no frames, so an element's scroll would go uncounted until it shows
    again: its state is never served from the cache or built on the last one."""
    await tab.goto(site.add("/hidden-scroll.html", '<div id="box" style="height:80px;overflow:auto">'
                            + "".join(f"<p>Line {i} <button>b{i}</button></p>" for i in range(30)) + "</div>"))
    capturer = ElementIndex.of(tab).capturer
    await capturer.capture(screenshot=False)
    other = await context.new_tab()
    await other.session.send("Page.bringToFront")
    await tab.evaluate("document.getElementById('box').scrollTop = 400")
    await tab.evaluate("new Promise(done => setTimeout(done, 50))")
    assert await check(tab) == "full"
