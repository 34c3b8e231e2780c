"""One headless Chromium and one pair of loopback web servers for the whole test session.

Each test gets a fresh browser context and tab, so tests never share cookies, storage or pages.
`site.url` is http://127.0.0.1:<port>; `site.other_url` is http://localhost:<other port>, a
different site, so a frame from it is out-of-process (OOPIF).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

import cdp_engine

# The test folders (by layer and surface) share helpers by module name, as the flat folder did (test_screenshot's
# PNG decoder, test_mcp_tools' Surface): every folder is importable from every other, whatever order collects them.
for _folder in sorted(Path(__file__).resolve().parent.iterdir()):
    if _folder.is_dir() and not (_folder / "__init__.py").exists() and not _folder.name.startswith((".", "_")):
        sys.path.insert(0, str(_folder))



@pytest.hookimpl(tryfirst=True)  # before `-m` selects: the mark must be there when it does
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in tests/stress is a stress run at small size (`pytest -m stress`; the long ones are also
    `slow`, so `.ci/run` runs them after the README's command). Their full sizes run by hand or as benchmarks."""
    for item in items:
        if item.path.parent.name == "stress":
            item.add_marker(pytest.mark.stress)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Site:
    """Pages served by the tests themselves: add(path, html) or add_handler(path, handler)."""

    url: str = ""
    other_url: str = ""
    pages: dict[str, str | bytes] = field(default_factory=dict)
    handlers: dict[str, Handler] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)

    def add(self, path: str, html: str | bytes) -> str:
        self.pages[path] = html
        return self.url + path

    def add_handler(self, path: str, handler: Handler) -> str:
        self.handlers[path] = handler
        return self.url + path

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] = self.hits.get(path, 0) + 1
        if path in self.handlers:
            return await self.handlers[path](request)
        if path in self.pages:
            body = self.pages[path]
            content_type = "text/html" if isinstance(body, str) else "application/octet-stream"
            return web.Response(body=body.encode() if isinstance(body, str) else body, content_type=content_type)
        return web.Response(status=404, text="not found")


@pytest_asyncio.fixture(scope="session")
async def site() -> AsyncIterator[Site]:
    site = Site()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", site.dispatch)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    main = web.TCPSite(runner, "127.0.0.1", 0)
    other = web.TCPSite(runner, "127.0.0.1", 0)
    await main.start()
    await other.start()
    main_port, other_port = (address[1] for address in runner.addresses)  # in the order the sites started
    site.url = f"http://127.0.0.1:{main_port}"
    site.other_url = f"http://localhost:{other_port}"
    yield site
    await runner.cleanup()


@pytest_asyncio.fixture(scope="session")
async def browser() -> AsyncIterator[cdp_engine.Browser]:
    async with cdp_engine.launch() as browser:
        yield browser


@pytest_asyncio.fixture
async def context(browser: cdp_engine.Browser) -> AsyncIterator[cdp_engine.BrowserContext]:
    context = await browser.new_context()
    yield context
    await context.close()


@pytest_asyncio.fixture
async def tab(context: cdp_engine.BrowserContext) -> cdp_engine.Tab:
    return await context.new_tab()


@pytest.fixture
def wait() -> Callable[..., Awaitable[None]]:
    """wait(predicate, timeout): poll-free helper for tests: checks on each loop turn until a deadline."""

    async def _wait(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():  # noqa: ASYNC110 - tests poll state the engine exposes
                await asyncio.sleep(0.01)

    return _wait


# ----- long pages (results sized for models, issue 16) -----------------------------------------------


def long_page_html(sections: int = 200, links_per_section: int = 25) -> str:
    """A page far longer than any default result budget: `sections` sections, each a heading, a paragraph of
    about 600 characters and a list of links (5,000 links by default), then a field and a button at the very
    end that say when they are used, so a test can act on a ref or index from the last part."""
    words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore"
    parts = ["<!doctype html><html><head><title>Long page</title></head><body><h1>Long page</h1>"]
    for s in range(sections):
        text = " ".join(f"{w}{s}" for w in (words.split() * 6))
        links = "".join(
            f'<li><a href="#s{s}-l{i}">Link {s}.{i}</a></li>' for i in range(links_per_section)
        )
        parts.append(f'<section id="s{s}"><h2>Section {s}</h2><p>{text}</p><ul>{links}</ul></section>')
    parts.append(
        '<h2>The end</h2><input id="last-field" aria-label="Last field">'
        "<button id=\"last\" onclick=\"document.getElementById('done').textContent='clicked the last button'\">"
        'Last button</button><p id="done">not clicked</p></body></html>'
    )
    return "".join(parts)


@pytest.fixture
def long_page(site: Site) -> str:
    """The URL of long_page_html() on the test server."""
    return site.add("/long-page.html", long_page_html())


@contextlib.contextmanager
def sent_commands(session: Any) -> Iterator[list[tuple[str, set[str]]]]:
    """(method, the methods answered by then) for each command the session sends meanwhile: which commands
    went out together in one burst and which waited for an answer."""
    log: list[tuple[str, set[str]]] = []
    answered: set[str] = set()
    send = session.send

    def recording(method: str, *args: Any, **kwargs: Any) -> Any:
        log.append((method, set(answered)))
        future = send(method, *args, **kwargs)
        future.add_done_callback(lambda _f: answered.add(method))
        return future

    session.send = recording
    try:
        yield log
    finally:
        del session.send
