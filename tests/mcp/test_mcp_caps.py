"""MCP tool sets (caps): what each selection lists, what it refuses, and what a default definition costs.

tools/list and tools/call both honour Config.caps; the pinned schemas (protocol/schemas/tools/mcp-tools.json)
are the `all` set. Ref-taking tools accept playwright-mcp's human-readable `element` argument and ignore it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

import cdp_engine
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.mcp_server.caps import CAPS, DEFAULT_CAPS, parse_caps
from cdp_engine.mcp_server.registry import REGISTRY, UNSUPPORTED_PARAMS
from cdp_engine.util import schema

# The default set's definitions (tools/list entries as compact JSON, as the SDK sends them) stay within 4k tokens.
DEFAULT_BUDGET_CHARS = 16_000


def listing(caps: tuple[str, ...]) -> list[dict[str, Any]]:
    return BrowserTools(InstanceManager(Config(caps=caps))).list_tools()


def chars(tools: list[dict[str, Any]]) -> int:
    return len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))


def test_every_tool_is_in_exactly_one_group() -> None:
    grouped = [name for names in CAPS.values() for name in names]
    assert sorted(grouped) == sorted(REGISTRY) and len(grouped) == len(set(grouped))


def test_the_default_set_is_core_and_fits_its_budget() -> None:
    assert DEFAULT_CAPS == ("core",) and Config.from_env({}).caps == ("core",)
    tools = listing(DEFAULT_CAPS)
    assert [t["name"] for t in tools] == [n for n in _ordered() if n in CAPS["core"]]
    assert chars(tools) <= DEFAULT_BUDGET_CHARS, chars(tools)
    create = next(t for t in tools if t["name"] == "browser_create_instance")["inputSchema"]["properties"]
    assert set(UNSUPPORTED_PARAMS["browser_create_instance"]).isdisjoint(create)  # never-working ones hidden
    assert {"profile_dir", "headless", "proxy", "window", "block_images", "locale"} <= set(create)
    assert "browser_run_code" not in {t["name"] for t in tools}


@pytest.mark.parametrize("cap", [c for c in CAPS if c != "core"])
def test_each_group_adds_its_tools_to_core(cap: str) -> None:
    names = {t["name"] for t in listing(parse_caps(cap))}
    assert names == set(CAPS["core"]) | set(CAPS[cap])


def test_all_lists_every_tool_with_the_pinned_schemas() -> None:
    tools = listing(("all",))
    assert len(tools) == 48 == len(REGISTRY)  # the reference's 46 and the two storage state files (docs/mcp.md)
    assert {t["name"]: t["inputSchema"] for t in tools} == schema.tool_schema("mcp-tools")["tools"]
    assert chars(tools) > chars(listing(DEFAULT_CAPS)) * 2
    assert listing(parse_caps(",".join(CAPS))) != tools  # every group but not `all`: refused options hidden


def test_caps_from_the_environment() -> None:
    env = lambda v: Config.from_env({"BROWSER_MCP_CAPS": v}).caps  # noqa: E731
    assert env("tabs, Storage") == ("core", "tabs", "storage")
    assert env("core,tabs,tabs") == ("core", "tabs")
    assert env("tabs,all") == ("all",)
    assert Config(caps=("testing",)).caps == ("core", "testing")
    with pytest.raises(ValueError, match="BROWSER_MCP_CAPS"):
        env("tabs,vision")
    with pytest.raises(ValueError, match="unknown MCP caps vision"):
        Config(caps=("vision",))


@pytest_asyncio.fixture
async def core(browser: cdp_engine.Browser) -> AsyncIterator[BrowserTools]:
    manager = InstanceManager(Config(caps=("core", "testing")), browser=browser)
    tools = BrowserTools(manager)
    created = await tools.call("browser_create_instance", {"name": "t"})
    assert created["status"] == "success", created
    yield tools
    await manager.close()


async def test_a_tool_outside_the_caps_is_refused_naming_its_group(core: BrowserTools, site: Any) -> None:
    url = site.add("/mcp-caps/page", "<title>Caps</title><button>Go</button>")
    nav = await core.call("browser_navigate", {"instance": "t", "url": url})
    assert nav["status"] == "success", nav
    env = await core.call("browser_tabs", {"instance": "t", "action": "list"})
    assert env["status"] == "error" and env["error_type"] == "invalid_params", env
    assert env["message"] == (
        "Tool 'browser_tabs' is not enabled on this server: it belongs to the 'tabs' caps; start the server with "
        "caps 'tabs' (BROWSER_MCP_CAPS=tabs) or 'all'."
    )
    assert env["operation"]["outcome"] == "not_started"
    run = await core.call("browser_run_code", {"instance": "t", "code": "return 1"})
    assert run["error_type"] == "invalid_params" and "'unsupported' caps" in run["message"]
    verified = await core.call("browser_verify_text_visible", {"instance": "t", "text": "Go"})
    assert verified["status"] == "success", verified  # a selected group works


async def test_refused_options_are_still_refused_as_before(core: BrowserTools) -> None:
    env = await core.call("browser_create_instance", {"name": "fox", "camoufox_os": "linux"})
    assert env["error_type"] == "unsupported_capability" and "Camoufox" in env["message"], env


async def test_element_beside_ref_is_accepted_and_ignored(core: BrowserTools, site: Any) -> None:
    url = site.add(
        "/mcp-caps/element",
        "<title>El</title><button onclick=\"out.textContent='clicked'\">Go</button><input aria-label=Name><p id=out></p>",
    )
    assert (await core.call("browser_navigate", {"instance": "t", "url": url}))["status"] == "success"
    snap = (await core.call("browser_snapshot", {"instance": "t"}))["data"]["snapshot"]
    button = snap.split('button "Go" [ref=')[1].split("]")[0]
    box = snap.split('textbox "Name" [ref=')[1].split("]")[0]
    clicked = await core.call("browser_click", {"instance": "t", "ref": button, "element": "Go button"})
    assert clicked["status"] == "success" and clicked["data"] == {"clicked": button}, clicked
    typed = await core.call("browser_type", {"instance": "t", "ref": box, "text": "Bob", "element": "Name box"})
    assert typed["status"] == "success", typed
    fields = [{"ref": box, "value": "Ada", "element": "Name box"}]
    filled = await core.call("browser_fill_form", {"instance": "t", "fields": fields})
    assert filled["status"] == "success" and filled["data"] == {"filled_count": 1}, filled
    value = await core.call(
        "browser_verify_value", {"instance": "t", "ref": box, "expected_value": "Ada", "element": "Name box"}
    )
    assert value["status"] == "success", value
    shown = await core.call("browser_verify_text_visible", {"instance": "t", "text": "clicked"})
    assert shown["status"] == "success", shown  # the click ran
    # Only where a ref is taken: elsewhere `element` stays an unknown argument.
    nav = await core.call("browser_navigate", {"instance": "t", "url": url, "element": "x"})
    assert nav["error_type"] == "invalid_params" and "element" in nav["message"], nav


def _ordered() -> list[str]:
    return [t["name"] for t in listing(("all",))]
