"""Structural changes beyond what the state shows leave it standing (docs/incremental.md, "A structural change
lies beyond what the state shows"); anything that reaches page_content, the viewport or the rules that look
backwards means a full capture.

Each case changes a long page and checks how the state was served and that it equals a full capture byte for
byte, with the same element behind each index. The random differential test (its truncated page) is
tests/stress/test_differential_state.py.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from cdp_engine import ElementIndex
from cdp_engine.core.worlds import Worlds
from cdp_engine.snapshot.capture import Capture

pytestmark = pytest.mark.asyncio

NEXT_FRAME = "new Promise(done => { requestAnimationFrame(() => done()); setTimeout(done, 100); })"
SHORT = (0, 1_000)  # page_content stops in the viewport (row 25 or so)
LONG = (0, 6_000)  # page_content stops well below it (row 100 or so)


def page(style: str = "") -> str:
    rows = "".join(
        f'<div class="row" id="r{i}" style="height: 20px">Row {i} of the long list <a href="#r{i}">link {i}</a></div>'
        for i in range(300)
    )
    return (
        "<!doctype html><html><head><style>body { margin: 0; font: 14px sans-serif; } .pad { padding: 4px; }"
        f" .gone {{ display: none; }} {style}</style></head><body>"
        '<header><input id="q" placeholder="Search"> <button id="go">Go</button></header>'
        f'<main id="list">{rows}</main><footer>The end</footer></body></html>'
    )


def state_bytes(capture: Capture) -> bytes:
    keys = ("url", "page_content", "element_index", "state_hash")
    return orjson.dumps({k: capture.state[k] for k in keys}, option=orjson.OPT_SORT_KEYS)


async def opened(site: Any, tab: Any, window: tuple[int, int], style: str = "", script: str = "") -> Any:
    """The long page with `style`, `script` run on it, and its first state (a full capture)."""
    await tab.goto(site.add(f"/structural-{abs(hash(style))}.html", page(style)))
    await tab.session.send(
        "Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 720, "deviceScaleFactor": 1, "mobile": False}
    )
    if script:
        await tab.evaluate(script)
    capturer = ElementIndex.of(tab).capturer
    capturer.increment_worth_ms = 0.0  # build on the last state whenever the probe allows, whatever it saves
    await capturer.capture(screenshot=False, content=window)
    return capturer


async def change(tab: Any, script: str) -> None:
    await tab.evaluate(script)
    await tab.evaluate(NEXT_FRAME)


async def served(capturer: Any, window: tuple[int, int]) -> tuple[str, Capture]:
    """How the state was served, after checking it equals a full capture."""
    got = await capturer.capture(screenshot=False, content=window)
    full = await capturer.capture_full(content=window)
    assert state_bytes(got) == state_bytes(full)
    assert [(i, e.backend_node_id, e.box) for i, e in sorted(got.elements.items())] == [
        (i, e.backend_node_id, e.box) for i, e in sorted(full.elements.items())
    ]
    return next((k for k in ("incremental", "cached") if got.timings.get(k)), "full"), got


async def test_a_class_toggled_far_below_leaves_the_state_standing(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab, SHORT)
    await change(tab, "document.getElementById('r200').classList.toggle('pad')")
    how, state = await served(capturer, SHORT)
    assert how == "incremental"
    assert state.tree is None  # the snapshot no longer mirrors the page: no node paths
    await change(tab, "document.getElementById('r150').classList.toggle('pad')")
    assert (await served(capturer, SHORT))[0] == "incremental"
    await change(tab, "document.getElementById('r200').classList.toggle('pad')")
    assert (await served(capturer, SHORT))[0] == "incremental"


async def test_rows_appended_and_text_changed_far_below_too(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab, SHORT)
    for i in range(3):
        await change(tab, f"document.getElementById('list').insertAdjacentHTML('beforeend', '<div class=row>New {i} <a href=#n>new</a></div>')")
        assert (await served(capturer, SHORT))[0] == "incremental"
    await change(tab, "document.getElementById('r250').firstChild.data = 'Row 250, edited '")
    assert (await served(capturer, SHORT))[0] == "incremental"


async def test_a_change_page_content_shows_means_a_full_capture(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab, LONG)
    await change(tab, "document.getElementById('r60').classList.toggle('pad')")  # below the viewport, in the text
    assert (await served(capturer, LONG))[0] == "full"
    await change(tab, "document.getElementById('r280').classList.toggle('pad')")
    assert (await served(capturer, LONG))[0] == "incremental"


async def test_a_change_in_the_viewport_means_a_full_capture(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab, SHORT)
    await change(tab, "document.getElementById('r32').classList.toggle('pad')")  # in view (row 32 of 36), past page_content's end
    assert (await served(capturer, SHORT))[0] == "full"
    await change(tab, "document.getElementById('r32').querySelector('a').textContent = 'renamed'")
    assert (await served(capturer, SHORT))[0] == "full"


@pytest.mark.parametrize(
    "html",
    [
        '<div style="position: fixed; top: 0; left: 0; width: 80px; height: 80px; background: #fff"></div>',
        '<div style="position: absolute; top: 30px; left: 200px"><button>Moved up</button></div>',
        '<div style="margin-top: -6000px"><a href="#x">pulled up</a></div>',
    ],
    ids=["fixed", "absolute", "negative-margin"],
)
async def test_a_box_brought_into_view_means_a_full_capture(site: Any, tab: Any, html: str) -> None:
    capturer = await opened(site, tab, SHORT)
    await change(tab, f"document.getElementById('r250').insertAdjacentHTML('afterend', {html!r})")
    assert (await served(capturer, SHORT))[0] == "full"


async def test_a_removal_means_a_full_capture(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab, SHORT)
    await change(tab, "document.getElementById('r250').remove()")
    assert (await served(capturer, SHORT))[0] == "full"


@pytest.mark.parametrize(
    "style",
    [
        # A row far below hides the first row's link, moving no box: only the rule check sees it.
        "main:has(.pad) > .row:first-child a { visibility: hidden; }",
        # Whatever a query asks, a block that grows may answer it otherwise: any container query rules it out.
        "main { container-type: inline-size; } @container (min-width: 10px) { .row a { margin-left: 1px; } }",
    ],
    ids=["has", "container-query"],
)
async def test_rules_that_reach_back_mean_a_full_capture(site: Any, tab: Any, style: str) -> None:
    capturer = await opened(site, tab, SHORT, style)
    await change(tab, "document.getElementById('r250').classList.toggle('pad')")
    assert (await served(capturer, SHORT))[0] == "full"


async def test_counters_reach_every_later_element(site: Any, tab: Any) -> None:
    # The fixed button after the list shows how many rows are shown: hiding one far below changes its text.
    style = ("body { counter-reset: row; } .row { counter-increment: row; } footer { position: fixed; bottom: 0; }"
             " #total::before { content: counter(row); }")
    capturer = await opened(site, tab, SHORT, style)
    await change(tab, "document.querySelector('footer').innerHTML = '<button id=total></button>'")
    assert (await served(capturer, SHORT))[0] == "full"
    await change(tab, "document.getElementById('r250').classList.toggle('gone')")
    how, state = await served(capturer, SHORT)
    assert how == "full"
    assert any(d["text_content"] == "299" for d in state.state["element_index"].values())


async def test_last_child_rules_look_back_one_row(site: Any, tab: Any) -> None:
    # The row before an appended one loses :last-child: it is the change's beginning, still far below.
    capturer = await opened(site, tab, SHORT, ".row:last-child { padding-bottom: 10px; } .row:last-of-type { margin: 2px; }")
    await change(tab, "document.getElementById('list').insertAdjacentHTML('beforeend', '<div class=row>New</div>')")
    assert (await served(capturer, SHORT))[0] == "incremental"


async def test_after_a_structural_change_typing_and_actions_take_the_long_way(site: Any, tab: Any) -> None:
    index = ElementIndex.of(tab)
    capturer = await opened(site, tab, SHORT)
    await change(tab, "document.getElementById('r200').classList.toggle('pad')")
    assert (await served(capturer, SHORT))[0] == "incremental"
    await tab.evaluate("document.getElementById('q').focus()")
    await tab.session.send("Input.insertText", {"text": "a"})
    assert (await served(capturer, SHORT))[0] == "full"  # nothing is patched into a stale snapshot
    await change(tab, "document.getElementById('list').insertAdjacentHTML('beforeend', '<div class=row>More</div>')")
    assert (await served(capturer, SHORT))[0] == "incremental"
    state = await index.state(screenshot=False, max_chars=SHORT[1])
    field = next(k for k, d in state["element_index"].items() if d["attributes"]["placeholder"] == "Search")
    after = await index.act({"action": "input_text", "element_index": int(field), "text": "hello"}, screenshot=False)
    assert "error" not in after
    assert await tab.evaluate("document.getElementById('q').value") == "ahello"  # appended to what was typed


@pytest.mark.parametrize(
    "script",
    [
        "document.getElementById('late').firstChild.data = 'a { visibility: hidden }'",
        "document.getElementById('late2').append('a { visibility: hidden }')",
    ],
    ids=["text-changed", "text-added"],
)
async def test_a_style_sheet_rewritten_far_below_means_a_full_capture(site: Any, tab: Any, script: str) -> None:
    """A sheet's text restyles the whole page (here every link in view hidden, no box moved), wherever it sits."""
    capturer = await opened(site, tab, SHORT)
    await change(tab, "document.body.insertAdjacentHTML('beforeend', '<style id=late>/* */</style><style id=late2></style>')")
    assert (await served(capturer, SHORT))[0] == "full"
    await change(tab, script)
    how, state = await served(capturer, SHORT)
    assert how == "full"
    assert not any(e.tag == "a" for e in state.elements.values())


