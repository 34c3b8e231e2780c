"""Attach and logins from every entry point: the CLI, the HTTP service, the harness and the MCP server
(issue 17, Builds 1 and 2), each against a Chromium the test starts itself (tests/attached.py).

After each, the browser still runs and has exactly the tabs it had before the surface attached.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import pytest_asyncio
from aiohttp import web
from attached import UserChrome, start_user_chrome
from conftest import Site

import cdp_engine
from cdp_engine.cdp.discovery import AUTO_CONNECT_DIRS_ENV
from cdp_engine.harness.env import BrowserEnv
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.service import serve

ROOT = Path(__file__).resolve().parents[2]


@pytest_asyncio.fixture
async def chrome(tmp_path: Path, site: Site) -> AsyncIterator[UserChrome]:
    site.add("/surf/user", "<title>user tab</title><p>the user's own page</p>")
    chrome = await start_user_chrome(tmp_path / "user-profile", site.url + "/surf/user")
    try:
        async with asyncio.timeout(20):
            # The title, not the URL: a tab lists its pending URL before the document commits, and a
            # surface that attached then would read the initial blank document.
            while not any(p["title"] == "user tab" for p in await chrome.pages()):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        yield chrome
    finally:
        chrome.stop()


def _pages(site: Site) -> str:
    async def login(_request: web.Request) -> web.Response:
        response = web.Response(text="<p>in</p><script>localStorage.setItem('k', 'v')</script>", content_type="text/html")
        response.set_cookie("sid", "s-42", httponly=True, max_age=3600, path="/")
        return response

    async def whoami(request: web.Request) -> web.Response:
        return web.Response(text=f"<p>session {request.cookies.get('sid', 'none')}</p>", content_type="text/html")

    site.add_handler("/surf/login", login)
    site.add_handler("/surf/whoami", whoami)
    site.add("/surf/hello", "<title>hello</title><button>Say hello</button>")
    return site.url


async def _ids(chrome: UserChrome) -> set[str]:
    return {p["id"] for p in await chrome.pages()}


async def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The command line in a subprocess, awaited (the test's own loop serves the pages it loads)."""
    base = {k: os.environ[k] for k in ("HOME", "PATH", "TMPDIR", "LANG") if k in os.environ}
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cdp_engine", *args, cwd=ROOT, env={**base, **(env or {})},
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(90):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


# ===== the command line ===========================================================================


async def test_cli_state_attaches_by_cdp_url_and_auto_connect(chrome: UserChrome, site: Site) -> None:
    base = _pages(site)
    before = await _ids(chrome)
    code, out, err = await _cli("state", "--cdp-url", chrome.http_url, base + "/surf/hello")
    assert code == 0, err
    assert "Say hello" in orjson.loads(out)["page_content"]
    assert await _ids(chrome) == before and chrome.running()
    env = {AUTO_CONNECT_DIRS_ENV: str(chrome.profile)}
    code, out, err = await _cli("state", "--auto-connect", base + "/surf/hello", env=env)
    assert code == 0, err
    assert orjson.loads(out)["url"] == base + "/surf/hello"
    assert await _ids(chrome) == before


async def test_cli_state_loads_a_storage_state(browser: cdp_engine.Browser, site: Site, tmp_path: Path) -> None:
    base = _pages(site)
    path = tmp_path / "state.json"
    async with await browser.new_context() as context:
        await context.new_tab(base + "/surf/login")
        await context.storage_state(path=path)
    code, out, err = await _cli("state", "--storage-state", str(path), base + "/surf/whoami")
    assert code == 0, err
    assert "session s-42" in orjson.loads(out)["page_content"]
    path.write_text('{"cookies": "nope"}')
    code, out, err = await _cli("state", "--storage-state", str(path), base + "/surf/whoami")
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "--storage-state" in err and "must be lists" in err


async def test_cli_attach_to_nothing_is_one_line_and_status_1() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, out, err = await _cli("state", "--cdp-url", f"http://127.0.0.1:{port}", "http://127.0.0.1:9/")
    assert code == 1 and out == "", err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "cannot attach" in err and "--remote-debugging-port" in err


