"""The live view and the replay view (issue 19, Builds 3-4), in a real Chromium.

The live view's page is opened in a second context of the shared test browser (the view never casts a tab
that shows its own page), and its `window.viewState` says what arrived: frames, overlays, log entries.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import cdp_engine
from cdp_engine.errors import CDPEngineError
from cdp_engine.harness.env import BrowserEnv
from cdp_engine.harness.tasks import TaskSpec
from cdp_engine.index.element_index import ElementIndex
from cdp_engine.util import activity
from cdp_engine.view import LiveView, Recorder, export_html, load_run

Wait = Callable[..., Awaitable[None]]

AGENT_PAGE = """<!doctype html><title>agent page</title>
<button id=b onclick="this.textContent='pressed'">Press me</button>
<a href="#next">Next</a> <input aria-label="Name">"""


async def _view_state(tab: cdp_engine.Tab) -> dict[str, Any]:
    value = await tab.evaluate(
        "JSON.stringify({frames: viewState.frames, overlays: viewState.overlays, drawn: viewState.drawnBoxes,"
        " log: viewState.log, tabs: Object.keys(viewState.tabs), url: document.getElementById('url').textContent,"
        " rows: document.querySelectorAll('#logrows tr').length, step: viewState.step,"
        " items: document.querySelectorAll('#list .item').length})"
    )
    result: dict[str, Any] = json.loads(value)
    return result


async def _until(tab: cdp_engine.Tab, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15.0) -> dict[str, Any]:
    """The viewer page's state once predicate holds (checked on each turn until a deadline)."""
    async with asyncio.timeout(timeout):
        while True:
            state = await _view_state(tab)
            if predicate(state):
                return state
            await asyncio.sleep(0.05)


def _button(state: dict[str, Any]) -> int:
    return next(int(i) for i, e in state["element_index"].items() if e["tag"] == "button")


