"""The one identity check (core.identity) on both of its surfaces: element indexes and refs.

Each case runs on a real page: an unrelated DOM change keeps the element; a changed element, a
removed one, a navigated frame and a closed out-of-process frame are refused with each surface's
own exact words, and nothing is acted on.
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import cdp_engine
from cdp_engine.cdp.connection import CDPSession
from cdp_engine.core.identity import AX_LOOK, DOM_LOOK, NodeHandle, verify
from cdp_engine.core.refs import RefRegistry, StaleRefError
from cdp_engine.core.worlds import Worlds

_paths = itertools.count(1)

PAGE = """<!doctype html><html><head><title>t</title></head><body>
<div id="box"><button id="b" onclick="clicks++">Pay now</button></div><p id="other">other</p>
<iframe id="same" src="/idn/frame-a" style="width:300px;height:80px"></iframe>
<script>window.clicks = 0</script></body></html>"""
FRAME = "<!doctype html><button onclick=\"parent.frameClicks = (parent.frameClicks || 0) + 1\">{}</button>"


async def open_page(tab: cdp_engine.Tab, site: Any, *, oopif: bool = False) -> str:
    n = next(_paths)
    site.add("/idn/frame-a", FRAME.format("Frame button"))
    site.add("/idn/frame-b", FRAME.format("Other frame button"))
    html = PAGE
    if oopif:
        site.pages[f"/idn/{n}/cross"] = FRAME.format("Cross button")
        html = html.replace('src="/idn/frame-a"', f'src="{site.other_url}/idn/{n}/cross"')
    await tab.goto(site.add(f"/idn/{n}/page", html))
    if oopif:
        await tab.wait_for_condition(lambda: bool(tab.frame_sessions), 10)
    await tab.wait_for_condition(lambda: len(tab.frames) == 2 and all(f.loader_id for f in tab.frames.values()), 10)
    return n


def child_frame(tab: cdp_engine.Tab) -> str:
    (fid,) = [f for f in tab.frames if f != tab.main_frame_id]
    return fid


async def node_of(tab: cdp_engine.Tab, selector: str, frame_id: str | None = None) -> tuple[CDPSession, str, int]:
    """(session, frame id, backendNodeId) of the first match in a frame's document."""
    frame_id = frame_id or tab.main_frame_id
    frame = tab.frames[frame_id]
    session = frame.session
    if frame_id == tab.main_frame_id or session is not tab.session:
        expression = f"document.querySelector({selector!r})"
    else:  # a same-process iframe: reach it from the parent document
        expression = f"document.getElementById('same').contentDocument.querySelector({selector!r})"
    result = await session.send("Runtime.evaluate", {"expression": expression})
    described = await session.send("DOM.describeNode", {"objectId": result["result"]["objectId"]})
    return session, frame_id, described["node"]["backendNodeId"]


async def make_ref(tab: cdp_engine.Tab, refs: RefRegistry, selector: str, frame_id: str | None = None) -> str:
    session, fid, backend = await node_of(tab, selector, frame_id)
    ref = refs.assign(session, fid, backend, "", "")
    node = refs.get(ref)
    assert node is not None
    seen = await AX_LOOK.read(node)
    assert seen is not None
    refs.clear()
    return refs.assign(session, fid, backend, *seen)


async def remove_frame(tab: cdp_engine.Tab) -> None:
    await tab.evaluate("document.getElementById('same').remove()")
    await tab.wait_for_condition(lambda: len(tab.frames) == 1 and not tab.frame_sessions, 10)


async def navigate_frame(tab: cdp_engine.Tab) -> None:
    fid = child_frame(tab)
    old = tab.frames[fid].loader_id
    await tab.evaluate("document.getElementById('same').src = '/idn/frame-b'")
    await tab.wait_for_condition(lambda: fid in tab.frames and tab.frames[fid].loader_id not in ("", old), 10)


# ----- the refs surface --------------------------------------------------------------------------


async def test_ref_survives_unrelated_change(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site)
    refs = RefRegistry(tab)
    ref = await make_ref(tab, refs, "#b")
    await tab.evaluate("document.getElementById('other').textContent = 'changed'; document.body.append('more')")
    node = await refs.resolve(ref)
    assert (node.role, node.name) == ("button", "Pay now")


MutateRef = Callable[[cdp_engine.Tab], Awaitable[None]]


@pytest.mark.parametrize(
    ("mutate", "selector", "in_frame", "oopif", "reason", "kind"),
    [
        (
            lambda tab: tab.evaluate("document.getElementById('b').textContent = 'Refund'"),
            "#b", False, False, "the element changed (was button 'Pay now', now button 'Refund')", "changed",
        ),
        (
            lambda tab: tab.evaluate("document.getElementById('b').remove()"),
            "#b", False, False, "the element was removed from the page", "removed",
        ),
        (navigate_frame, "button", True, False, "the page navigated since the ref was handed out", "navigated"),
        (remove_frame, "button", True, True, "its frame is gone", "frame_closed"),
    ],
    ids=["changed", "removed", "frame-navigated", "oopif-closed"],
)  # fmt: skip
async def test_stale_ref_says_why(
    tab: cdp_engine.Tab, site: Any, mutate: MutateRef, selector: str, in_frame: bool, oopif: bool, reason: str, kind: str
) -> None:
    await open_page(tab, site, oopif=oopif)
    refs = RefRegistry(tab, prefix="e")
    ref = await make_ref(tab, refs, selector, child_frame(tab) if in_frame else None)
    await mutate(tab)
    with pytest.raises(StaleRefError) as caught:
        await refs.resolve(ref)
    assert caught.value.reason == reason and caught.value.ref == ref
    assert caught.value.verdict is not None and caught.value.verdict.reason == kind