async def test_doctor_checks_the_browser_to_attach_to(chrome: UserChrome) -> None:
    _code, out, _err = await _cli("doctor", "--json", "--cdp-url", chrome.http_url)
    report = orjson.loads(out)
    assert report["attach"]["ok"] is True and report["attach"]["product"], report["attach"]
    assert "launch" not in report["chromium"]  # attaching: no browser of its own is started
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, out, _err = await _cli("doctor", "--json", "--cdp-url", f"http://127.0.0.1:{port}")
    report = orjson.loads(out)
    assert code == 1 and report["attach"]["ok"] is False
    assert any("no browser to attach to" in p["what"] and "--remote-debugging-port" in p["fix"] for p in report["problems"])
    assert chrome.running()


# ===== the HTTP service ===========================================================================


async def test_service_attaches_and_leaves_the_browser(
    chrome: UserChrome, site: Site, browser: cdp_engine.Browser, tmp_path: Path
) -> None:
    base = _pages(site)
    async with await browser.new_context() as context:
        await context.new_tab(base + "/surf/login")
        await context.storage_state(path=tmp_path / "logins.json")
    before = await _ids(chrome)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.setblocking(False)
    port = sock.getsockname()[1]
    task = asyncio.ensure_future(
        serve(
            token="t", start_url=base + "/surf/whoami", sock=sock, launch_options={"cdp_url": chrome.ws_url},
            storage_state=str(tmp_path / "logins.json"),
        )
    )
    try:
        async with aiohttp.ClientSession(headers={"Authorization": "Bearer t"}) as http:
            async with asyncio.timeout(30):
                while True:
                    with contextlib.suppress(aiohttp.ClientError):
                        async with http.get(f"http://127.0.0.1:{port}/health") as response:
                            if response.status == 200:
                                break
                    await asyncio.sleep(0.05)
                async with http.get(f"http://127.0.0.1:{port}/state?screenshot=0") as response:
                    state = await response.json()
        assert "session s-42" in state["page_content"]  # --storage-state: the saved login, in the service's context
        assert len(await _ids(chrome)) == len(before) + 1  # the service's own tab, in its own context
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert await _ids(chrome) == before and chrome.running()


# ===== the harness ================================================================================


async def test_harness_attaches_and_loads_logins(chrome: UserChrome, site: Site, tmp_path: Path) -> None:
    base = _pages(site)
    before = await _ids(chrome)
    env = await BrowserEnv.connect(chrome.http_url)
    try:
        observation = await env.reset(base + "/surf/login")
        assert observation["url"] == base + "/surf/login"
        saved = await env.storage_state(path=tmp_path / "episode.json")
        assert any(c["name"] == "sid" and c["httpOnly"] for c in saved["cookies"])
    finally:
        await env.close()
    assert await _ids(chrome) == before and chrome.running()
    async with await BrowserEnv.connect(chrome.ws_url, storage_state=tmp_path / "episode.json") as env:
        observation = await env.reset(base + "/surf/whoami")
        assert "session s-42" in observation["page_content"]
        observation = await env.reset(base + "/surf/whoami")  # every episode starts with the logins
        assert "session s-42" in observation["page_content"]
    assert await _ids(chrome) == before


async def test_harness_episodes_start_with_a_profiles_cookies(site: Site, tmp_path: Path) -> None:
    base = _pages(site)
    profile = tmp_path / "profile"
    async with cdp_engine.launch(user_data_dir=profile) as browser:
        await browser.new_tab(base + "/surf/login")
    env = await BrowserEnv.launch({"user_data_dir": str(profile)})
    async with env:
        observation = await env.reset(base + "/surf/whoami")
        assert "session s-42" in observation["page_content"]


# ===== the MCP server =============================================================================


async def _call(tools: BrowserTools, tool: str, **args: Any) -> dict[str, Any]:
    envelope = await tools.call(tool, args)
    assert envelope["status"] == "success", envelope
    data: dict[str, Any] = envelope["data"]
    return data


async def test_mcp_attached_instances_are_fresh_contexts(chrome: UserChrome, site: Site, tmp_path: Path) -> None:
    base = _pages(site)
    before = await _ids(chrome)
    async with await cdp_engine.connect(chrome.ws_url) as probe:
        context = await probe.new_context()
        await context.new_tab(base + "/surf/login")
        await context.storage_state(path=tmp_path / "logins.json")
    manager = InstanceManager(Config(cdp_url=chrome.http_url, storage_state=str(tmp_path / "logins.json")))
    tools = BrowserTools(manager)
    try:
        await _call(tools, "browser_create_instance", name="a")
        await _call(tools, "browser_navigate", instance="a", url=base + "/surf/whoami")
        snapshot = await _call(tools, "browser_snapshot", instance="a")
        assert "session s-42" in orjson.dumps(snapshot).decode()  # the server-wide logins were loaded
        tabs = await _call(tools, "browser_tabs", instance="a", action="list")
        assert [t["url"] for t in tabs["tabs"]] == [base + "/surf/whoami"]  # not the user's tab
        refused = await tools.call("browser_create_instance", {"name": "b", "profile_dir": "p"})
        assert refused["error_type"] == "unsupported_capability", refused
        await _call(tools, "browser_destroy_instance", name="a")
    finally:
        await manager.close()
    assert await _ids(chrome) == before and chrome.running()


