"""The engine against a real headless Chromium: launch, connect, transports, navigation, dialogs,
downloads, popups, frames, contexts, evaluation and screenshots.

Most tests share the session browser from conftest (a fresh context and tab each). Tests that must
kill, close or reconfigure a browser launch their own; launches are kept few (each costs ~0.5 s).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from procs import live_processes_with

import cdp_engine
from cdp_engine import (
    ConnectionClosedError,
    JavaScriptError,
    NavigationError,
    NavigationTimeoutError,
    ProtocolError,
    TargetClosedError,
)

TRANSPORTS = ("websocket", "pipe")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

_counter = iter(range(1, 1_000_000))


def unique(prefix: str) -> str:
    """A path no other test uses, so pages never come from another test's cache or history."""
    return f"/{prefix}-{os.getpid()}-{next(_counter)}"


# ----- /proc helpers ------------------------------------------------------------------------------


def live_process_group(pgid: int) -> list[int]:
    """Pids of running (not zombie) processes in process group pgid."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


async def eventually(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait until predicate() holds, failing the test with `what` after the deadline."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {timeout:g} s: {what}")
        await asyncio.sleep(0.05)


def closed_port() -> int:
    """A loopback port that was free a moment ago and has nothing listening now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ----- image parsing ------------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, chunk = struct.unpack(">I4s", data[8:16])
    assert chunk == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def jpeg_size(data: bytes) -> tuple[int, int]:
    assert data[:2] == b"\xff\xd8", "not a JPEG"
    i = 2
    while i < len(data):
        assert data[i] == 0xFF
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    raise AssertionError("no SOF marker in JPEG")


# ===== launch, kill, connect =====================================================================


