"""The MCP server end to end, driven by the official `mcp` SDK's own client: one server process over stdio,
one over streamable HTTP (with its bearer token). Each lists the tools and runs navigate, snapshot, click
with an observation and wait_for, reading the envelopes from the tool results."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from cdp_engine.mcp_server.caps import CAPS  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAGE = """<title>Shop</title><h1>Shop</h1>
<button onclick="fetch('/mcp-e2e/api/orders', {method: 'POST'}).then(r => r.json())
  .then(o => { document.getElementById('out').textContent = 'Order ' + o.id })">Buy</button>
<p id=out>No order</p>"""


def _env(**extra: str) -> dict[str, str]:
    keep = ("CDP_ENGINE_CHROME", "PYTHONPATH", "HOME", "PATH", "TMPDIR")
    return {**{k: os.environ[k] for k in keep if k in os.environ}, **extra}


def envelope(result: Any, structured: bool = False) -> dict[str, Any]:
    """The envelope of a tool result: JSON text content, sent once (structured content only when configured,
    then identical to the text)."""
    text = json.loads(result.content[0].text)
    assert result.structured_content == (text if structured else None)
    assert result.is_error == (text["status"] == "error")
    return text


async def scenario(client: Client, site: Any) -> None:
    from aiohttp import web

    async def order(request: web.Request) -> web.Response:
        return web.json_response({"id": 42}, status=201)

    api = site.add_handler("/mcp-e2e/api/orders", order)
    url = site.add("/mcp-e2e/shop", PAGE)
    listed = await client.list_tools()
    names = {t.name for t in listed.tools}
    assert len(names) == 17 and set(CAPS["core"]) == names  # the default tool set: core
    click_schema = next(t for t in listed.tools if t.name == "browser_click").input_schema
    assert (
        click_schema["required"] == ["instance", "ref"]
        and click_schema["properties"]["wait_for"]["type"] == "object"
    )

    created = envelope(await client.call_tool("browser_create_instance", {"name": "e2e"}))
    assert created["status"] == "success" and created["data"]["name"] == "e2e"
    nav = envelope(await client.call_tool("browser_navigate", {"instance": "e2e", "url": url}))
    assert (
        nav["status"] == "success"
        and nav["instance"] == "e2e"
        and nav["data"] == {"url": url, "title": "Shop"}
    )
    op = nav["operation"]
    assert op["tool"] == "browser_navigate" and op["outcome"] == "completed" and op["retry"] == "not_needed"
    assert op["instance_id"] == created["data"]["instance_id"] and op["page_id"]

    snap = envelope(await client.call_tool("browser_snapshot", {"instance": "e2e"}))
    yaml = snap["data"]["snapshot"]
    assert '- heading "Shop" [level=1]' in yaml
    buy = re.search(r'button "Buy" \[ref=(e\d+)\]', yaml)
    assert buy, yaml

    observation = {"kind": "response", "url": api, "method": "POST", "status": 201}
    clicked = envelope(
        await client.call_tool(
            "browser_click", {"instance": "e2e", "ref": buy.group(1), "wait_for": observation}
        )
    )
    assert clicked["status"] == "success", clicked
    assert clicked["data"]["action_completed"] is True and clicked["data"]["observation"]["matched"] is True
    assert clicked["data"]["observation"]["status"] == 201

    waited = envelope(await client.call_tool("browser_wait_for", {"instance": "e2e", "text": "Order 42"}))
    assert waited["data"] == {"waited_for": "text='Order 42'"}

    # Errors come back as error envelopes with isError, including argument validation.
    stale = envelope(await client.call_tool("browser_click", {"instance": "e2e", "ref": "e9999"}))
    assert stale["error_type"] == "stale_ref" and stale["operation"]["outcome"] == "not_started"
    invalid = envelope(await client.call_tool("browser_navigate", {"instance": "e2e", "url": 3}))
    assert invalid["error_type"] == "invalid_params"
    # An unknown tool is a JSON-RPC error -32602, as the MCP specification's tools section shows.
    with pytest.raises(MCPError) as unknown:
        await client.call_tool("browser_no_such_tool", {})
    assert unknown.value.code == -32602 and "browser_no_such_tool" in unknown.value.message
    # A tool outside the selected caps is refused, naming the caps that enable it.
    tabs = envelope(await client.call_tool("browser_tabs", {"instance": "e2e", "action": "list"}))
    assert tabs["error_type"] == "invalid_params" and "'tabs' caps" in tabs["message"], tabs
    await screenshot_as_image(client)
    gone = envelope(await client.call_tool("browser_destroy_instance", {"name": "e2e"}))
    assert gone["status"] == "success" and gone["data"] == {}


async def screenshot_as_image(client: Client, structured: bool = False) -> None:
    """The screenshot's bytes travel once, as image content; the envelope carries its metadata only."""
    shot = await client.call_tool("browser_screenshot", {"instance": "e2e"})
    assert [c.type for c in shot.content] == ["text", "image"]
    data = envelope(shot, structured)["data"]
    assert data["image_base64"] is None and data["image_content_index"] == 1
    assert (data["image_format"], data["width"], data["height"]) == ("png", 1280, 720)
    assert {"source_width", "source_height", "original"} <= set(data)
    assert len(shot.content[0].text) < 1000  # metadata only: no base64 in the text
    image = shot.content[1]
    assert image.mime_type == "image/png" and base64.b64decode(image.data)[:8] == b"\x89PNG\r\n\x1a\n"


