"""The index's direct script actions (index/one_call.py): input_text and select_option in one call while the
page is provably the state's, the long way (arming, identity check, resolution, then the script) otherwise.
Each case checks both what was sent and that the action hit the element the index named."""

from __future__ import annotations

import asyncio
import itertools
import os
from typing import Any

from aiohttp import web
from conftest import sent_commands

import cdp_engine
from cdp_engine.core.worlds import Worlds
from cdp_engine.snapshot.node_path import DocTree, node_path

_n = itertools.count(1)

FORM = """<!doctype html><html><head><title>Form</title></head><body>
<div id=wrap><input id=name placeholder="Name"><textarea id=bio placeholder="Bio">old</textarea></div>
<select id=colour><option>red</option><option>green</option><option>blue</option></select>
<p id=out>-</p>
<script>
  const out = document.getElementById('out');
  document.getElementById('colour').addEventListener('change', e => { out.textContent = 'chose ' + e.target.value; });
  document.getElementById('name').addEventListener('input', e => { out.textContent = 'typed ' + e.target.value; });
</script></body></html>"""


def url(site: Any, html: str = FORM) -> str:
    return site.add(f"/direct-{os.getpid()}-{next(_n)}", html)


def index_of(state: dict[str, Any], **wanted: Any) -> int:
    for key, d in state["element_index"].items():
        attrs = d["attributes"]
        if all(d.get(k) == v or attrs.get(k) == v for k, v in wanted.items()):
            return int(key)
    raise AssertionError(f"no element {wanted}")


def methods(log: list[tuple[str, set[str]]]) -> list[str]:
    # The request tracker's Network.enable goes out with a tab's first action, before anything else.
    return [m for m, _ in log if m != "Network.enable"]


async def act(tab: cdp_engine.Tab, action: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    with sent_commands(tab.session) as log:
        state = await tab.act(action, screenshot=False)
    return state, methods(log)


def test_node_paths_skip_shadow_trees_and_pseudo_elements() -> None:
    # document(0) > html(1) > body(2) > [a(3) > text(4)], [::before(5)], [host(6) > shadow child(7)], b(8)
    tree = DocTree(parent=[-1, 0, 1, 2, 3, 2, 2, 6, 2], end=[9, 9, 9, 5, 5, 6, 8, 8, 9], pseudo={5}, in_shadow={7})
    assert node_path(tree, 3) == [(0, 1), (0, 1), (0, 3)]
    assert node_path(tree, 8) == [(0, 1), (0, 1), (2, 3)]  # the pseudo-element is no DOM child
    assert node_path(tree, 7) is None and node_path(tree, 5) is None
    assert node_path(tree, 0) is None and node_path(tree, 99) is None


async def test_an_unchanged_page_takes_one_call_for_select_and_type(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site))
    state = await tab.state(screenshot=False)
    colour, green = index_of(state, tag="select"), index_of(state, tag="option", text_content="green")
    state, sent = await act(tab, {"action": "select_option", "element_index": colour, "option_index": green})
    assert "error" not in state and "chose green" in state["page_content"]
    assert sent[0] == "Runtime.callFunctionOn" and "DOM.resolveNode" not in sent, sent
    assert await tab.evaluate("document.getElementById('colour').value") == "green"

    name = index_of(state, placeholder="Name")
    state, sent = await act(tab, {"action": "input_text", "element_index": name, "text": "Ada"})
    assert "error" not in state and "typed Ada" in state["page_content"]
    assert sent[:2] == ["Runtime.callFunctionOn", "Input.insertText"] and "DOM.resolveNode" not in sent, sent
    bio = index_of(state, placeholder="Bio")
    state, sent = await act(tab, {"action": "input_text", "element_index": bio, "text": " more", "overwrite": False})
    assert await tab.evaluate("document.getElementById('bio').value") == "old more"
    assert "DOM.resolveNode" not in sent


