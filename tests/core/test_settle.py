"""After an action the engine waits for what the action started: a navigation, DOM changes, requests."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from cdp_engine.util import schema


async def test_click_waits_for_the_request_it_started(tab, site):
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(0.3)
        return web.Response(text="DATA-ARRIVED")

    site.add_handler("/settle/slow", slow)
    url = site.add(
        "/settle/fetch",
        """<button onclick="fetch('/settle/slow').then(r => r.text())
             .then(t => { document.getElementById('o').textContent = t })">load</button><p id=o>none</p>""",
    )
    await tab.goto(url)
    state = await tab.state(screenshot=False)
    state = await tab.act({"action": "click_element", "element_index": 1}, screenshot=False)
    assert "error" not in state
    assert "DATA-ARRIVED" in state["page_content"]
    assert schema.validate("state", state) == []


# A click whose handler renders after a zero-delay timer.
DEFERRED_RENDER = """<button onclick="setTimeout(() => { document.getElementById('o').textContent = 'LATE' }, 0)">go</button>
<p id=o>early</p>"""


async def test_click_waits_for_a_render_its_handler_deferred(tab, site):
    # The settle's rule covers zero-delay timers (one task turn); longer ones: test_settle_cases.py.
    url = site.add("/settle/delayed", DEFERRED_RENDER)
    await tab.goto(url)
    await tab.state(screenshot=False)
    state = await tab.act({"action": "click_element", "element_index": 1}, screenshot=False)
    assert "LATE" in state["page_content"]


async def test_link_click_waits_for_the_new_page(tab, site):
    target = site.add("/settle/target", "<h1>Arrived</h1><a href='/'>home</a>")
    url = site.add("/settle/link", f"<a href='{target}'>next</a>")
    await tab.goto(url)
    await tab.state(screenshot=False)
    state = await tab.act({"action": "click_element", "element_index": 1}, screenshot=False)
    assert state["url"] == target
    assert "Arrived" in state["page_content"]


async def test_held_dialog_does_not_stall_an_action(tab, site):
    url = site.add("/settle/confirm", """<button onclick="confirm('sure?')">ask</button>""")
    await tab.goto(url)
    await tab.state(screenshot=False)
    tab.dialog_policy = "hold"
    try:
        started = time.perf_counter()
        task = asyncio.ensure_future(
            tab.act({"action": "click_element", "element_index": 1}, screenshot=False)
        )
        async with asyncio.timeout(10):
            while tab.pending_dialog is None:  # noqa: ASYNC110 - the test watches engine state
                await asyncio.sleep(0.01)
        await tab.handle_dialog(True)
        async with asyncio.timeout(10):
            await task
        assert time.perf_counter() - started < 10
        assert tab.dialogs[-1].message == "sure?"
    finally:
        tab.dialog_policy = "dismiss"


async def test_an_action_refused_after_its_arming_leaves_the_observer_disarmed(tab, site):
    # The arming goes out with the identity check (core.settle.Arming); when the index turns out stale the
    # action is refused and the observer must go back to counting the page's own changes.
    from cdp_engine.core.worlds import Worlds

    url = site.add("/settle/disarm", "<button id=b>b</button><p id=o>x</p>")
    await tab.goto(url)
    state = await tab.state(screenshot=False)
    index = next(int(k) for k, d in state["element_index"].items() if d.get("tag") == "button")
    await tab.evaluate(
        "const n = document.createElement('button'); n.onclick = () => {}; document.getElementById('b').replaceWith(n)"
    )
    refused = await tab.act({"action": "click_element", "element_index": index}, screenshot=False)
    assert refused["error"]["code"] == "INVALID_ELEMENT_INDEX"
    ctx = await Worlds.of(tab).context(tab.main_frame_id)
    for _ in range(50):  # the disarm is sent without waiting: read after it
        probe = {"expression": "globalThis.__cdpEngineSettle.ours", "contextId": ctx, "returnByValue": True}
        result = await tab.session.send("Runtime.evaluate", probe)
        if result["result"]["value"] is False:
            break
    assert result["result"]["value"] is False
    # The next action on a fresh state still settles on what it caused.
    state = await tab.state(screenshot=False)
    assert "error" not in await tab.act({"action": "click_element", "element_index": 1}, screenshot=False)


async def test_a_world_without_the_observer_is_armed_and_looked_at_in_full(tab, site):
    # The settle sends one-line calls into the observer its init script installs; a world where it is missing
    # (deleted here) gets the whole observer with the arming, and the action still waits for its deferred render.
    from cdp_engine.core.worlds import Worlds

    url = site.add("/settle/no-observer", DEFERRED_RENDER)
    await tab.goto(url)
    await tab.state(screenshot=False)
    ctx = await Worlds.of(tab).context(tab.main_frame_id)
    gone = {"expression": "delete globalThis.__cdpEngineSettle", "contextId": ctx, "returnByValue": True}
    assert (await tab.session.send("Runtime.evaluate", gone))["result"]["value"] is True
    state = await tab.act({"action": "click_element", "element_index": 1}, screenshot=False)
    assert "error" not in state and "LATE" in state["page_content"]
    present = {"expression": "typeof globalThis.__cdpEngineSettle.lookFn", "contextId": ctx, "returnByValue": True}
    assert (await tab.session.send("Runtime.evaluate", present))["result"]["value"] == "function"
