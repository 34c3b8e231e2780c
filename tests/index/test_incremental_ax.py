"""When the accessibility tree the surfaces read is served from the last one, built on it, or captured in full
(snapshot/ax_capturer.py, docs/incremental.md).

Each case changes a page one way and checks how the tree was served and that it equals a full capture node for
node. The random differential test is tests/stress/test_differential_ax.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from cdp_engine.core import input
from cdp_engine.core.settle import settle
from cdp_engine.snapshot.ax_capturer import AXTreeCapturer
from cdp_engine.snapshot.ax_tree import AXNode, tree_bytes

pytestmark = pytest.mark.asyncio

NEXT_FRAME = "new Promise(done => { requestAnimationFrame(() => done()); setTimeout(done, 100); })"
PAGE = """<!doctype html><html><head><title>Tree</title></head><body>
<h1>Incremental tree</h1>
<table><tr><td>Qty <input id="qty" value="9"></td><td><button id="go">Go</button></td></tr></table>
<input id="empty" placeholder="Empty field"> <textarea id="notes">Some notes</textarea>
<span id="lbl">Label</span> <input id="named" aria-labelledby="lbl src"> <span id="src"><input id="source"></span>
<div id="hidden" style="display: none"><span id="hidden-label">Hidden</span></div>
<input id="by-hidden" aria-labelledby="hidden-label">
<a href="#x">A link</a>
</body></html>"""


async def check(tab: Any) -> tuple[str, AXNode | None]:
    """The served tree equals a full capture; how it was served, and the tree."""
    capturer = AXTreeCapturer.of(tab)
    served = await capturer.tree()
    how = capturer.served
    assert tree_bytes(served) == tree_bytes(await capturer.capture_full())
    return how, served


async def opened(site: Any, tab: Any) -> AXTreeCapturer:
    await tab.goto(site.add("/tree.html", PAGE))
    capturer = AXTreeCapturer.of(tab)
    await capturer.tree()
    assert capturer.served == "full"
    return capturer


def named(root: AXNode | None, backend: int) -> AXNode:
    assert root is not None
    return next(node for node, _ in root.walk() if node.backend_node_id == backend)


async def backend_of(tab: Any, selector: str) -> int:
    document = await tab.session.send("DOM.getDocument", {"depth": 0})
    found = await tab.session.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": selector})
    described = await tab.session.send("DOM.describeNode", {"nodeId": found["nodeId"]})
    return int(described["node"]["backendNodeId"])


async def test_an_unchanged_page_serves_the_same_tree(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab)
    first = capturer.last.capture.root if capturer.last else None
    how, served = await check(tab)
    assert how == "cached" and served is first


async def test_typing_into_a_field_in_a_cell_renames_the_cell(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('qty').focus()")
    await check(tab)
    await tab.evaluate("document.getElementById('qty').select()")
    await tab.session.send("Input.insertText", {"text": "42"})
    how, root = await check(tab)
    assert how == "incremental"
    cell = await backend_of(tab, "td")
    assert named(root, cell).name == "Qty 42"
    assert named(root, await backend_of(tab, "#qty")).value == "42"


async def test_the_first_character_in_an_empty_field_grows_its_subtree(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('empty').focus()")
    await check(tab)
    for text in ("a", "b"):
        await tab.session.send("Input.insertText", {"text": text})
        how, root = await check(tab)
        assert how == "incremental"
    field = named(root, await backend_of(tab, "#empty"))
    assert [node.name for node, _ in field.walk() if node.role == "StaticText"] == ["ab"]


async def test_focus_moving_reads_both_elements_again(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('go').focus()")
    how, root = await check(tab)
    assert how == "incremental"
    assert named(root, await backend_of(tab, "#go")).properties.get("focused") is True
    await tab.evaluate("document.querySelector('a').focus()")
    how, root = await check(tab)
    assert how == "incremental"
    assert not named(root, await backend_of(tab, "#go")).properties.get("focused")


async def test_a_value_another_name_holds_is_captured_in_full(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('source').focus()")
    await check(tab)
    await tab.session.send("Input.insertText", {"text": "typed"})
    how, root = await check(tab)
    assert how == "full"
    assert named(root, await backend_of(tab, "#named")).name == "Label typed"


async def test_a_change_inside_hidden_content_is_captured_in_full(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await tab.evaluate("document.getElementById('hidden-label').textContent = 'Renamed'")
    how, root = await check(tab)
    assert how == "full"
    assert named(root, await backend_of(tab, "#by-hidden")).name == "Renamed"


async def test_an_engine_input_that_may_scroll_is_followed_by_a_full_capture(site: Any, tab: Any) -> None:
    await opened(site, tab)
    await settle(tab, input.click_at(tab, 5, 5))
    how, _ = await check(tab)
    assert how == "full"
    await tab.evaluate("document.getElementById('empty').focus()")
    await check(tab)
    await settle(tab, input.insert_text(tab, "typed"), scrolls=False)  # text into the focused field
    how, _ = await check(tab)
    assert how == "incremental"


async def test_a_hidden_page_is_never_served_from_the_last_tree(site: Any, tab: Any, context: Any) -> None:
    await opened(site, tab)
    other = await context.new_tab()
    await other.session.send("Page.bringToFront")
    for _ in range(2):
        how, _ = await check(tab)
        assert how == "full"
    await tab.session.send("Page.bringToFront")
    await check(tab)
    how, _ = await check(tab)
    assert how == "cached"


async def test_the_extended_set_is_always_captured_in_full(site: Any, tab: Any) -> None:
    capturer = await opened(site, tab)
    for _ in range(2):
        await capturer.tree("extended")
        assert capturer.served == "full"


async def test_the_state_and_the_tree_each_keep_what_they_build_on(site: Any, tab: Any) -> None:
    """Both views share the page's change probe: the state building on its newer capture must not make the
    probe forget a field typed after the tree's capture (ChangeProbes.hold)."""
    from cdp_engine import ElementIndex

    await tab.goto(site.add("/tree.html", PAGE))
    await tab.evaluate("document.getElementById('qty').select()")
    await check(tab)
    state = ElementIndex.of(tab).capturer
    state.increment_worth_ms = 0.0
    await state.capture(screenshot=False)
    await tab.session.send("Input.insertText", {"text": "42"})
    await state.capture(screenshot=False)  # builds on the typing
    await tab.session.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 300, "y": 300})
    await state.capture(screenshot=False)  # asks since the typing: the field's entry is older than that
    how, root = await check(tab)
    assert how == "incremental"
    assert named(root, await backend_of(tab, "#qty")).value == "42"