async def test_launch_speaks_the_pipe_by_default_and_serves_no_devtools_url(browser: cdp_engine.Browser) -> None:
    # The session's browser is a plain launch(): the pipe (cheaper per message, no port); the websocket only
    # when asked for (test_connect_to_separately_started_browser: remote browsers).
    from cdp_engine.cdp.transport import PipeTransport, WebSocketTransport

    assert browser.process is not None
    assert isinstance(browser.process.transport, PipeTransport)
    assert browser.process.ws_url is None
    cmdline = Path(f"/proc/{browser.process.process.pid}/cmdline").read_bytes().split(b"\0")
    assert b"--remote-debugging-pipe" in cmdline
    assert not [a for a in cmdline if a.startswith(b"--remote-debugging-port")]
    async with cdp_engine.launch(transport="websocket") as other:
        assert other.process is not None and isinstance(other.process.transport, WebSocketTransport)
        assert other.process.ws_url and other.process.ws_url.startswith("ws://127.0.0.1:")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_launch_and_close_leave_no_process_or_folder(site: Any, transport: str) -> None:
    url = site.add(unique("cleanup"), "<iframe src='about:blank'></iframe><p>hello</p>")
    browser = await cdp_engine.launch(transport=transport)
    assert browser.process is not None
    pid = browser.process.process.pid
    profile = browser.process.user_data_dir
    downloads = browser.downloads_dir
    try:
        tab = await browser.new_tab(url)
        assert await tab.evaluate("document.querySelector('p').textContent") == "hello"
        assert profile.is_dir() and downloads.is_dir()
        assert pid in live_processes_with(f"--user-data-dir={profile}")
        assert len(live_processes_with(str(profile))) > 1, "expected renderer/utility processes too"
    finally:
        async with asyncio.timeout(15):
            await browser.close()
    assert browser.closed
    assert not profile.exists(), "profile folder left behind"
    assert not downloads.exists(), "downloads folder left behind"
    await eventually(lambda: not live_processes_with(str(profile)), 3.0, "every Chromium process has exited")
    assert not live_process_group(pid), "a process of Chromium's group is still running"
    assert browser.process.process.returncode is not None
    # Closing again is a no-op.
    async with asyncio.timeout(5):
        await browser.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_browser_killed_from_outside_fails_pending_commands(transport: str) -> None:
    browser = await cdp_engine.launch(transport=transport)
    assert browser.process is not None
    profile = browser.process.user_data_dir
    try:
        tab = await browser.new_tab()
        never = asyncio.ensure_future(tab.evaluate("new Promise(() => {})", timeout=60))
        assert await tab.evaluate("1 + 1") == 2  # commands are ordered: the promise is in flight now
        assert not never.done()

        os.kill(browser.process.process.pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(ConnectionClosedError):
            async with asyncio.timeout(1.0):
                await never
        assert time.monotonic() - started < 1.0
        assert browser.closed and tab.closed

        # Anything sent afterwards fails at once.
        started = time.monotonic()
        with pytest.raises(ConnectionClosedError):
            await tab.evaluate("1")
        with pytest.raises(ConnectionClosedError):
            await browser.connection.root.send("Browser.getVersion")
        with pytest.raises(ConnectionClosedError):
            await browser.new_tab()
        assert time.monotonic() - started < 0.5
    finally:
        async with asyncio.timeout(15):
            await browser.close()
    assert not profile.exists()
    await eventually(lambda: not live_processes_with(str(profile)), 3.0, "every Chromium process has exited")


@pytest.fixture
def external_chromium() -> Any:
    """A Chromium started by hand (not by cdp_engine), with --remote-debugging-port=0."""
    profile = Path(tempfile.mkdtemp(prefix="cdp-engine-test-external-"))
    args = [
        CHROMIUM,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-breakpad",
        "--no-first-run",
        "--no-default-browser-check",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    proc = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        lines: list[str] = []
        while True:
            if port_file.exists():
                lines = port_file.read_text().splitlines()
                if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                    break
            assert proc.poll() is None, "Chromium exited before writing DevToolsActivePort"
            assert time.monotonic() < deadline, "no DevToolsActivePort within 20 s"
            time.sleep(0.05)
        yield proc, int(lines[0]), lines[1].strip()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        shutil.rmtree(profile, ignore_errors=True)


async def test_connect_to_separately_started_browser(site: Any, external_chromium: Any) -> None:
    proc, port, path = external_chromium
    url = site.add(unique("connect"), "<title>connected</title><p>over connect</p>")
    ws_url = f"ws://127.0.0.1:{port}{path}"
    async with asyncio.timeout(30):
        for endpoint in (ws_url, f"http://127.0.0.1:{port}"):
            async with cdp_engine.connect(endpoint) as browser:
                assert browser.process is None
                assert "Chrome" in browser.version.get("product", "")
                context = await browser.new_context()
                tab = await context.new_tab(url)
                assert tab.context_id == context.id
                assert await tab.evaluate("document.querySelector('p').textContent") == "over connect"
                assert tab.url == url
                assert await tab.evaluate("document.title") == "connected"
                downloads = browser.downloads_dir
                context_id = context.id
            # Closing a connected client disposes only what it created and leaves the browser running.
            assert browser.closed
            assert proc.poll() is None, "closing a connect()ed browser must not stop Chromium"
            assert not downloads.exists()
            async with cdp_engine.connect(ws_url) as again:
                contexts = await again.connection.root.send("Target.getBrowserContexts")
                assert context_id not in contexts["browserContextIds"]


async def test_connect_to_nothing_fails_cleanly() -> None:
    port = closed_port()
    with pytest.raises((ConnectionClosedError, OSError)):
        async with asyncio.timeout(10):
            await cdp_engine.connect(f"ws://127.0.0.1:{port}/devtools/browser/x", timeout=3)


# ===== both transports ===========================================================================


@pytest_asyncio.fixture(scope="module", params=TRANSPORTS)
async def transport_browser(request: pytest.FixtureRequest) -> AsyncIterator[cdp_engine.Browser]:
    async with cdp_engine.launch(transport=request.param) as browser:
        yield browser


async def test_transport_evaluate_and_concurrent_commands(transport_browser: cdp_engine.Browser) -> None:
    tab = await transport_browser.new_tab()
    try:
        assert await tab.evaluate("({a: [1, 'two', null], b: true})") == {"a": [1, "two", None], "b": True}
        results = await asyncio.gather(*[tab.evaluate(f"{i} * 2") for i in range(200)])
        assert results == [i * 2 for i in range(200)]
    finally:
        await tab.close()


async def test_transport_large_messages(transport_browser: cdp_engine.Browser) -> None:
    tab = await transport_browser.new_tab()
    try:
        big = await tab.evaluate("'x'.repeat(8 * 1024 * 1024) + 'end'", timeout=20)
        assert len(big) == 8 * 1024 * 1024 + 3 and big.endswith("end")
        payload = "y" * (3 * 1024 * 1024)
        assert await tab.evaluate(f"'{payload}'.length", timeout=20) == len(payload)
    finally:
        await tab.close()


async def test_transport_errors_and_timeouts(transport_browser: cdp_engine.Browser) -> None:
    tab = await transport_browser.new_tab()
    try:
        with pytest.raises(ProtocolError) as info:
            await tab.session.send("Nope.notAMethod")
        assert info.value.code == -32601
        started = time.monotonic()
        with pytest.raises(cdp_engine.CommandTimeoutError):
            await tab.session.send(
                "Runtime.evaluate", {"expression": "new Promise(() => {})", "awaitPromise": True}, timeout=0.3
            )
        assert time.monotonic() - started < 2.0
        assert await tab.evaluate("'still fine'") == "still fine"
    finally:
        await tab.close()


async def test_transport_navigation_and_events(transport_browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(unique("transport-nav"), "<title>t</title><p>page</p>")
    tab = await transport_browser.new_tab()
    try:
        loaded = tab.session.wait_for("Page.loadEventFired")
        response = await tab.goto(url)
        assert response.status == 200 and response.url == url
        await loaded.wait(5)
        assert tab.url == url
    finally:
        await tab.close()
    assert tab.closed
    started = time.monotonic()
    with pytest.raises(TargetClosedError):
        await tab.evaluate("1")
    with pytest.raises(TargetClosedError):
        await tab.session.send("Runtime.evaluate", {"expression": "1"})
    assert time.monotonic() - started < 0.5


async def test_transport_init_script_in_every_frame(transport_browser: cdp_engine.Browser, site: Any) -> None:
    await transport_browser.add_init_script("window.__initMark = (window.__initMark || 0) + 1")
    try:
        await _check_init_script_everywhere(site, lambda: transport_browser.new_tab(), "__initMark")
    finally:
        transport_browser.init_scripts.remove("window.__initMark = (window.__initMark || 0) + 1")


# ===== tabs, targets ==============================================================================


async def test_command_to_closed_tab_fails_fast(context: cdp_engine.BrowserContext) -> None:
    tab = await context.new_tab()
    pending = asyncio.ensure_future(tab.evaluate("new Promise(() => {})", timeout=60))
    assert await tab.evaluate("1") == 1
    started = time.monotonic()
    await tab.close()
    with pytest.raises(TargetClosedError):
        async with asyncio.timeout(2):
            await pending
    assert tab.closed and tab.target_id not in context.browser.tabs
    with pytest.raises(TargetClosedError):
        await tab.evaluate("1")
    with pytest.raises(TargetClosedError):
        await tab.goto("about:blank")
    with pytest.raises(TargetClosedError):
        await tab.session.send("Page.reload")
    assert time.monotonic() - started < 2.0


async def test_tab_closed_by_the_browser_fails_pending_command(context: cdp_engine.BrowserContext) -> None:
    tab = await context.new_tab()
    pending = asyncio.ensure_future(tab.evaluate("new Promise(() => {})", timeout=60))
    assert await tab.evaluate("1") == 1
    await context.browser.connection.root.send("Target.closeTarget", {"targetId": tab.target_id})
    with pytest.raises(TargetClosedError):
        async with asyncio.timeout(2):
            await pending
    assert tab.closed


# ===== navigation =================================================================================


async def test_navigation_to_closed_port_reports_chromium_error(tab: cdp_engine.Tab) -> None:
    port = closed_port()
    url = f"http://127.0.0.1:{port}/"
    started = time.monotonic()
    with pytest.raises(NavigationError) as info:
        await tab.goto(url, timeout=10)
    assert not isinstance(info.value, NavigationTimeoutError)
    assert info.value.error_text == "net::ERR_CONNECTION_REFUSED"
    assert info.value.url == url
    assert "net::ERR_CONNECTION_REFUSED" in str(info.value)
    assert time.monotonic() - started < 5
    with pytest.raises(NavigationError) as unsafe:
        await tab.goto("http://127.0.0.1:1/", timeout=10)
    assert unsafe.value.error_text == "net::ERR_UNSAFE_PORT"


class SlowPage:
    """A document streamed in two parts (0.5 s apart) with an image answered after a further 1.5 s."""

    DOC_DELAY = 0.5
    IMAGE_DELAY = 1.5

    def __init__(self, site: Any) -> None:
        self.site = site
        self.doc_done: set[str] = set()
        self.image_done: set[str] = set()
        self.doc_path = unique("slow-doc")
        self.image_path = unique("slow-image")
        site.add_handler(self.doc_path, self.document)
        site.add_handler(self.image_path, self.image)

    def url(self, key: str) -> str:
        return f"{self.site.url}{self.doc_path}?k={key}"

    async def document(self, request: web.Request) -> web.StreamResponse:
        key = request.query["k"]
        response = web.StreamResponse(headers={"Content-Type": "text/html", "Cache-Control": "no-store"})
        await response.prepare(request)
        await response.write(b"<!doctype html><title>slow</title><p>first part</p>" + b" " * 4096)
        await asyncio.sleep(self.DOC_DELAY)
        await response.write(f'<img src="{self.image_path}?k={key}"><p>second part</p>'.encode())
        await response.write_eof()
        self.doc_done.add(key)
        return response

    async def image(self, request: web.Request) -> web.Response:
        await asyncio.sleep(self.IMAGE_DELAY)
        self.image_done.add(request.query["k"])
        return web.Response(body=_TINY_PNG, content_type="image/png", headers={"Cache-Control": "no-store"})


_TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def test_goto_waits_as_wait_until_says(tab: cdp_engine.Tab, site: Any) -> None:
    page = SlowPage(site)
    loop = asyncio.get_running_loop()

    started = loop.time()
    response = await tab.goto(page.url("commit"), wait_until="commit")
    commit_time = loop.time() - started
    assert response.loader_id
    assert "commit" not in page.doc_done, "commit must not wait for the whole document"
    assert commit_time < page.DOC_DELAY

    started = loop.time()
    await tab.goto(page.url("dcl"), wait_until="domcontentloaded")
    dcl_time = loop.time() - started
    assert "dcl" in page.doc_done
    assert "dcl" not in page.image_done, "domcontentloaded must not wait for the image"
    assert page.DOC_DELAY * 0.9 <= dcl_time < page.DOC_DELAY + page.IMAGE_DELAY
    assert await tab.evaluate("document.readyState") in ("interactive", "complete")

    started = loop.time()
    response = await tab.goto(page.url("load"), wait_until="load")
    load_time = loop.time() - started
    assert "load" in page.image_done, "load must wait for the image"
    assert load_time >= page.DOC_DELAY + page.IMAGE_DELAY * 0.9
    assert response.status == 200
    assert await tab.evaluate("document.readyState") == "complete"
    assert commit_time < dcl_time < load_time

    started = loop.time()
    with pytest.raises(NavigationTimeoutError) as info:
        await tab.goto(page.url("timeout"), wait_until="load", timeout=0.8)
    assert 0.7 <= loop.time() - started < 2.0
    assert isinstance(info.value, NavigationError) and isinstance(info.value, TimeoutError)
    assert info.value.wait_until == "load"
    # The tab is still usable after a timed-out navigation.
    assert await tab.evaluate("1 + 1") == 2


async def test_http_status_of_main_response(tab: cdp_engine.Tab, site: Any) -> None:
    ok = site.add(unique("status-ok"), "<p>fine</p>")
    response = await tab.goto(ok)
    assert response.status == 200 and response.url == ok and not response.same_document
    missing = site.url + unique("status-missing")
    response = await tab.goto(missing)
    assert response.status == 404
    assert tab.url == missing

    async def error(request: web.Request) -> web.Response:
        return web.Response(status=500, text="<p>broken</p>", content_type="text/html")

    response = await tab.goto(site.add_handler(unique("status-500"), error))
    assert response.status == 500
    assert await tab.evaluate("document.querySelector('p').textContent") == "broken"


async def test_back_forward_reload(tab: cdp_engine.Tab, site: Any) -> None:
    first = site.add(unique("history-a"), "<title>A</title>")
    second_path = unique("history-b")
    second = site.add(second_path, "<title>B</title>")
    await tab.goto(first)
    await tab.goto(second)
    assert tab.url == second

    response = await tab.back()
    assert response is not None
    assert tab.url == first and await tab.evaluate("document.title") == "A"
    response = await tab.forward()
    assert response is not None
    assert tab.url == second and await tab.evaluate("document.title") == "B"
    assert await tab.forward() is None  # nothing ahead

    await tab.evaluate("window.__beforeReload = true")
    hits = site.hits[second_path]
    old_loader = tab.frames[tab.main_frame_id].loader_id
    response = await tab.reload()
    assert response.status == 200
    assert response.loader_id != old_loader
    assert site.hits[second_path] == hits + 1
    assert await tab.evaluate("window.__beforeReload === undefined") is True

    await tab.back()
    await tab.back()  # back to the tab's initial about:blank
    assert tab.url == "about:blank"
    assert await tab.back() is None


async def test_same_document_navigation(tab: cdp_engine.Tab, site: Any) -> None:
    url = site.add(unique("hash"), "<title>hash</title><p id='section'>x</p>")
    await tab.goto(url)
    loader = tab.frames[tab.main_frame_id].loader_id
    await tab.evaluate("window.__sameDocument = true")

    response = await tab.goto(url + "#section")
    assert response.same_document
    assert response.url == url + "#section"
    assert tab.url == url + "#section"
    assert tab.frames[tab.main_frame_id].loader_id == loader
    assert await tab.evaluate("window.__sameDocument") is True

    await tab.evaluate("location.hash = '#other'")
    await tab.wait_for_condition(lambda: tab.url == url + "#other", 5)
    await tab.evaluate("history.pushState({}, '', '/pushed-state')")
    await tab.wait_for_condition(lambda: tab.url == site.url + "/pushed-state", 5)

    response = await tab.back()
    assert response is not None
    assert tab.url == url + "#other"
    assert await tab.evaluate("window.__sameDocument") is True


# ===== dialogs ====================================================================================


async def test_dialogs_do_not_hang(tab: cdp_engine.Tab, site: Any) -> None:
    url = site.add(
        unique("dialogs"),
        "<script>alert('hello from load')</script>"
        "<button onclick=\"window.answer = confirm('are you sure?')\">ask</button>",
    )
    async with asyncio.timeout(10):
        await tab.goto(url)
    assert [d.type for d in tab.dialogs] == ["alert"]
    alert = tab.dialogs[0]
    assert alert.message == "hello from load" and alert.handled and alert.accepted is False

    async with asyncio.timeout(10):
        await tab.evaluate("document.querySelector('button').click()")
    assert await tab.evaluate("window.answer") is False  # dismissed by default
    confirm = tab.dialogs[-1]
    assert confirm.type == "confirm" and confirm.message == "are you sure?"
    assert confirm.handled and confirm.accepted is False
    assert tab.pending_dialog is None


async def test_dialog_policy_hold_and_handle(tab: cdp_engine.Tab, wait: Any) -> None:
    tab.dialog_policy = "hold"
    asked = asyncio.ensure_future(tab.evaluate("confirm('go on?')", timeout=10))
    await wait(lambda: tab.pending_dialog is not None, 5)
    dialog = tab.pending_dialog
    assert dialog is not None and dialog.type == "confirm" and not dialog.handled
    assert not asked.done()
    handled = await tab.handle_dialog(True)
    assert handled is dialog and dialog.accepted is True
    async with asyncio.timeout(5):
        assert await asked is True

    asked = asyncio.ensure_future(tab.evaluate("prompt('your name?', 'nobody')", timeout=10))
    await wait(lambda: tab.pending_dialog is not None, 5)
    assert tab.pending_dialog.default_prompt == "nobody"
    await tab.handle_dialog(True, "Ada")
    async with asyncio.timeout(5):
        assert await asked == "Ada"
    with pytest.raises(cdp_engine.CDPEngineError):
        await tab.handle_dialog(True)


# ===== downloads, popups, frames, contexts ======================================================


async def test_download_is_reported_with_its_path(
    tab: cdp_engine.Tab, browser: cdp_engine.Browser, site: Any
) -> None:
    name = f"report-{os.getpid()}-{next(_counter)}.csv"
    body = b"id,value\n" + b"".join(b"%d,%d\n" % (i, i * i) for i in range(5000))

    async def attachment(request: web.Request) -> web.Response:
        return web.Response(
            body=body,
            headers={"Content-Type": "text/csv", "Content-Disposition": f'attachment; filename="{name}"'},
        )

    file_url = site.add_handler(unique("download-file"), attachment)
    page = site.add(unique("download-page"), f"<a href='{file_url}'>get it</a>")
    await tab.goto(page)
    begun: asyncio.Future[cdp_engine.Download] = asyncio.get_running_loop().create_future()

    def on_event(kind: str, payload: Any) -> None:
        if kind == "download" and not begun.done():
            begun.set_result(payload)

    unsubscribe = tab.add_listener(on_event)
    try:
        await tab.evaluate("document.querySelector('a').click()")
        async with asyncio.timeout(10):
            started = await begun
    finally:
        unsubscribe()
    assert started.url == file_url and started.suggested_filename == name
    assert started.tab_id == tab.target_id
    download = await browser.wait_for_download(started.id, timeout=10)
    assert download.state == "completed"
    assert download.path is not None
    path = Path(download.path)
    assert path.name == name and path.parent == browser.downloads_dir
    assert path.read_bytes() == body
    assert download.size == len(body) == path.stat().st_size
    path.unlink()


async def test_popup_is_detected_with_its_opener(
    tab: cdp_engine.Tab, browser: cdp_engine.Browser, site: Any, wait: Any
) -> None:
    popup_url = site.add(unique("popup"), "<title>popup</title>")
    blank_url = site.add(unique("popup-blank"), "<title>blank target</title>")
    page = site.add(unique("opener"), f"<a href='{blank_url}' target='_blank'>new tab</a>")
    await tab.goto(page)
    new_tabs: list[cdp_engine.Tab] = []
    popups: list[cdp_engine.Tab] = []
    unsubscribe = browser.on_tab(new_tabs.append)
    unlisten = tab.add_listener(lambda kind, payload: popups.append(payload) if kind == "popup" else None)
    try:
        await tab.evaluate(f"window.open('{popup_url}'); 1")
        await wait(lambda: any(t.opener_id == tab.target_id for t in new_tabs), 10)
        popup = next(t for t in new_tabs if t.opener_id == tab.target_id)
        assert popup.opener is tab
        assert popup.context_id == tab.context_id
        await popup.wait_for_condition(lambda: popup.url == popup_url, 10)
        await eventually(lambda: popup in popups, 5, "the opener emits a 'popup' event")

        await tab.evaluate("document.querySelector('a').click()")
        await wait(lambda: any(t.opener_id == tab.target_id and t is not popup for t in new_tabs), 10)
        blank = next(t for t in new_tabs if t.opener_id == tab.target_id and t is not popup)
        assert blank.opener is tab
        await blank.wait_for_condition(lambda: blank.url == blank_url, 10)
    finally:
        unsubscribe()
        unlisten()


async def test_cross_origin_iframe_gets_its_own_session(tab: cdp_engine.Tab, site: Any) -> None:
    child_path = unique("oopif-child")
    site.add(child_path, "<title>child</title><p id='inner'>from the other site</p>")
    child_url = site.other_url + child_path
    page = site.add(unique("oopif-parent"), f"<iframe id='f' src='{child_url}'></iframe>")
    await tab.goto(page)
    await tab.wait_for_condition(lambda: bool(tab.frame_sessions), 10)
    [(frame_id, session)] = tab.frame_sessions.items()
    assert session is not tab.session and session.id != tab.session.id
    assert session.target_type == "iframe"
    assert frame_id in tab.frames and tab.frames[frame_id].session is session
    assert tab.frames[frame_id].parent_id == tab.main_frame_id
    await tab.wait_for_condition(lambda: tab.frames[frame_id].url == child_url, 10)
    text = await tab.evaluate("document.getElementById('inner').textContent", session=session)
    assert text == "from the other site"
    assert await tab.evaluate("location.href", session=session) == child_url
    # The parent cannot reach into the other site's document.
    with pytest.raises(JavaScriptError):
        await tab.evaluate("document.getElementById('f').contentDocument.body.innerHTML")


async def test_contexts_do_not_share_cookies(browser: cdp_engine.Browser, site: Any) -> None:
    seen: dict[str, str | None] = {}

    async def cookie_page(request: web.Request) -> web.Response:
        seen[request.query["who"]] = request.headers.get("Cookie")
        return web.Response(
            text="<p>cookies</p>", content_type="text/html", headers={"Cache-Control": "no-store"}
        )

    url = site.add_handler(unique("cookies"), cookie_page)
    first = await browser.new_context()
    second = await browser.new_context()
    try:
        tab1 = await first.new_tab(url + "?who=one")
        await tab1.evaluate("document.cookie = 'flavour=ginger; path=/'")
        tab1b = await first.new_tab(url + "?who=same-context")
        assert await tab1b.evaluate("document.cookie") == "flavour=ginger"
        assert seen["same-context"] == "flavour=ginger"

        tab2 = await second.new_tab(url + "?who=two")
        assert await tab2.evaluate("document.cookie") == ""
        assert seen["two"] is None
        assert tab1.context_id != tab2.context_id
    finally:
        await first.close()
        await second.close()


# ===== script, init scripts, screenshots =========================================================


async def test_evaluate_values_promises_and_exceptions(tab: cdp_engine.Tab) -> None:
    assert await tab.evaluate("1 + 2") == 3
    assert await tab.evaluate("'text'") == "text"
    assert await tab.evaluate("null") is None
    assert await tab.evaluate("undefined") is None
    assert await tab.evaluate("({n: 1.5, list: [true, 'x'], nested: {k: null}})") == {
        "n": 1.5,
        "list": [True, "x"],
        "nested": {"k": None},
    }
    assert await tab.evaluate("new Promise(r => setTimeout(() => r('later'), 50))") == "later"
    assert await tab.evaluate("(async () => { await null; return [1, 2] })()") == [1, 2]

    with pytest.raises(JavaScriptError) as info:
        await tab.evaluate("throw new Error('boom')")
    assert "boom" in str(info.value)
    assert info.value.details
    with pytest.raises(JavaScriptError) as info:
        await tab.evaluate("Promise.reject(new TypeError('rejected'))")
    assert "rejected" in str(info.value)
    with pytest.raises(JavaScriptError):
        await tab.evaluate("this is not javascript")
    with pytest.raises(JavaScriptError):
        await tab.evaluate("undefinedFunction()")
    assert await tab.evaluate("'after errors'") == "after errors"


async def _check_init_script_everywhere(
    site: Any, open_tab: Callable[[], Awaitable[cdp_engine.Tab]], mark: str
) -> None:
    same_path = unique("init-same")
    other_path = unique("init-other")
    site.add(same_path, "<p>same-site child</p>")
    site.add(other_path, "<p>other-site child</p>")
    page = site.add(
        unique("init-parent"),
        f"<script>window.__seenAtParse = window.{mark}</script>"
        f"<iframe id='same' src='{same_path}'></iframe>"
        f"<iframe id='other' src='{site.other_url}{other_path}'></iframe>",
    )
    tab = await open_tab()
    try:
        for _ in range(2):  # every new document: the first load and the next one
            await tab.goto(page)
            await tab.wait_for_condition(lambda: bool(tab.frame_sessions), 10)
            assert await tab.evaluate("window.__seenAtParse") == 1, "init script must run before page scripts"
            assert await tab.evaluate(f"window.{mark}") == 1
            assert await tab.evaluate(f"document.getElementById('same').contentWindow.{mark}") == 1
            [session] = tab.frame_sessions.values()
            await tab.wait_for_condition(
                lambda: any(f.url.endswith(other_path) for f in tab.frames.values()), 10
            )
            value = await tab.evaluate(
                f"document.readyState === 'loading' ? new Promise(r => addEventListener('DOMContentLoaded', "
                f"() => r(window.{mark}))) : window.{mark}",
                session=session,
            )
            assert value == 1, "init script must run in the out-of-process iframe too"
    finally:
        await tab.close()


async def test_init_script_runs_in_every_new_document_of_every_frame(
    context: cdp_engine.BrowserContext, site: Any
) -> None:
    async def open_tab() -> cdp_engine.Tab:
        tab = await context.new_tab()
        await tab.add_init_script("window.__tabMark = (window.__tabMark || 0) + 1")
        return tab

    await _check_init_script_everywhere(site, open_tab, "__tabMark")


async def test_screenshots_png_and_jpeg(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add(unique("shot"), "<body style='background:#3a6'><h1>picture</h1></body>"))
    png = await tab.screenshot()
    assert png_size(png) == (1280, 720)
    jpeg = await tab.screenshot(format="jpeg", quality=60)
    assert jpeg_size(jpeg) == (1280, 720)
    assert jpeg[-2:] == b"\xff\xd9"
    assert base64.b64decode(await tab.screenshot_base64(format="png"))[:8] == b"\x89PNG\r\n\x1a\n"
    assert png_size(await tab.screenshot(scale=0.5)) == (640, 360)
    assert jpeg_size(
        await tab.screenshot(format="jpeg", clip={"x": 10, "y": 20, "width": 300, "height": 200})
    ) == (
        300,
        200,
    )
    assert await tab.viewport() == {"width": 1280, "height": 720, "scroll_x": 0, "scroll_y": 0}
    # The viewport keeps its size after a scaled capture.
    assert png_size(await tab.screenshot()) == (1280, 720)


# ===== command line ==============================================================================


def test_cli_help() -> None:
    if importlib.util.find_spec("cdp_engine.cli") is None:
        pytest.skip("cdp_engine/cli.py does not exist yet")
    root = Path(cdp_engine.__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    script = shutil.which("cdp-engine")
    command = (
        [script, "--help"]
        if script
        else [sys.executable, "-c", "import sys; from cdp_engine.cli import main; sys.exit(main())", "--help"]
    )
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert "usage" in result.stdout.lower()