async def test_mcp_default_context_works_in_the_users_tabs(chrome: UserChrome, site: Site) -> None:
    base = _pages(site)
    before = await _ids(chrome)
    manager = InstanceManager(Config(cdp_url=chrome.ws_url, default_context=True))
    tools = BrowserTools(manager)
    try:
        await _call(tools, "browser_create_instance", name="me")
        tabs = await _call(tools, "browser_tabs", instance="me", action="list")
        assert [t["url"] for t in tabs["tabs"]] == [base + "/surf/user"]  # the user's own tab
        snapshot = await _call(tools, "browser_snapshot", instance="me")
        assert "the user's own page" in orjson.dumps(snapshot).decode()
        await _call(tools, "browser_tabs", instance="me", action="new", url=base + "/surf/hello")
        assert len(await _ids(chrome)) == len(before) + 1
        second = await tools.call("browser_create_instance", {"name": "other"})
        assert second["error_type"] == "profile_dir_in_use", second  # one instance in the default context
        await _call(tools, "browser_destroy_instance", name="me")
        assert await _ids(chrome) == before  # the tab it opened is closed, the user's stays
    finally:
        await manager.close()
    assert await _ids(chrome) == before and chrome.running()


@pytest.mark.parametrize("flag", [["--cdp-url", "http://127.0.0.1:9"], ["--auto-connect"]])
def test_mcp_command_takes_the_attach_options(flag: list[str]) -> None:
    import subprocess

    run = subprocess.run(
        [sys.executable, "-m", "cdp_engine", "mcp", "--help"], capture_output=True, text=True, timeout=60,
        cwd=ROOT, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert run.returncode == 0
    for option in (flag[0], "--cdp-header", "--default-context", "--user-data-dir", "--storage-state"):
        assert option in run.stdout, option


async def test_mcp_stdio_server_attached_in_the_default_context(chrome: UserChrome, site: Site) -> None:
    """`cdp-engine mcp --cdp-url … --default-context` end to end over stdio with the SDK's own client."""
    mcp = pytest.importorskip("mcp")
    base = _pages(site)
    before = await _ids(chrome)
    env = {k: os.environ[k] for k in ("CDP_ENGINE_CHROME", "HOME", "PATH", "TMPDIR") if k in os.environ}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    params = mcp.StdioServerParameters(
        command=sys.executable, args=["-m", "cdp_engine", "mcp", "--cdp-url", chrome.http_url, "--default-context", "--caps", "tabs"],
        env=env, cwd=ROOT,
    )  # fmt: skip
    async with asyncio.timeout(90), mcp.Client(params, read_timeout_seconds=30) as client:

        async def call(tool: str, **args: Any) -> dict[str, Any]:
            result = await client.call_tool(tool, args)
            envelope: dict[str, Any] = orjson.loads(result.content[0].text)
            assert envelope["status"] == "success", envelope
            data: dict[str, Any] = envelope["data"]
            return data

        await call("browser_create_instance", name="me")
        tabs = await call("browser_tabs", instance="me", action="list")
        assert [t["url"] for t in tabs["tabs"]] == [base + "/surf/user"]
        await call("browser_navigate", instance="me", url=base + "/surf/hello")
    assert chrome.running()
    assert await _ids(chrome) == before  # the user's tab navigated, none added, none closed
    assert any(p["url"] == base + "/surf/hello" for p in await chrome.pages())


async def test_mcp_with_nothing_to_attach_to_is_a_clear_tool_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    manager = InstanceManager(Config(cdp_url=f"http://127.0.0.1:{port}"))
    try:
        envelope = await BrowserTools(manager).call("browser_create_instance", {"name": "a"})
    finally:
        await manager.close()
    assert envelope["status"] == "error" and envelope["error_type"] == "internal_error", envelope
    assert "cannot attach" in envelope["message"] and "--remote-debugging-port" in envelope["message"]
