"""Library faults (issue 14, defects 7, 8, 9): a held dialog, a hung renderer and a dead tab or browser.

Each case asserts the result (a state or a typed error), the time it took (one deadline, never a sum of
nested ones) and that the engine is usable afterwards. Real Chromium throughout.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import time
from typing import Any

import pytest

import cdp_engine
from cdp_engine.errors import ConnectionClosedError, RendererHungError, TargetClosedError

pytestmark = pytest.mark.slow  # waits out deadlines by design: .ci/run runs it (`pytest -m slow`)

_counter = itertools.count()


def unique(prefix: str) -> str:
    """A path no other test uses, so pages never come from another test's cache or history."""
    return f"/{prefix}-{os.getpid()}-{next(_counter)}"


def _index(state: dict[str, Any], text: str) -> int:
    for key, descriptor in state["element_index"].items():
        if descriptor.get("text_content") == text:
            return int(key)
    raise AssertionError(f"no element {text!r} in {state['element_index']}")


DIALOG_PAGE = """<title>Dialogs</title>
<button onclick="%s('hello')">Alert</button>
<button onclick="document.title = 'clicked'; this.textContent = 'Clicked'">Plain</button>
"""


@pytest.mark.parametrize("kind", ["alert", "confirm", "prompt"])
async def test_held_dialog_ends_act_and_state_at_once(
    context: cdp_engine.BrowserContext, site: Any, kind: str
) -> None:
    url = site.add(unique("dialog"), DIALOG_PAGE % kind)
    tab = await context.new_tab(url)
    tab.dialog_policy = "hold"
    state = await tab.state(screenshot=False)
    alert, plain = _index(state, "Alert"), _index(state, "Plain")

    t0 = time.monotonic()
    after = await tab.act({"action": "click_element", "element_index": alert}, screenshot=False)
    assert time.monotonic() - t0 < 5
    assert tab.pending_dialog is not None and tab.pending_dialog.message == "hello"
    error = after["error"]
    assert error["code"] == "INTERNAL_BROWSER_ERROR" and error["message"].startswith("DIALOG_OPEN: ")
    assert f"JavaScript {kind} dialog" in error["message"] and "hello" in error["message"]
    assert "the action ran" in error["message"]
    assert {k: after[k] for k in state} == state  # the last state the page could give, marked by `error`

    t0 = time.monotonic()
    held = await tab.state(screenshot=False)
    assert time.monotonic() - t0 < 2
    assert held["error"]["message"].startswith("DIALOG_OPEN: ") and held["state_hash"] == state["state_hash"]

    t0 = time.monotonic()
    blocked = await tab.act({"action": "click_element", "element_index": plain}, screenshot=False)
    assert time.monotonic() - t0 < 2
    assert blocked["error"]["message"].startswith("DIALOG_OPEN: ") and "did not run" in blocked["error"]["message"]
    assert blocked["error"]["failed_action"] == {"action": "click_element", "element_index": plain}

    await tab.handle_dialog(True)
    t0 = time.monotonic()
    fresh = await tab.state(screenshot=False)
    assert "error" not in fresh and fresh["url"] == url
    assert await tab.evaluate("document.title") == "Dialogs"  # the blocked click did not run
    done = await tab.act({"action": "click_element", "element_index": _index(fresh, "Plain")}, screenshot=False)
    assert "error" not in done and "Clicked" in done["page_content"]
    assert time.monotonic() - t0 < 5


async def test_held_dialog_before_any_state(context: cdp_engine.BrowserContext, site: Any) -> None:
    url = site.add(unique("dialog-timer"), "<title>T</title><script>setTimeout(() => alert('soon'), 50)</script>")
    tab = await context.new_tab()
    tab.dialog_policy = "hold"
    await tab.goto(url)
    await asyncio.wait_for(_until(lambda: tab.pending_dialog is not None), 5)
    t0 = time.monotonic()
    held = await tab.state(screenshot=False)
    assert time.monotonic() - t0 < 2
    assert held["error"]["message"].startswith("DIALOG_OPEN: ") and held["url"] == url
    assert set(held) == {"url", "page_content", "element_index", "screenshot", "state_hash", "error"}
    await tab.handle_dialog(False)
    assert "error" not in await tab.state(screenshot=False)


async def _until(predicate: Any) -> None:
    while not predicate():  # noqa: ASYNC110 - the test polls state the engine exposes
        await asyncio.sleep(0.01)


BUSY_PAGE = """<title>Busy</title><button onclick="while (true) {}">Hang</button><p>text</p>"""


