"""Policies: the pure rules (navigation schemes, file folders, result bound), then every surface
against real Chromium — MCP refuses what the toolset refuses, and chrome://settings through any
surface leaves the shared browser running."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import pytest_asyncio
from aiohttp import ClientSession, web

import cdp_engine
from cdp_engine.core.policies import (
    MCP_MAX_RESULT_BYTES,
    SERVER_SCHEMES,
    FilePolicy,
    NavigationPolicy,
    Policies,
    PolicyError,
)
from cdp_engine.errors import CDPEngineError, NavigationError
from cdp_engine.index.element_index import ElementIndex
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.mcp_server.server_config import default_profile_root
from cdp_engine.service import create_app
from cdp_engine.toolset import BrowserToolset, ToolsetConfig
from cdp_engine.toolset.page_members import REFUSED_SCHEME

TOKEN = "policy-token-0123456789"

# ----- navigation policy (pure) ------------------------------------------------------------------


def test_navigation_policy_parses_and_names_the_rule() -> None:
    web = NavigationPolicy(allow_hint="set X")
    assert web.check("https://example.com/a") == "https://example.com/a"
    with pytest.raises(PolicyError) as info:
        web.check("chrome://settings")
    assert info.value.rule == "navigation.scheme" and isinstance(info.value, CDPEngineError)
    assert str(info.value) == (
        "navigation to chrome: URLs is not allowed (policy: allowed schemes http, https; set X to allow more)"
    )
    # Parsed as browsers parse it, never prefix-matched.
    for url in ("JAVASCRIPT:alert(1)", "  javascript:alert(1)", "java\tscript:alert(1)", "\x01javascript:x",
                "file:///etc/passwd", "view-source:https://e.com", "devtools://devtools/x", "chrome-extension://a/b",
                "chrome-untrusted://terminal", "about:blank", "data:text/html,x", "nohost", "ftp://e.com/f"):  # fmt: skip
        assert not web.allows(url), url
    assert not web.allows("http:///path") and not web.allows("https:foo")  # web URLs need a host
    assert not web.allows("https://e.com:99999/")  # not a valid URL
    # view-source: is allowed only for what it shows.
    viewer = web.allowing(["view-source"])
    assert viewer.allows("view-source:https://e.com") and not viewer.allows("view-source:chrome://settings")
    files = NavigationPolicy(frozenset({"http", "https", "FILE:"}))
    assert files.allows("file:///tmp/x") and files.schemes == {"http", "https", "file"}


def test_per_surface_defaults() -> None:
    toolset, mcp = Policies.for_toolset(), Policies.for_mcp(output_dir="/tmp")
    index, service = Policies.for_index(), Policies.for_service()
    assert toolset.navigation.schemes == {"http", "https"}
    assert mcp.navigation.schemes == service.navigation.schemes == SERVER_SCHEMES == {"http", "https", "about", "data"}
    assert index.navigation.schemes == {"http", "https", "file", "about", "data"}
    for policies in (toolset, mcp, service):
        assert not policies.navigation.allows("file:///etc/passwd")
    for policies in (toolset, mcp, index, service):
        assert not policies.navigation.allows("chrome://settings")
        assert not policies.navigation.allows("javascript:alert(1)")
        assert not policies.files.upload_roots
    assert (toolset.result.limit, toolset.result.unit) == (50_000, "chars")
    assert (mcp.result.limit, mcp.result.unit) == (MCP_MAX_RESULT_BYTES, "bytes") == (1_048_576, "bytes")
    assert Policies.for_mcp(output_dir="/tmp", max_result_bytes=10).result.limit == 4096
    assert index.result.limit is None and toolset.files.output_dir is None and index.files.output_dir is None
    with pytest.raises(PolicyError, match="BROWSER_MCP_ALLOWED_SCHEMES"):
        mcp.navigation.check("file:///etc/passwd")


# Bracketed hosts urlsplit lets through and Chromium refuses as invalid URLs: a zone id (the URL standard
# has none), IPvFuture, text between the ']' and the port, a '[' inside a name; and neighbours Chromium
# accepts. Both lists are checked against real Chromium below (test_chromium_agrees_on_bracketed_hosts).
BAD_IPV6 = [
    "http://[fe80::1%25eth0]/", "http://[::1%251]/", "http://[fe80::1%eth0]:8080/", "http://[::1]x/",
    "http://[::1]x:8080/", "http://[::1.2.3.4]x/", "http://[v1.x]/", "http://[vF.a:b]/", "http://x[::1]/",
    "http://[::1]]/", "http://[::1]%20/", "https://[::1]%5D/", "http://[::1] /", "http://[1:2:3]/",
    "http://[::1::]/", "http://[::ffff:1.2.3]/",
]  # fmt: skip
GOOD_IPV6 = [
    "http://[::1]/", "http://[::1]:8080/", "http://[::1]:/", "http://[::1]", "http://[::1]?q", "http://[::1]/]",
    "http://[::ffff:1.2.3.4]/", "http://[1:2:3:4:5:6:7::]/", "http://[ABCD::]/", "http://u:p@[::1]/",
    "http://[::1]@x/", "http://[::1]\\x/",
]  # fmt: skip


def test_navigation_policy_refuses_bracketed_hosts_chromium_refuses() -> None:
    for policies in (Policies.for_index(), Policies.for_service(), Policies.for_toolset(), Policies.for_mcp(output_dir="/tmp")):
        for url in BAD_IPV6:
            with pytest.raises(PolicyError, match="is not a valid URL") as info:
                policies.navigation.check(url)
            assert info.value.rule == "navigation.url", url
        for url in GOOD_IPV6:
            assert policies.navigation.check(url) == url
    policy = NavigationPolicy()
    with pytest.raises(PolicyError, match=r"\[fe80::1%25eth0\] has a zone id"):
        policy.check("http://[fe80::1%25eth0]/")
    with pytest.raises(PolicyError, match=r"\[v1\.x\] is not a valid IPv6 address"):
        policy.check("http://[v1.x]/")
    with pytest.raises(PolicyError, match=r"'x' follows the IPv6 address \[::1\]"):
        policy.check("http://[::1]x/")
    with pytest.raises(PolicyError, match=r"'\[' or '\]' outside an IPv6 address"):
        policy.check("http://x[::1]/")


async def test_chromium_agrees_on_bracketed_hosts(tab: cdp_engine.Tab, site: Any) -> None:
    """The lists above are what Chromium itself does: Tab.goto (no policy) fails with net::ERR_INVALID_URL
    for each refused URL, and Chromium's URL parser takes each allowed one."""
    page = site.add("/policy/ipv6", "<p>ipv6</p>")
    await tab.goto(page)
    for url in BAD_IPV6:
        with pytest.raises(NavigationError, match="ERR_INVALID_URL"):
            await tab.goto(url, timeout=5)
    urls = orjson.dumps(GOOD_IPV6 + BAD_IPV6).decode()
    parsed = await tab.evaluate(f"{urls}.map(u => {{ try {{ return new URL(u).host }} catch {{ return null }} }})")
    assert None not in parsed[: len(GOOD_IPV6)], list(zip(GOOD_IPV6, parsed, strict=False))
    assert parsed[len(GOOD_IPV6) :] == [None] * len(BAD_IPV6)
    assert tab.url == page


