"""The core APIs the surfaces call instead of raw CDP (scripts, emulation, network, observers, cookies,
targets), on a real headless Chromium against pages served on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import cdp_engine
from cdp_engine.core import emulation, network, observers, scripts
from cdp_engine.core.worlds import Worlds
from cdp_engine.errors import JavaScriptError, NavigationError

PAGE = """<title>apis</title><button id="b" aria-label="Go now">B</button>
<script>window.secret = 42;</script>"""


async def test_evaluate_in_default_and_isolated_context(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/apis/eval", PAGE))
    assert await scripts.evaluate_value(tab.session, "window.secret") == 42
    assert await scripts.evaluate_value(tab.session, "Promise.resolve(7)") == 7
    context = await Worlds.of(tab).context(tab.main_frame_id)
    # The isolated world sees the DOM but not the page's globals.
    assert await scripts.evaluate_value(tab.session, "typeof window.secret", context_id=context) == "undefined"
    assert await scripts.evaluate_value(tab.session, "document.title", context_id=context) == "apis"
    remote = await scripts.evaluate(tab.session, "document.body", by_value=False, await_promise=False)
    assert remote["type"] == "object" and "objectId" in remote
    scripts.release(tab.session, remote["objectId"])
    undefined = await scripts.evaluate(tab.session, "undefined")
    assert undefined["type"] == "undefined"
    with pytest.raises(JavaScriptError) as caught:
        await scripts.evaluate(tab.session, "throw new TypeError('boom')")
    assert "TypeError: boom" in str(caught.value)
    assert scripts.exception_text(caught.value.details).startswith("TypeError: boom")


async def test_gesture_and_script_timeout(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/apis/gesture", PAGE))
    assert await scripts.evaluate_value(tab.session, "navigator.userActivation.isActive", user_gesture=True) is True
    # replMode: top-level await and let re-declaration, as a console would.
    assert await scripts.evaluate_value(tab.session, "let r = await Promise.resolve(3); r", repl_mode=True) == 3
    with pytest.raises(cdp_engine.CDPEngineError):
        await scripts.evaluate(tab.session, "while (true) {}", script_timeout=0.2, timeout=5.0)
    assert await tab.evaluate("1 + 1") == 2  # the page still answers after a terminated script


async def test_call_on_node_describe_and_ax(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/apis/node", PAGE))
    button = await scripts.evaluate(tab.session, "document.getElementById('b')", by_value=False)
    node = await scripts.describe_node(tab.session, button["objectId"])
    assert node["nodeName"] == "BUTTON"
    backend = node["backendNodeId"]
    called = await scripts.call_function(tab.session, button["objectId"], "function(s) { return this.id + s; }", "!")
    assert called["value"] == "b!"
    on_node = await scripts.call_on_node(tab.session, backend, "async function() { return this.textContent; }")
    assert on_node["value"] == "B"
    # In a given context: the page world sees the page's globals from a node's function too.
    assert (await scripts.call_on_node(tab.session, backend, "function() { return window.secret; }"))["value"] == 42
    context = await Worlds.of(tab).context(tab.main_frame_id)
    isolated = await scripts.call_on_node(
        tab.session, backend, "function() { return typeof window.secret; }", context_id=context
    )
    assert isolated["value"] == "undefined"
    with pytest.raises(JavaScriptError):
        await scripts.call_on_node(tab.session, backend, "function() { throw new Error('no'); }")
    ax = await scripts.ax_node(tab.session, backend)
    assert ax["role"]["value"] == "button" and ax["name"]["value"] == "Go now"
    scripts.release(tab.session, button["objectId"])


async def test_viewport_and_locale_emulation(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/apis/emulation", PAGE))
    await emulation.set_viewport(tab, 500, 400)
    assert await tab.evaluate("[innerWidth, innerHeight]") == [500, 400]
    await emulation.set_viewport(tab.session, 640, 480, device_scale_factor=2)
    assert await tab.evaluate("[innerWidth, innerHeight, devicePixelRatio]") == [640, 480, 2]
    await emulation.set_locale(tab, "de-DE")
    assert await tab.evaluate("Intl.DateTimeFormat().resolvedOptions().locale") == "de-DE"
    assert await tab.evaluate("(1234.5).toLocaleString()") == "1.234,5"


async def test_block_images(tab: cdp_engine.Tab, site: Any) -> None:
    site.add("/apis/pixel.png", b"\x89PNG not really")
    url = site.add("/apis/images", '<img id="i" src="/apis/pixel.png">')
    route = network.block_resource_types(tab.session, ["Image"])
    await route
    await tab.goto(url)
    outcome = await tab.evaluate("document.getElementById('i').decode().then(() => 'ok', () => 'failed')")
    assert outcome == "failed"
    assert site.hits.get("/apis/pixel.png", 0) == 0
    route.stop()


async def test_route_fulfil_fail_continue(tab: cdp_engine.Tab, site: Any) -> None:
    real = site.add("/apis/real", "<title>real</title>")
    seen: list[network.PausedRequest] = []

    def decide(request: network.PausedRequest) -> network.Decision:
        seen.append(request)
        if request.url.endswith("/apis/local"):
            return network.Fulfill(200, {"Content-Type": "text/html"}, "<title>local</title>")
        if request.url.endswith("/apis/blocked"):
            return network.Fail("AccessDenied")
        return None

    route = network.route(tab.session, decide, url_pattern=site.url + "/apis/*")
    await route.enabled
    await tab.goto(site.url + "/apis/local")
    assert await tab.evaluate("document.title") == "local"
    assert site.hits.get("/apis/local", 0) == 0
    assert seen[-1].resource_type == "Document" and seen[-1].method == "GET"
    with pytest.raises(NavigationError):
        await tab.goto(site.url + "/apis/blocked")
    await tab.goto(real)  # continued unchanged
    assert await tab.evaluate("document.title") == "real"
    route.stop()


async def test_cookies_of_a_context(browser: cdp_engine.Browser, site: Any) -> None:
    first = await browser.new_context()
    second = await browser.new_context()
    try:
        await first.add_cookies(
            [
                {"name": "a", "value": "1", "url": site.url},
                {"name": "b", "value": "2", "domain": "127.0.0.1", "path": "/x", "httpOnly": True},
            ]
        )
        cookies = {c["name"]: c for c in await first.cookies()}
        assert cookies["a"]["value"] == "1" and cookies["b"]["path"] == "/x" and cookies["b"]["httpOnly"]
        assert await second.cookies() == []  # contexts never share cookies
        tab = await first.new_tab(site.add("/apis/cookies", "<p>c</p>"))
        assert await tab.evaluate("document.cookie") == "a=1"
        await first.clear_cookies()
        assert await first.cookies() == []
        assert await tab.evaluate("document.cookie") == ""
    finally:
        await first.close()
        await second.close()


async def test_targets(browser: cdp_engine.Browser, tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/apis/targets", "<title>listed</title>"))
    infos = {t["targetId"]: t for t in await browser.targets()}
    assert infos[tab.target_id]["type"] == "page"
    assert infos[tab.target_id]["title"] == "listed"
    assert infos[tab.target_id]["url"].endswith("/apis/targets")


async def test_console_and_network_observers(
    tab: cdp_engine.Tab, site: Any, wait: Callable[..., Awaitable[None]]
) -> None:
    logged: list[dict[str, Any]] = []
    thrown: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    finished: list[dict[str, Any]] = []
    console = observers.watch_console(tab.session, on_console=logged.append, on_exception=thrown.append)
    traffic = observers.watch_network(
        tab.session, on_request=requests.append, on_finished=finished.append, keep_bodies=False
    )
    listening: list[dict[str, Any]] = []
    listener = observers.watch_network(tab.session, on_request=listening.append, enable=False)
    await asyncio.gather(console.enabled, traffic.enabled, listener.enabled)
    await tab.goto(site.add("/apis/observed", "<script>console.log('hi', 1); setTimeout(() => { throw new Error('x'); });</script>"))
    await wait(lambda: bool(logged) and bool(thrown) and bool(finished))
    assert [a.get("value") for a in logged[0]["args"]] == ["hi", 1]
    assert "Error: x" in thrown[0]["exceptionDetails"]["exception"]["description"]
    assert any(r["request"]["url"].endswith("/apis/observed") for r in requests)
    assert [r["requestId"] for r in listening] == [r["requestId"] for r in requests]  # listens, no second enable
    listener.close()
    console.close()
    traffic.close()
    count = len(logged)
    await tab.evaluate("console.log('after')")
    await tab.evaluate("1")  # a round trip after the console event would have arrived
    assert len(logged) == count


async def test_launch_takes_the_viewport_option_by_its_name() -> None:
    # One name across the command line (--viewport), the option table and the library (window_size= still works).
    async with cdp_engine.launch(viewport=(800, 600)) as browser:
        tab = await browser.new_tab()
        assert await tab.evaluate("[innerWidth, innerHeight]") == [800, 600]
