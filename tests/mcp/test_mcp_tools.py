"""The MCP tool surface against real Chromium, through the SDK-independent layer (BrowserTools.call).

Every tool and every error_type of the reference is exercised here (the last test checks that);
the server over the real `mcp` SDK transports is tested in test_mcp_server.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from conftest import sent_commands

import cdp_engine
from cdp_engine.mcp_server import ERROR_TYPES, BrowserTools, Config, InstanceManager
from cdp_engine.mcp_server.envelope import bound
from cdp_engine.mcp_server.urls import normalize_url

# The coverage check at the end reads what the module's tests called: they all run in one worker.
pytestmark = pytest.mark.xdist_group("mcp_tools")

CALLED: set[str] = set()
ERRORS: set[str] = set()
OPERATION_KEYS = {
    "id", "tool", "instance_id", "page_id", "frame_id", "started_at", "finished_at", "duration_ms", "outcome",
    "retry", "artifacts",
}  # fmt: skip


class Surface:
    """Calls tools and checks every envelope's shape; ok()/err() assert the status."""

    def __init__(self, tools: BrowserTools, instance: str | None = None) -> None:
        self.tools = tools
        self.instance = instance

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        if self.instance is not None and "instance" not in args and tool not in _NO_INSTANCE:
            args["instance"] = self.instance
        env = await self.tools.call(tool, args)
        CALLED.add(tool)
        assert set(env["operation"]) >= OPERATION_KEYS, env
        assert env["operation"]["tool"] in (tool, None)
        if env["status"] == "success":
            assert set(env) == {"status", "instance", "data", "operation"}, env
            assert env["operation"]["outcome"] == "completed" and env["operation"]["retry"] == "not_needed"
        else:
            assert set(env) - {"data"} == {"status", "instance", "error_type", "message", "operation"}, env
            assert env["error_type"] in ERROR_TYPES
            ERRORS.add(env["error_type"])
        json.dumps(env)  # JSON-serialisable as is
        return env

    async def ok(self, tool: str, **args: Any) -> dict[str, Any]:
        env = await self.call(tool, **args)
        assert env["status"] == "success", env
        return env["data"]

    async def err(self, tool: str, error_type: str, **args: Any) -> dict[str, Any]:
        env = await self.call(tool, **args)
        assert env["status"] == "error" and env["error_type"] == error_type, env
        return env


_NO_INSTANCE = {
    "browser_create_instance",
    "browser_destroy_instance",
    "browser_list_instances",
    "browser_health",
}
Make = Callable[..., Awaitable[Surface]]


@pytest_asyncio.fixture
async def make(browser: cdp_engine.Browser) -> AsyncIterator[Make]:
    """make(**config) -> a Surface over a fresh manager on the session browser, with instance 't' created."""
    managers: list[InstanceManager] = []

    async def factory(create: bool = True, **config: Any) -> Surface:
        manager = InstanceManager(Config(**config), browser=browser)
        managers.append(manager)
        surface = Surface(BrowserTools(manager), "t")
        if create:
            await surface.ok("browser_create_instance", name="t")
        return surface

    yield factory
    for manager in managers:
        await manager.close()


@pytest_asyncio.fixture
async def s(make: Make) -> Surface:
    return await make()