# ----- the element index surface -----------------------------------------------------------------


def index_of(st: dict[str, Any], text: str) -> int:
    (hit,) = [int(k) for k, d in st["element_index"].items() if d["text_content"] == text]
    return hit


async def test_index_survives_unrelated_change(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site)
    st = await tab.state(screenshot=False)
    await tab.evaluate("document.getElementById('other').textContent = 'changed'")
    done = await tab.act({"action": "click_element", "element_index": index_of(st, "Pay now")}, screenshot=False)
    assert "error" not in done and await tab.evaluate("clicks") == 1


@pytest.mark.parametrize(
    ("mutate", "text", "oopif", "message"),
    [
        (
            lambda tab: tab.evaluate("document.getElementById('b').textContent = 'Refund'"),
            "Pay now", False,
            "Element {i} changed since the state was captured (was 'Pay now', now 'Refund'). Request a new state.",
        ),
        (
            lambda tab: tab.evaluate("document.getElementById('b').remove()"),
            "Pay now", False, "Element {i} was removed from the page since the state was captured.",
        ),
        (
            navigate_frame, "Frame button", False,
            "Element {i} is gone: its document navigated since the state was captured. Request a new state.",
        ),
        (remove_frame, "Cross button", True, "Element {i} is gone: its frame was closed. Request a new state."),
    ],
    ids=["changed", "removed", "frame-navigated", "oopif-closed"],
)  # fmt: skip
async def test_stale_index_says_why(
    tab: cdp_engine.Tab, site: Any, mutate: MutateRef, text: str, oopif: bool, message: str
) -> None:
    await open_page(tab, site, oopif=oopif)
    st = await tab.state(screenshot=False)
    index = index_of(st, text)
    await mutate(tab)
    action = {"action": "click_element", "element_index": index}
    failed = await tab.act(action, screenshot=False)
    assert failed["error"] == {"code": "INVALID_ELEMENT_INDEX", "message": message.format(i=index), "failed_action": action}
    assert await tab.evaluate("[clicks, window.frameClicks || 0]") == [0, 0]


# ----- the core check itself ---------------------------------------------------------------------


class CountingLook:
    def __init__(self) -> None:
        self.reads = 0

    async def read(self, node: NodeHandle) -> tuple[Any, ...] | None:
        self.reads += 1
        return await DOM_LOOK.read(node)


async def test_fast_path_costs_no_look(tab: cdp_engine.Tab, site: Any) -> None:
    """While the caller vouches nothing changed, the node is taken as is: no look at the page."""
    await open_page(tab, site)
    refs = RefRegistry(tab)
    ref = refs.assign(*(await node_of(tab, "#b")), "button", "Pay now")
    node = refs.get(ref)
    assert node is not None
    seen = await DOM_LOOK.read(node)
    assert seen == ("button", None, None, "submit", "Pay now")
    look = CountingLook()

    async def unchanged() -> bool:
        return True

    assert (await verify(tab, node, seen, look, unchanged=unchanged)).same and look.reads == 0

    async def changed() -> bool:
        return False

    await tab.evaluate("document.getElementById('b').setAttribute('aria-label', 'Refund')")
    verdict = await verify(tab, node, seen, look, unchanged=changed)
    assert look.reads == 1 and verdict.reason == "changed"
    assert verdict.was == seen and verdict.now == ("button", "Refund", None, "submit", "Pay now")


async def test_one_isolated_world_per_document(tab: cdp_engine.Tab, site: Any) -> None:
    """Worlds: one per frame document, reused, recreated for a new document and after it was lost."""
    await open_page(tab, site)
    worlds = Worlds.of(tab)
    main = tab.main_frame_id
    ctx = await worlds.context(main)
    assert await worlds.context(main) == ctx and worlds.get(main) == ctx
    frame_ctx = await worlds.context(child_frame(tab))
    assert frame_ctx != ctx
    await tab.goto(site.add(f"/idn/{next(_paths)}/next", "<p>next</p>"))
    assert worlds.get(main) != ctx
    fresh = await worlds.context(main)
    assert fresh != ctx
    result = await tab.session.send(
        "Runtime.evaluate", {"expression": "document.body.textContent", "contextId": fresh, "returnByValue": True}
    )
    assert result["result"]["value"] == "next"
    worlds.forget(main)  # as when a call finds it gone: the next use asks Chromium again
    assert worlds.get(main) is None
    assert await worlds.context(main) == fresh, "Chromium keeps one world of a name per document"


async def test_an_init_script_added_later_reaches_the_worlds_that_exist(tab: cdp_engine.Tab, site: Any) -> None:
    # A surface that registers its script after a document's world was made (at its commit, for another
    # surface) must find it there at once, as the capture's change probe does on a tab's first state.
    await open_page(tab, site)
    worlds = Worlds.of(tab)
    main = tab.main_frame_id
    ctx = await worlds.context(main)
    worlds.add_init_script("globalThis.__laterMark = (globalThis.__laterMark || 0) + 1")
    result = await tab.session.send(
        "Runtime.evaluate", {"expression": "globalThis.__laterMark", "contextId": ctx, "returnByValue": True}
    )
    assert result["result"]["value"] == 1
    child = child_frame(tab)
    frame_ctx = await worlds.context(child)
    result = await tab.frames[child].session.send(
        "Runtime.evaluate", {"expression": "globalThis.__laterMark", "contextId": frame_ctx, "returnByValue": True}
    )
    assert result["result"]["value"] == 1, "a world made after the script was added runs it once"