async def test_live_view_page_shows_frames_overlay_and_the_action_log(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add("/view/agent", AGENT_PAGE)
    agent_context = await browser.new_context()
    viewer_context = await browser.new_context()
    try:
        agent = await agent_context.new_tab(url)
        index = ElementIndex.of(agent)
        async with LiveView(browser) as view:
            viewer = await viewer_context.new_tab(view.url)
            seen = await _until(viewer, lambda s: s["frames"] > 0 and agent.target_id in s["tabs"])
            assert viewer.target_id not in seen["tabs"]  # the view's own page is never cast
            assert agent.target_id in view.casts and viewer.target_id not in view.casts
            state = await index.state(screenshot=False)
            await viewer.evaluate("document.getElementById('overlay').click()")
            await viewer.evaluate(f"document.querySelector('[data-id=\"{agent.target_id}\"]').click()")
            seen = await _until(viewer, lambda s: s["overlays"] > 0 and s["drawn"] >= 3)
            assert seen["drawn"] >= 3  # button, link, input outlined on the frame
            after = await index.act({"action": "click_element", "element_index": _button(state)}, screenshot=False)
            assert "error" not in after, after.get("error")
            seen = await _until(viewer, lambda s: any(e["name"] == "click_element" for e in s["log"]))
            click = next(e for e in seen["log"] if e["name"] == "click_element")
            assert click["ok"] and click["surface"] == "index" and click["tab"] == agent.target_id
            assert click["ms"] > 0 and "total_action_ms" in click["timings"]
            assert click["url"] == url and seen["url"] == url
            assert seen["rows"] >= 2  # the state and the click
            frames_before = seen["frames"]
            await agent.evaluate("document.body.style.background = 'lightblue'")
            await _until(viewer, lambda s: s["frames"] > frames_before)  # a repaint is a new frame
    finally:
        await agent_context.close()
        await viewer_context.close()


async def test_token_is_required_and_the_view_binds_loopback(browser: cdp_engine.Browser) -> None:
    async with LiveView(browser) as view:
        assert view.host == "127.0.0.1"
        assert view._runner is not None and view._runner.addresses[0][0] == "127.0.0.1"
        assert len(view.token) >= 24 and view.token in view.url
        async with aiohttp.ClientSession() as http:
            for path in ("/", "/?token=", "/?token=wrong", "/ws", "/ws?token=wrong"):
                async with http.get(view.origin + path) as response:
                    assert response.status == 403, path
            async with http.get(view.url) as response:
                assert response.status == 200 and "cdp-engine" in await response.text()
                assert response.headers["Referrer-Policy"] == "no-referrer"
            async with http.ws_connect(f"{view.origin}/ws?token={view.token}") as ws:
                hello = await ws.receive_json(timeout=10)
                assert hello["t"] == "hello"
    with pytest.raises(CDPEngineError, match="loopback"):
        LiveView(browser, host="0.0.0.0")


async def test_no_screencast_runs_without_a_viewer(
    browser: cdp_engine.Browser, site: Any, caplog: pytest.LogCaptureFixture, wait: Wait
) -> None:
    """The view costs nothing until someone watches: no Page.startScreencast is sent, none runs."""
    url = site.add("/view/quiet", AGENT_PAGE)
    context = await browser.new_context()
    try:
        agent = await context.new_tab(url)
        index = ElementIndex.of(agent)
        async with LiveView(browser) as view:
            with caplog.at_level(logging.DEBUG, logger="cdp_engine.cdp.traffic"):
                state = await index.state(screenshot=False)
                await index.act({"action": "click_element", "element_index": _button(state)}, screenshot=False)
                assert not view.casts
                assert len(view.log) == 2  # the actions are still kept for a viewer that connects later
                assert "Page.startScreencast" not in caplog.text
                async with aiohttp.ClientSession() as http, http.ws_connect(f"{view.origin}/ws?token={view.token}") as ws:
                    frame = None
                    async with asyncio.timeout(15):
                        while frame is None:
                            message = await ws.receive_json()
                            if message["t"] == "frame" and message["id"] == agent.target_id:
                                frame = message
                    assert frame["data"] and frame["meta"]["deviceWidth"] > 0
                    assert "Page.startScreencast" in caplog.text
                    hello_log = [e["name"] for e in view.log]
                    assert hello_log == ["state", "click_element"]
                await wait(lambda: not view.casts and not view.viewers, 10)
                assert "Page.stopScreencast" in caplog.text
    finally:
        await context.close()


async def test_a_slow_viewer_keeps_one_frame_per_tab(browser: cdp_engine.Browser, site: Any, wait: Wait) -> None:
    """A viewer that reads nothing holds at most the newest frame of each tab: older ones are dropped."""
    url = site.add(
        "/view/busy",
        "<div id=n>0</div><script>let i = 0; setInterval(() => { document.getElementById('n').textContent = ++i;"
        " document.body.style.background = i % 2 ? '#fee' : '#eef'; }, 16)</script>",
    )
    context = await browser.new_context()
    try:
        agent = await context.new_tab(url)
        async with LiveView(browser, max_fps=60) as view:
            async with aiohttp.ClientSession() as http, http.ws_connect(f"{view.origin}/ws?token={view.token}"):
                await wait(lambda: bool(view.viewers) and agent.target_id in view.casts, 10)
                viewer = next(iter(view.viewers))
                cast = view.casts[agent.target_id]
                await wait(lambda: cast.frames >= 20, 20)
                assert len(viewer.frames) <= len(view.watched)
                assert len(viewer.messages) <= 500
    finally:
        await context.close()


async def test_the_hook_reports_toolset_calls(browser: cdp_engine.Browser, site: Any) -> None:
    """Every surface reports through util/activity.py: the toolset's member calls too."""
    from cdp_engine.toolset import BrowserToolset

    url = site.add("/view/toolset", AGENT_PAGE)
    seen: list[activity.Activity] = []
    off = activity.on_activity(seen.append)
    context = await browser.new_context()
    try:
        toolset = BrowserToolset(browser, context=context)
        await toolset.start()
        await toolset.call("navigate", {"url": url})
        _content, is_error = await toolset.call("navigate", {"url": "notaurl:"})
        await toolset.call("read_page", {})
        calls = [a for a in seen if a.surface == "toolset"]
        assert calls[-1].boxes is not None
        boxes, _viewport = calls[-1].boxes()  # the overlay of a toolset tab: read_page's refs
        await toolset.close()
    finally:
        off()
        await context.close()
    assert [a.name for a in calls] == ["navigate", "navigate", "read_page"]
    assert len(boxes) >= 3 and all(str(ref).startswith("ref_") for ref in boxes)
    assert calls[0].ok and calls[0].url == url and calls[0].tab is not None
    assert not calls[1].ok and is_error and calls[1].error


async def test_recorded_run_exports_one_html_file_that_shows_the_steps(
    browser: cdp_engine.Browser, site: Any, tmp_path: Path
) -> None:
    url = site.add("/view/recorded", AGENT_PAGE)
    context = await browser.new_context()
    try:
        agent = await context.new_tab(url)
        index = ElementIndex.of(agent)
        async with Recorder(tmp_path / "rec") as recorder:
            state = await index.state()
            await index.act({"action": "click_element", "element_index": _button(state)})
            await index.act({"action": "click_element", "element_index": 999})  # fails: INVALID_ELEMENT_INDEX
        assert recorder.path is not None
        run = load_run(recorder.path)
        assert [s["name"] for s in run["steps"]] == ["state", "click_element", "click_element"]
        assert [s["ok"] for s in run["steps"]] == [True, True, False]
        assert run["steps"][2]["error"] == "INVALID_ELEMENT_INDEX"
        assert all(s["screenshot"].startswith("data:image/") for s in run["steps"])
        assert run["steps"][0]["boxes"] and "Press me" in run["steps"][0]["state_text"]
        out = export_html(recorder.path, tmp_path / "run.html")
        html = out.read_text()
        assert "src=\"http" not in html and "href=\"http" not in html and "<script src" not in html
        viewer = await context.new_tab(out.as_uri())
        seen = await _until(viewer, lambda s: s["items"] == 3 and s["step"] == 0)
        assert seen["url"] == url
        await viewer.evaluate("document.getElementById('next').click(); document.getElementById('next').click()")
        seen = await _until(viewer, lambda s: s["step"] == 2)
        text = await viewer.evaluate("document.getElementById('side').textContent")
        assert "INVALID_ELEMENT_INDEX" in text
        loaded = await viewer.evaluate("document.getElementById('frame').naturalWidth")
        assert loaded > 0  # the screenshot is inline and shows
    finally:
        await context.close()


async def test_the_recorder_takes_a_picture_of_a_tab_in_front_and_leaves_a_hidden_one_hidden(
    browser: cdp_engine.Browser, site: Any, tmp_path: Path
) -> None:
    """After a call that returned no screenshot the recorder takes one, but not of a tab behind another: a capture
    would bring that tab to the front, and watching must not change what the agent's pages show."""
    url = site.add("/view/recorded-hidden", AGENT_PAGE)
    context = await browser.new_context()
    try:
        back = await context.new_tab(url)
        front = await context.new_tab(url)
        async with Recorder(tmp_path / "rec") as recorder:
            await ElementIndex.of(front).state(screenshot=False)
            await ElementIndex.of(back).state(screenshot=False)
        assert recorder.path is not None
        steps = load_run(recorder.path)["steps"]
        assert [bool(s.get("screenshot")) for s in steps] == [True, False]
        assert await back.evaluate("document.visibilityState") == "hidden"
        assert await front.evaluate("document.visibilityState") == "visible"
    finally:
        await context.close()


async def test_a_harness_trajectory_opens_in_the_replay_page(browser: cdp_engine.Browser, site: Any, tmp_path: Path) -> None:
    site.add("/view/harness", AGENT_PAGE)
    env = BrowserEnv(browser, record_dir=tmp_path, record_screenshots=True, screenshot=True, base_url=site.url)
    try:
        await env.reset(task=TaskSpec("view-harness", "/view/harness"))
        await env.step({"action": "scroll", "direction": "down"})
        path = env.trajectory_path
    finally:
        await env.close()
    assert path is not None
    run = load_run(path)
    assert [s["name"] for s in run["steps"]] == ["reset", "scroll"]
    assert run["steps"][1]["screenshot"].startswith("data:image/")
    async with LiveView(replay=run) as view:
        context = await browser.new_context()
        try:
            viewer = await context.new_tab(view.url)
            seen = await _until(viewer, lambda s: s["items"] == 2 and s["step"] == 0)
            assert seen["frames"] == 0  # a replay opens no socket
        finally:
            await context.close()


async def test_the_hook_reports_mcp_tool_calls_with_their_tab(browser: cdp_engine.Browser, site: Any) -> None:
    from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager

    url = site.add("/view/mcp", AGENT_PAGE)
    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)
    seen: list[activity.Activity] = []
    off = activity.on_activity(seen.append)
    try:
        await tools.call("browser_create_instance", {"name": "v"})
        await tools.call("browser_navigate", {"instance": "v", "url": url})
        await tools.call("browser_click", {"instance": "v", "ref": "e999"})
        await tools.call("browser_snapshot", {"instance": "v"})
        calls = [a for a in seen if a.surface == "mcp"]
        assert calls[-1].boxes is not None
        boxes, viewport = calls[-1].boxes()  # the overlay of an MCP page: the snapshot's refs
    finally:
        off()
        await manager.close()
    assert [a.name for a in calls] == ["browser_create_instance", "browser_navigate", "browser_click", "browser_snapshot"]
    navigate, click = calls[1], calls[2]
    assert navigate.ok and navigate.tab is not None and navigate.url == url and navigate.ms > 0
    assert not click.ok and click.error == "stale_ref" and click.arguments == {"instance": "v", "ref": "e999"}
    assert viewport is None and len(boxes) >= 3 and all(str(ref).startswith("e") for ref in boxes)
    assert all({"x", "y", "width", "height", "visible"} <= set(box) for box in boxes.values())