# A link in row 250 whose box lies 2 px below the viewport (the band's edge) while the row lies far below it:
# the row holds two elements, so the probe may judge it by its own box (docs/incremental.md, "Subtrees judged
# by one box"). `place` positions the link; the change then brings it into view without moving the row.
LINK_IN_ROW_250 = """(() => {{
  const row = document.getElementById('r250');
  row.insertAdjacentHTML('beforeend', '<span class="lift"><a id="far" href="#far">far link</a></span>');
  const link = document.getElementById('far');
  document.getElementById('r280').classList.add('pad');
  {place}
  return link.getBoundingClientRect().top;
}})()"""


@pytest.mark.parametrize(
    "inline",
    [True, False],
    ids=["style-attribute", "style-rule"],
)
async def test_a_box_out_of_flow_in_a_subtree_far_below_is_read_not_judged_by_the_row(
    site: Any, tab: Any, inline: bool
) -> None:
    """The link is placed from the bottom of <main> (absolute): main shrinks by a row's padding far below, the
    link moves into view, its row does not move. A row holding a box out of flow is read box by box."""
    place = (
        "link.style.position = 'absolute';" if inline else "link.classList.add('pin');"
    ) + """
  const main = document.getElementById('list').getBoundingClientRect();
  link.style.bottom = (main.bottom - 722 - link.getBoundingClientRect().height) + 'px';"""
    style = "main { position: relative } .pin { position: absolute; left: 0 }"
    capturer = await opened(site, tab, SHORT, style, LINK_IN_ROW_250.format(place=place))
    await change(tab, "document.getElementById('r280').classList.toggle('pad')")
    how, state = await served(capturer, SHORT)
    assert how == "full"
    assert any(e.tag == "a" and "far link" in str(e.descriptor) for e in state.elements.values())


