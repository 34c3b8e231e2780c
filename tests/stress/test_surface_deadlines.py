"""Deadlines as a design rule on the toolset and MCP surfaces (issue 14, Build 2).

Every call has one overall deadline; a hung renderer (a page script that never yields) is detected by one
liveness probe when a command overruns, reported in the surface's own words, and the next call on the same
page fails within the probe's second; the rest of the browser stays usable. Real Chromium throughout, each
test with its own short command deadline.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

import cdp_engine
from cdp_engine.mcp_server.instance_manager import InstanceManager
from cdp_engine.mcp_server.server_config import Config
from cdp_engine.mcp_server.tools import BrowserTools
from cdp_engine.toolset import BrowserToolset, ToolsetConfig

pytestmark = pytest.mark.slow  # waits out deadlines by design: .ci/run runs it (`pytest -m slow`)

COMMAND = 3.0  # the browser's command deadline in these tests
PROBE = 1.0
SLACK = 2.0
BUSY = '<title>Busy</title><button id="hang" onclick="while (true) {}">Hang</button>'


@pytest_asyncio.fixture
async def short() -> AsyncIterator[cdp_engine.Browser]:
    async with cdp_engine.launch(command_timeout=COMMAND, navigation_timeout=COMMAND) as browser:
        yield browser


def _text(content: list[dict[str, Any]]) -> str:
    return " ".join(block.get("text", "") for block in content if block.get("type") == "text")


async def test_toolset_hung_renderer_detected_then_fast(short: cdp_engine.Browser, site: Any) -> None:
    url = site.add(f"/ts-busy-{os.getpid()}", BUSY)
    ts = await BrowserToolset(short, config=ToolsetConfig()).start()
    try:
        content, is_error = await ts.call("navigate", {"url": url})
        assert not is_error, content
        await ts.book.tabs[ts.book.active or ''].tab.evaluate("setTimeout(() => { while (true) {} }, 50)")
        await asyncio.sleep(0.3)  # the page's own timer has started its loop
        t0 = time.monotonic()
        content, is_error = await ts.call("screenshot", {})
        took = time.monotonic() - t0
        assert is_error and "is not responding (a script is busy)" in _text(content), content
        assert took < COMMAND + PROBE + SLACK, took
        assert content[-1]["type"] == "text"  # an error result: text only

        t0 = time.monotonic()  # found hung once: the next page call probes first
        content, is_error = await ts.call("get_page_text", {})
        assert is_error and "is not responding" in _text(content), content
        assert time.monotonic() - t0 < PROBE + SLACK

        content, is_error = await ts.call("new_tab", {})
        assert not is_error, content
        fine = site.add(f"/ts-after-busy-{os.getpid()}", "<p>fine</p>")
        assert not (await ts.call("navigate", {"url": fine}))[1]
        content, is_error = await ts.call("get_page_text", {})
        assert not is_error and "fine" in _text(content), content
    finally:
        await asyncio.wait_for(ts.close(), 15)


async def test_toolset_call_has_one_overall_deadline(site: Any) -> None:
    """A call_timeout shorter than the navigation deadline ends the call at it, with its own text, and the
    tab is usable at once afterwards (the navigation still pending was stopped)."""
    release = asyncio.Event()

    async def never(_request: web.Request) -> web.StreamResponse:
        await release.wait()
        return web.Response(text="late", content_type="text/html")

    slow = site.add_handler(f"/ts-never-{os.getpid()}", never)
    async with cdp_engine.launch() as browser:
        ts = await BrowserToolset(browser, config=ToolsetConfig(call_timeout=3.0)).start()
        try:
            home = site.add(f"/ts-home-{os.getpid()}", "<title>Home</title><p>home page</p>")
            assert not (await ts.call("navigate", {"url": home}))[1]
            t0 = time.monotonic()
            content, is_error = await ts.call("navigate", {"url": slow})
            took = time.monotonic() - t0
            assert is_error and _text(content).startswith("Error: navigate did not finish within 3 seconds."), content
            assert took < 3.0 + SLACK, took
            t0 = time.monotonic()
            content, is_error = await ts.call("get_page_text", {})
            assert not is_error and "home page" in _text(content), content
            assert time.monotonic() - t0 < SLACK
        finally:
            release.set()
            await asyncio.wait_for(ts.close(), 15)


async def test_mcp_hung_renderer_detected_then_fast(short: cdp_engine.Browser, site: Any) -> None:
    url = site.add(f"/mcp-busy-{os.getpid()}", BUSY)
    manager = InstanceManager(Config(command_timeout=COMMAND), browser=short)
    tools = BrowserTools(manager)
    try:
        assert (await tools.call("browser_create_instance", {"name": "h"}))["status"] == "success"
        env = await tools.call("browser_navigate", {"instance": "h", "url": url})
        assert env["status"] == "success", env
        env = await tools.call(
            "browser_evaluate", {"instance": "h", "expression": "setTimeout(() => { while (true) {} }, 50), 1"}
        )
        assert env["status"] == "success", env
        await asyncio.sleep(0.3)
        t0 = time.monotonic()
        env = await tools.call("browser_snapshot", {"instance": "h"})
        took = time.monotonic() - t0
        assert env["status"] == "error" and env["error_type"] == "internal_error", env
        assert env["message"].startswith("The page is not responding: its renderer is busy in a script"), env
        assert took < COMMAND + PROBE + SLACK, took

        t0 = time.monotonic()
        env = await tools.call("browser_screenshot", {"instance": "h"})
        assert env["status"] == "error" and env["message"].startswith("The page is not responding"), env
        assert time.monotonic() - t0 < PROBE + SLACK

        env = await tools.call("browser_tabs", {"instance": "h", "action": "new"})
        assert env["status"] == "success", env
        fine = site.add(f"/mcp-after-busy-{os.getpid()}", "<p>fine</p>")
        env = await tools.call("browser_navigate", {"instance": "h", "url": fine})
        assert env["status"] == "success", env
        env = await tools.call("browser_snapshot", {"instance": "h"})
        assert env["status"] == "success" and "fine" in str(env["data"]), env
    finally:
        await asyncio.wait_for(manager.close(), 15)


async def test_harness_step_and_reset_have_one_deadline(short: cdp_engine.Browser, site: Any) -> None:
    """A step on a page whose script hangs answers within one command deadline plus the probe (its
    reward_js and tab list included); the next answers within the probe's second; a reset whose page never
    answers raises at its reset_timeout; the next reset works."""
    from cdp_engine.harness import BrowserEnv, TaskSpec

    release = asyncio.Event()

    async def never(_request: web.Request) -> web.StreamResponse:
        await release.wait()
        return web.Response(text="late", content_type="text/html")

    slow = site.add_handler(f"/env-never-{os.getpid()}", never)
    url = site.add(f"/env-busy-{os.getpid()}", BUSY)
    env = BrowserEnv(short, prewarm=False, reset_timeout=2.0)
    try:
        task = TaskSpec(name="busy", start_url=url, reward_js="document.title === 'done'")
        obs = await env.reset(task=task)
        hang = next(int(k) for k, d in obs["element_index"].items() if d.get("text_content") == "Hang")
        t0 = time.monotonic()
        _obs, info = await env.step({"action": "click_element", "element_index": hang})
        assert info["error"]["code"] == "INTERNAL_BROWSER_ERROR", info
        assert "renderer is not responding" in info["error"]["message"], info["error"]
        assert time.monotonic() - t0 < COMMAND + PROBE + SLACK
        t0 = time.monotonic()
        _obs, info = await env.step({"action": "scroll", "direction": "down"})
        assert "renderer is not responding" in info["error"]["message"], info["error"]
        assert time.monotonic() - t0 < 2 * PROBE + SLACK

        t0 = time.monotonic()
        try:
            await env.reset(start_url=slow)
        except cdp_engine.CDPEngineError as exc:
            assert isinstance(exc, TimeoutError), exc
        else:
            raise AssertionError("a reset whose page never answers must fail")
        assert time.monotonic() - t0 < 2.0 + SLACK
        obs = await env.reset(start_url=site.add(f"/env-fine-{os.getpid()}", "<p>fine</p>"))
        assert "fine" in obs["page_content"]
    finally:
        release.set()
        await asyncio.wait_for(env.close(), 15)