# ----- the command --------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cdp_engine", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        ((), "--attach"),
        (("--export", "x.html"), "--export"),
        (("t.jsonl", "--attach", "ws://127.0.0.1:1/"), "--attach"),
        (("--attach", "ws://127.0.0.1:1/", "--host", "0.0.0.0"), "--host"),
        (("--attach", "ws://127.0.0.1:1/", "--port", "99999"), "--port"),
    ],
)
def test_view_command_refuses_bad_use_in_one_line(args: tuple[str, ...], flag: str) -> None:
    result = _cli("view", *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cdp-engine view: error: {flag}"), result.stderr


def test_view_command_exports_a_trajectory(tmp_path: Path) -> None:
    trajectory = tmp_path / "t.jsonl"
    trajectory.write_text(
        '{"type": "episode", "episode_id": "e1", "task": "demo"}\n'
        '{"type": "step", "step": 0, "action": null, "url": "http://a.test/", "error": null, "timings": {}}\n'
        '{"type": "step", "step": 1, "action": {"action": "scroll", "direction": "down"}, "url": "http://a.test/",'
        ' "error": {"code": "X"}, "timings": {"total_action_ms": 12.5}}\n'
    )
    result = _cli("view", str(trajectory), "--export", str(tmp_path / "out.html"))
    assert result.returncode == 0, result.stderr
    html = (tmp_path / "out.html").read_text()
    assert '"name":"scroll"' in html and '"ms":12.5' in html


async def _line(stream: asyncio.StreamReader, pattern: str, timeout: float = 60) -> str:
    async with asyncio.timeout(timeout):
        while True:
            line = (await stream.readline()).decode()
            if not line:
                raise AssertionError(f"no line matching {pattern!r}")
            if re.search(pattern, line):
                return line


async def test_serve_with_view_shows_the_service_actions(site: Any, tmp_path: Path) -> None:
    """`cdp-engine serve --view --record DIR`: the live view watches the HTTP service's browser, the recorder records it."""
    url = site.add("/view/served", AGENT_PAGE)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cdp_engine", "serve", "--port", "0", "--token", "svc-token", "--view",
        "--record", str(tmp_path / "rec"), cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stderr is not None
    try:
        lines = [await _line(proc.stderr, "live view at"), await _line(proc.stderr, "service on http://")]
        view_url = re.search(r"(http://\S+)", lines[0]).group(1)  # type: ignore[union-attr]
        service = re.search(r"(http://\S+)", lines[1]).group(1)  # type: ignore[union-attr]
        assert view_url.startswith("http://127.0.0.1:") and "?token=" in view_url
        origin, token = view_url.split("/?token=")
        headers = {"Authorization": "Bearer svc-token"}
        async with aiohttp.ClientSession() as http, http.ws_connect(f"{origin}/ws?token={token}") as ws:
            body = json.dumps({"action": "navigate", "url": url})
            async with http.post(f"{service}/action?screenshot=0", data=body, headers=headers) as response:
                assert response.status == 200
            entry = None
            async with asyncio.timeout(30):
                while entry is None:
                    message = await ws.receive_json()
                    if message["t"] == "log" and message["entry"]["name"] == "navigate":
                        entry = message["entry"]
            assert entry["surface"] == "index" and entry["ok"] and entry["url"] == url
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)
    recorded = list((tmp_path / "rec").glob("*.jsonl"))
    assert len(recorded) == 1
    assert "navigate" in [s["name"] for s in load_run(recorded[0])["steps"]]


