"""Attaching to a browser the engine did not start, and logins that persist (issue 17, Builds 1 and 2).

Every attach test runs against a Chromium the test starts itself (tests/attached.py: its own profile and
--remote-debugging-port=0), never the session's launched browser, so detaching is checked the way a
user's own browser sees it: the browser keeps running and keeps its tabs.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import pytest_asyncio
from aiohttp import web
from attached import UserChrome, start_user_chrome
from conftest import Site

import cdp_engine
from cdp_engine.cdp.discovery import AUTO_CONNECT_DIRS_ENV, profile_folders
from cdp_engine.errors import AttachError, LaunchError, StorageStateError


@pytest_asyncio.fixture
async def chrome(tmp_path: Path) -> AsyncIterator[UserChrome]:
    chrome = await start_user_chrome(tmp_path / "user-profile")
    try:
        yield chrome
    finally:
        chrome.stop()
    assert not chrome.running()


LOGIN_PAGE = """<!doctype html><title>login</title><script>
localStorage.setItem('token', 'local-1'); sessionStorage.setItem('tab', 'session-1');
</script><p>in</p>"""


def _login_site(site: Site) -> str:
    async def login(_request: web.Request) -> web.Response:
        response = web.Response(text=LOGIN_PAGE, content_type="text/html")
        response.set_cookie("sid", "secret-1", httponly=True, max_age=3600, path="/")
        response.set_cookie("theme", "dark", path="/")
        return response

    async def whoami(request: web.Request) -> web.Response:
        return web.Response(text=f"<p id=c>{request.cookies.get('sid', 'none')}</p>", content_type="text/html")

    site.add_handler("/attach/login", login)
    site.add_handler("/attach/whoami", whoami)
    return site.url


# ===== attach ==================================================================================


@pytest.mark.parametrize("form", ["ws", "http"])
async def test_connect_by_ws_and_http_then_detach_leaves_the_browser_and_its_tabs(
    chrome: UserChrome, site: Site, form: str
) -> None:
    site.add("/attach/user", "<title>user tab</title><p>mine</p>")
    async with cdp_engine.connect(chrome.ws_url) as probe:
        user_tab = await probe.new_tab(site.url + "/attach/user")  # the "user's" own tab, opened by another client
        probe.opened_tabs.discard(user_tab.target_id)  # keep it open past this client: it stands for the user's
    before = {p["id"] for p in await chrome.pages()}
    assert user_tab.target_id in before
    endpoint = chrome.ws_url if form == "ws" else chrome.http_url
    async with cdp_engine.connect(endpoint) as browser:
        assert browser.process is None
        assert user_tab.target_id in browser.tabs  # the user's tabs are visible
        assert (await browser.tabs[user_tab.target_id].evaluate("document.title")) == "user tab"
        context = await browser.new_context()
        isolated = await context.new_tab(site.url + "/attach/user")
        mine = await browser.new_tab(site.url + "/attach/user")  # in the user's (default) context
        during = {p["id"] for p in await chrome.pages()}
        assert {isolated.target_id, mine.target_id} <= during
    after = {p["id"] for p in await chrome.pages()}
    assert chrome.running()
    assert after == before, "detaching closes exactly the tabs the engine opened"


async def test_an_attached_browser_keeps_the_size_of_the_users_tabs(chrome: UserChrome) -> None:
    async with cdp_engine.connect(chrome.ws_url) as first:
        existing = next(iter(first.tabs.values()))
        width = await existing.evaluate("innerWidth")
    async with cdp_engine.connect(chrome.ws_url, window_size=(640, 480)) as browser:
        tab = browser.tabs[existing.target_id]
        assert await tab.evaluate("innerWidth") == width  # not emulated: the user's tab is left as it was
        opened = await browser.new_tab()
        assert await opened.evaluate("innerWidth") == 640  # the engine's own tabs get its viewport


async def test_connect_sends_extra_headers_for_hosted_browsers(chrome: UserChrome) -> None:
    seen: list[str] = []

    async def version(request: web.Request) -> web.Response:
        seen.append(request.headers.get("X-Api-Key", ""))
        return web.json_response({"Browser": "hosted", "webSocketDebuggerUrl": chrome.ws_url})

    app = web.Application()
    app.router.add_get("/json/version", version)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    server = web.TCPSite(runner, "127.0.0.1", 0)
    await server.start()
    try:
        port = runner.addresses[0][1]
        async with cdp_engine.connect(f"http://127.0.0.1:{port}", headers={"X-Api-Key": "k-123"}) as browser:
            assert browser.version.get("product")
    finally:
        await runner.cleanup()
    assert seen == ["k-123"]


async def test_the_websocket_handshake_carries_the_headers_too(chrome: UserChrome) -> None:
    """A hosted browser checks its key on the websocket itself: a proxy that refuses handshakes without it."""
    import aiohttp

    seen: list[str] = []

    async def devtools(request: web.Request) -> web.StreamResponse:
        seen.append(request.headers.get("X-Api-Key", ""))
        if request.headers.get("X-Api-Key") != "k-9":
            return web.Response(status=403, text="no key")
        client = web.WebSocketResponse(max_msg_size=0)
        await client.prepare(request)
        async with aiohttp.ClientSession() as http, http.ws_connect(chrome.ws_url, max_msg_size=0) as upstream:

            async def pump(source: Any, sink: Any) -> None:
                async for message in source:
                    await sink.send_str(message.data)

            await asyncio.wait(
                [asyncio.ensure_future(pump(client, upstream)), asyncio.ensure_future(pump(upstream, client))],
                return_when=asyncio.FIRST_COMPLETED,
            )
        return client

    app = web.Application()
    app.router.add_get("/devtools/browser/hosted", devtools)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    server = web.TCPSite(runner, "127.0.0.1", 0)
    await server.start()
    url = f"ws://127.0.0.1:{runner.addresses[0][1]}/devtools/browser/hosted"
    try:
        with pytest.raises(AttachError, match="HTTP 403"):
            await cdp_engine.connect(url, timeout=5)
        async with cdp_engine.connect(url, headers={"X-Api-Key": "k-9"}) as browser:
            assert browser.version.get("product")
    finally:
        await runner.cleanup()
    assert seen == ["", "k-9"]


async def test_bad_endpoints_are_attach_errors_with_a_clear_message(site: Site, tmp_path: Path) -> None:
    cases = [
        ("http://127.0.0.1:1", "no DevTools endpoint answered"),
        ("ws://127.0.0.1:1/devtools/browser/x", "cannot attach"),
        ("ftp://127.0.0.1/", "must be ws://"),
        (site.url, "HTTP 404"),  # something answers, but no DevTools
    ]
    for endpoint, words in cases:
        with pytest.raises(AttachError) as raised:
            async with asyncio.timeout(20):
                await cdp_engine.connect(endpoint, timeout=5)
        assert words in str(raised.value), (endpoint, str(raised.value))
        assert isinstance(raised.value, cdp_engine.ConnectionClosedError)  # what connect() raised before
    with pytest.raises(AttachError, match="auto-connect found no running browser"):
        await cdp_engine.connect(profile_dirs=[tmp_path])


async def test_auto_connect_reads_devtools_active_port(
    chrome: UserChrome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = tmp_path / "stale-profile"
    stale.mkdir()
    (stale / "DevToolsActivePort").write_text("1\n/devtools/browser/gone\n")  # a browser that crashed
    os.utime(stale / "DevToolsActivePort", (2e9, 2e9))  # newest: tried first, and passed over
    async with cdp_engine.connect(profile_dirs=[stale, chrome.profile]) as browser:
        assert browser.version.get("product")
    monkeypatch.setenv(AUTO_CONNECT_DIRS_ENV, os.pathsep.join([str(tmp_path / "none"), str(chrome.profile)]))
    assert profile_folders() == [tmp_path / "none", chrome.profile]
    async with cdp_engine.connect("auto") as browser:
        assert browser.process is None
    assert chrome.running()


def test_the_usual_profile_folders_per_platform(tmp_path: Path) -> None:
    mac = profile_folders("darwin", {})
    assert any(str(p).endswith("Library/Application Support/Google/Chrome") for p in mac)
    win = profile_folders("win32", {"LOCALAPPDATA": r"C:\Users\u\AppData\Local"})
    assert any(str(p).endswith(r"Google\Chrome\User Data") for p in win)
    linux = profile_folders("linux", {"XDG_CONFIG_HOME": str(tmp_path)})
    assert linux[0] == tmp_path / "google-chrome" and tmp_path / "chromium" in linux


# ===== storage state ============================================================================


async def test_storage_state_round_trip(browser: cdp_engine.Browser, site: Site, tmp_path: Path) -> None:
    base = _login_site(site)
    path = tmp_path / "logins" / "state.json"
    async with await browser.new_context() as first:
        tab = await first.new_tab(base + "/attach/login")
        state = await first.storage_state(path=path)
        await tab.goto("about:blank")  # its origin is no longer open: read through a blank page of its own
        again = await first.storage_state()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = orjson.loads(path.read_bytes())
    assert saved == state
    sid = next(c for c in saved["cookies"] if c["name"] == "sid")
    assert sid["httpOnly"] is True and sid["value"] == "secret-1" and sid["expires"] > 0
    entry = next(o for o in saved["origins"] if o["origin"] == base)
    assert entry["localStorage"] == [{"name": "token", "value": "local-1"}]
    assert entry["sessionStorage"] == [{"name": "tab", "value": "session-1"}]
    assert next(o for o in again["origins"] if o["origin"] == base)["localStorage"] == entry["localStorage"]

    async with await browser.new_context(storage_state=path) as second:
        tab = await second.new_tab(base + "/attach/whoami")
        assert await tab.evaluate("document.getElementById('c').textContent") == "secret-1"  # the httpOnly cookie
        assert await tab.evaluate("localStorage.getItem('token')") == "local-1"
        assert await tab.evaluate("sessionStorage.getItem('tab')") == "session-1"
        assert {c["name"] for c in await second.cookies()} >= {"sid", "theme"}
    async with await browser.new_context(storage_state=saved) as third:  # a dict works as well
        assert {c["name"] for c in await third.cookies()} >= {"sid", "theme"}


async def test_a_playwright_storage_state_file_loads(browser: cdp_engine.Browser, site: Site, tmp_path: Path) -> None:
    base = _login_site(site)
    playwright = {
        "cookies": [
            {
                "name": "sid", "value": "pw-1", "domain": "127.0.0.1", "path": "/", "expires": -1,
                "httpOnly": True, "secure": False, "sameSite": "Lax",
            }
        ],
        "origins": [{"origin": base, "localStorage": [{"name": "token", "value": "pw-local"}]}],
    }
    path = tmp_path / "pw.json"
    path.write_bytes(orjson.dumps(playwright))
    async with await browser.new_context(storage_state=str(path)) as context:
        tab = await context.new_tab(base + "/attach/whoami")
        assert await tab.evaluate("document.getElementById('c').textContent") == "pw-1"
        assert await tab.evaluate("localStorage.getItem('token')") == "pw-local"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{not json", "not valid JSON"),
        (b"[]", "must be a JSON object"),
        (b'{"cookies": [{"name": "a"}]}', "cookies[0]: 'value' must be a string"),
        (b'{"cookies": [], "origins": [{"origin": "file:///etc"}]}', "origins[0]"),
        (b'{"cookies": [{"name": "a", "value": "b", "domain": "x.test", "sameSite": "Sometimes"}]}', "sameSite"),
        (b'{"cookie": []}', "unknown key"),
    ],
)
async def test_a_malformed_storage_state_is_a_clear_error_and_changes_nothing(
    browser: cdp_engine.Browser, tmp_path: Path, content: bytes, words: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    contexts = set(browser.contexts)
    listed = (await browser.connection.root.send("Target.getBrowserContexts"))["browserContextIds"]
    with pytest.raises(StorageStateError) as raised:
        await browser.new_context(storage_state=path)
    assert str(path) in str(raised.value) and words in str(raised.value), str(raised.value)
    assert set(browser.contexts) == contexts
    assert (await browser.connection.root.send("Target.getBrowserContexts"))["browserContextIds"] == listed
    with pytest.raises(StorageStateError, match="cannot read it"):
        await browser.new_context(storage_state=tmp_path / "missing.json")


async def test_user_data_dir_keeps_a_login_across_two_launches(site: Site, tmp_path: Path) -> None:
    base = _login_site(site)
    profile = tmp_path / "profile"
    async with cdp_engine.launch(user_data_dir=profile) as browser:
        tab = await browser.new_tab(base + "/attach/login")
        assert await tab.evaluate("localStorage.getItem('token')") == "local-1"
    assert profile.is_dir() and stat.S_IMODE(profile.stat().st_mode) == 0o700  # kept, and owner-only
    async with cdp_engine.launch(user_data_dir=profile) as browser:
        tab = await browser.new_tab(base + "/attach/whoami")
        assert await tab.evaluate("document.getElementById('c').textContent") == "secret-1"
        assert await tab.evaluate("localStorage.getItem('token')") == "local-1"
    assert profile.is_dir()


async def test_a_profile_in_use_is_a_launch_error(chrome: UserChrome) -> None:
    with pytest.raises(LaunchError, match="in use by another running Chromium"):
        await cdp_engine.launch(user_data_dir=chrome.profile)
    assert chrome.running()


async def test_the_default_context_lists_its_tabs(browser: cdp_engine.Browser) -> None:
    """Regression: BrowserContext.tabs of the default context compared with a default_context_id nothing set, so
    it listed none of the default context's tabs (storage_state and set_storage_state need them)."""
    tab = await browser.new_tab()
    try:
        assert tab in browser.default_context.tabs
        context = await browser.new_context()
        other = await context.new_tab()
        assert other not in browser.default_context.tabs and context.tabs == [other]
        await context.close()
    finally:
        await tab.close()