def closed_port() -> int:
    """A local port nothing listens on (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def add(site: Any, path: str, html: str) -> str:
    return site.add("/mcp" + path, html)


async def snapshot(s: Surface, **args: Any) -> str:
    return (await s.ok("browser_snapshot", **args))["snapshot"]


async def modal_pending(s: Surface) -> None:
    """Wait until the instance has a pending modal (a chooser opens a moment after the click returns)."""
    inst = s.tools.manager.instances["t"]
    async with asyncio.timeout(5):
        while not inst.pending_modals():  # noqa: ASYNC110 - the test waits for engine state
            await asyncio.sleep(0.01)


def ref_of(snap: str, needle: str) -> str:
    """The ref on the first snapshot line containing needle."""
    for line in snap.splitlines():
        if needle in line and "[ref=" in line:
            return line.split("[ref=")[1].split("]")[0]
    raise AssertionError(f"{needle!r} not in snapshot:\n{snap}")


# ----- pure parts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://example.com", "https://example.com"),
        ("example.com", "https://example.com"),
        ("example.com:8443/x", "https://example.com:8443/x"),
        ("localhost", "http://localhost"),
        ("localhost:3000/a", "http://localhost:3000/a"),
        ("127.0.0.1", "http://127.0.0.1"),
        ("10.0.0.7:8080/p?q=1", "http://10.0.0.7:8080/p?q=1"),
        ("data:text/html,a.b", "data:text/html,a.b"),
        ("about:blank", "about:blank"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("intranet", "intranet"),
        ("999.1.1.1", "https://999.1.1.1"),
    ],
)
def test_url_normalisation(given: str, expected: str) -> None:
    assert normalize_url(given) == expected


def test_result_bound_replaces_oversized_envelope() -> None:
    from cdp_engine.mcp_server.envelope import Operation, success

    op = Operation(tool="browser_evaluate")
    env, raw = bound(success("i", {"result": "x" * 10_000}, op), op, 4096)
    assert env["error_type"] == "result_too_large" and len(raw) <= 4096
    assert env["operation"]["retry"] == "inspect_state" and env["operation"]["outcome"] == "completed"


# ----- lifecycle, envelope -----------------------------------------------------------------------


async def test_lifecycle_envelope_and_validation(make: Make) -> None:
    s = await make(create=False, max_instances=2)
    created = await s.call("browser_create_instance", name="t")
    op = created["operation"]
    assert (
        created["instance"] == "t"
        and created["data"]["status"] == "live"
        and created["data"]["page_count"] == 0
    )
    assert op["instance_id"] == created["data"]["instance_id"] and op["duration_ms"] >= 0
    dup = await s.err("browser_create_instance", "instance_already_exists", name="t")
    assert dup["operation"]["outcome"] == "not_started" and dup["operation"]["retry"] == "after_correction"
    await s.ok("browser_create_instance", name="u")
    await s.err("browser_create_instance", "instance_limit_exceeded", name="v")
    listed = await s.call("browser_list_instances")
    assert listed["instance"] is None and [i["name"] for i in listed["data"]["instances"]] == ["t", "u"]
    health = await s.ok("browser_health")
    assert (
        health["instance_count"] == 2
        and health["max_instances"] == 2
        and health["config"]["transport"] == "stdio"
    )
    await s.err("browser_create_instance", "unsupported_capability", name="w", humanize=True)
    assert await s.ok("browser_destroy_instance", name="u") == {}
    await s.err("browser_destroy_instance", "instance_not_found", name="u")
    missing = await s.err("browser_navigate", "instance_not_found", instance="nope", url="about:blank")
    assert missing["instance"] == "nope"
    # Argument validation: unknown argument, wrong type, unknown tool -> invalid_params, nothing started.
    bad = await s.err("browser_navigate", "invalid_params", url="about:blank", bogus=1)
    assert "bogus" in bad["message"] and bad["operation"]["outcome"] == "not_started"
    await s.err("browser_navigate", "invalid_params", url=5)
    await s.err("browser_click", "invalid_params", ref="e1", button="side")
    unknown = await s.call("browser_nope")
    assert unknown["error_type"] == "invalid_params" and unknown["instance"] == "t"
    # The idle reaper destroys instances nobody used for idle_ttl seconds.
    reaped = await make(create=False, idle_ttl=0.15, reaper_interval=0.05)
    await reaped.ok("browser_create_instance", name="idle")
    await asyncio.sleep(0.4)
    assert (await reaped.ok("browser_list_instances"))["instances"] == []
    # A fresh instance has no page; the first page tool creates one.
    tabs = await s.ok("browser_tabs", action="list")
    assert tabs == {"tabs": []}
    snap = await s.call("browser_snapshot")
    assert snap["status"] == "success" and snap["operation"]["page_id"] and snap["operation"]["frame_id"]


async def test_result_too_large_and_operation_timeout(make: Make, site: Any) -> None:
    s = await make(max_result_bytes=4096, operation_timeout=1.0)
    big = await s.err("browser_evaluate", "result_too_large", expression="'x'.repeat(10000)")
    assert big["operation"]["retry"] == "inspect_state"
    # The deadline includes the wait for the instance lock: a queued call times out without starting.
    async with s.tools.manager.instances["t"].lock:  # another call is busy with the instance
        queued = await s.err("browser_tabs", "operation_timeout", action="list")
    assert queued["operation"]["outcome"] == "not_started"
    running = await s.err("browser_wait_for", "operation_timeout", time=5)
    assert running["operation"]["outcome"] == "unknown" and running["operation"]["retry"] == "inspect_state"


# ----- navigation --------------------------------------------------------------------------------


async def test_navigate_back_failures_and_download(make: Make, site: Any, tmp_path: Path) -> None:
    s = await make(navigation_timeout=1.0, output_dir=str(tmp_path))  # download saves go there
    one = add(site, "/nav1", "<title>One</title><p>one</p>")
    two = add(site, "/nav2", "<title>Two</title><p>two</p>")
    hostless = one.removeprefix("http://")  # 127.0.0.1:PORT/... -> http:// by normalisation
    data = await s.ok("browser_navigate", url=hostless)
    assert data == {"url": one, "title": "One"}
    await s.ok("browser_navigate", url=two)
    assert await s.ok("browser_navigate_back") == {"url": one}
    # No history entry before the first page of a fresh tab: stays put.
    page = (await s.ok("browser_tabs", action="new"))["page_id"]
    assert await s.ok("browser_navigate_back", page_id=page) == {"url": "about:blank"}
    refused = f"http://127.0.0.1:{closed_port()}"
    failed = await s.err("browser_navigate", "navigation_failed", url=refused + "/")
    assert "ERR_CONNECTION_REFUSED" in failed["message"]
    assert failed["operation"]["outcome"] == "unknown" and failed["operation"]["retry"] == "inspect_state"

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(3)
        return web.Response(text="late", content_type="text/html")

    await s.err("browser_navigate", "navigation_timeout", url=site.add_handler("/mcp/slow", slow))

    async def attachment(request: web.Request) -> web.Response:
        return web.Response(
            body=b"report-bytes", headers={"Content-Disposition": "attachment; filename=report.txt"}
        )

    site.add_handler("/mcp/download-file", attachment)

    async def redirect(request: web.Request) -> web.Response:
        raise web.HTTPFound("/mcp/download-file")

    via = site.add_handler("/mcp/download-redirect", redirect)
    data = await s.ok("browser_navigate", url=via)
    current = next(t for t in (await s.ok("browser_tabs", action="list"))["tabs"] if t["selected"])["url"]
    assert data["download"] is True and data["url"] == current != via  # the page stays where it was
    download_id = data["download_id"]
    listed = await s.ok("browser_downloads")
    assert [d["download_id"] for d in listed["downloads"]] == [download_id]
    assert listed["downloads"][0]["suggested_filename"] == "report.txt"
    target = tmp_path / "saved.txt"
    saved = await s.call("browser_download_save", download_id=download_id, path=str(target))
    assert saved["status"] == "success" and target.read_bytes() == b"report-bytes"
    assert saved["operation"]["artifacts"] == [{"path": str(target)}]
    assert (await s.ok("browser_downloads"))["downloads"][-1]["status"] == "saved"
    await s.err("browser_download_save", "download_not_found", download_id="nope", path=str(target))
    await s.err(
        "browser_download_save", "download_failed", download_id=download_id, path=str(tmp_path / "no" / "x")
    )
    # The word "download" in a failing URL is not a download.
    await s.err("browser_navigate", "navigation_failed", url=refused + "/download")


async def test_wait_for_semantics(make: Make, site: Any) -> None:
    s = await make(wait_timeout=0.6)
    await s.err("browser_wait_for", "invalid_params")
    url = add(
        site,
        "/wait",
        """<p id=late></p><div style="display:none">Ghost</div><p>Ghost</p><span id=gone>Leaving</span>
        <script>setTimeout(() => { late.textContent = 'Arrived'; gone.remove(); }, 150)</script>""",
    )
    await s.ok("browser_navigate", url=url)
    data = await s.ok("browser_wait_for", text="Arrived", text_gone="Leaving", time=0.05)
    assert data == {"waited_for": "0.05s, text_gone='Leaving', text='Arrived'"}
    # A hidden duplicate does not mask the visible match; text_gone needs every match hidden.
    assert (await s.ok("browser_wait_for", text="Ghost"))["waited_for"] == "text='Ghost'"
    timeout = await s.err("browser_wait_for", "wait_timeout", text_gone="Ghost")
    assert "Ghost" in timeout["message"]
    await s.err("browser_wait_for", "wait_timeout", text="Never there")
    capped = await s.call("browser_wait_for", time=0)
    assert capped["data"] == {"waited_for": "0.0s"}
    from cdp_engine.mcp_server import navigation_tools as navigation

    navigation.MAX_WAIT_SECONDS, cap = 0.05, navigation.MAX_WAIT_SECONDS
    try:
        assert (await s.ok("browser_wait_for", time=45))["waited_for"] == "0.05s"  # capped (30 s in earnest)
    finally:
        navigation.MAX_WAIT_SECONDS = cap


# ----- snapshot, refs, interaction ---------------------------------------------------------------

FORM = """<title>Form</title><h1>Sign up</h1>
<a href="/next">Next page</a>
<label>Email <input id=email placeholder="you@example.com"></label>
<label>Bio <textarea id=bio>old</textarea></label>
<label><input type=checkbox id=agree> Agree</label>
<label><input type=radio name=plan id=free value=free> Free</label>
<label><input type=radio name=plan id=pro value=pro> Pro</label>
<label>Country <select id=country><option value=fr>France</option><option value=de>Germany</option></select></label>
<label>Tags <select id=tags multiple><option value=a>A</option><option value=b>B</option><option value=c>C</option></select></label>
<button id=go onclick="out.textContent = 'Clicked ' + (++window.n || (window.n = 1))">Go</button>
<button id=hov onmouseover="out.textContent = 'Hovered'">Hover me</button>
<div id=src style="width:60px;height:30px;background:#ccc" onmousedown="log.push('down')">Drag</div>
<div id=dst style="width:60px;height:30px;background:#aaa" onmouseup="log.push('up:dst')">Drop</div>
<button id=gone onclick="this.remove()">Vanish</button>
<p id=out>Nothing</p>
<script>window.log = []; document.addEventListener('keydown', e => log.push(e.key))</script>"""


async def test_a_click_by_ref_is_hit_tested_in_its_document(s: Surface, site: Any) -> None:
    # The element is resolved with the aim; the hit test runs in the page at the point the quads give, so once
    # the element moved the click still lands on it where it is now.
    html = (
        "<button id=b style='position:absolute; left:40px; top:60px; width:100px; height:30px'"
        " onclick='this.textContent = \"hit \" + event.clientX'>Go</button>"
    )
    await s.ok("browser_navigate", url=add(site, "/aimed", html))
    go = ref_of(await snapshot(s), 'button "Go"')
    page = s.tools.manager.instances["t"].selected
    assert page is not None
    with sent_commands(page.tab.session) as log:
        await s.ok("browser_click", ref=go)
    resolves = [answered for method, answered in log if method == "DOM.resolveNode"]
    assert resolves and all("DOM.getContentQuads" not in answered for answered in resolves), log
    assert (await s.ok("browser_evaluate", expression="b.textContent")) == {"result": "hit 90"}
    await s.ok("browser_evaluate", expression="() => { b.style.left = '200px'; b.textContent = 'Go'; }")
    await s.ok("browser_click", ref=go)
    assert (await s.ok("browser_evaluate", expression="b.textContent")) == {"result": "hit 250"}


async def test_snapshot_and_ref_actions(s: Surface, site: Any) -> None:
    await s.ok("browser_navigate", url=add(site, "/form", FORM))
    snap = await snapshot(s)
    assert '- heading "Sign up" [level=1] [ref=' in snap
    assert "[cursor=pointer]" in snap and "- /url: /next" in snap
    assert "- /placeholder: you@example.com" in snap
    assert '- option "France" [selected]' in snap
    email, bio, go = (
        ref_of(snap, 'textbox "Email"'),
        ref_of(snap, 'textbox "Bio"'),
        ref_of(snap, 'button "Go"'),
    )
    assert await s.ok("browser_click", ref=go) == {"clicked": go}
    await s.ok("browser_click", ref=go, double_click=True, modifiers=["Shift", "ControlOrMeta"])
    assert (await s.ok("browser_evaluate", expression="out.textContent")) == {"result": "Clicked 3"}
    assert await s.ok("browser_type", ref=email, text="me@example.com") == {"typed_into": email}
    await s.ok("browser_type", ref=bio, text=" and more", clear_first=False)
    values = await s.ok("browser_evaluate", expression="() => [email.value, bio.value]")
    assert values["result"] == ["me@example.com", "old and more"]
    snap = await snapshot(s)
    filled = await s.ok(
        "browser_fill_form",
        fields=[
            {"ref": ref_of(snap, 'textbox "Email"'), "value": "x@y.z"},
            {"ref": ref_of(snap, 'checkbox "Agree"'), "value": "yes", "type": "checkbox"},
            {"ref": ref_of(snap, 'radio "Pro"'), "value": True, "type": "radio"},
            {"ref": ref_of(snap, 'combobox "Country"'), "value": "de", "type": "combobox"},
        ],
    )
    assert filled == {"filled_count": 4}
    state = await s.ok(
        "browser_evaluate", expression="[email.value, agree.checked, pro.checked, country.value]"
    )
    assert state["result"] == ["x@y.z", True, True, "de"]
    bad = await s.err("browser_fill_form", "invalid_params", fields=[{"ref": email, "value": 1}])
    assert bad["operation"]["outcome"] == "not_started"
    snap = await snapshot(s)
    tags = ref_of(snap, 'listbox "Tags"')
    assert await s.ok("browser_select_option", ref=tags, value=["a", "c"]) == {"selected": ["a", "c"]}
    assert (await s.ok("browser_evaluate", expression="[...tags.selectedOptions].map(o => o.value)"))[
        "result"
    ] == ["a", "c"]
    await s.err("browser_select_option", "invalid_params", ref=ref_of(snap, 'combobox "Country"'), value="xx")
    assert await s.ok("browser_hover", ref=ref_of(snap, "Hover me")) == {"hovered": ref_of(snap, "Hover me")}
    src, dst = ref_of(snap, ": Drag"), ref_of(snap, ": Drop")
    assert await s.ok("browser_drag", source_ref=src, target_ref=dst) == {"dragged": src, "to": dst}
    await s.ok("browser_click", ref=ref_of(snap, 'textbox "Email"'))
    assert await s.ok("browser_press_key", key="Control+A") == {"pressed": "Control+A"}
    await s.ok("browser_press_key", key="Shift+Tab")
    log = (await s.ok("browser_evaluate", expression="log"))["result"]
    # The click's modifiers went down as keys (as Playwright holds them), then the last character of each
    # typed text as a person's key press (core/input.insert_text), then the drag and the presses.
    assert log == ["Shift", "Control", "m", "e", "z", "down", "up:dst", "Control", "A", "Shift", "Tab"]  # "A" is A
    await s.err("browser_press_key", "invalid_params", key="NoSuchKey")
    # Verification tools.
    assert await s.ok("browser_verify_element_visible", ref=go) == {"visible": True, "ref": go}
    assert await s.ok("browser_verify_text_visible", text="sign UP") == {"text": "sign UP", "visible": True}
    await s.err("browser_verify_text_visible", "verification_failed", text="absent words")
    assert (await s.ok("browser_verify_list_visible", refs=[go, email]))["visible_refs"] == [go, email]
    await s.err("browser_verify_list_visible", "invalid_params")
    body = ref_of(snap, 'heading "Sign up"')
    await s.err("browser_verify_list_visible", "verification_failed", container_ref=body, items=["Elsewhere"])
    value = await s.ok("browser_verify_value", ref=ref_of(snap, 'textbox "Email"'), expected_value="x@y.z")
    assert value == {"ref": ref_of(snap, 'textbox "Email"'), "value": "x@y.z", "element_type": "text"}
    await s.ok(
        "browser_verify_value",
        ref=ref_of(snap, 'checkbox "Agree"'),
        expected_value="checked",
        element_type="checkbox",
    )
    await s.err(
        "browser_verify_value",
        "verification_failed",
        ref=ref_of(snap, 'checkbox "Agree"'),
        expected_value="no",
        element_type="checkbox",
    )
    locator = await s.ok("browser_generate_locator", ref=go)
    assert (
        locator["python_syntax"] == 'page.get_by_role("button", name="Go")' and locator["selector"] == "#go"
    )
    by_selector = await s.ok("browser_generate_locator", selector="#email")
    assert by_selector["internal_selector"] == 'internal:role=textbox[name="Email"i]'
    await s.err("browser_generate_locator", "invalid_params")
    # Evaluate: functions get the element; errors and misses are typed.
    assert (await s.ok("browser_evaluate", expression="el => el.id", ref=go))["result"] == "go"
    assert (await s.ok("browser_evaluate", expression="el => el.tagName", selector="#bio"))[
        "result"
    ] == "TEXTAREA"
    assert (await s.ok("browser_evaluate", expression="document.body"))["result"] is not None or True
    assert (await s.ok("browser_evaluate", expression="() => undefined"))["result"] is None
    await s.err("browser_evaluate", "evaluation_failed", expression="(() => { throw new Error('boom') })()")
    await s.err("browser_evaluate", "evaluation_failed", expression="let x = ")
    await s.err("browser_evaluate", "element_not_found", expression="el => el", selector="#missing")
    await s.err("browser_snapshot", "element_not_found", selector="#missing")
    await s.err("browser_evaluate", "invalid_params", expression="1", ref=go, selector="#go")
    scoped = await snapshot(s, selector="#country")
    assert scoped.startswith('- combobox "Country"') and "[ref=" not in scoped
    # Stale refs: a removed element, an unknown ref, and every ref after navigation.
    vanish = ref_of(snap, "Vanish")
    await s.ok("browser_click", ref=vanish)
    stale = await s.err("browser_click", "stale_ref", ref=vanish)
    assert stale["message"].startswith(f"Ref '{vanish}' not found in current page snapshot")
    assert stale["operation"]["outcome"] == "not_started"
    await s.err("browser_hover", "stale_ref", ref="e99999")
    await s.ok("browser_navigate", url=add(site, "/other", "<button>Go</button>"))
    await s.err("browser_click", "stale_ref", ref=go)
    await s.err("browser_type", "stale_ref", ref=email, text="x")
    # type(submit=True) and press_key("Enter") wait for the page load they start.
    done = add(site, "/submitted", "<title>Done</title><p>Submitted</p>")
    await s.ok(
        "browser_navigate",
        url=add(site, "/search", f"<form action='{done}'><input name=q aria-label=Query></form>"),
    )
    await s.ok("browser_type", ref=ref_of(await snapshot(s), 'textbox "Query"'), text="cats", submit=True)
    assert (await s.ok("browser_tabs", action="list"))["tabs"][0]["url"] == done + "?q=cats"
    await s.ok("browser_navigate_back")
    await s.ok("browser_click", ref=ref_of(await snapshot(s), 'textbox "Query"'))
    await s.ok("browser_press_key", key="Enter")
    assert "Submitted" in await snapshot(s)


async def test_mouse_tools(s: Surface, site: Any) -> None:
    url = add(
        site,
        "/mouse",
        """<body style="margin:0;height:3000px">
        <button id=b style="position:absolute;left:100px;top:100px;width:100px;height:40px"
          onclick="log.push('click' + event.detail)" onmousedown="log.push('down:' + event.button)"
          onmouseup="log.push('up:' + event.button)">B</button>
        <script>window.log = []; document.addEventListener('mousemove', e => window.last = [e.clientX, e.clientY])</script>""",
    )
    await s.ok("browser_navigate", url=url)
    data = await s.ok("browser_mouse_click_xy", x=150, y=120)
    assert data == {"clicked_at": [150, 120], "button": "left"}
    await s.ok("browser_mouse_click_xy", x=150, y=120, click_count=2, delay_ms=10)
    assert await s.ok("browser_mouse_move_xy", x=10, y=20) == {"moved_to": [10, 20]}
    assert (await s.ok("browser_evaluate", expression="last"))["result"] == [10, 20]
    await s.ok("browser_mouse_move_xy", x=150, y=120)
    assert await s.ok("browser_mouse_down", button="right") == {"button_down": "right"}
    assert await s.ok("browser_mouse_up", button="right") == {"button_up": "right"}
    assert await s.ok("browser_mouse_drag_xy", from_x=150, from_y=120, to_x=160, to_y=125) == {
        "from": [150, 120],
        "to": [160, 125],
    }
    log = (await s.ok("browser_evaluate", expression="log"))["result"]
    assert log[:3] == ["down:0", "up:0", "click1"] and "down:2" in log and "up:2" in log
    assert await s.ok("browser_mouse_wheel", delta_y=400) == {"scrolled": [0, 400]}
    await s.ok("browser_wait_for", time=0.2)
    assert (await s.ok("browser_evaluate", expression="scrollY"))["result"] > 0
    await s.err("browser_mouse_wheel", "invalid_params")
    await s.err("browser_mouse_down", "invalid_params", button="side")


# ----- tabs, frames, explicit targeting ----------------------------------------------------------


async def test_tabs_frames_and_targeting(s: Surface, site: Any) -> None:
    inner = add(
        site, "/inner", "<h2>Inner</h2><button onclick=\"this.textContent='Pressed'\">Inner button</button>"
    )
    remote = site.add(
        "/mcp/remote",
        "<h3>Remote</h3><button onclick=\"this.textContent='Remote pressed'\">Remote button</button>",
    )
    remote_url = site.other_url + "/mcp/remote"
    assert remote
    outer = add(
        site,
        "/outer",
        f"""<h1>Outer</h1><iframe name=same src="{inner}"></iframe><iframe name=cross src="{remote_url}"></iframe>
        <button onclick="window.open('{inner}')">Open popup</button>""",
    )
    first = (await s.ok("browser_tabs", action="new", url=outer))["page_id"]
    await s.ok("browser_wait_for", text="Outer")
    frames = await s.ok("browser_frames")
    assert frames["page_id"] == first and frames["frames"][0]["is_main"]
    by_name = {f["name"]: f for f in frames["frames"]}
    assert set(by_name) >= {"same", "cross"} and by_name["cross"]["url"] == remote_url
    assert by_name["same"]["parent_frame_id"] == frames["main_frame_id"]
    # Frame-scoped snapshot and actions, across processes too.
    cross = by_name["cross"]["frame_id"]
    await s.ok("browser_wait_for", text="Remote", frame_id=cross)
    snap = await s.ok("browser_snapshot", frame_id=cross)
    assert snap["frame_id"] == cross and snap["url"] == remote_url and "Outer" not in snap["snapshot"]
    button = ref_of(snap["snapshot"], "Remote button")
    clicked = await s.call("browser_click", ref=button, frame_id=cross)
    assert clicked["operation"]["frame_id"] == cross and clicked["status"] == "success"
    await s.ok("browser_wait_for", text="Remote pressed", frame_id=cross)
    await s.err(
        "browser_verify_text_visible",
        "verification_failed",
        text="Remote pressed",
        frame_id=by_name["same"]["frame_id"],
    )
    assert (await s.ok("browser_verify_text_visible", text="remote pressed"))["visible"]  # any-frame fallback
    full = await snapshot(s)
    assert "- iframe" in full and "Inner button" in full and "Remote pressed" in full
    inner_button = ref_of(full, "Inner button")
    # A ref of one frame is not valid with another explicit frame; frame ids are strict.
    await s.err("browser_click", "stale_ref", ref=inner_button, frame_id=cross)
    await s.err("browser_snapshot", "frame_not_found", frame_id="no-such-frame")
    await s.err("browser_frames", "page_not_found", page_id="no-such-page")
    # A popup is tracked but not selected.
    await s.ok("browser_click", ref=ref_of(full, "Open popup"), wait_for={"kind": "popup"})
    tabs = (await s.ok("browser_tabs", action="list"))["tabs"]
    assert len(tabs) == 2 and tabs[0]["selected"] and not tabs[1]["selected"]
    popup = tabs[1]["page_id"]
    # Explicit page_id acts on another page without changing the selection.
    await s.ok("browser_wait_for", text="Inner button", page_id=popup)
    popup_snap = await s.ok("browser_snapshot", page_id=popup)
    assert popup_snap["page_id"] == popup
    await s.ok("browser_click", ref=ref_of(popup_snap["snapshot"], "Inner button"), page_id=popup)
    assert (
        await s.ok(
            "browser_evaluate", expression="document.querySelector('button').textContent", page_id=popup
        )
    )["result"] == "Pressed"
    assert (await s.ok("browser_tabs", action="list"))["tabs"][0]["selected"]
    await s.err(
        "browser_navigate",
        "page_not_found",
        url="about:blank",
        page_id="00000000-0000-0000-0000-000000000000",
    )
    # Tabs: select, new, close by index and page_id; errors.
    assert await s.ok("browser_tabs", action="select", index=1) == {"selected_index": 1, "page_id": popup}
    third = await s.ok("browser_tabs", action="new")
    assert third["index"] == 2
    # A new tab whose URL fails to load is closed again; the selection stays on the page before it.
    await s.err("browser_tabs", "navigation_failed", action="new", url=f"http://127.0.0.1:{closed_port()}/")
    tabs = (await s.ok("browser_tabs", action="list"))["tabs"]
    assert len(tabs) == 3 and tabs[2]["selected"]
    await s.err("browser_tabs", "invalid_params", action="close", index=7)
    await s.err("browser_tabs", "invalid_params", action="select", index=0, page_id=first)
    await s.err("browser_tabs", "invalid_params", action="list", page_id=first)
    await s.err("browser_tabs", "page_not_found", action="select", page_id="gone")
    assert await s.ok("browser_tabs", action="close", page_id=first) == {"closed_index": 0, "page_id": first}
    tabs = (await s.ok("browser_tabs", action="list"))["tabs"]
    assert [t["page_id"] for t in tabs] == [popup, third["page_id"]] and tabs[1]["selected"]
    await s.err("browser_snapshot", "page_not_found", page_id=first)
    assert await s.ok("browser_resize", width=800, height=600) == {"width": 800, "height": 600}
    assert (await s.ok("browser_evaluate", expression="innerWidth"))["result"] == 800
    # Closing the selected (last) tab selects the previous one; closing everything keeps the instance.
    assert await s.ok("browser_close") == {"closed": True}
    assert (await s.ok("browser_tabs", action="list"))["tabs"][0]["selected"]
    await s.ok("browser_close")
    assert await s.ok("browser_close") == {"closed": False, "reason": "no open pages"}
    assert (await s.ok("browser_list_instances"))["instances"][0]["page_count"] == 0


# ----- modal state -------------------------------------------------------------------------------

DIALOGS = """<button id=a onclick="out.textContent = 'after alert'; alert('Hello there')">Alert</button>
<button id=c onclick="out.textContent = confirm('Sure?') ? 'yes' : 'no'">Confirm</button>
<button id=p onclick="out.textContent = prompt('Name?', 'def')">Prompt</button>
<input type=file id=f onchange="out.textContent = [...this.files].map(f => f.name).join(',')">
<input type=file id=fm multiple onchange="out.textContent = this.files.length + ' files'">
<p id=out>idle</p>"""


async def test_dialogs_block_and_recover(make: Make, site: Any) -> None:
    s = await make(modal_grace=0.2)
    await s.ok("browser_navigate", url=add(site, "/dialogs", DIALOGS))
    snap = await snapshot(s)
    blocked = await s.err("browser_click", "modal_state_blocked", ref=ref_of(snap, "Alert"))
    assert blocked["data"]["modal_state"][0]["dialog_type"] == "alert"
    assert blocked["data"]["action_completed"] is False and blocked["operation"]["outcome"] == "unknown"
    message = (await s.err("browser_snapshot", "modal_state_blocked"))["message"]
    assert message == (
        "A 'alert' dialog is currently open with message 'Hello there'. "
        "Call browser_handle_dialog to dismiss it before issuing other tools."
    )
    await s.err("browser_tabs", "modal_state_blocked", action="new")
    await s.ok("browser_tabs", action="list")  # reading tabs is not blocked
    handled = await s.call("browser_handle_dialog", accept=True)
    assert handled["data"] == {"action": "accepted", "dialog_type": "alert", "message": "Hello there"}
    assert handled["operation"]["page_id"]
    await s.err("browser_handle_dialog", "modal_state_blocked", accept=True)
    assert (await s.ok("browser_evaluate", expression="out.textContent"))["result"] == "after alert"
    await s.err("browser_handle_dialog", "page_not_found", accept=True, page_id="nope")
    # A prompt answered with text; a confirm dismissed.
    await s.err("browser_click", "modal_state_blocked", ref=ref_of(snap, "Prompt"))
    await s.ok("browser_handle_dialog", accept=True, prompt_text="Ada")
    await s.err("browser_click", "modal_state_blocked", ref=ref_of(snap, "Confirm"))
    assert (await s.ok("browser_handle_dialog", accept=False))["action"] == "dismissed"
    assert (await s.ok("browser_evaluate", expression="out.textContent"))["result"] == "no"


async def test_dialog_handled_while_action_waits(make: Make, site: Any) -> None:
    s = await make(modal_grace=10)
    await s.ok("browser_navigate", url=add(site, "/dialogs2", DIALOGS))
    snap = await snapshot(s)
    click = asyncio.ensure_future(s.call("browser_click", ref=ref_of(snap, "Confirm")))
    await modal_pending(s)
    assert not click.done()
    handled = await s.ok(
        "browser_handle_dialog", accept=True
    )  # the recovery lock is free while the click waits
    assert handled["dialog_type"] == "confirm"
    clicked = await click
    assert clicked["status"] == "success" and clicked["data"] == {"clicked": ref_of(snap, "Confirm")}
    assert (await s.ok("browser_evaluate", expression="out.textContent"))["result"] == "yes"


async def test_load_time_dialog_returns_promptly(make: Make, site: Any) -> None:
    s = await make(modal_grace=0.2)
    url = add(site, "/load-alert", "<p>before</p><script>alert('Loading')</script><p>after</p>")
    env = await s.err("browser_navigate", "modal_state_blocked", url=url)
    assert env["operation"]["duration_ms"] < 5000
    await s.ok("browser_handle_dialog", accept=True)
    await s.ok("browser_wait_for", text="after")


async def test_file_chooser_upload_and_cancel(make: Make, site: Any, tmp_path: Path) -> None:
    s = await make(modal_grace=0.2, upload_roots=(str(tmp_path),))  # uploads read only from there
    await s.ok("browser_navigate", url=add(site, "/upload", DIALOGS))
    snap = await snapshot(s)
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("1")
    two.write_text("2")
    await s.err("browser_file_upload", "modal_state_blocked", paths=[str(one)])
    await s.ok("browser_click", ref=ref_of(snap, 'button "Choose File"'))
    await modal_pending(s)
    blocked = await s.err("browser_click", "modal_state_blocked", ref=ref_of(snap, "Alert"))
    assert "file-chooser" in blocked["message"]
    await s.err("browser_file_upload", "invalid_params", paths=["relative.txt"])
    await s.err("browser_file_upload", "invalid_params", paths=[str(one), str(two)])  # single-file input
    assert await s.ok("browser_file_upload", paths=[str(one)]) == {"uploaded_count": 1}
    assert (await s.ok("browser_evaluate", expression="out.textContent"))["result"] == "one.txt"
    multiple = [line for line in snap.splitlines() if 'button "Choose Files"' in line]
    assert multiple
    await s.ok("browser_click", ref=multiple[0].split("[ref=")[1].split("]")[0])
    await modal_pending(s)
    assert await s.ok("browser_file_upload", paths=[str(one), str(two)]) == {"uploaded_count": 2}
    await s.ok("browser_click", ref=ref_of(snap, 'button "Choose File"'))
    await modal_pending(s)
    assert await s.ok("browser_file_upload") == {"cancelled": True}
    await s.ok("browser_snapshot")


# ----- observations ------------------------------------------------------------------------------


async def test_observations(make: Make, site: Any) -> None:
    s = await make(operation_timeout=1.5)
    api = site.add_handler("/mcp/api/orders", lambda r: _created(r))
    page = add(
        site,
        "/observe",
        f"""<button id=post onclick="fetch('{api}', {{method: 'POST'}})">Post</button>
        <button id=push onclick="history.pushState(null, '', '#done')">Push</button>
        <button id=show onclick="setTimeout(() => box.hidden = false, 100)">Show</button>
        <div id=box hidden>Shown later</div>
        <button id=pop onclick="window.open('about:blank')">Popup</button>
        <a id=dl href="/mcp/download-file" download>Download</a>
        <button id=noop onclick="void 0">Nothing</button>""",
    )
    site.add_handler(
        "/mcp/download-file",
        lambda r: _attachment(r),
    )
    await s.ok("browser_navigate", url=page)
    snap = await snapshot(s)
    post = ref_of(snap, "Post")
    data = await s.ok(
        "browser_click", ref=post, wait_for={"kind": "response", "url": api, "method": "post", "status": 201}
    )
    obs = data["observation"]
    assert data["action_completed"] is True and obs["matched"] is True and obs["kind"] == "response"
    assert obs["url"] == api and obs["method"] == "POST" and obs["status"] == 201 and obs["request_id"]
    missed = await s.err(
        "browser_click",
        "observation_timeout",
        ref=post,
        wait_for={"kind": "response", "url": api, "status": 500, "timeout_ms": 300},
    )
    assert missed["message"] == "Action completed but its observation timed out"
    assert missed["data"] == {
        "clicked": post,
        "action_completed": True,
        "observation": {"kind": "response", "matched": False},
    }
    assert missed["operation"]["outcome"] == "unknown" and missed["operation"]["retry"] == "inspect_state"
    data = await s.ok(
        "browser_click", ref=ref_of(snap, "Push"), wait_for={"kind": "url", "url": page + "#done"}
    )
    assert data["observation"]["url"] == page + "#done"
    data = await s.ok(
        "browser_click", ref=ref_of(snap, "Show"), wait_for={"kind": "element", "selector": "#box"}
    )
    assert data["observation"] == {"kind": "element", "matched": True, "selector": "#box", "state": "visible"}
    data = await s.ok(
        "browser_hover", ref=post, wait_for={"kind": "text", "text": "Never shown", "state": "hidden"}
    )
    assert data["observation"]["state"] == "hidden"
    data = await s.ok("browser_click", ref=ref_of(snap, "Popup"), wait_for={"kind": "popup"})
    popup = data["observation"]["page_id"]
    tabs = (await s.ok("browser_tabs", action="list"))["tabs"]
    assert [t["page_id"] for t in tabs if not t["selected"]] == [popup]
    data = await s.ok("browser_click", ref=ref_of(snap, "Download"), wait_for={"kind": "download"})
    assert data["observation"]["suggested_filename"] == "report.txt" and data["observation"]["download_id"]
    # Coordinate and key actions take observations too.
    await s.ok(
        "browser_press_key", key="Tab", wait_for={"kind": "element", "selector": "#noop", "state": "attached"}
    )
    await s.ok("browser_mouse_wheel", delta_y=10, wait_for={"kind": "text", "text": "Post"})
    await s.ok(
        "browser_mouse_drag_xy",
        from_x=1,
        from_y=1,
        to_x=2,
        to_y=2,
        wait_for={"kind": "element", "selector": "body", "state": "attached"},
    )
    await s.ok(
        "browser_mouse_click_xy",
        x=1,
        y=1,
        wait_for={"kind": "element", "selector": "#missing", "state": "detached"},
    )
    # Invalid specs are refused before anything runs.
    for spec in (
        {"kind": "response"},
        {"kind": "url", "url": "x", "extra": 1},
        {"kind": "element", "selector": "#a", "state": "shown"},
        {"kind": "popup", "timeout_ms": 0},
        {"kind": "teleport"},
        {"kind": "element", "selector": "[[["},
    ):
        refused = await s.err("browser_click", "invalid_params", ref=post, wait_for=spec)
        assert refused["operation"]["outcome"] == "not_started", spec
    # The outer deadline during an observation: operation_timeout with the completion marker.
    late = await s.err(
        "browser_click",
        "operation_timeout",
        ref=ref_of(snap, "Nothing"),
        wait_for={"kind": "popup", "timeout_ms": 60000},
    )
    assert late["data"]["action_completed"] is True and late["data"]["observation"] == {
        "kind": "popup",
        "matched": False,
    }


async def _created(request: web.Request) -> web.Response:
    return web.json_response({"id": 1}, status=201)


async def _attachment(request: web.Request) -> web.Response:
    return web.Response(
        body=b"report-bytes", headers={"Content-Disposition": "attachment; filename=report.txt"}
    )


async def test_observed_page_closing_is_internal_error(s: Surface, site: Any) -> None:
    closer = add(site, "/closer", "<button onclick='window.close()'>Close me</button>")
    await s.ok(
        "browser_navigate",
        url=add(site, "/opener", f"<button onclick=\"window.open('{closer}')\">Open</button>"),
    )
    opened = await s.ok("browser_click", ref=ref_of(await snapshot(s), "Open"), wait_for={"kind": "popup"})
    popup = opened["observation"]["page_id"]
    await s.ok("browser_wait_for", text="Close me", page_id=popup)
    snap = await snapshot(s, page_id=popup)
    env = await s.err(
        "browser_click",
        "internal_error",
        ref=ref_of(snap, "Close me"),
        page_id=popup,
        wait_for={"kind": "url", "url": "about:never"},
    )
    assert env["message"] == "Observed page closed or crashed" and env["data"]["action_completed"] is True
    await s.err("browser_snapshot", "page_not_found", page_id=popup)


# ----- console, network, screenshots, cookies, storage -------------------------------------------


async def test_console_and_network_with_cursors(make: Make, site: Any, tmp_path: Path) -> None:
    s = await make(event_buffer_size=4, output_dir=str(tmp_path))  # exports go there
    url = add(
        site,
        "/console",
        """<link rel=stylesheet href="/mcp/style.css"><script>
        console.log('one', 1, true); console.info('two'); console.warn('three'); console.error('four');
        setTimeout(() => { throw new Error('kaboom') }, 0);</script>""",
    )
    site.add("/mcp/style.css", "p {}")
    await s.ok("browser_navigate", url=url)
    await s.ok("browser_wait_for", time=0.1)
    first = await s.ok("browser_console_messages", limit=2)
    assert first["has_more"] is True and first["dropped_count"] == 1 and first["retention_lost"] is True
    texts = [m["text"] for m in first["messages"]]
    assert texts == ["two", "three"] and first["messages"][1]["type"] == "warning"
    rest = await s.ok("browser_console_messages", after=first["next_cursor"])
    assert [m["text"] for m in rest["messages"]][-1].startswith("Error: kaboom") and rest["has_more"] is False
    assert rest["messages"][-1]["type"] == "error" and rest["messages"][-1]["location"] is None
    errors = await s.ok("browser_console_messages", level="error")
    assert [m["type"] for m in errors["messages"]] == ["error", "error"]
    await s.err("browser_console_messages", "invalid_params", level="fatal")
    await s.err("browser_console_messages", "invalid_params", after="console.someone-else.1")
    await s.err("browser_console_messages", "invalid_params", limit=0)
    out = tmp_path / "console.json"
    exported = await s.call("browser_console_messages", path=str(out))
    assert exported["data"]["count"] == 4 and json.loads(out.read_text())["messages"]
    assert exported["operation"]["artifacts"] == [{"path": str(out)}]
    requests = await s.ok("browser_network_requests")
    assert [r["resource_type"] for r in requests["requests"]] == ["document"]
    assert requests["requests"][0]["status"] == 200 and requests["requests"][0]["url"] == url
    with_static = await s.ok("browser_network_requests", static=True, url_filter=r"style\.css$")
    assert [r["url"] for r in with_static["requests"]] == [site.url + "/mcp/style.css"]
    await s.err("browser_network_requests", "invalid_params", url_filter="(")
    port = closed_port()
    failed = await s.ok(
        "browser_evaluate", expression=f"fetch('http://127.0.0.1:{port}/x').then(() => 1, () => 0)"
    )
    assert failed["result"] == 0
    record = (await s.ok("browser_network_requests", url_filter=f"127.0.0.1:{port}"))["requests"][0]
    assert record["failure"] == "net::ERR_CONNECTION_REFUSED" and record["status"] is None


async def test_screenshot(make: Make, site: Any, tmp_path: Path) -> None:
    s = await make(output_dir=str(tmp_path))  # screenshot files go there
    await s.ok(
        "browser_navigate",
        url=add(site, "/shot", "<body style='margin:0;height:3000px;background:linear-gradient(red,blue)'>x"),
    )
    data = await s.ok("browser_screenshot")
    assert (data["width"], data["height"], data["source_width"], data["source_height"]) == (
        1280,
        720,
        1280,
        720,
    )
    assert data["image_base64"] and data["original"] is False
    await s.ok("browser_resize", width=2000, height=1000)
    data = await s.ok("browser_screenshot", image_format="jpeg")
    assert (data["width"], data["height"], data["source_width"]) == (1568, 784, 2000)
    data = await s.ok("browser_screenshot", full_page=True)
    assert data["source_height"] == 3000 and data["height"] == 1568
    out = tmp_path / "shot.png"
    env = await s.call("browser_screenshot", path=str(out), original=True)
    assert (
        env["data"]["path"] == str(out) and "image_base64" not in env["data"] and env["data"]["width"] == 2000
    )
    assert out.read_bytes()[:4] == b"\x89PNG" and env["operation"]["artifacts"] == [{"path": str(out)}]
    await s.err("browser_screenshot", "invalid_params", original=True)
    await s.err("browser_screenshot", "invalid_params", image_format="gif")


async def test_cookies_and_local_storage(s: Surface, site: Any) -> None:
    await s.err("browser_set_cookies", "invalid_params", cookies=[{"name": "a", "value": "1"}])
    await s.ok("browser_navigate", url=add(site, "/cookies", "<p>cookies</p>"))
    assert await s.ok(
        "browser_set_cookies",
        cookies=[{"name": "a", "value": "1"}, {"name": "b", "value": "2", "url": site.other_url}],
    ) == {"set_count": 2}
    cookies = (await s.ok("browser_get_cookies", urls=[site.url]))["cookies"]
    assert [(c["name"], c["value"], c["domain"]) for c in cookies] == [("a", "1", "127.0.0.1")]
    assert [c["name"] for c in (await s.ok("browser_get_cookies", name="b"))["cookies"]] == ["b"]
    assert await s.ok("browser_clear_cookies") == {"cleared": True}
    assert (await s.ok("browser_get_cookies"))["cookies"] == []
    hits = site.hits.get("/", 0)
    origin = site.other_url + "/"
    assert await s.ok("browser_set_local_storage", origin=origin, items={"k": "v", "n": "1"}) == {
        "set_count": 2,
        "origin": site.other_url,
    }
    assert await s.ok("browser_get_local_storage", origin=site.other_url, key="k") == {
        "key": "k",
        "value": "v",
        "origin": site.other_url,
    }
    assert (await s.ok("browser_get_local_storage", origin=site.other_url))["items"] == {"k": "v", "n": "1"}
    assert site.hits.get("/", 0) == hits  # the site itself was never contacted
    assert (await s.ok("browser_tabs", action="list"))["tabs"][0]["url"].endswith(
        "/mcp/cookies"
    )  # selection untouched
    await s.ok("browser_clear_local_storage", origin=site.other_url)
    assert (await s.ok("browser_get_local_storage", origin=site.other_url))["items"] == {}
    await s.ok("browser_evaluate", expression="localStorage.setItem('mine', 'x')")
    assert await s.ok("browser_clear_local_storage") == {"cleared": True, "origin": site.url}
    await s.err("browser_get_local_storage", "invalid_params", origin="ftp://example.com")
    await s.err("browser_clear_local_storage", "invalid_params", origin=site.url, page_id="p")
    await s.err("browser_set_local_storage", "invalid_params", origin=site.url, items={"k": 1})


async def test_pdf_and_unsupported(make: Make, site: Any, tmp_path: Path) -> None:
    s = await make(output_dir=str(tmp_path))  # PDF files go there
    await s.ok("browser_navigate", url=add(site, "/pdf", "<h1>Printable</h1>"))
    out = tmp_path / "page.pdf"
    data = await s.ok("browser_pdf_save", file_path=str(out), paper_format="Letter", landscape=True)
    assert data["path"] == str(out) and out.read_bytes()[:5] == b"%PDF-"
    assert (await s.ok("browser_pdf_save"))["pdf_base64"]
    await s.err("browser_pdf_save", "invalid_params", paper_format="B7")
    env = await s.err("browser_run_code", "unsupported_capability", code="return 1")
    assert env["operation"]["outcome"] == "not_started"


# ----- crashes and dedicated processes -----------------------------------------------------------


async def test_crashed_instance_is_reported_and_evicted(s: Surface, site: Any) -> None:
    await s.ok("browser_navigate", url=add(site, "/crash", "<p>about to crash</p>"))
    page = s.tools.manager.instances["t"].selected
    assert page is not None
    with pytest.raises(cdp_engine.errors.CDPEngineError):
        await page.tab.session.send("Page.crash", timeout=5)
    crashed = await s.err("browser_snapshot", "instance_crashed")
    assert crashed["operation"]["outcome"] == "not_started"
    assert await s.ok("browser_destroy_instance", name="t") == {}
    await s.err("browser_snapshot", "instance_not_found")


async def test_dedicated_process_instances(make: Make, site: Any, tmp_path: Path) -> None:
    bogus = await make(create=False, isolation="process", executable=str(tmp_path / "no-chromium"))
    await bogus.err("browser_create_instance", "binary_not_found", name="t")
    assert (await bogus.ok("browser_health"))["failed_launches"][0]["name"] == "t"
    s = await make(create=False, profile_root=str(tmp_path))  # profiles are made only inside the profile folder
    profile = tmp_path / "profile"
    created = await s.ok("browser_create_instance", name="t", profile_dir=str(profile), window=[800, 600])
    assert (
        created["mode"] == "persistent" and created["isolation"] == "process" and created["page_count"] == 0
    )
    assert created["profile_dir"] == str(profile.resolve())
    await s.err("browser_create_instance", "profile_dir_in_use", name="other", profile_dir=str(profile))
    await s.ok("browser_navigate", url=add(site, "/own-process", "<p>own</p>"))
    assert (await s.ok("browser_evaluate", expression="[innerWidth, innerHeight]"))["result"] == [800, 600]
    process = s.tools.manager.instances["t"].browser.process
    assert process is not None
    os.kill(process.process.pid, signal.SIGKILL)
    async with asyncio.timeout(10):
        while not s.tools.manager.instances["t"].browser.closed:  # noqa: ASYNC110 - waiting for the disconnect
            await asyncio.sleep(0.02)
    await s.err("browser_snapshot", "instance_crashed")
    assert await s.ok("browser_destroy_instance", name="t") == {}
    # The profile is free again once the instance is gone.
    await s.ok("browser_create_instance", name="again", profile_dir=str(profile))
    await s.ok("browser_destroy_instance", name="again")


# ----- coverage ----------------------------------------------------------------------------------


async def test_storage_state_files_per_instance(make: Make, site: Any, tmp_path: Path) -> None:
    """An instance's logins saved to a file in the output folder (owner-only) and loaded into another instance;
    a malformed file or a path outside the folder changes nothing."""
    s = await make(output_dir=str(tmp_path))
    page = add(site, "/state-login", "<p>login</p>")
    await s.ok("browser_navigate", url=page)
    await s.ok("browser_set_cookies", cookies=[{"name": "sid", "value": "42", "url": site.url, "httpOnly": True}])
    await s.ok("browser_set_local_storage", origin=site.url, items={"theme": "dark"})
    saved = await s.ok("browser_save_storage_state", path="login.json")
    target = tmp_path / "login.json"
    assert saved == {"path": str(target), "cookies": 1, "origins": 1}
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    state = json.loads(target.read_text())
    assert [(c["name"], c["httpOnly"]) for c in state["cookies"]] == [("sid", True)]

    await s.ok("browser_create_instance", name="u")
    u = Surface(s.tools, "u")
    assert (await u.ok("browser_get_cookies"))["cookies"] == []
    (tmp_path / "bad.json").write_text('{"cookies": [{"name": "x"}], "origins": []}')
    await u.err("browser_load_storage_state", "invalid_params", path="bad.json")
    await u.err("browser_load_storage_state", "invalid_params", path="missing.json")
    await u.err("browser_load_storage_state", "invalid_params", path="/etc/passwd")
    await u.err("browser_save_storage_state", "invalid_params", path="/tmp/outside-the-folder.json")
    assert (await u.ok("browser_get_cookies"))["cookies"] == []  # nothing was added by the refusals
    loaded = await u.ok("browser_load_storage_state", path="login.json")
    assert loaded == {"path": str(target), "cookies": 1, "origins": 1}
    assert [(c["name"], c["value"]) for c in (await u.ok("browser_get_cookies"))["cookies"]] == [("sid", "42")]
    assert (await u.ok("browser_get_local_storage", origin=site.url, key="theme"))["value"] == "dark"


RAN: set[str] = set()


@pytest.fixture(autouse=True)
def _ran(request: pytest.FixtureRequest) -> None:
    RAN.add(request.node.nodeid)


@pytest.fixture(scope="module", autouse=True)
def _every_tool_and_error_type_exercised(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the module's last test on this worker (the module is one xdist group, so every test of it ran here),
    whatever order the tests ran in: every tool was called and every error type provoked. A selection that
    leaves tests of the module out (-k) checks nothing."""
    yield
    defined = {name for name in vars(request.module) if name.startswith("test_")}
    ran = {nodeid.split("::")[-1].split("[")[0].split("@")[0] for nodeid in RAN}
    if not defined <= ran:
        return
    names = {t["name"] for t in BrowserTools(InstanceManager(Config())).list_tools()}
    assert names - CALLED == set(), "tools no test of tests/mcp/test_mcp_tools.py called"
    # dialog_not_present is reserved upstream: tools report modal_state_blocked instead (reference §3).
    assert ERROR_TYPES - ERRORS - {"dialog_not_present"} == set(), "error types no test provoked"


