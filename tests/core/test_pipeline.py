"""The one action pipeline (core/pipeline.py) on a real page: an action and the expectations armed before it,
a refusal that changes nothing, and which end of a drag a refusal names."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import web

import cdp_engine
from cdp_engine.cdp.connection import CDPSession
from cdp_engine.core import input
from cdp_engine.core.expectations import Condition
from cdp_engine.core.pipeline import Click, ClickAt, Drag, Settling, act
from cdp_engine.core.settle import TOOL_CALL

_counter = iter(range(1, 1_000_000))

PAGE = """<!doctype html><title>Pipeline</title>
<button id=fetch onclick="fetch('%(api)s', {method: 'POST'}).then(r => r.text()).then(t => {
  const p = document.createElement('p'); p.textContent = 'Answer: ' + t; document.body.append(p); })">Fetch</button>
<div style="position: relative; width: 120px; height: 40px">
  <button id=covered onclick="window.clicks = (window.clicks || 0) + 1" style="width: 120px; height: 40px">Under</button>
  <div id=cover style="position: absolute; inset: 0; background: #fff"></div>
</div>
<div id=source draggable=true style="width: 80px; height: 30px; background: #ccc">Drag me</div>
<div id=hidden style="display: none">Drop</div>
<div id=spot style="width: 200px; height: 50px"
  onclick="window.seen = {shift: event.shiftKey, x: event.clientX, y: event.clientY}">Spot</div>"""


@dataclass(frozen=True)
class Node:
    """A target: the session of the element's document and its backend node id."""

    session: CDPSession
    backend_node_id: int


async def _node(tab: cdp_engine.Tab, selector: str) -> Node:
    document = await tab.session.send("DOM.getDocument", {"depth": 0})
    found = await tab.session.send(
        "DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": selector}
    )
    described = await tab.session.send("DOM.describeNode", {"nodeId": found["nodeId"]})
    return Node(tab.session, described["node"]["backendNodeId"])


async def _page(tab: cdp_engine.Tab, site: Any) -> str:
    async def api(request: web.Request) -> web.Response:
        await asyncio.sleep(0.2)  # the answer comes after the click's own settle may have ended
        return web.Response(status=201, text="pong")

    n = next(_counter)
    api_url = site.add_handler(f"/pipeline-api-{os.getpid()}-{n}", api)
    await tab.goto(site.add(f"/pipeline-{os.getpid()}-{n}", PAGE % {"api": api_url}), wait_until="load")
    return api_url


async def test_a_click_and_what_it_should_cause_are_one_call(tab: cdp_engine.Tab, site: Any) -> None:
    api_url = await _page(tab, site)
    outcome = await act(
        tab, Click(await _node(tab, "#fetch")), Settling(TOOL_CALL),
        expect=[Condition("response", url=api_url, status=201), Condition("text", text="Answer: pong")],
        timeout=10.0,
    )  # fmt: skip
    assert outcome.value is not None  # the point the click was aimed at
    assert outcome.expected["response"]["status"] == 201 and outcome.expected["response"]["method"] == "POST"
    assert outcome.expected["text"] == {"state": "visible", "text": "Answer: pong"}


async def test_a_covered_target_is_refused_before_anything_is_sent(tab: cdp_engine.Tab, site: Any) -> None:
    await _page(tab, site)
    with pytest.raises(input.NotClickableError) as info:
        await act(tab, Click(await _node(tab, "#covered")), Settling(TOOL_CALL), expect=[Condition("popup")])
    assert info.value.reason == input.COVERED and "cover" in (info.value.by or "")
    assert await tab.evaluate("window.clicks === undefined")  # nothing reached the page


async def test_a_drag_refused_at_its_drop_end_names_that_end(tab: cdp_engine.Tab, site: Any) -> None:
    await _page(tab, site)
    source, hidden = await _node(tab, "#source"), await _node(tab, "#hidden")
    with pytest.raises(input.NotClickableError) as info:
        await act(tab, Drag(source, hidden), Settling(TOOL_CALL))
    assert info.value.target is hidden and info.value.reason == input.NOT_VISIBLE


async def test_a_click_at_a_point_holds_its_keys(tab: cdp_engine.Tab, site: Any) -> None:
    await _page(tab, site)
    box = await tab.evaluate("(() => { const r = spot.getBoundingClientRect(); return [r.x + 10, r.y + 10]; })()")
    await act(tab, ClickAt(box[0], box[1], keys="Shift"), Settling(TOOL_CALL))
    seen = await tab.evaluate("window.seen")
    assert seen["shift"] is True and abs(seen["x"] - box[0]) <= 1 and abs(seen["y"] - box[1]) <= 1