async def test_a_page_that_changed_since_the_state_takes_the_long_way_to_the_right_element(
    tab: cdp_engine.Tab, site: Any
) -> None:
    # A field inserted before the named one shifts every child position the state's snapshot had: the path
    # would lead to the new field. The direct call sees the change counter moved and does nothing; the long
    # way checks the element's identity and types into the one the index named.
    await tab.goto(url(site))
    state = await tab.state(screenshot=False)
    name = index_of(state, placeholder="Name")
    await tab.evaluate("document.getElementById('wrap').prepend(Object.assign(document.createElement('input'), {id: 'intruder'}))")
    state, sent = await act(tab, {"action": "input_text", "element_index": name, "text": "Ada"})
    assert "error" not in state, state["error"]
    assert "DOM.resolveNode" in sent
    assert await tab.evaluate("[document.getElementById('name').value, document.getElementById('intruder').value]") == [
        "Ada",
        "",
    ]
    # Two fields of one tag swapped: every count and tag on the path still holds, only the change counter
    # tells the path now leads to the other field.
    await tab.goto(url(site, "<div><input id=a placeholder=A><input id=b placeholder=B></div><p>-</p>"))
    state = await tab.state(screenshot=False)
    first = index_of(state, placeholder="A")
    await tab.evaluate("const b = document.getElementById('b'); b.parentNode.insertBefore(b, document.getElementById('a'))")
    state, sent = await act(tab, {"action": "input_text", "element_index": first, "text": "for A"})
    assert "error" not in state and "DOM.resolveNode" in sent
    assert await tab.evaluate("[document.getElementById('a').value, document.getElementById('b').value]") == ["for A", ""]

    await tab.goto(url(site))
    state = await tab.state(screenshot=False)
    # Scrolled since the state (the key holds the scroll offsets): the long way too, still the right option.
    await tab.evaluate("document.body.style.height = '3000px'; scrollTo(0, 40)")
    colour, blue = index_of(state, tag="select"), index_of(state, tag="option", text_content="blue")
    state, sent = await act(tab, {"action": "select_option", "element_index": colour, "option_index": blue})
    assert "error" not in state and "chose blue" in state["page_content"]


async def test_a_read_only_field_is_refused_before_anything_is_armed(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site, FORM.replace('<input id=name placeholder="Name">', '<input id=name placeholder="Name" readonly>')))
    state = await tab.state(screenshot=False)
    refused, sent = await act(tab, {"action": "input_text", "element_index": index_of(state, placeholder="Name"), "text": "x"})
    assert refused["error"]["code"] == "ELEMENT_NOT_INTERACTIVE" and "read-only" in refused["error"]["message"]
    assert "Input.insertText" not in sent and "DOM.resolveNode" not in sent
    ctx = await Worlds.of(tab).context(tab.main_frame_id)
    probe = {"expression": "globalThis.__cdpEngineSettle.ours", "contextId": ctx, "returnByValue": True}
    assert (await tab.session.send("Runtime.evaluate", probe))["result"]["value"] is False


async def test_where_the_direct_call_cannot_go_the_long_way_acts(tab: cdp_engine.Tab, site: Any) -> None:
    # A field in an open shadow root (the snapshot hangs shadow trees in the flat tree: no path), and a world
    # whose direct function is gone: both act the long way, on the right element.
    shadow = """<!doctype html><div id=host></div><p id=out>-</p><script>
      const root = document.getElementById('host').attachShadow({mode: 'open'});
      root.innerHTML = '<input placeholder="Inside">';
      root.querySelector('input').addEventListener('input', e => { out.textContent = 'typed ' + e.target.value; });
    </script>"""
    await tab.goto(url(site, shadow))
    state = await tab.state(screenshot=False)
    state, sent = await act(tab, {"action": "input_text", "element_index": index_of(state, placeholder="Inside"), "text": "deep"})
    assert "typed deep" in state["page_content"] and "DOM.resolveNode" in sent

    await tab.goto(url(site))
    state = await tab.state(screenshot=False)
    ctx = await Worlds.of(tab).context(tab.main_frame_id)
    gone = {"expression": "delete globalThis.__cdpEngineDirect", "contextId": ctx, "returnByValue": True}
    assert (await tab.session.send("Runtime.evaluate", gone))["result"]["value"] is True
    colour, red = index_of(state, tag="select"), index_of(state, tag="option", text_content="red")
    await tab.evaluate("document.getElementById('colour').value = 'blue'")  # no mutation: the key holds
    state, sent = await act(tab, {"action": "select_option", "element_index": colour, "option_index": red})
    assert "chose red" in state["page_content"] and "DOM.resolveNode" in sent


async def test_a_direct_select_still_waits_for_the_requests_its_handler_started(tab: cdp_engine.Tab, site: Any) -> None:
    # The call that chooses runs inside the settle, after the request tracker's mark: a fetch the change
    # handler starts is the action's, so the next state shows what it brought.
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(0.1)
        return web.Response(text="ARRIVED " + request.query.get("c", ""))

    data = site.add_handler(f"/direct-data-{os.getpid()}-{next(_n)}", slow)
    page = FORM.replace(
        "out.textContent = 'chose ' + e.target.value;",
        f"fetch('{data}?c=' + e.target.value).then(r => r.text()).then(t => {{ out.textContent = t; }});",
    )
    await tab.goto(url(site, page))
    state = await tab.state(screenshot=False)
    colour, blue = index_of(state, tag="select"), index_of(state, tag="option", text_content="blue")
    state, sent = await act(tab, {"action": "select_option", "element_index": colour, "option_index": blue})
    assert "ARRIVED blue" in state["page_content"] and "DOM.resolveNode" not in sent
