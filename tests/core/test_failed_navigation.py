"""A failed navigation leaves the tab on its page, on every surface (issue 14, "nothing changes on a refusal").

One rule in the core (core/navigation.py), under Tab.goto / back / forward / reload themselves, so the element
index's navigate, the toolset's navigate, the MCP server's browser_navigate / browser_navigate_back and any
library caller get it: a failure the network reports commits nothing (the
old document stays, with what was typed into it and its script state); otherwise the tab goes back within
what is left of the caller's one deadline. The browser here has the issue's short deadlines:
launch(navigation_timeout=2, command_timeout=3), so act() has 5 s in all.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

import cdp_engine
from cdp_engine.core import input as core_input
from cdp_engine.core import navigation, network
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.toolset import BrowserToolset, ToolsetConfig

pytestmark = pytest.mark.slow  # waits out deadlines by design: .ci/run runs it (`pytest -m slow`)

NAV_TIMEOUT = 2.0
COMMAND_TIMEOUT = 3.0
ACT_TIMEOUT = NAV_TIMEOUT + COMMAND_TIMEOUT  # ElementIndex.act_timeout
OPERATION_TIMEOUT = 3.0  # the MCP server's operation deadline in these tests
SLACK = 1.5  # what a deadline may overrun by on a loaded machine
FORM = (
    '<h1>Form</h1><input id="q" aria-label="Query"><button onclick="window.clicks = (window.clicks || 0) + 1">'
    "Count</button><script>window.token = Math.random()</script>"
)
READ = "JSON.stringify([document.getElementById('q').value, window.token])"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def page(site: Any, body: str, title: str = "Form") -> str:
    return site.add(f"/fn-{time.monotonic_ns()}", f"<!doctype html><title>{title}</title><body>{body}</body>")


@pytest_asyncio.fixture(scope="module")
async def quick() -> AsyncIterator[cdp_engine.Browser]:
    async with cdp_engine.launch(navigation_timeout=NAV_TIMEOUT, command_timeout=COMMAND_TIMEOUT) as browser:
        yield browser


@pytest_asyncio.fixture
async def qcontext(quick: cdp_engine.Browser) -> AsyncIterator[cdp_engine.BrowserContext]:
    context = await quick.new_context()
    yield context
    await context.close()


@pytest_asyncio.fixture
async def qtab(qcontext: cdp_engine.BrowserContext) -> cdp_engine.Tab:
    return await qcontext.new_tab()


@pytest_asyncio.fixture
async def release(site: Any) -> AsyncIterator[asyncio.Event]:
    """Set at teardown: every hanging handler of the test answers then."""
    event = asyncio.Event()
    yield event
    event.set()


def never(site: Any, release: asyncio.Event) -> str:
    """A URL whose server accepts the connection and answers only at teardown."""

    async def hang(request: web.Request) -> web.Response:
        await release.wait()
        return web.Response(text="<h1>Late page</h1>", content_type="text/html")

    return site.add_handler(f"/fn-never-{time.monotonic_ns()}", hang)


def once(site: Any, release: asyncio.Event, body: str) -> str:
    """A page served once; asked again (going back to it) its server never answers."""
    served = 0

    async def first_only(request: web.Request) -> web.Response:
        nonlocal served
        served += 1
        if served > 1:
            await release.wait()
        html = f"<!doctype html><title>Once</title><body>{body}</body>"
        # no-store: going back must ask the server again (history loads otherwise prefer the cache).
        return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-store"})

    return site.add_handler(f"/fn-once-{time.monotonic_ns()}", first_only)


async def type_into_q(tab: cdp_engine.Tab, text: str) -> None:
    await tab.evaluate("document.getElementById('q').focus()")
    await core_input.insert_text(tab, text)


async def assert_usable(tab: cdp_engine.Tab) -> None:
    """The tab answers at once (no navigation left running that script would wait behind)."""
    t0 = time.perf_counter()
    assert await tab.evaluate("1 + 1", timeout=1.0) == 2
    await asyncio.wait_for(tab.state(screenshot=False), COMMAND_TIMEOUT)
    assert time.perf_counter() - t0 < COMMAND_TIMEOUT


async def gone_server(html: str) -> tuple[str, web.AppRunner]:
    """A page on a server of its own, to be stopped (then its port refuses connections)."""

    async def serve(request: web.Request) -> web.Response:
        # no-store: going back or reloading must ask the server (history loads otherwise prefer the cache).
        return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-store"})

    app = web.Application()
    app.router.add_get("/", serve)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    server = web.TCPSite(runner, "127.0.0.1", 0)
    await server.start()
    return f"http://127.0.0.1:{runner.addresses[0][1]}/", runner


@contextlib.asynccontextmanager
async def toolset(
    quick: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[BrowserToolset]:
    ts = await BrowserToolset(
        quick, context=context, config=ToolsetConfig(navigation_timeout=NAV_TIMEOUT)
    ).start()
    try:
        yield ts
    finally:
        await ts.close()


class Mcp:
    """Instance 't' of a fresh MCP manager on the test's browser: call(tool, **args) gives the envelope."""

    def __init__(self, quick: cdp_engine.Browser, **config: Any) -> None:
        self.manager = InstanceManager(Config(navigation_timeout=NAV_TIMEOUT, **config), browser=quick)
        self.tools = BrowserTools(self.manager)

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        return await self.tools.call(tool, {"instance": "t", **args})

    @property
    def tab(self) -> cdp_engine.Tab:
        page = self.manager.instances["t"].selected
        assert page is not None
        return page.tab