async def test_hung_renderer_detected_within_one_deadline(site: Any) -> None:
    url = site.add(unique("busy"), BUSY_PAGE)
    async with cdp_engine.launch(command_timeout=4) as browser:
        tab = await browser.new_tab(url)
        state = await tab.state(screenshot=False)
        hang = _index(state, "Hang")
        t0 = time.monotonic()
        after = await tab.act({"action": "click_element", "element_index": hang}, screenshot=False)
        took = time.monotonic() - t0
        assert after["error"]["code"] == "INTERNAL_BROWSER_ERROR", after["error"]
        assert "renderer is not responding" in after["error"]["message"]
        assert took < 4 + 3, took

        t0 = time.monotonic()
        with pytest.raises(RendererHungError):
            await tab.state(screenshot=False)
        assert time.monotonic() - t0 < 4 + 3

        t0 = time.monotonic()  # found hung once: the next calls probe first and answer within the probe's second
        again = await tab.act({"action": "scroll", "direction": "down"}, screenshot=False)
        assert "renderer is not responding" in again["error"]["message"]
        with pytest.raises(RendererHungError):
            await tab.state(screenshot=False)
        assert time.monotonic() - t0 < 4

        fresh = await browser.new_tab()  # the engine is usable: a new tab in its own process works
        t0 = time.monotonic()
        await fresh.goto(site.add(unique("after-busy"), "<button>ok</button>"))
        assert "ok" in (await fresh.state(screenshot=False))["page_content"]
        await asyncio.wait_for(tab.close(), 10)
        assert time.monotonic() - t0 < 15


async def test_hung_renderer_act_without_cached_state(site: Any) -> None:
    url = site.add(unique("busy-timer"), "<title>B</title><script>setTimeout(() => { while (true) {} }, 200)</script>")
    async with cdp_engine.launch(command_timeout=4) as browser:
        tab = await browser.new_tab(url)
        await asyncio.sleep(0.5)  # the page's own timer must have started its loop
        t0 = time.monotonic()
        after = await tab.act({"action": "scroll", "direction": "down"}, screenshot=False)
        assert time.monotonic() - t0 < 4 + 3
        assert after["error"]["code"] == "INTERNAL_BROWSER_ERROR"
        assert "renderer is not responding" in after["error"]["message"]
        assert after["url"] == url
        fresh = await browser.new_tab(site.add(unique("after-busy2"), "<p>fine</p>"))
        assert "fine" in (await fresh.state(screenshot=False))["page_content"]


async def test_crashed_tab_every_action_returns_a_state(context: cdp_engine.BrowserContext, site: Any) -> None:
    url = site.add(unique("crash"), DIALOG_PAGE % "alert")
    tab = await context.new_tab(url)
    state = await tab.state(screenshot=False)
    tab.session.send("Page.crash")  # never answered: the renderer is gone
    await asyncio.wait_for(_until(lambda: tab.crashed), 5)
    for action in (
        {"action": "click_element", "element_index": _index(state, "Plain")},
        {"action": "input_text", "element_index": _index(state, "Plain"), "text": "x"},
        {"action": "scroll", "direction": "down"},
        {"action": "navigate", "url": url},
    ):
        t0 = time.monotonic()
        after = await tab.act(action, screenshot=False)
        assert time.monotonic() - t0 < 1
        assert after["error"]["code"] == "INTERNAL_BROWSER_ERROR", (action, after["error"])
        assert "crashed" in after["error"]["message"]
        assert {k: after[k] for k in state} == state
    with pytest.raises(TargetClosedError):
        await tab.state(screenshot=False)
    other = await context.new_tab(url)  # the engine goes on
    assert "Plain" in (await other.state(screenshot=False))["page_content"]


async def test_dead_browser_every_action_returns_a_state(site: Any) -> None:
    url = site.add(unique("dead"), DIALOG_PAGE % "alert")
    browser = await cdp_engine.launch()
    try:
        tab = await browser.new_tab(url)
        state = await tab.state(screenshot=False)
        assert browser.process is not None
        os.kill(browser.process.process.pid, signal.SIGKILL)
        await asyncio.wait_for(_until(lambda: tab.session.closed), 5)
        for action in (
            {"action": "click_element", "element_index": _index(state, "Plain")},
            {"action": "navigate", "url": url},
        ):
            t0 = time.monotonic()
            after = await tab.act(action, screenshot=False)
            assert time.monotonic() - t0 < 1
            assert after["error"]["code"] == "INTERNAL_BROWSER_ERROR", after["error"]
            assert {k: after[k] for k in state} == state
        with pytest.raises(ConnectionClosedError):
            await tab.state(screenshot=False)
    finally:
        await browser.close()
    async with cdp_engine.launch() as again:  # a new browser works
        fresh = await again.new_tab(url)
        assert "Plain" in (await fresh.state(screenshot=False))["page_content"]


async def test_dialog_on_mousedown_then_clicks_work(context: cdp_engine.BrowserContext, site: Any) -> None:
    url = site.add(
        unique("dialog-down"),
        "<button onmousedown=\"alert('down')\">Down</button>"
        "<button onclick=\"this.textContent = 'Clicked'\">Plain</button>",
    )
    tab = await context.new_tab(url)
    tab.dialog_policy = "hold"
    state = await tab.state(screenshot=False)
    t0 = time.monotonic()
    after = await tab.act({"action": "click_element", "element_index": _index(state, "Down")}, screenshot=False)
    assert time.monotonic() - t0 < 5 and after["error"]["message"].startswith("DIALOG_OPEN: ")
    await tab.handle_dialog(True)
    fresh = await tab.state(screenshot=False)
    done = await tab.act({"action": "click_element", "element_index": _index(fresh, "Plain")}, screenshot=False)
    assert "error" not in done and "Clicked" in done["page_content"]
    assert time.monotonic() - t0 < 8