async def test_stdio_server(site: Any) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cdp_engine", "mcp"], env=_env(), cwd=ROOT
    )
    async with asyncio.timeout(60), Client(params, read_timeout_seconds=30) as client:
        await scenario(client, site)


async def test_streamable_http_server(site: Any) -> None:
    token = "test-token-123"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cdp_engine", "mcp", "--http", "--port", "0", "--token", token,
        cwd=ROOT, env=_env(), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        async with asyncio.timeout(30):
            while True:
                line = (await proc.stderr.readline()).decode()
                assert line, "the server exited before listening"
                found = re.search(r"listening on (http://\S+)", line)
                if found:
                    url = found.group(1)
                    break
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        async with create_mcp_http_client() as http:
            refused = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert refused.status_code == 401
        async with (
            asyncio.timeout(60),
            create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=30) as client,
        ):
            await scenario(client, site)
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def test_all_caps_and_structured_content(site: Any) -> None:
    """BROWSER_MCP_CAPS=all offers all 48 tools (the reference's 46 with its every parameter, the pinned schemas);
    BROWSER_MCP_STRUCTURED_CONTENT=1 adds the envelope as structured content, still without image bytes."""
    from cdp_engine.util import schema

    env = _env(BROWSER_MCP_CAPS="all", BROWSER_MCP_STRUCTURED_CONTENT="1")
    params = StdioServerParameters(command=sys.executable, args=["-m", "cdp_engine", "mcp"], env=env, cwd=ROOT)
    async with asyncio.timeout(60), Client(params, read_timeout_seconds=30) as client:
        listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        assert listed == schema.tool_schema("mcp-tools")["tools"]
        assert "camoufox_os" in listed["browser_create_instance"]["properties"]
        created = envelope(await client.call_tool("browser_create_instance", {"name": "e2e"}), structured=True)
        assert created["status"] == "success"
        url = site.add("/mcp-e2e/all", "<title>All</title><p>x</p>")
        envelope(await client.call_tool("browser_navigate", {"instance": "e2e", "url": url}), structured=True)
        tabs = envelope(await client.call_tool("browser_tabs", {"instance": "e2e", "action": "list"}), True)
        assert tabs["status"] == "success" and len(tabs["data"]["tabs"]) == 1
        await screenshot_as_image(client, structured=True)
