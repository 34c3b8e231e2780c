"""The real-web suite's server: the bundled component pages (tests/realweb/pages, built by
tools/build-realweb-pages.sh) and the endpoint their forms submit to, which records what each page sent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

import cdp_engine
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.toolset.driver_config import ToolsetConfig
from cdp_engine.toolset.executor import BrowserToolset

from .agents import RECORDER, Agent, IndexAgent, McpAgent, ToolsetAgent

PAGES = Path(__file__).parent / "pages"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "realweb" in str(item.fspath):
            item.add_marker(pytest.mark.realweb)


@dataclass
class ComponentSite:
    url: str = ""
    submitted: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def page(self, name: str) -> str:
        return f"{self.url}/realweb/{name}.html"


@pytest_asyncio.fixture(scope="session", autouse=True)
async def recorder(browser: cdp_engine.Browser) -> None:
    """The agents' record of trusted input events, in every document of the session's browser."""
    await browser.add_init_script(RECORDER)


@pytest_asyncio.fixture(scope="session")
async def components() -> AsyncIterator[ComponentSite]:
    site = ComponentSite()

    async def submit(request: web.Request) -> web.Response:
        values = await request.json()
        orders = site.submitted.setdefault(request.match_info["page"], [])
        orders.append(values)
        return web.json_response({"order": sum(len(v) for v in site.submitted.values())})

    app = web.Application()
    app.router.add_post("/realweb/submit/{page}", submit)
    app.router.add_static("/realweb/", PAGES)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    server = web.TCPSite(runner, "127.0.0.1", 0)
    await server.start()
    site.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    yield site
    await runner.cleanup()


MODES = ("strict", "extended")


@pytest_asyncio.fixture
async def make_agent(
    browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[Any]:
    closers: list[Any] = []

    async def make(surface: str, mode: str, url: str) -> Agent:
        if surface == "index":
            tab = await context.new_tab()
            assert isinstance(tab, cdp_engine.AgentTab)
            await tab.goto(url, wait_until="load")
            return IndexAgent(tab, mode)
        if surface == "toolset":
            ts = await BrowserToolset(browser, context=context, config=ToolsetConfig(interactive=mode)).start()
            closers.append(ts.close)
            _content, is_error = await ts.call("navigate", {"url": url})
            assert not is_error, _content
            return ToolsetAgent(ts, mode)
        manager = InstanceManager(Config(interactive=mode), browser=browser)
        closers.append(manager.close)
        tools = BrowserTools(manager)
        assert (await tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
        env = await tools.call("browser_navigate", {"instance": "t", "url": url})
        assert env["status"] == "success", env
        return McpAgent(tools, mode)

    yield make
    for close in closers:
        await close()
