"""The official SDK driver (`cdp_engine.toolset.sdk`): tool_use blocks run through the anthropic
package's own pipeline (`tool_result` → `call` → `execute` → member → `_browser_state`), against a
real Chromium, with no network and no API key (the tool runner test answers from a mock transport).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import cdp_engine

anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx2")  # the HTTP client anthropic 2.x is built on

from anthropic.lib.tools._toolsets._errors import ToolsetConfigError  # noqa: E402
from anthropic.tools.browser import BetaToolsetCallContext  # noqa: E402
from anthropic.types.beta import BetaToolUseBlock  # noqa: E402

from cdp_engine.toolset import HALT_TEXT, MEMBER_NAMES, ToolsetConfig  # noqa: E402
from cdp_engine.toolset.sdk import CdpEngineBrowserToolset  # noqa: E402

_n = itertools.count(1)
ALL_ON = {
    name: {"enabled": True} for name in ("javascript_exec", "file_upload", "read_console", "read_network")
}


def path(prefix: str) -> str:
    return f"/sdk-{prefix}-{os.getpid()}-{next(_n)}"


def page(site: Any, body: str, title: str = "SDK page") -> str:
    return site.add(
        path("p"), f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"
    )


def block(name: str, **inp: Any) -> BetaToolUseBlock:
    return BetaToolUseBlock(
        id=f"toolu_{next(_n):04d}", type="tool_use", name=name, input=inp, toolset_name="browser"
    )


def texts(result: dict[str, Any]) -> list[str]:
    content = result["content"]
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b["type"] == "text"]


def kinds(result: dict[str, Any]) -> list[str]:
    return [b["type"] for b in result["content"]]


Make = Callable[..., Awaitable[CdpEngineBrowserToolset]]


@pytest_asyncio.fixture
async def make(browser: cdp_engine.Browser, context: cdp_engine.BrowserContext) -> AsyncIterator[Make]:
    made: list[CdpEngineBrowserToolset] = []

    async def build(**kwargs: Any) -> CdpEngineBrowserToolset:
        toolset = CdpEngineBrowserToolset(browser, context=context, **kwargs)
        await toolset.start()
        made.append(toolset)
        return toolset

    yield build
    for toolset in made:
        await toolset.close()


async def run(toolset: CdpEngineBrowserToolset, name: str, **inp: Any) -> dict[str, Any]:
    result = await toolset.tool_result(block(name, **inp))
    assert result["toolset_name"] == "browser"
    return dict(result)


async def ok(toolset: CdpEngineBrowserToolset, name: str, **inp: Any) -> dict[str, Any]:
    result = await run(toolset, name, **inp)
    assert not result.get("is_error"), result
    return result


async def refused(toolset: CdpEngineBrowserToolset, name: str, **inp: Any) -> str:
    result = await run(toolset, name, **inp)
    assert result.get("is_error") is True, result
    assert "browser_state" not in kinds(result)
    return texts(result)[0]


def ref_of(listing: str, needle: str) -> str:
    for line in listing.splitlines():
        if needle in line and "[ref_" in line:
            return line.split("[", 1)[1].split("]", 1)[0]
    raise AssertionError(f"{needle!r} not in:\n{listing}")


PAGE = """
<h1>Shop</h1>
<input aria-label="Quantity" id="qty">
<input type="file" aria-label="Receipt" id="receipt">
<button id="buy" onclick="window.bought = true; console.log('bought')">Buy now</button>
<div style="height: 2000px"></div><a href="#end" id="end">End</a>
"""


async def test_every_member_through_the_sdk_pipeline(make: Make, site: Any, tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("receipt")
    toolset = await make(
        config=ToolsetConfig(upload_roots=[tmp_path]), configs=ALL_ON, confirm=lambda context: True
    )
    assert toolset.to_dict() == {"type": "browser_toolset_20260801", "configs": ALL_ON}  # all 31 served
    url = page(site, PAGE, title="Shop")
    seen: set[str] = set()

    async def member(name: str, **inp: Any) -> dict[str, Any]:
        seen.add(name)
        result = await ok(toolset, name, **inp)
        if name in ("new_tab", "list_tabs", "switch_tab", "close_tab"):
            assert kinds(result) == ["browser_state"]
        elif name in ("screenshot", "zoom"):
            assert kinds(result)[0] == "image" and kinds(result)[-1] == "browser_state"
        else:
            assert kinds(result)[0] == "text" and kinds(result)[-1] == "browser_state"
        return result

    assert texts(await member("navigate", url=url)) == [f"Navigated to {url} — Shop (HTTP 200)"]
    listing = texts(await member("read_page", filter="all"))[0]
    qty, receipt, buy, end = (ref_of(listing, n) for n in ("Quantity", "Receipt", "Buy now", '"End"'))
    assert ref_of(texts(await member("find", query="buy button"))[0], "Buy now") == buy
    assert texts(await member("get_page_text"))[0].startswith("Shop")
    assert texts(await member("form_input", target={"type": "ref", "ref": qty}, value=3)) == [
        f"Set the value of {qty}."
    ]
    assert texts(
        await member("file_upload", target={"type": "ref", "ref": receipt}, paths=[str(tmp_path / "r.txt")])
    ) == ["Uploaded."]
    assert texts(await member("scroll_to", target={"type": "ref", "ref": end})) == [f"Scrolled to {end}."]
    assert texts(
        await member(
            "scroll", target={"type": "coordinate", "x": 10, "y": 10}, scroll_direction="up", scroll_amount=10
        )
    ) == ["Scrolled up."]
    await member("screenshot")
    await member("zoom", region=[0, 0, 640, 360])
    assert texts(await member("left_click", target={"type": "ref", "ref": buy})) == ["Clicked."]
    assert texts(
        await member("right_click", target={"type": "coordinate", "x": 5, "y": 5}, modifiers="shift")
    ) == ["Right-clicked."]
    assert texts(await member("middle_click", target={"type": "coordinate", "x": 5, "y": 5})) == [
        "Middle-clicked."
    ]
    assert texts(await member("double_click", target={"type": "ref", "ref": qty})) == ["Double-clicked."]
    assert texts(await member("triple_click", target={"type": "ref", "ref": qty})) == ["Triple-clicked."]
    assert texts(await member("hover", target={"type": "ref", "ref": buy})) == ["Hovered."]
    drag = {
        "from": {"type": "coordinate", "x": 5, "y": 5},
        "target": {"type": "coordinate", "x": 50, "y": 50},
    }
    assert texts(await member("left_click_drag", **drag)) == ["Dragged."]
    assert texts(await member("left_mouse_down", target={"type": "coordinate", "x": 5, "y": 5})) == [
        "Mouse button pressed."
    ]
    assert texts(await member("mouse_move", target={"type": "coordinate", "x": 9, "y": 9})) == [
        "Moved the mouse."
    ]
    assert texts(await member("left_mouse_up", target={"type": "coordinate", "x": 9, "y": 9})) == [
        "Mouse button released."
    ]
    await member("left_click", target={"type": "ref", "ref": qty})
    assert texts(await member("type", text="12")) == ["Typed."]
    assert texts(await member("key", text="ctrl+a BackSpace", repeat=1)) == ["Pressed ctrl+a BackSpace."]
    assert texts(await member("hold_key", text="shift", duration=0.05)) == ["Held shift for 0.05s."]
    assert texts(await member("wait", duration=0.0)) == ["Waited 0s."]
    assert texts(await member("javascript_exec", text="window.bought"))[0] == "true"
    assert "[log] bought" in texts(await member("read_console"))[0]
    assert f"GET {url} → 200 text/html" in texts(await member("read_network"))[0]
    opened = await member("new_tab")
    assert opened["content"][0]["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-2"}]
    assert [t["tab_id"] for t in (await member("list_tabs"))["content"][0]["tabs"]] == ["tab-1", "tab-2"]
    await member("switch_tab", tab_id="tab-1")
    closed = await member("close_tab", tab_id="tab-2")
    assert closed["content"][0]["tabs"] == [{"tab_id": "tab-1", "title": "Shop", "url": url, "active": True}]
    assert seen == set(MEMBER_NAMES)


async def test_validation_in_the_sdk_and_in_the_driver(make: Make) -> None:
    toolset = await make()
    # The SDK's schema check (types) ...
    message = await refused(toolset, "left_click", target={"type": "coordinate", "x": "left", "y": 2})
    assert message.startswith("invalid input for browser member 'left_click'") and "target" in message
    # ... then the driver's exact check (ranges and fields the SDK lets through).
    assert await refused(
        toolset,
        "scroll",
        target={"type": "coordinate", "x": 1, "y": 1},
        scroll_direction="down",
        scroll_amount=11,
    ) == ("Error: invalid input for scroll: scroll_amount must be between 1 and 10.")
    assert (
        await refused(toolset, "wait", duration=45)
        == "Error: invalid input for wait: duration must be between 0 and 30."
    )
    assert (
        await refused(toolset, "screenshot", scale=2)
        == "Error: invalid input for screenshot: scale is not a field of this member."
    )
    assert (await refused(toolset, "key", text="ctrl+zz")).startswith("Error: Unknown key 'zz'")
    assert await refused(toolset, "navigate", url="javascript:alert(1)") == (
        "Error: Navigation refused. Only http and https URLs are allowed."
    )
    # Members off by default stay off; the SDK refuses them before the driver sees them.
    assert await refused(toolset, "javascript_exec", text="1") == (
        "The 'javascript_exec' action is not permitted by this application's permissions and cannot be used in this session."
    )
    assert await refused(toolset, "teleport") == "Error: unknown browser toolset member 'teleport'"


async def test_state_changes_and_dialogs_through_the_sdk(make: Make, site: Any) -> None:
    toolset = await make(configs={"javascript_exec": {"enabled": True}}, confirm=lambda context: True)
    body = "<button onclick=\"confirm('Really?')\">Ask</button>"
    await ok(toolset, "navigate", url=page(site, body))
    listing = texts(await ok(toolset, "read_page"))[0]
    result = await ok(toolset, "left_click", target={"type": "ref", "ref": ref_of(listing, "Ask")})
    assert texts(result) == ["Clicked.", 'A confirm dialog "Really?" was dismissed.']
    # A tab opened by a failed call appears in the next inventory, with no tab_opened (API rule).
    message = await refused(
        toolset, "javascript_exec", text="window.open('about:blank'); throw new Error('no')"
    )
    assert message == "Error: The script threw an exception: Error: no"
    block_ = (await ok(toolset, "list_tabs"))["content"][0]
    assert [t["tab_id"] for t in block_["tabs"]] == ["tab-1", "tab-2"] and "state_changes" not in block_
    # A popup opened by a successful call is reported on that call.
    result = await ok(toolset, "javascript_exec", text="window.open('about:blank'); 1")
    assert result["content"][-1]["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-3"}]


async def test_confirm_and_file_policy(
    make: Make, browser: cdp_engine.Browser, site: Any, tmp_path: Path
) -> None:
    with pytest.raises(ToolsetConfigError):
        CdpEngineBrowserToolset(browser, configs={"file_upload": {"enabled": True}})
    with pytest.raises(ToolsetConfigError):  # the SDK refuses the downloads folder as an upload root
        CdpEngineBrowserToolset(
            browser,
            config=ToolsetConfig(upload_roots=[browser.downloads_dir / "sub"]),
            configs={"file_upload": {"enabled": True}},
            confirm=lambda context: True,
        )
    root = tmp_path / "up"
    root.mkdir()
    (root / "ok.txt").write_text("fine")
    (tmp_path / "no.txt").write_text("private")
    asked: list[str] = []

    async def confirm(context: Any) -> bool:
        asked.append(context.member)
        return context.member != "navigate" or "blocked" not in context.input.url

    toolset = await make(
        config=ToolsetConfig(upload_roots=[root]), configs={"file_upload": {"enabled": True}}, confirm=confirm
    )
    await ok(toolset, "navigate", url=page(site, "<input type=file aria-label=Doc>"))
    doc = ref_of(texts(await ok(toolset, "find", query="doc"))[0], "Doc")
    assert texts(
        await ok(toolset, "file_upload", target={"type": "ref", "ref": doc}, paths=[str(root / "ok.txt")])
    ) == ["Uploaded."]
    assert await refused(
        toolset, "file_upload", target={"type": "ref", "ref": doc}, paths=[str(tmp_path / "no.txt")]
    ) == ("file_upload path is outside the configured upload roots")
    assert await refused(
        toolset, "file_upload", target={"type": "ref", "ref": doc}, paths=[str(root / ".." / "no.txt")]
    ) == ("file_upload path must not contain a '..' component")
    assert (await refused(toolset, "navigate", url=site.url + "/blocked")).startswith(
        "The user did not grant permission"
    )
    assert "file_upload" in asked and "navigate" in asked


async def test_tool_runner_drives_cdp_engine(make: Make, site: Any) -> None:
    """client.beta.messages.tool_runner with this toolset: two model turns from a mock transport."""
    toolset = await make()
    url = page(site, "<input aria-label='Search'>", title="Runner")
    turns = [
        [
            {"type": "text", "text": "Opening the page."},
            {"type": "tool_use", "id": "toolu_a", "name": "navigate", "toolset_name": "browser", "input": {"url": url}},
            {"type": "tool_use", "id": "toolu_b", "name": "left_click", "toolset_name": "browser",
             "input": {"target": {"type": "ref", "ref": "ref_77"}}},
            {"type": "tool_use", "id": "toolu_c", "name": "type", "toolset_name": "browser", "input": {"text": "x"}},
        ],
        [{"type": "text", "text": "Done."}],
    ]  # fmt: skip
    requests: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        requests.append(body)
        content = turns[len(requests) - 1]
        return httpx.Response(
            200,
            json={
                "id": f"msg_{len(requests)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        )

    client = anthropic.AsyncAnthropic(
        api_key="no-key", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)), max_retries=0
    )
    runner = client.beta.messages.tool_runner(
        model="claude-test",
        max_tokens=256,
        tools=[toolset],
        messages=[{"role": "user", "content": "Search the page."}],
    )
    final = await runner.until_done()
    assert final.content[0].text == "Done."
    assert requests[0]["tools"] == [{"type": "browser_toolset_20260801"}]
    results = requests[1]["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_a", "toolu_b", "toolu_c"]
    assert all(r["toolset_name"] == "browser" for r in results)
    assert results[0]["content"][0]["text"] == f"Navigated to {url} — Runner (HTTP 200)"
    assert results[0]["content"][-1]["type"] == "browser_state"
    assert results[1]["is_error"] is True and results[1]["content"][0]["text"].startswith(
        "Error: ref_77 is stale"
    )
    assert results[2]["is_error"] is True and results[2]["content"] == HALT_TEXT
    with contextlib.suppress(Exception):
        await client.close()


async def test_direct_call_and_close(make: Make) -> None:
    toolset = await make()
    context = BetaToolsetCallContext(tool_use=None)
    content = await toolset.call(context, "list_tabs", {})
    assert [b["type"] for b in content] == ["browser_state"]
    await toolset.close()
    with pytest.raises(anthropic.lib.tools._toolsets._errors.ToolsetClosedError):
        await toolset.call(context, "list_tabs", {})
    await asyncio.sleep(0)