@contextlib.asynccontextmanager
async def mcp(quick: cdp_engine.Browser, **config: Any) -> AsyncIterator[Mcp]:
    surface = Mcp(quick, **config)
    try:
        assert (await surface.tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
        yield surface
    finally:
        await surface.manager.close()


# ===== the core rule ==============================================================================


async def test_refused_navigation_keeps_the_document(qtab: cdp_engine.Tab, site: Any) -> None:
    """The network's failure is aborted in place: no error page commits, what was typed and the page's script
    state are still there, and the error is the network's own."""
    heard: list[str] = []  # what a listener of new sessions (the harness keeps one) hears meanwhile
    hook = lambda session, _params: heard.append(session.target_id)  # noqa: E731
    qtab.browser.connection.on_session_attached.append(hook)
    url = page(site, FORM)
    await qtab.goto(url)
    await type_into_q(qtab, "typed")
    before = await qtab.evaluate(READ)

    async def to_refused(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://127.0.0.1:{closed_port()}/elsewhere")

    redirect = site.add_handler(f"/fn-redirect-{time.monotonic_ns()}", to_refused)
    for target in (f"http://127.0.0.1:{closed_port()}/", redirect):
        t0 = time.perf_counter()
        with pytest.raises(cdp_engine.NavigationError) as caught:
            await qtab.goto(target)
        assert time.perf_counter() - t0 < SLACK
        exc = caught.value
        assert exc.error_text == "net::ERR_CONNECTION_REFUSED" and exc.url == target
        assert (exc.replaced, exc.on_page, exc.page_url) == (False, True, url)
        assert navigation.where_now(exc) == f"The tab is still on {url}."
        assert await qtab.evaluate(READ) == before
        assert qtab.url == url and qtab.frames[qtab.main_frame_id].url == url
    qtab.browser.connection.on_session_attached.remove(hook)
    # The guard's side session is no new target: no tab of its own, and no attach hook hears of it.
    assert qtab.browser.tabs[qtab.target_id] is qtab and heard == []


async def test_failure_chromium_names_only_failed_goes_back(qtab: cdp_engine.Tab, site: Any) -> None:
    """A failure the interception only sees as "Failed" (an unsafe port) keeps Chromium's exact reason: its
    error page commits and the tab goes back, loading the page again (its script state is new)."""
    url = page(site, FORM)
    await qtab.goto(url)
    token = await qtab.evaluate("window.token")
    with pytest.raises(cdp_engine.NavigationError) as caught:
        await qtab.goto("http://127.0.0.1:9/")
    exc = caught.value
    assert exc.error_text == "net::ERR_UNSAFE_PORT"
    assert (exc.replaced, exc.on_page, exc.page_url) == (True, True, url)
    assert navigation.where_now(exc) == f"The tab is back on {url}; the page was loaded again."
    assert qtab.frames[qtab.main_frame_id].url == url
    assert await qtab.evaluate("window.token") != token
    await assert_usable(qtab)


async def test_back_and_reload_to_a_server_that_went_away(qtab: cdp_engine.Tab, site: Any) -> None:
    """A history step or a reload the network fails ends at once (it does not wait for a document that never
    comes) and leaves the page it would have replaced."""
    gone, runner = await gone_server("<title>Gone soon</title><p>first</p>")
    try:
        await qtab.goto(gone)
        url = page(site, FORM)
        await qtab.goto(url)
    finally:
        await runner.cleanup()
    await type_into_q(qtab, "kept")
    before = await qtab.evaluate(READ)
    t0 = time.perf_counter()
    with pytest.raises(cdp_engine.NavigationError) as caught:
        await qtab.back()
    assert time.perf_counter() - t0 < SLACK
    assert caught.value.error_text == "net::ERR_CONNECTION_REFUSED" and not caught.value.replaced
    assert await qtab.evaluate(READ) == before and qtab.url == url

    again, runner = await gone_server(f"<title>Reloaded</title>{FORM}")
    try:
        await qtab.goto(again)
        await type_into_q(qtab, "kept too")
    finally:
        await runner.cleanup()
    before = await qtab.evaluate(READ)
    with pytest.raises(cdp_engine.NavigationError) as caught:
        await qtab.reload()
    assert caught.value.error_text == "net::ERR_CONNECTION_REFUSED" and not caught.value.replaced
    assert await qtab.evaluate(READ) == before and qtab.url == again


async def test_the_guard_leaves_a_route_of_the_tab_alone(qtab: cdp_engine.Tab, site: Any) -> None:
    """The guard intercepts on a side session: a surface's own route on the tab's session (the MCP server
    blocks images that way) is neither replaced nor turned off by a kept navigation."""
    blocker = network.block_resource_types(qtab.session, ["Image"])
    await blocker
    try:
        url = page(site, FORM)
        await qtab.goto(url)
        await type_into_q(qtab, "typed")
        with pytest.raises(cdp_engine.NavigationError):
            await qtab.goto(f"http://127.0.0.1:{closed_port()}/")
        assert (await qtab.evaluate("document.getElementById('q').value")) == "typed"
        image = f"/fn-img-{time.monotonic_ns()}.png"
        site.add(image, b"\x89PNG not really")
        await qtab.goto(page(site, f'<img src="{image}">'))
        assert site.hits.get(image, 0) == 0
    finally:
        blocker.stop()


# ===== every surface ==============================================================================


async def test_index_navigate_keeps_what_was_typed(qtab: cdp_engine.Tab, site: Any) -> None:
    """The issue's case on the element index: type, navigate to a closed port, the value is still there and
    the previous state (with its indices) is what comes back."""
    await qtab.goto(page(site, FORM))
    state = await qtab.state(screenshot=False)
    field = next(int(i) for i, d in state["element_index"].items() if d.get("aria-label") == "Query")
    typed = await qtab.act(
        {"action": "input_text", "element_index": field, "text": "typed"}, screenshot=False
    )
    assert "error" not in typed, typed["error"]
    token = await qtab.evaluate("window.token")
    t0 = time.perf_counter()
    failed = await qtab.act(
        {"action": "navigate", "url": f"http://127.0.0.1:{closed_port()}/"}, screenshot=False
    )
    assert time.perf_counter() - t0 < SLACK
    assert (
        failed["error"]["code"] == "NAVIGATION_FAILED"
        and "ERR_CONNECTION_REFUSED" in failed["error"]["message"]
    )
    assert {k: v for k, v in failed.items() if k != "error"} == typed
    assert await qtab.evaluate(READ) == f'["typed",{token}]'
    count = next(int(i) for i, d in typed["element_index"].items() if d["text_content"] == "Count")
    clicked = await qtab.act({"action": "click_element", "element_index": count}, screenshot=False)
    assert "error" not in clicked and await qtab.evaluate("window.clicks") == 1


async def test_toolset_navigate_keeps_the_page(
    quick: cdp_engine.Browser, qcontext: cdp_engine.BrowserContext, site: Any
) -> None:
    async with toolset(quick, qcontext) as ts:
        url = page(site, FORM)
        content, is_error = await ts.call("navigate", {"url": url})
        assert not is_error, content
        tab = ts.book.get(None).tab
        await tab.evaluate("document.getElementById('q').focus()")
        assert (await ts.call("type", {"text": "typed"}))[1] is False
        bad = f"http://127.0.0.1:{closed_port()}/"
        content, is_error = await ts.call("navigate", {"url": bad})
        assert is_error and content[0]["text"] == (
            f'Error: Navigation to "{bad}" failed (net::ERR_CONNECTION_REFUSED). The tab is still on {url}.'
        )
        assert await tab.evaluate("document.getElementById('q').value") == "typed"
        content, is_error = await ts.call("screenshot", {})
        assert not is_error and [t["url"] for t in content[-1]["tabs"]] == [url]
        # An unsafe port: Chromium's own reason, and the tab back on its page.
        content, is_error = await ts.call("navigate", {"url": "http://127.0.0.1:9/"})
        assert is_error and content[0]["text"] == (
            f'Error: Navigation to "http://127.0.0.1:9/" failed (net::ERR_UNSAFE_PORT). '
            f"The tab is back on {url}; the page was loaded again."
        )
        assert tab.frames[tab.main_frame_id].url == url


async def test_mcp_navigate_keeps_the_page(quick: cdp_engine.Browser, site: Any) -> None:
    async with mcp(quick) as s:
        url = page(site, FORM)
        assert (await s.call("browser_navigate", url=url))["data"]["url"] == url
        snap = (await s.call("browser_snapshot"))["data"]["snapshot"]
        ref = next(line.split("[ref=")[1].split("]")[0] for line in snap.splitlines() if "Query" in line)
        assert (await s.call("browser_type", ref=ref, text="typed"))["status"] == "success"
        bad = f"http://127.0.0.1:{closed_port()}/"
        failed = await s.call("browser_navigate", url=bad)
        assert failed["error_type"] == "navigation_failed", failed
        assert (
            failed["message"]
            == f"Navigation to {bad} failed: net::ERR_CONNECTION_REFUSED. The tab is still on {url}."
        )
        value = await s.call("browser_evaluate", expression="document.getElementById('q').value")
        assert value["data"]["result"] == "typed"
        # The network log says what the network said, not the abort that kept the page.
        requests = (await s.call("browser_network_requests", url_filter=bad.split("/")[2]))["data"][
            "requests"
        ]
        assert [r["failure"] for r in requests] == ["net::ERR_CONNECTION_REFUSED"]

        gone, runner = await gone_server("<title>Gone soon</title><p>first</p>")
        try:
            await s.call("browser_navigate", url=gone)
            assert (await s.call("browser_navigate", url=url))["status"] == "success"
        finally:
            await runner.cleanup()
        back = await s.call("browser_navigate_back")
        assert back.get("error_type") == "navigation_failed", back
        assert (
            back["message"]
            == f"Back navigation failed: net::ERR_CONNECTION_REFUSED. The tab is still on {url}."
        )


# ===== one deadline, the restore included =========================================================


async def test_act_restore_takes_what_is_left_of_its_deadline(
    qtab: cdp_engine.Tab, site: Any, release: asyncio.Event
) -> None:
    """A page that commits and never loads replaced the document; going back to a page whose server no longer
    answers must end within act()'s one deadline (it had 5 s of its own on top), and the state says where the
    tab is."""
    await qtab.goto(once(site, release, FORM))
    await qtab.state(screenshot=False)
    hanging = page(site, f'<h1>Hanging</h1><img src="{never(site, release)}">', title="Hanging")
    t0 = time.perf_counter()
    failed = await qtab.act({"action": "navigate", "url": hanging}, screenshot=False)
    assert time.perf_counter() - t0 < ACT_TIMEOUT + SLACK
    assert failed["error"]["code"] == "NAVIGATION_FAILED", failed["error"]
    assert failed["url"] == qtab.frames[qtab.main_frame_id].url  # the state is the page the tab shows
    # The way back did not answer in time: the state is the hanging page the tab still shows, and says so.
    assert (
        failed["url"] == hanging and "the tab could not be put back on its page" in failed["error"]["message"]
    )
    await assert_usable(qtab)


@pytest.mark.parametrize("target", ["refused", "never"])
async def test_every_surface_returns_within_its_deadline(
    quick: cdp_engine.Browser,
    qcontext: cdp_engine.BrowserContext,
    site: Any,
    release: asyncio.Event,
    target: str,
) -> None:
    """A refused port and a server that never answers, on each surface: the call returns within its documented
    deadline (act: navigation + command timeout; toolset: navigation_timeout; MCP: the operation deadline)
    and the tab is usable at once."""

    def bad() -> str:
        return f"http://127.0.0.1:{closed_port()}/" if target == "refused" else never(site, release)

    tab = await qcontext.new_tab(page(site, FORM))
    await tab.state(screenshot=False)
    t0 = time.perf_counter()
    failed = await tab.act({"action": "navigate", "url": bad()}, screenshot=False)
    assert time.perf_counter() - t0 < ACT_TIMEOUT + SLACK
    assert failed["error"]["code"] == "NAVIGATION_FAILED"
    await assert_usable(tab)

    async with toolset(quick, qcontext) as ts:
        await ts.call("navigate", {"url": page(site, FORM)})
        t0 = time.perf_counter()
        content, is_error = await ts.call("navigate", {"url": bad()})
        assert time.perf_counter() - t0 < NAV_TIMEOUT + SLACK
        assert is_error and content[0]["text"].startswith("Error: Navigation to ")
        await assert_usable(ts.book.get(None).tab)

    async with mcp(quick, operation_timeout=OPERATION_TIMEOUT) as s:
        await s.call("browser_navigate", url=page(site, FORM))
        t0 = time.perf_counter()
        env = await s.call("browser_navigate", url=bad())
        assert time.perf_counter() - t0 < OPERATION_TIMEOUT + SLACK
        assert env.get("error_type") in ("navigation_failed", "navigation_timeout"), env
        await assert_usable(s.tab)


async def test_toolset_and_mcp_restore_within_their_deadline(
    quick: cdp_engine.Browser, qcontext: cdp_engine.BrowserContext, site: Any, release: asyncio.Event
) -> None:
    """An error page committed (an unsafe port) and the page to go back to no longer answers: the toolset ends
    within navigation_timeout, the MCP server within its operation deadline, and both say where the tab is."""
    async with toolset(quick, qcontext) as ts:
        await ts.call("navigate", {"url": once(site, release, FORM)})
        t0 = time.perf_counter()
        content, is_error = await ts.call("navigate", {"url": "http://127.0.0.1:9/"})
        assert time.perf_counter() - t0 < NAV_TIMEOUT + SLACK
        tab = ts.book.get(None).tab
        shows = tab.frames[tab.main_frame_id].url
        assert is_error and content[0]["text"] == (
            f'Error: Navigation to "http://127.0.0.1:9/" failed (net::ERR_UNSAFE_PORT). The tab now shows {shows}.'
        )
        await assert_usable(tab)

    async with mcp(quick, operation_timeout=OPERATION_TIMEOUT) as s:
        await s.call("browser_navigate", url=once(site, release, FORM))
        t0 = time.perf_counter()
        env = await s.call("browser_navigate", url="http://127.0.0.1:9/")
        assert time.perf_counter() - t0 < OPERATION_TIMEOUT + SLACK
        shows = s.tab.frames[s.tab.main_frame_id].url
        assert (
            env["message"]
            == f"Navigation to http://127.0.0.1:9/ failed: net::ERR_UNSAFE_PORT. The tab now shows {shows}."
        )
        await assert_usable(s.tab)