async def test_every_surface_refuses_an_ipv6_zone_id(
    browser: cdp_engine.Browser, tab: cdp_engine.Tab, mcp: Any, site: Any
) -> None:
    """Was let through to Chromium's bare 'invalid URL' (urlsplit keeps a zone id and text after the ']')."""
    page = site.add("/policy/zone", "<title>zone</title><p>zone</p>")
    await tab.goto(page)
    ts = await BrowserToolset(browser).start()  # a context of its own
    manager, call = await mcp()
    try:
        content, is_error = await ts.call("navigate", {"url": page})
        assert not is_error, content
        assert (await call("browser_navigate", url=page))["status"] == "success"
        for url in ("http://[fe80::1%25eth0]/", "http://[::1%251]/", "http://[::1]x/"):
            state = await tab.act({"action": "navigate", "url": url}, screenshot=False)
            assert state["error"]["code"] == "ACTION_VALIDATION_FAILED", state["error"]
            assert state["url"] == page and tab.url == page
            content, is_error = await ts.call("navigate", {"url": url})
            assert is_error and content[0]["text"] == "Error: That is not a valid URL.", content
            assert ts.book.get(None).tab.url == page
            env = await call("browser_navigate", url=url)
            refused(env, "is not a valid URL", "navigation.url")
            assert env["operation"]["outcome"] == "not_started"
            assert manager.instances["t"].selected.tab.url == page
    finally:
        await ts.close()