async def test_view_attaches_to_a_browser_of_another_process(site: Any) -> None:
    url = site.add("/view/attached", AGENT_PAGE)
    async with cdp_engine.launch(transport="websocket") as other:
        assert other.process is not None and other.process.ws_url
        await other.new_tab(url)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cdp_engine", "view", "--attach", other.process.ws_url, "--port", "0",
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stderr is not None
        try:
            line = await _line(proc.stderr, "live view of")
            view_url = re.search(r"(http://\S+)", line).group(1)  # type: ignore[union-attr]
            origin, token = view_url.split("/?token=")
            async with aiohttp.ClientSession() as http, http.ws_connect(f"{origin}/ws?token={token}") as ws:
                frame = None
                async with asyncio.timeout(30):
                    while frame is None:
                        message = await ws.receive_json()
                        if message["t"] == "frame" and message["url"] == url:
                            frame = message
                assert frame["data"]
        finally:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 30)


async def test_the_screencast_pauses_while_a_call_runs_and_the_state_screenshot_is_shown(
    browser: cdp_engine.Browser, site: Any, wait: Wait
) -> None:
    """A running screencast makes Chromium draw every frame beside the agent's work: it pauses during calls."""
    url = site.add("/view/paused", AGENT_PAGE)
    context = await browser.new_context()
    try:
        agent = await context.new_tab(url)
        async with LiveView(browser) as view, aiohttp.ClientSession() as http:
            async with http.ws_connect(f"{view.origin}/ws?token={view.token}", max_msg_size=0) as ws:
                await wait(lambda: agent.target_id in view.casts, 10)
                cast = view.casts[agent.target_id]
                during: list[bool] = []
                off = activity.on_running(lambda running: during.append(cast.paused) if running else None)
                try:
                    state = await ElementIndex.of(agent).state(screenshot="jpeg")
                finally:
                    off()
                assert during == [True] and cast.paused  # paused from the call's start until a moment after it
                shot = None
                async with asyncio.timeout(15):
                    while shot is None:
                        message = await ws.receive_json()
                        if message["t"] == "frame" and message.get("mime") == "image/jpeg" and message["data"] == state["screenshot"]:
                            shot = message
                assert shot["meta"]["deviceWidth"] > 0
                await wait(lambda: not cast.paused, 10)  # the engine is idle again: live frames resume
    finally:
        await context.close()


def test_the_servers_take_view_and_record() -> None:
    for command in ("serve", "mcp"):
        result = _cli(command, "--help")
        assert result.returncode == 0 and "--view" in result.stdout and "--record" in result.stdout, command
    bad = _cli("mcp", "--record", "")
    assert bad.returncode == 2 and bad.stderr.startswith("cdp-engine mcp: error: --record"), bad.stderr