async def test_a_float_shortened_above_a_row_far_below_is_read_not_judged_by_the_row(site: Any, tab: Any) -> None:
    """A tall float from row 244 down to row 264 wraps row 250's text, and lifts its link (relative) to 2 px below the
    viewport; shortening the float unwraps the text: the link rises a line into view, the row does not move.
    Rows sharing a float's formatting context are read box by box."""
    place = """const tall = document.createElement('div');
  tall.className = 'tall';
  document.getElementById('r244').prepend(tall);  // inside a row above: row 250 is no sibling of the change
  link.parentElement.style.top = (722 - link.getBoundingClientRect().top) + 'px';"""
    style = ".tall { float: right; width: 85%; height: 400px } .tall.short { height: 10px } .lift { position: relative }"
    capturer = await opened(site, tab, SHORT, style, LINK_IN_ROW_250.format(place=place))
    await change(tab, "document.querySelector('.tall').classList.add('short')")
    how, state = await served(capturer, SHORT)
    assert how == "full"
    assert any(e.tag == "a" and "far link" in str(e.descriptor) for e in state.elements.values())


async def test_rows_far_below_are_judged_by_their_own_boxes(site: Any, tab: Any) -> None:
    """Without a box out of flow or a float, a row far below moves as a whole: a change below the viewport
    (in rows 150 to 199, grouped) that moves every row after the group leaves the state standing, and the rows
    around it are judged by their own boxes, those that moved included."""
    setup = """(() => {
      document.querySelectorAll('.row').forEach((row) => row.insertAdjacentHTML('beforeend', ' <b>b</b>'));
      const group = document.createElement('div');
      document.getElementById('r150').before(group);
      for (let i = 150; i < 200; i++) group.append(document.getElementById('r' + i));
    })()"""
    capturer = await opened(site, tab, SHORT, "", setup)  # each row holds two elements: worth judging whole
    for _ in range(3):
        await change(tab, "document.getElementById('r180').classList.toggle('pad')")
        assert (await served(capturer, SHORT))[0] == "incremental"
        assert await wholes(tab) > 200  # rows 31 to 149 and 200 to 299 (those moved by the padding)