# ----- file policy (pure) ------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """uploads/ (a.txt, a link out, a sub folder), out/ (a link out), secret.txt outside both."""
    uploads, out, secret = tmp_path / "uploads", tmp_path / "out", tmp_path / "secret.txt"
    (uploads / "sub").mkdir(parents=True)
    out.mkdir()
    secret.write_text("secret")
    (uploads / "a.txt").write_text("a")
    (uploads / "sub" / "b.txt").write_text("b")
    (uploads / "link.txt").symlink_to(secret)
    (out / "escape.png").symlink_to(tmp_path / "elsewhere.png")
    (out / "dir-link").symlink_to(tmp_path)
    return {"root": tmp_path, "uploads": uploads, "out": out, "secret": secret}


def test_uploads_read_only_inside_roots_after_resolving(tree: dict[str, Path]) -> None:
    uploads = tree["uploads"]
    policy = FilePolicy(upload_roots=(uploads,), upload_hint="set R")
    assert policy.upload_path(uploads / "a.txt") == uploads / "a.txt"
    assert policy.upload_path(uploads / "sub" / ".." / "sub" / "b.txt") == uploads / "sub" / "b.txt"
    refused = {
        str(tree["secret"]): "files.outside_upload_roots",
        str(uploads / "link.txt"): "files.outside_upload_roots",  # a symlink pointing out
        str(uploads / ".." / "secret.txt"): "files.outside_upload_roots",
        "/etc/passwd": "files.outside_upload_roots",
        str(uploads / "nope.txt"): "files.not_a_file",
        str(uploads / "sub"): "files.not_a_file",
        "bad\x00path": "files.invalid_path",
    }
    for path, rule in refused.items():
        with pytest.raises(PolicyError) as info:
            policy.upload_path(path)
        assert info.value.rule == rule, path
    with pytest.raises(PolicyError, match=r"outside the allowed upload folders.*set R"):
        policy.upload_path("/etc/passwd")
    with pytest.raises(PolicyError, match=r"no upload folders are configured .set R") as info:
        FilePolicy(upload_hint="set R").upload_path(uploads / "a.txt")
    assert info.value.rule == "files.no_upload_roots"
    # A listed single file is allowed wherever it is; the downloads folder is never a root.
    assert FilePolicy().listing([tree["secret"]]).upload_path(tree["secret"]) == tree["secret"]
    with pytest.raises(ValueError, match="downloads folder"):
        FilePolicy(upload_roots=(tree["root"],)).excluding(uploads / "sub")


def test_writes_only_inside_the_output_folder(tree: dict[str, Path]) -> None:
    out = tree["out"]
    policy = FilePolicy(output_dir=out, output_hint="set O")
    assert policy.output_path("shot.png") == out / "shot.png"  # relative: inside the output folder
    assert policy.output_path(out / "sub" / "x.json") == out / "sub" / "x.json"
    for path in (
        str(tree["root"] / "shot.png"),  # absolute, outside
        "../shot.png",  # `..` out of it
        str(out / ".." / "shot.png"),
        str(out / "escape.png"),  # a symlink pointing out
        "dir-link/shot.png",  # through a linked folder
        "/etc/passwd",
        str(out),  # the folder itself is not a file
    ):
        with pytest.raises(PolicyError, match=r"outside the output folder.*set O") as info:
            policy.output_path(path)
        assert info.value.rule == "files.outside_output_dir", path
    with pytest.raises(PolicyError) as info:
        FilePolicy().output_path(out / "x")
    assert info.value.rule == "files.no_output_dir"


