"""Allowed and blocked origins (NavigationPolicy): the rule itself, then every surface against a real Chromium.

Each surface is checked three ways: a navigation straight to a refused origin (refused before any request),
a server-side 302 from an allowed page to a refused origin, and a window.open of a refused origin (a popup).
The refused origin is `site.other_url` (http://localhost:<other port>); its paths are unique per test, and
`site.hits` shows the browser never asked for them.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import pytest
from aiohttp import ClientSession, web

import cdp_engine
from cdp_engine.core.policies import (
    NavigationPolicy,
    OriginPattern,
    Policies,
    PolicyError,
    origin_policy,
    parse_origins,
)
from cdp_engine.harness import BrowserEnv
from cdp_engine.index.element_index import ElementIndex
from cdp_engine.mcp_server.instance_manager import InstanceManager
from cdp_engine.mcp_server.server_config import Config
from cdp_engine.mcp_server.tools import BrowserTools
from cdp_engine.service import create_app
from cdp_engine.toolset import BrowserToolset, ToolsetConfig

Wait = Callable[..., Awaitable[None]]

# ----- the rule --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "url", "matches"),
    [
        ("https://example.com", "https://example.com/a?b", True),
        ("https://example.com", "https://example.com:443/", True),
        ("https://example.com", "http://example.com/", False),
        ("https://example.com", "https://example.com:8443/", False),
        ("https://example.com", "https://www.example.com/", False),
        ("example.com", "http://example.com:8080/", True),
        ("example.com", "wss://example.com/socket", True),
        ("example.com:8080", "https://example.com:8080/", True),
        ("example.com:8080", "https://example.com/", False),
        ("*.example.com", "https://a.b.example.com/", True),
        ("*.example.com", "https://example.com/", False),
        ("*.example.com", "https://badexample.com/", False),
        ("https://*.example.com", "http://a.example.com/", False),
        ("127.0.0.1:*", "http://127.0.0.1:9/", True),
        ("[::1]:8000", "http://[::1]:8000/", True),
        ("EXAMPLE.com.", "https://example.COM/", True),
        ("bücher.example", "https://xn--bcher-kva.example/", True),
        ("*", "https://anything.test/", True),
    ],
)
def test_origin_patterns(pattern: str, url: str, matches: bool) -> None:
    policy = NavigationPolicy(frozenset({"http", "https", "wss"}), allowed_origins=(pattern,))
    assert policy.allows(url) is matches


@pytest.mark.parametrize(
    "bad", ["", "http://", "https://example.com/path", "example.com?x", "user@example.com", "*example.com",
            "a.*.example.com", "example.com:99999", "example.com:http", "javascript://x", "[zz]:80", "exa mple.com"],
)  # fmt: skip
def test_invalid_origin_patterns_are_value_errors(bad: str) -> None:
    with pytest.raises(ValueError, match="origin"):
        OriginPattern.parse(bad)


def test_blocked_origins_come_first_and_other_schemes_are_left_to_the_scheme_rule() -> None:
    policy = NavigationPolicy(
        frozenset({"http", "https", "about", "data", "file"}),
        allowed_origins=("*.example.com",),
        blocked_origins=("ads.example.com",),
    )
    assert policy.allows("https://www.example.com/")
    with pytest.raises(PolicyError) as blocked:
        policy.check("https://ads.example.com/x")
    assert blocked.value.rule == "navigation.blocked_origin" and "'ads.example.com'" in str(blocked.value)
    with pytest.raises(PolicyError) as outside:
        policy.check("https://elsewhere.test/")
    assert outside.value.rule == "navigation.origin_not_allowed"
    for url in ("about:blank", "data:text/html,x", "file:///tmp/x"):
        assert policy.allows(url)  # no host: not an origin the lists speak of
    assert policy.check_origin("blob:https://www.example.com/uuid")
    with pytest.raises(PolicyError):
        policy.check_origin("blob:https://ads.example.com/uuid")
    assert parse_origins("a.test; b.test,c.test  d.test") == tuple(
        OriginPattern.parse(h) for h in ("a.test", "b.test", "c.test", "d.test")
    )
    assert origin_policy((), ()) is None and not NavigationPolicy().guards_origins
    assert Policies.for_service(blocked_origins=["x.test"]).navigation.guards_origins


# ----- helpers -----------------------------------------------------------------------------------


class Pages:
    """An allowed opener page, a 302 from the allowed origin to the refused one, and the refused URLs."""

    def __init__(self, site: Any) -> None:
        tag = uuid.uuid4().hex[:8]
        self.site = site
        self.evil_redirect_path = f"/origins/{tag}/evil-redirect"
        self.evil_popup_path = f"/origins/{tag}/evil-popup"
        self.evil_direct_path = f"/origins/{tag}/evil-direct"
        self.evil_direct = site.other_url + self.evil_direct_path
        self.evil_popup = site.other_url + self.evil_popup_path
        for path in (self.evil_redirect_path, self.evil_popup_path, self.evil_direct_path):
            site.add(path, "<title>evil</title>reached")
        self.home = site.add(f"/origins/{tag}/home", "<title>home</title><p>home</p>")
        target = site.other_url + self.evil_redirect_path

        async def redirect(_request: web.Request) -> web.StreamResponse:
            raise web.HTTPFound(target)

        self.redirect = site.add_handler(f"/origins/{tag}/redirect", redirect)
        # --disable-popup-blocking: a popup opened on load is opened, as an agent's click would open it.
        self.opener = site.add(
            f"/origins/{tag}/opener",
            f"<title>opener</title><button>x</button><script>window.open({self.evil_popup!r})</script>",
        )

    def untouched(self) -> bool:
        hits = self.site.hits
        return all(hits.get(p, 0) == 0 for p in (self.evil_redirect_path, self.evil_popup_path, self.evil_direct_path))

    def popup_blocked(self, browser: cdp_engine.Browser) -> bool:
        return any(url == self.evil_popup for tab in browser.tabs.values() for url, _ in tab.blocked_navigations)


@pytest.fixture
def pages(site: Any) -> Pages:
    return Pages(site)


# ----- the core and the library -------------------------------------------------------------------


async def test_context_guard_refuses_direct_redirected_and_popup_navigations(
    browser: cdp_engine.Browser, pages: Pages, site: Any, wait: Wait
) -> None:
    policy = NavigationPolicy(allowed_origins=(site.url,))
    async with await browser.new_context(navigation_policy=policy) as context:
        tab = await context.new_tab(pages.home)
        with pytest.raises(PolicyError) as refused:
            await tab.goto(pages.evil_direct)
        assert refused.value.rule == "navigation.origin_not_allowed"
        with pytest.raises(cdp_engine.NavigationError) as redirected:
            await tab.goto(pages.redirect)
        assert redirected.value.error_text.startswith("net::ERR_BLOCKED_BY_CLIENT: navigation to ")
        assert "evil-redirect" in redirected.value.error_text and "allowed origins" in redirected.value.error_text
        await tab.goto(pages.opener)
        await wait(lambda: pages.popup_blocked(browser))
        # a link in the page (not goto) is checked too
        await tab.evaluate(f"location.href = {pages.evil_direct!r}")
        await wait(lambda: any(u == pages.evil_direct for u, _ in tab.blocked_navigations))
        await tab.goto(pages.home)  # the allowed origin still loads
        assert await tab.evaluate("document.title") == "home"
    assert pages.untouched()


async def test_a_context_policy_set_later_guards_its_open_tabs(
    context: cdp_engine.BrowserContext, pages: Pages, site: Any
) -> None:
    tab = await context.new_tab(pages.home)
    await context.set_navigation_policy(NavigationPolicy(blocked_origins=(site.other_url,)))
    with pytest.raises(cdp_engine.NavigationError, match="blocked origin"):
        await tab.goto(pages.redirect)
    await context.set_navigation_policy(None)
    await tab.goto(pages.home)
    assert pages.untouched()


async def test_the_guard_and_another_route_share_a_session(
    browser: cdp_engine.Browser, pages: Pages, site: Any
) -> None:
    """Chromium keeps one Fetch pattern list per session: a route added after the guard (the MCP server's image
    blocking, a test's route) must not replace it, and the guard must not swallow the route's requests."""
    from cdp_engine.core import network

    site.add("/origins/shared/pixel.png", b"\x89PNG not really")
    page = site.add("/origins/shared/page", '<title>shared</title><img id="i" src="/origins/shared/pixel.png">')
    async with await browser.new_context(navigation_policy=NavigationPolicy(allowed_origins=(site.url,))) as context:
        tab = await context.new_tab(pages.home)
        images = network.block_resource_types(tab.session, ["Image"])
        await images
        await tab.goto(page)
        assert await tab.evaluate("document.getElementById('i').decode().then(() => 'ok', () => 'failed')") == "failed"
        with pytest.raises(cdp_engine.NavigationError, match="ERR_BLOCKED_BY_CLIENT"):
            await tab.goto(pages.redirect)  # the guard still sees documents
        images.stop()
        await tab.goto(page)  # the guard still works with the other route gone, and images load again
        assert await tab.evaluate("document.getElementById('i').complete") is True
        with pytest.raises(PolicyError):
            await tab.goto(pages.evil_direct)
    assert site.hits.get("/origins/shared/pixel.png", 0) >= 1 and pages.untouched()


async def test_launch_allowed_origins_and_the_element_index(pages: Pages, site: Any, wait: Wait) -> None:
    with pytest.raises(ValueError, match="not an origin"):
        cdp_engine.launch(allowed_origins=["https://x.test/path"])
    async with cdp_engine.launch(allowed_origins=[site.url]) as browser:
        tab = await browser.new_tab(pages.home)
        state = await tab.act({"action": "navigate", "url": pages.evil_direct}, screenshot=False)
        assert state["error"]["code"] == "ACTION_VALIDATION_FAILED" and "allowed origin" in state["error"]["message"]
        state = await tab.act({"action": "navigate", "url": pages.redirect}, screenshot=False)
        assert state["error"]["code"] == "NAVIGATION_FAILED", state["error"]
        assert "ERR_BLOCKED_BY_CLIENT" in state["error"]["message"]
        state = await tab.act({"action": "navigate", "url": pages.opener}, screenshot=False)
        assert "error" not in state
        await wait(lambda: pages.popup_blocked(browser))
    assert pages.untouched()


async def test_the_element_index_follows_its_context_policy(
    browser: cdp_engine.Browser, pages: Pages, site: Any
) -> None:
    async with await browser.new_context(
        navigation_policy=NavigationPolicy(blocked_origins=(site.other_url,))
    ) as context:
        tab = await context.new_tab(pages.home)
        state = await ElementIndex.of(tab).act({"action": "navigate", "url": pages.evil_direct}, screenshot=False)
        assert state["error"]["code"] == "ACTION_VALIDATION_FAILED" and "blocked origin" in state["error"]["message"]
    assert pages.untouched()


# ----- the surfaces -------------------------------------------------------------------------------


async def test_mcp_server(browser: cdp_engine.Browser, pages: Pages, site: Any, wait: Wait) -> None:
    async with InstanceManager(Config(allowed_origins=(site.url,)), browser=browser) as manager:
        tools = BrowserTools(manager)
        assert (await tools.call("browser_create_instance", {"name": "o"}))["status"] == "success"
        refused = await tools.call("browser_navigate", {"instance": "o", "url": pages.evil_direct})
        assert refused["error_type"] == "invalid_params" and "navigation.origin_not_allowed" in refused["message"]
        redirected = await tools.call("browser_navigate", {"instance": "o", "url": pages.redirect})
        assert redirected["error_type"] == "navigation_failed", redirected
        assert "ERR_BLOCKED_BY_CLIENT" in redirected["message"]
        opened = await tools.call("browser_navigate", {"instance": "o", "url": pages.opener})
        assert opened["status"] == "success", opened
        await wait(lambda: pages.popup_blocked(browser))
        storage = await tools.call("browser_get_local_storage", {"instance": "o", "origin": site.other_url})
        assert storage["error_type"] == "invalid_params"
    assert pages.untouched()


async def test_http_service(browser: cdp_engine.Browser, pages: Pages, site: Any, wait: Wait) -> None:
    token = "origins-token"
    policies = Policies.for_service(blocked_origins=[site.other_url])
    app = create_app(browser, token=token, start_url=pages.home, policies=policies)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    headers = {"Authorization": f"Bearer {token}"}

    async def act(action: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with http.post(url + "/action?screenshot=0", data=orjson.dumps(action), headers=headers) as resp:
            return resp.status, orjson.loads(await resp.read())

    try:
        async with ClientSession() as http:
            status, state = await act({"action": "navigate", "url": pages.evil_direct})
            assert status == 400 and "blocked origin" in state["error"]["message"]
            status, state = await act({"action": "navigate", "url": pages.redirect})
            assert status == 200 and state["error"]["code"] == "NAVIGATION_FAILED", state
            status, state = await act({"action": "navigate", "url": pages.opener})
            assert status == 200 and "error" not in state
            await wait(lambda: pages.popup_blocked(browser))
    finally:
        await runner.cleanup()
    assert pages.untouched()


async def test_browser_toolset(browser: cdp_engine.Browser, pages: Pages, site: Any, wait: Wait) -> None:
    config = ToolsetConfig(allowed_origins=[site.url])
    async with BrowserToolset(browser, config=config) as ts:
        content, is_error = await ts.call("navigate", {"url": pages.evil_direct})
        assert is_error and content[0]["text"] == "Error: Navigation refused. That site's origin is not allowed in this browser."
        content, is_error = await ts.call("navigate", {"url": pages.redirect})
        assert is_error and "ERR_BLOCKED_BY_CLIENT" in content[0]["text"], content
        content, is_error = await ts.call("navigate", {"url": pages.opener})
        assert not is_error, content
        await wait(lambda: pages.popup_blocked(browser))
    assert pages.untouched()


async def test_harness(browser: cdp_engine.Browser, pages: Pages, site: Any, wait: Wait) -> None:
    with pytest.raises(ValueError, match="not an origin"):
        BrowserEnv(browser, allowed_origins=["https://x.test/path"])
    async with BrowserEnv(browser, allowed_origins=[site.url], prewarm=False) as env:
        await env.reset(pages.home)
        _obs, info = await env.step({"action": "navigate", "url": pages.evil_direct})
        assert info["error"]["code"] == "ACTION_VALIDATION_FAILED"
        _obs, info = await env.step(f"goto({pages.redirect!r})")
        assert info["error"]["code"] == "NAVIGATION_FAILED", info["error"]
        _obs, info = await env.step({"action": "navigate", "url": pages.opener})
        assert info["error"] is None
        await wait(lambda: pages.popup_blocked(browser))
    assert pages.untouched()


def test_docs_list_the_origin_rules() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "policies.md").read_text()
    for word in ("navigation.blocked_origin", "navigation.origin_not_allowed", "--allowed-origins", "--blocked-origins"):
        assert word in text
    assert re.search(r"302", text) and "window.open" in text