async def wholes(tab: Any) -> int:
    """How many subtrees the probe's last structural judgement took whole (by one box)."""
    ctx = Worlds.of(tab).get(tab.main_frame_id, tab.frames[tab.main_frame_id].loader_id)
    answer = await tab.session.send(
        "Runtime.evaluate", {"expression": "globalThis.__cdpEngineProbe.wholes", "contextId": ctx, "returnByValue": True}
    )
    return int(answer["result"].get("value") or 0)


async def test_a_row_changed_by_an_earlier_change_is_read_not_judged_by_the_row(site: Any, tab: Any) -> None:
    """The state stands after each change far below, and the next judgement still knows every change since the
    snapshot: a link lifted (relative) to 5 px below the viewport by a first change, then moved into view by a
    second change elsewhere (rows 150 to 199 grouped, a row in the group shrinks), its row keeping its size."""
    setup = """(() => {
      const group = document.createElement('div');
      document.getElementById('r150').before(group);
      for (let i = 150; i < 200; i++) group.append(document.getElementById('r' + i));
      document.getElementById('r180').classList.add('pad');
      document.getElementById('r250').insertAdjacentHTML('beforeend', '<span class="lift"><a id="far" href="#far">far link</a></span>');
      const top = document.getElementById('far').getBoundingClientRect().top;
      const style = document.createElement('style');
      style.textContent = `.lift.up { position: relative; top: ${725 - top}px }`;
      document.head.append(style);
    })()"""
    capturer = await opened(site, tab, SHORT, "", setup)
    await change(tab, "document.querySelector('.lift').classList.add('up')")
    assert (await served(capturer, SHORT))[0] == "incremental"  # the link lies 5 px below the viewport
    await change(tab, "document.getElementById('r180').classList.remove('pad')")
    how, state = await served(capturer, SHORT)
    assert how == "full"
    assert any(e.tag == "a" and "far link" in str(e.descriptor) for e in state.elements.values())