def test_profiles_only_inside_the_profile_folder(tree: dict[str, Path]) -> None:
    """A persistent profile folder is a write an agent chooses: the output folder's rules, its own folder."""
    root, out = tree["root"], tree["out"]
    profiles = root / "profiles"  # need not exist yet: the surface makes it with the first profile
    policy = FilePolicy(profile_root=profiles, profile_hint="set P")
    assert policy.profile_path("work") == profiles / "work"  # relative: inside the profile folder
    assert policy.profile_path("a/../b/c") == profiles / "b" / "c"
    assert policy.profile_path(profiles / "x") == profiles / "x"
    assert not profiles.exists()  # checking makes nothing
    profiles.mkdir()
    (profiles / "link-out").symlink_to(out)
    (profiles / "file").write_text("not a folder")
    for path in ("../x", "a/../../x", str(root / "x"), "/etc", str(profiles), ".", "link-out", "link-out/p", "~"):
        with pytest.raises(PolicyError, match=r"outside the profile folder.*set P") as info:
            policy.profile_path(path)
        assert info.value.rule == "files.outside_profile_root", path
    for path in ("", "a\x00b", "\ud800", "x" * 5000, "x" * 256, "ok/" + "y" * 300):
        with pytest.raises(PolicyError) as info:
            policy.profile_path(path)
        assert info.value.rule == "files.invalid_path", path
    assert policy.profile_path("é" * 127) == profiles / ("é" * 127)  # 254 bytes: a name
    with pytest.raises(PolicyError) as info:
        policy.profile_path("file")
    assert info.value.rule == "files.not_a_folder"
    with pytest.raises(PolicyError, match=r"no profile folder is configured .set P") as info:
        FilePolicy(profile_hint="set P").profile_path("work")
    assert info.value.rule == "files.no_profile_root"
    # One rule for both folders a surface writes into: output_path refuses an impossible name too (it was
    # the MCP server's internal_error from the failed write).
    with pytest.raises(PolicyError) as info:
        FilePolicy(output_dir=out).output_path("x" * 300 + ".png")
    assert info.value.rule == "files.invalid_path"
    mcp = Policies.for_mcp(output_dir=out, profile_root=profiles).files
    assert mcp.profile_root == profiles and mcp.output_dir == out
    with pytest.raises(PolicyError, match=r"BROWSER_MCP_PROFILE_ROOT \(Config.profile_root\)"):
        mcp.profile_path("/etc")
    assert Policies.for_mcp(output_dir=out).files.profile_root is None
    assert sorted(os.listdir(profiles)) == ["file", "link-out"]
    assert sorted(os.listdir(out)) == ["dir-link", "escape.png"]


def test_mcp_profile_root_defaults_to_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert default_profile_root({"XDG_CACHE_HOME": "/c"}) == Path("/c/cdp-engine/mcp-profiles")
    home = Path.home() / ".cache" / "cdp-engine" / "mcp-profiles"
    assert default_profile_root({}) == default_profile_root({"XDG_CACHE_HOME": "relative"}) == home
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    files = Config().policies(str(tmp_path / "out")).files
    assert files.profile_root == tmp_path / "cdp-engine" / "mcp-profiles"
    assert not files.profile_root.exists()  # made with the first persistent profile, not before
    configured = Config.from_env({"BROWSER_MCP_PROFILE_ROOT": str(tmp_path / "p")})
    assert configured.profile_root == str(tmp_path / "p")
    assert configured.policies(str(tmp_path)).files.profile_root == tmp_path / "p"


# ----- MCP refuses what the toolset refuses --------------------------------------------------------


@pytest_asyncio.fixture
async def mcp(browser: cdp_engine.Browser) -> AsyncIterator[Any]:
    """mcp(**config) -> (tools, call) over a fresh manager on the session browser, instance 't' created."""
    managers: list[InstanceManager] = []

    async def make(**config: Any) -> Any:
        manager = InstanceManager(Config(**config), browser=browser)
        managers.append(manager)
        tools = BrowserTools(manager)

        async def call(tool: str, **args: Any) -> dict[str, Any]:
            if tool != "browser_create_instance":
                args.setdefault("instance", "t")
            return await tools.call(tool, args)

        assert (await call("browser_create_instance", name="t"))["status"] == "success"
        return manager, call

    yield make
    for manager in managers:
        await manager.close()


