"""The one lifecycle watcher (core/lifecycle.py) and the one settle (core/settle.py), on real Chromium."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest
from aiohttp import web

import cdp_engine
from cdp_engine.core.input import click_at
from cdp_engine.core.lifecycle import LifecycleWatcher, wait_loaded
from cdp_engine.core.settle import settle
from cdp_engine.errors import NavigationError, TargetClosedError


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def center(tab: cdp_engine.Tab, selector: str) -> tuple[float, float]:
    x, y = await tab.evaluate(
        f"(() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    return float(x), float(y)


@pytest.mark.parametrize("wait_until", ["commit", "domcontentloaded", "load", "networkalmostidle", "networkidle"])
async def test_goto_reaches_each_lifecycle_point(tab: cdp_engine.Tab, site: Any, wait_until: str) -> None:
    url = site.add(f"/lc/goto-{wait_until}", "<h1>Here</h1><img src='/lc/missing.png'>")
    response = await tab.goto(url, wait_until=wait_until)  # type: ignore[arg-type]
    assert response.loader_id and not response.same_document and not response.dialog
    assert tab.url == url
    if wait_until != "commit":
        assert response.status == 200
        name = {"domcontentloaded": "DOMContentLoaded", "load": "load",
                "networkalmostidle": "networkAlmostIdle", "networkidle": "networkIdle"}[wait_until]  # fmt: skip
        main = tab.frames[tab.main_frame_id]
        assert main.loader_id == response.loader_id and name in main.lifecycle


async def test_unknown_wait_name_is_refused(tab: cdp_engine.Tab) -> None:
    with pytest.raises(ValueError, match="wait_until"):
        await tab.goto("about:blank", wait_until="idle")  # type: ignore[arg-type]


async def test_failed_navigation_is_a_clear_error_and_the_tab_stays_usable(tab: cdp_engine.Tab, site: Any) -> None:
    ok = site.add("/lc/ok", "<h1>Fine</h1>")
    await tab.goto(ok)
    started = time.perf_counter()
    with pytest.raises(NavigationError) as caught:
        await tab.goto(f"http://127.0.0.1:{closed_port()}/nothing", timeout=10)
    assert caught.value.error_text == "net::ERR_CONNECTION_REFUSED"
    assert time.perf_counter() - started < 5
    assert await tab.evaluate("1 + 1", timeout=5) == 2  # usable at once, no waiting on the error page
    response = await tab.goto(ok, timeout=10)
    assert response.status == 200 and await tab.evaluate("document.querySelector('h1').textContent") == "Fine"


async def test_same_document_navigations(tab: cdp_engine.Tab, site: Any) -> None:
    url = site.add(
        "/lc/same",
        "<button onclick=\"history.pushState({}, '', '/lc/pushed')\">push</button>",
    )
    await tab.goto(url)
    response = await tab.goto(url + "#part")
    assert response.same_document and response.loader_id is None and tab.url == url + "#part"
    x, y = await center(tab, "button")
    with LifecycleWatcher(tab) as watcher:
        await click_at(tab, x, y)
        result = await watcher.wait("load", 5.0, same_document=True)
    assert result.same_document and not result.reached and not watcher.committed
    assert tab.url == site.url + "/lc/pushed"
    back = await tab.back(timeout=5)  # a same-document history entry
    assert back is not None and back.same_document and tab.url == url + "#part"


async def test_navigation_started_by_a_click(tab: cdp_engine.Tab, site: Any) -> None:
    target = site.add("/lc/clicked-target", "<h1>Arrived</h1>")
    url = site.add("/lc/clicked", f"<a href='{target}' style='font-size:40px'>next</a>")
    await tab.goto(url)
    x, y = await center(tab, "a")
    with LifecycleWatcher(tab) as watcher:
        await click_at(tab, x, y)
        result = await watcher.wait("load", 10.0)
    assert result.reached and result.navigated and not result.dialog
    assert tab.url == target and "load" in tab.frames[tab.main_frame_id].lifecycle
    # The settle after an action sees the same navigation and reports its phases.
    await tab.goto(url)
    x, y = await center(tab, "a")
    report = await settle(tab, click_at(tab, x, y))
    assert report.navigated and report.loaded and report.waited_for[:2] == ["navigation", "dom"]
    assert report.settle_ms >= report.navigation_ms > 0 and tab.url == target


async def test_settle_without_navigation_waits_for_dom_quiet(tab: cdp_engine.Tab, site: Any) -> None:
    url = site.add(
        "/lc/quiet",
        """<button onclick="setTimeout(() => { document.getElementById('o').textContent = 'LATE' }, 0)"
           style='font-size:40px'>go</button><p id=o>early</p>""",
    )
    await tab.goto(url)
    x, y = await center(tab, "button")
    report = await settle(tab, click_at(tab, x, y))
    # The handler changed nothing at once: the page got its task turn (its zero-delay timer ran in it or
    # before the look) and the settle saw the change.
    assert not report.navigated and report.waited_for == ["dom"] and report.changed
    assert await tab.evaluate("document.getElementById('o').textContent") == "LATE"


async def test_held_dialog_ends_a_wait_at_once(tab: cdp_engine.Tab, site: Any) -> None:
    url = site.add("/lc/load-alert", "<p>before</p><script>alert('while loading')</script><p>after</p>")
    tab.dialog_policy = "hold"
    try:
        started = time.perf_counter()
        response = await tab.goto(url, timeout=20)
        assert response.dialog and time.perf_counter() - started < 5
        assert tab.pending_dialog is not None and tab.pending_dialog.message == "while loading"
        await tab.handle_dialog(True)
        assert await wait_loaded(tab, 10.0)
        # The same through the settle after an action (the dialog opens just after the input is delivered).
        button = site.add(
            "/lc/confirm", "<button onclick=\"setTimeout(() => confirm('sure?'), 0)\" style='font-size:40px'>ask</button>"
        )
        await tab.goto(button)
        x, y = await center(tab, "button")
        started = time.perf_counter()
        report = await settle(tab, click_at(tab, x, y))
        assert report.dialog and time.perf_counter() - started < 2
        await tab.handle_dialog(False)
    finally:
        tab.dialog_policy = "dismiss"


async def test_tab_closed_during_a_wait_fails_at_once(context: cdp_engine.BrowserContext, site: Any) -> None:
    release = asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        with_timeout = asyncio.wait_for(release.wait(), 20)
        try:
            await with_timeout
        except TimeoutError:
            pass
        return web.Response(text="<h1>late</h1>", content_type="text/html")

    target = site.add_handler("/lc/slow", slow)
    url = site.add("/lc/to-slow", f"<a href='{target}' style='font-size:40px'>slow</a>")
    tab = await context.new_tab()
    await tab.goto(url)
    x, y = await center(tab, "a")
    try:
        with LifecycleWatcher(tab) as watcher:
            await click_at(tab, x, y)
            waiting = asyncio.ensure_future(watcher.wait("load", 30.0))
            await asyncio.sleep(0.2)  # let the navigation start; the wait must still be pending
            assert not waiting.done()
            started = time.perf_counter()
            await tab.close()
            with pytest.raises(TargetClosedError):
                await asyncio.wait_for(waiting, 5)
            assert time.perf_counter() - started < 5
        with pytest.raises(cdp_engine.CDPEngineError):
            await LifecycleWatcher(tab).wait("load", 30.0)  # a closed tab fails before waiting at all
    finally:
        release.set()
