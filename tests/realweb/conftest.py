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