def refused(env: dict[str, Any], *needles: str) -> str:
    assert env["status"] == "error" and env["error_type"] == "invalid_params", env
    for needle in needles:
        assert needle in env["message"], env["message"]
    return str(env["message"])


async def test_mcp_navigation_schemes(mcp: Any, site: Any, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<title>Local</title><p>local file</p>")
    _, call = await mcp()
    refused(await call("browser_navigate", url="chrome://settings"), "chrome: URLs is not allowed",
            "BROWSER_MCP_ALLOWED_SCHEMES", "navigation.scheme")  # fmt: skip
    refused(await call("browser_navigate", url=page.as_uri()), "file: URLs is not allowed")
    refused(await call("browser_navigate", url="javascript:alert(1)"), "javascript: URLs")
    refused(await call("browser_tabs", action="new", url="view-source:" + site.url), "view-source: URLs")
    assert (await call("browser_navigate", url="about:blank"))["status"] == "success"
    assert (await call("browser_navigate", url=site.add("/policy/web", "<p>web</p>")))["status"] == "success"
    # With the option set, file: is allowed (the environment spelling of the same option too).
    _, call = await mcp(allowed_schemes=("http", "https", "file"))
    data = (await call("browser_navigate", url=page.as_uri()))["data"]
    assert data == {"url": page.as_uri(), "title": "Local"}
    assert Config.from_env({"BROWSER_MCP_ALLOWED_SCHEMES": "http, https,FILE:"}).allowed_schemes == (
        "http", "https", "file"
    )  # fmt: skip


async def test_mcp_uploads_only_from_configured_roots(mcp: Any, site: Any, tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "ok.txt").write_text("ok")
    (tmp_path / "secret.txt").write_text("secret")
    (uploads / "link.txt").symlink_to(tmp_path / "secret.txt")
    html = """<input type=file id=f onchange="out.textContent=[...this.files].map(f=>f.name).join(',')">
    <p id=out></p>"""
    url = site.add("/policy/upload", html)

    async def open_chooser(manager: InstanceManager, call: Any) -> None:
        assert (await call("browser_navigate", url=url))["status"] == "success"
        click = await call("browser_evaluate", expression="document.getElementById('f').click()")
        assert click["status"] == "success" or click["error_type"] == "modal_state_blocked", click
        inst = manager.instances["t"]
        async with asyncio.timeout(5):
            while not inst.pending_modals():  # noqa: ASYNC110 - the test waits for engine state
                await asyncio.sleep(0.01)

    manager, call = await mcp(modal_grace=0.2)  # default: no upload roots
    await open_chooser(manager, call)
    message = refused(await call("browser_file_upload", paths=["/etc/passwd"]), "files.no_upload_roots")
    assert "BROWSER_MCP_UPLOAD_ROOTS" in message  # says how to allow
    refused(await call("browser_file_upload", paths=[str(uploads / "ok.txt")]), "no upload folders")

    manager, call = await mcp(modal_grace=0.2, upload_roots=(str(uploads),))
    await open_chooser(manager, call)
    for bad in ("/etc/passwd", str(uploads / "link.txt"), str(uploads / ".." / "secret.txt")):
        refused(await call("browser_file_upload", paths=[bad]), "outside the allowed upload folders")
    ok = await call("browser_file_upload", paths=[str(uploads / "ok.txt")])
    assert ok["data"] == {"uploaded_count": 1}
    shown = await call("browser_evaluate", expression="document.getElementById('out').textContent")
    assert shown["data"]["result"] == "ok.txt"


async def test_mcp_writes_only_inside_the_output_folder(mcp: Any, site: Any, tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "escape.png").symlink_to(elsewhere / "escape.png")
    manager, call = await mcp(output_dir=str(out))
    assert (await call("browser_navigate", url=site.add("/policy/shot", "<h1>Shot</h1>")))["status"] == "success"
    for bad in (str(elsewhere / "shot.png"), "../elsewhere/shot.png", str(out / ".." / "shot.png"),
                str(out / "escape.png"), "/etc/cron.d/x"):  # fmt: skip
        refused(await call("browser_screenshot", path=bad), "outside the output folder", "BROWSER_MCP_OUTPUT_DIR")
        refused(await call("browser_pdf_save", file_path=bad), "outside the output folder")
        refused(await call("browser_console_messages", path=bad), "outside the output folder")
        refused(await call("browser_network_requests", path=bad), "outside the output folder")
    # A name no file system takes: was internal_error ("Could not write ...") from the failed write.
    refused(await call("browser_screenshot", path="x" * 300 + ".png"), "[rule files.invalid_path]", "255 bytes")
    refused(await call("browser_pdf_save", file_path="sub/" + "y" * 256), "[rule files.invalid_path]")
    assert sorted(os.listdir(elsewhere)) == [] and sorted(os.listdir(out)) == ["escape.png"]
    shot = await call("browser_screenshot", path="shot.png")  # relative: inside the output folder
    assert shot["data"]["path"] == str(out / "shot.png") and (out / "shot.png").read_bytes()[:4] == b"\x89PNG"
    assert shot["operation"]["artifacts"] == [{"path": str(out / "shot.png")}]
    pdf = await call("browser_pdf_save", file_path=str(out / "page.pdf"))
    assert pdf["data"]["path"] == str(out / "page.pdf") and (out / "page.pdf").read_bytes()[:5] == b"%PDF-"

    async def attachment(request: web.Request) -> web.Response:
        return web.Response(body=b"bytes", headers={"Content-Disposition": "attachment; filename=r.txt"})

    data = (await call("browser_navigate", url=site.add_handler("/policy/dl", attachment)))["data"]
    download_id = data["download_id"]
    refused(await call("browser_download_save", download_id=download_id, path=str(elsewhere / "r.txt")),
            "outside the output folder")  # fmt: skip
    saved = await call("browser_download_save", download_id=download_id, path="saved/../r.txt")
    assert saved["data"]["path"] == str(out / "r.txt") and (out / "r.txt").read_bytes() == b"bytes"
    assert sorted(os.listdir(elsewhere)) == []
    # No output folder configured: a temporary one per server, still the only place writes go.
    manager, call = await mcp()
    assert (await call("browser_navigate", url=site.add("/policy/shot2", "<h1>Shot</h1>")))["status"] == "success"
    temp = manager.policies.files.output_dir
    assert temp is not None and temp.is_dir() and temp != out
    refused(await call("browser_screenshot", path=str(tmp_path / "x.png")), "outside the output folder")
    assert (await call("browser_screenshot", path="x.png"))["data"]["path"] == str(temp / "x.png")


async def test_mcp_profiles_only_inside_the_profile_folder(mcp: Any, site: Any, tmp_path: Path) -> None:
    """profile_dir made folders anywhere (Path(profile_dir).mkdir, relative to the server's working folder)."""
    root, outside = tmp_path / "profiles", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link-out").symlink_to(outside)
    manager, call = await mcp(profile_root=str(root))
    created = await call("browser_create_instance", name="p", profile_dir="work")
    assert created["status"] == "success", created
    assert created["data"]["profile_dir"] == str(root / "work") and created["data"]["mode"] == "persistent"
    assert created["data"]["isolation"] == "process"
    navigated = await call("browser_navigate", instance="p", url=site.add("/policy/profile", "<p>p</p>"))
    assert navigated["status"] == "success", navigated
    assert os.listdir(root / "work")  # Chromium keeps its profile there
    assert (root / "work").stat().st_mode & 0o777 == 0o700  # cookies and saved logins: this user only
    # The same folder however it is spelled: in use while the instance lives.
    for spelling in ("work", str(root / "work"), "x/../work", "./work/"):
        env = await call("browser_create_instance", name="q", profile_dir=spelling)
        assert env["error_type"] == "profile_dir_in_use" and str(root / "work") in env["message"], env
    for bad, rule in (
        ("../escape", "files.outside_profile_root"),
        (str(tmp_path / "abs"), "files.outside_profile_root"),
        ("/tmp/cdp-engine-profile-escape", "files.outside_profile_root"),
        ("link-out/p", "files.outside_profile_root"),  # a symlink inside the folder pointing out
        ("link-out", "files.outside_profile_root"),
        (str(root), "files.outside_profile_root"),  # the folder itself
        ("a\x00b", "files.invalid_path"),
        ("y" * 300, "files.invalid_path"),
    ):
        env = await call("browser_create_instance", name="q", profile_dir=bad)
        message = refused(env, f"[rule {rule}]")
        if rule == "files.outside_profile_root":
            assert "BROWSER_MCP_PROFILE_ROOT" in message  # says how to allow
        assert env["operation"]["outcome"] == "not_started", env
    # A lone surrogate is refused as an argument, before any policy.
    refused(await call("browser_create_instance", name="q", profile_dir="\ud800"))
    assert not os.path.exists("/tmp/cdp-engine-profile-escape")
    assert sorted(os.listdir(tmp_path)) == ["outside", "profiles"] and os.listdir(outside) == []
    assert sorted(os.listdir(root)) == ["link-out", "work"]
    assert [i["name"] for i in manager.summaries()] == ["t", "p"]
    assert not manager.failed_launches
    # The profile survives destroy and is free again.
    tools = BrowserTools(manager)
    assert (await tools.call("browser_destroy_instance", {"name": "p"}))["status"] == "success"
    assert os.listdir(root / "work")
    again = await call("browser_create_instance", name="q", profile_dir=str(root / "work"))
    assert again["status"] == "success" and again["data"]["profile_dir"] == str(root / "work"), again
    assert (await tools.call("browser_destroy_instance", {"name": "q"}))["status"] == "success"
    # "" is no profile (upstream's reading): an ephemeral instance.
    ephemeral = await call("browser_create_instance", name="e", profile_dir="")
    assert ephemeral["data"]["mode"] == "ephemeral" and ephemeral["data"]["profile_dir"] is None, ephemeral


# ----- chrome://settings through every surface ------------------------------------------------------


async def assert_browser_alive(browser: cdp_engine.Browser, site: Any) -> None:
    """The shared Chromium still runs and a new tab works."""
    assert not browser.closed
    assert browser.process is not None and browser.process.process.returncode is None
    context = await browser.new_context()
    try:
        tab = await context.new_tab(site.add("/policy/alive", "<title>alive</title>"))
        assert await tab.evaluate("document.title") == "alive"
    finally:
        await context.close()


async def test_chrome_settings_via_core_goto(browser: cdp_engine.Browser, tab: cdp_engine.Tab, site: Any) -> None:
    # In an isolated context (every surface's), Chromium's own pages crash the whole browser: refused.
    assert tab.off_the_record
    for url in ("chrome://settings", "chrome://history", "CHROME://extensions", "view-source:chrome://settings"):
        with pytest.raises(NavigationError, match="isolated browser context"):
            await tab.goto(url)
    await assert_browser_alive(browser, site)
    # In the default context (the regular profile) the user may open them.
    own = await browser.new_tab()
    try:
        assert not own.off_the_record
        await own.goto("chrome://settings")
        assert own.url.startswith("chrome://settings")
    finally:
        await own.close()
    await assert_browser_alive(browser, site)


async def test_chrome_settings_via_element_index(browser: cdp_engine.Browser, tab: Any, site: Any) -> None:
    await tab.goto(site.add("/policy/index", "<p>start</p>"))
    state = await tab.act({"action": "navigate", "url": "chrome://settings"}, screenshot=False)
    assert state["error"]["code"] == "ACTION_VALIDATION_FAILED"
    assert "chrome: URLs is not allowed" in state["error"]["message"]
    await assert_browser_alive(browser, site)
    index = ElementIndex.of(tab)
    index.policies = Policies.for_index(allowed_schemes={"http", "https", "chrome"})  # the user allows it
    state = await tab.act({"action": "navigate", "url": "chrome://settings"}, screenshot=False)
    assert state["error"]["code"] == "NAVIGATION_FAILED" and "isolated browser context" in state["error"]["message"]
    assert state["url"] == site.url + "/policy/index"
    await assert_browser_alive(browser, site)


async def test_chrome_settings_via_toolset(browser: cdp_engine.Browser, context: Any, site: Any) -> None:
    for config, expected in (
        (ToolsetConfig(), REFUSED_SCHEME),
        (ToolsetConfig(allowed_schemes=("http", "https", "chrome")), "Error: Navigation to"),
    ):
        ts = await BrowserToolset(browser, context=context, config=config).start()
        try:
            content, is_error = await ts.call("navigate", {"url": "chrome://settings"})
            assert is_error and content[0]["text"].startswith(expected), content
        finally:
            await ts.close()
        await assert_browser_alive(browser, site)


async def test_chrome_settings_via_mcp(browser: cdp_engine.Browser, mcp: Any, site: Any) -> None:
    _, call = await mcp()
    refused(await call("browser_navigate", url="chrome://settings"), "chrome: URLs is not allowed")
    await assert_browser_alive(browser, site)
    _, call = await mcp(allowed_schemes=("http", "https", "chrome"))
    env = await call("browser_navigate", url="chrome://settings")
    assert env["error_type"] == "navigation_failed" and "isolated browser context" in env["message"], env
    await assert_browser_alive(browser, site)


async def test_chrome_settings_via_service(browser: cdp_engine.Browser, site: Any) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    start = site.add("/policy/service", "<p>service</p>")
    for policies, status, code in (
        (None, 400, "ACTION_VALIDATION_FAILED"),
        (Policies.for_service(allowed_schemes={"http", "https", "chrome"}), 200, "NAVIGATION_FAILED"),
    ):
        runner = web.AppRunner(create_app(browser, token=TOKEN, start_url=start, policies=policies))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port = runner.addresses[0][1]
        try:
            async with ClientSession() as http:
                body = orjson.dumps({"action": "navigate", "url": "chrome://settings"})
                async with http.post(f"http://127.0.0.1:{port}/action?screenshot=0", data=body, headers=auth) as r:
                    assert r.status == status
                    state = orjson.loads(await r.read())
                assert state["error"]["code"] == code and state["url"] == start
                # A remote caller never reaches local files either.
                body = orjson.dumps({"action": "navigate", "url": "file:///etc/passwd"})
                async with http.post(f"http://127.0.0.1:{port}/action?screenshot=0", data=body, headers=auth) as r:
                    assert r.status == 400
        finally:
            await runner.cleanup()
        await assert_browser_alive(browser, site)


# ----- core files: screenshots and downloads, once ---------------------------------------------------


async def test_core_screenshot_and_download_listener(browser: cdp_engine.Browser, tab: cdp_engine.Tab, site: Any) -> None:
    from cdp_engine.core.files import image_size

    await tab.goto(site.add("/policy/tall", "<body style='margin:0'><div style='height:3000px'>tall</div></body>"))
    viewport = image_size(await tab.screenshot())
    full = image_size(await tab.screenshot(full_page=True))
    half = image_size(await tab.screenshot(scale=0.5, format="jpeg", quality=50))
    region = await tab.screenshot_region(full_page=True)
    assert viewport == browser.viewport_size and full == (browser.viewport_size[0], 3000) == (
        region["width"], region["height"]
    )  # fmt: skip
    assert half == (browser.viewport_size[0] // 2, browser.viewport_size[1] // 2)
    assert (await tab.pdf_base64()).startswith("JVBERi")  # %PDF

    async def attachment(request: web.Request) -> web.Response:
        return web.Response(body=b"12345", headers={"Content-Disposition": "attachment; filename=f.bin"})

    seen: list[tuple[str, str | None, bool]] = []
    stop = browser.on_download(lambda d: seen.append((d.state, d.tab_id, bool(d.path and Path(d.path).exists()))))
    try:
        link = site.add_handler("/policy/file", attachment)
        await tab.goto(site.add("/policy/dlpage", f"<a id=a href='{link}'>get</a>"))
        await tab.evaluate("document.getElementById('a').click()")
        async with asyncio.timeout(10):
            while not seen or seen[-1][0] != "completed":  # noqa: ASYNC110 - the test waits for engine state
                await asyncio.sleep(0.01)
    finally:
        stop()
    # Once when it began, once when it completed, with the file already in place for the listener.
    assert seen == [("inProgress", tab.target_id, False), ("completed", tab.target_id, True)]