# ----- parameter validation: util.schema failures in MCP's words ---------------------------------


NON_FINITE = (float("nan"), float("inf"), float("-inf"))


async def test_non_finite_coordinates_are_invalid_params_not_started(s: Surface, site: Any) -> None:
    """NaN and the infinities are not JSON numbers: refused before anything runs, naming the argument."""
    await s.ok("browser_navigate", url=add(site, "/finite", "<p>x</p>"))
    calls: list[tuple[str, dict[str, Any], str]] = []
    for bad in NON_FINITE:
        calls += [
            ("browser_mouse_move_xy", {"x": bad, "y": 1}, "x"),
            ("browser_mouse_click_xy", {"x": 1, "y": bad}, "y"),
            ("browser_mouse_drag_xy", {"from_x": 1, "from_y": 1, "to_x": bad, "to_y": 1}, "to_x"),
            ("browser_mouse_wheel", {"delta_y": bad}, "delta_y"),
        ]
    for tool, args, where in calls:
        env = await s.err(tool, "invalid_params", **args)
        assert env["operation"]["outcome"] == "not_started", env
        assert env["message"] == f"Invalid arguments: '{where}' must be a finite number.", env


async def test_argument_validation_messages(s: Surface) -> None:
    """Each failure kind keeps MCP's exact text: wrong type, missing, unexpected, enum, bound, nested."""
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("browser_navigate", {"url": 5}, "'url' must be a string, not int"),
        ("browser_navigate", {"url": True}, "'url' must be a string, not bool"),
        ("browser_navigate", {}, "missing required argument 'url'"),
        ("browser_navigate", {"url": None}, "missing required argument 'url'"),
        ("browser_navigate", {"url": "about:blank", "bogus": 1}, "unexpected argument 'bogus'"),
        ("browser_navigate", {"bogus": None}, "unexpected argument 'bogus'"),
        ("browser_mouse_move_xy", {"x": "1", "y": 2}, "'x' must be a number, not str"),
        ("browser_mouse_move_xy", {"x": True, "y": 2}, "'x' must be a number, not bool"),
        ("browser_mouse_down", {"button": "side"}, "'button' must be one of 'left', 'right', 'middle'"),
        ("browser_press_key", {"key": "a", "wait_for": {"kind": "response", "status": 99}}, "'wait_for.status' must be at least 100"),
        ("browser_press_key", {"key": "a", "wait_for": {"kind": "response", "status": 600}}, "'wait_for.status' must be at most 599"),
        ("browser_press_key", {"key": "a", "wait_for": {"kind": "nope"}}, "'wait_for.kind' must be one of 'response', 'url', 'element', 'text', 'popup', 'download'"),
        ("browser_press_key", {"key": "a", "wait_for": {"kind": "url", "extra": 1}}, "unexpected argument 'wait_for.extra'"),
        ("browser_press_key", {"key": "a", "wait_for": {"url": "x"}}, "missing required argument 'wait_for.kind'"),
        ("browser_press_key", {"key": "a", "wait_for": {"kind": "response", "status": float("nan")}}, "'wait_for.status' must be a finite number"),
        ("browser_mouse_click_xy", {"x": 1, "y": 1, "click_count": 1.5}, "'click_count' must be an integer, not float"),
        ("browser_fill_form", {"fields": "x"}, "'fields' must be an array, not str"),
    ]
    for tool, args, text in cases:
        env = await s.err(tool, "invalid_params", **args)
        assert env["message"] == f"Invalid arguments: {text}.", (tool, args, env["message"])
        assert env["operation"]["outcome"] == "not_started"


async def test_huge_and_integral_numbers(s: Surface, site: Any) -> None:
    """Absurd coordinates (Chromium stops answering input at 1e300) are refused by the schema's bounds, before
    anything runs; a coordinate within them works, and 2.0 is the integer 2."""
    await s.ok("browser_navigate", url=add(site, "/huge", "<p>x</p>"))
    for tool, args, text in [
        ("browser_mouse_move_xy", {"x": 1e300, "y": 1}, "'x' must be at most 1000000000"),
        ("browser_mouse_move_xy", {"x": 1, "y": -1e300}, "'y' must be at least -1000000000"),
        ("browser_mouse_wheel", {"delta_x": 10**30}, "'delta_x' must be at most 1000000000"),
        ("browser_mouse_drag_xy", {"from_x": 1, "from_y": 1, "to_x": 1, "to_y": 2e9}, "'to_y' must be at most 1000000000"),
    ]:
        env = await s.err(tool, "invalid_params", **args)
        assert env["message"] == f"Invalid arguments: {text}." and env["operation"]["outcome"] == "not_started", env
    assert await s.ok("browser_mouse_move_xy", x=1e6, y=5) == {"moved_to": [1e6, 5]}
    assert await s.ok("browser_mouse_click_xy", x=5, y=5, click_count=2.0) == {"clicked_at": [5, 5], "button": "left"}


def test_published_tool_schemas_match_the_signatures() -> None:
    """protocol/schemas/tools/mcp-tools.json is exactly what tools/list advertises (regenerate it when a tool
    signature changes: {name: REGISTRY[name].schema} under "tools")."""
    from cdp_engine.mcp_server.registry import REGISTRY
    from cdp_engine.util import schema

    published = schema.tool_schema("mcp-tools")["tools"]
    assert published == {name: REGISTRY[name].schema for name in sorted(REGISTRY)}

