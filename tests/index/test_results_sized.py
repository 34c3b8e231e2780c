"""Results sized for models (issue 16, Builds 1-2): a default budget on every result that grows with the page,
and scoping and paging that reach the whole page with refs and indices still actionable.

util/text_windows.py is the one window and marker; each surface is walked to the end of a long generated page
(tests/conftest.py long_page_html) and acts on something only a later part shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
import pytest_asyncio
from aiohttp import ClientSession, web
from conftest import long_page_html

import cdp_engine
from cdp_engine.core.policies import MAX_RESULT_CHARS, RESULT_CHARS
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.service import create_app
from cdp_engine.toolset import BrowserToolset, ToolsetConfig
from cdp_engine.util.text_windows import BudgetError, check_budget, check_offset, context_lines, window

TOKENS = 25_000  # the tool-result limit the defaults must fit (tokens estimated as chars / 4)


# ----- the one window ---------------------------------------------------------------------------------


def test_window_ends_after_a_whole_line_and_the_marker_is_exact() -> None:
    text = "".join(f"line {n:04}\n" for n in range(1000))  # 10 characters a line
    part = window(text, 95)
    assert part.text == text[:90] and (part.start, part.end, part.total) == (0, 90, 10_000)
    assert part.marker("snapshot", "Next: offset=90.") == (
        "[snapshot truncated: characters 0-90 of 10,000 shown; 9,910 more. Next: offset=90.]"
    )
    middle = window(text, 95, 90)
    assert middle.text == text[90:180]
    assert middle.marker("x", "Next.") == "[x truncated: characters 90-180 of 10,000 shown; 90 before and 9,820 more. Next.]"
    last = window(text, 95, 9_950)
    assert last.text == text[9_950:] and not last.more and not last.complete
    assert window(text, 10_000).complete and window(text, 10_000).marker("x", "y") == ""
    assert window(text, 95, 10_000).text == ""  # the end itself: an empty window


def test_window_starts_at_a_line_start_and_splits_only_a_line_longer_than_the_budget() -> None:
    text = "alpha beta\ngamma delta epsilon\n"
    assert window(text, 100, 13).start == 11  # inside "gamma ...": from that line's start
    long = "word " * 100  # one 500-character line
    part = window(long, 52)
    assert part.end == 50 and part.text.endswith(" ")  # at its last space
    assert window("x" * 500, 52).end == 52  # no space: at the budget
    assert window(text, 100, 0, open_end=True).marker("page_content", "Next: offset=31.") == (
        "[page_content truncated: characters 0-31 shown; more follows. Next: offset=31.]"
    )


def test_bad_budgets_and_offsets_are_refused() -> None:
    for bad in (-1, 1.5, "10", True):
        with pytest.raises(BudgetError):
            check_offset(bad)
    for bad in (0, 999, MAX_RESULT_CHARS + 1, 2.0, False):
        with pytest.raises(BudgetError):
            check_budget(bad)
    assert check_budget(None) == RESULT_CHARS == 40_000 and check_offset(None) == 0
    with pytest.raises(BudgetError, match="past the end"):
        window("abc", 1000, 4)


def test_context_lines_are_the_ancestors_of_the_first_line() -> None:
    text = "- a:\n  - b:\n    - c\n  - d:\n    - e\n    - f\n"
    assert context_lines(text, text.index("    - f")) == ["- a:", "  - d:"]
    assert context_lines(text, text.index("  - d")) == ["- a:"]
    assert context_lines(text, 0) == []


# ----- MCP browser_snapshot ---------------------------------------------------------------------------


@pytest_asyncio.fixture
async def mcp(browser: cdp_engine.Browser) -> AsyncIterator[BrowserTools]:
    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)
    assert (await tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
    yield tools
    await manager.close()


async def call(tools: BrowserTools, name: str, **args: Any) -> dict[str, Any]:
    return await tools.call(name, {"instance": "t", **args})


async def ok(tools: BrowserTools, name: str, **args: Any) -> dict[str, Any]:
    env = await call(tools, name, **args)
    assert env["status"] == "success", env
    return env["data"]  # type: ignore[no-any-return]


def ref_of(text: str, needle: str) -> str:
    for line in text.splitlines():
        if needle in line and "[ref=" in line:
            return line.split("[ref=")[1].split("]")[0]
    raise AssertionError(f"{needle!r} not in {text[:2000]}")


MARKER = re.compile(
    r"^# \[snapshot truncated: characters ([\d,]+)-([\d,]+) of ([\d,]+) shown; (.*)\. (Next: browser_snapshot "
    r"offset=(\d+), or scope with ref, depth, viewport_only or interactive_only\.|This is the end; offset=0 reads "
    r"from the start\.)\]$"
)


async def test_default_snapshot_fits_the_budget_and_says_how_to_read_on(mcp: BrowserTools, long_page: str) -> None:
    await ok(mcp, "browser_navigate", url=long_page)
    data = await ok(mcp, "browser_snapshot")
    text = data["snapshot"]
    assert len(text) <= RESULT_CHARS and len(json.dumps(data)) / 4 < TOKENS
    marker = text.rsplit("\n", 1)[1]
    end = data["next_offset"]
    assert marker == (
        f"# [snapshot truncated: characters 0-{end:,} of {data['total_chars']:,} shown; "
        f"{data['total_chars'] - end:,} more. Next: browser_snapshot offset={end}, or scope with ref, depth, "
        "viewport_only or interactive_only.]"
    )
    assert data["offset"] == 0 and data["total_chars"] > 500_000
    short = await ok(mcp, "browser_snapshot", max_chars=5_000)
    assert len(short["snapshot"]) <= 5_000 and short["next_offset"] < end


async def test_paging_walks_the_snapshot_to_its_end_and_the_last_part_acts(
    mcp: BrowserTools, site: Any
) -> None:
    url = site.add("/long-page-40.html", long_page_html(sections=40))
    await ok(mcp, "browser_navigate", url=url)
    whole = (await ok(mcp, "browser_snapshot", max_chars=MAX_RESULT_CHARS))["snapshot"]
    assert "next_offset" not in (await ok(mcp, "browser_snapshot", max_chars=MAX_RESULT_CHARS))
    offset: int | None = 0
    parts = []
    while offset is not None:
        data = await ok(mcp, "browser_snapshot", offset=offset)
        lines = data["snapshot"].split("\n")
        match = MARKER.match(lines[-1])
        assert match, lines[-1]
        assert data["offset"] == offset and len(data["snapshot"]) <= RESULT_CHARS
        body = whole[data["offset"] : data["next_offset"] or len(whole)].rstrip("\n")
        head = "\n".join(lines[:-1])
        assert head.endswith(body)
        for ancestor in head[: len(head) - len(body)].splitlines():
            assert ancestor in whole.splitlines()  # the repeated ancestors are lines of the snapshot
        parts.append(body)
        offset = data["next_offset"]
    assert len(parts) >= 3
    assert "\n".join(parts) == whole.rstrip("\n")  # no gap, no overlap
    last = data["snapshot"]
    await ok(mcp, "browser_click", ref=ref_of(last, 'button "Last button"'))
    assert "clicked the last button" in (await ok(mcp, "browser_snapshot", selector="#done"))["snapshot"]


async def test_scoped_views_carry_actionable_refs(mcp: BrowserTools, site: Any) -> None:
    await ok(mcp, "browser_navigate", url=site.add("/long-page-20.html", long_page_html(sections=20)))
    top = (await ok(mcp, "browser_snapshot", depth=1, max_chars=MAX_RESULT_CHARS))["snapshot"]
    assert "\n  - " not in top and 'heading "The end"' in top  # one level of elements
    lists = [line for line in top.splitlines() if line.startswith("- list [ref=")]
    assert len(lists) == 20  # each list's links: below the depth, reachable by its ref
    one = (await ok(mcp, "browser_snapshot", ref=ref_of(lists[7], "list")))["snapshot"]
    assert one.count('- link "Link 7.') == 25 and "Link 8.0" not in one
    await ok(mcp, "browser_click", ref=ref_of(one, 'link "Link 7.3"'))
    interactive = await ok(mcp, "browser_snapshot", interactive_only=True, max_chars=MAX_RESULT_CHARS)
    assert "- text:" not in interactive["snapshot"] and "heading" not in interactive["snapshot"]
    assert interactive["snapshot"].count("- link ") == 500
    in_view = (await ok(mcp, "browser_snapshot", viewport_only=True))["snapshot"]
    assert "Link 7.3" in in_view and "# [snapshot" not in in_view  # the click scrolled to its anchor
    assert '"Section 1"' not in in_view and '"Section 15"' not in in_view
    field = ref_of(interactive["snapshot"], 'textbox "Last field"')
    scoped = (await ok(mcp, "browser_snapshot", ref=field, element="the last field"))["snapshot"]
    assert scoped.startswith(f'- textbox "Last field" [ref={field}]')
    await ok(mcp, "browser_type", ref=field, text="typed")
    assert (await ok(mcp, "browser_snapshot", ref=field))["snapshot"].endswith(": typed")
    # The selector mode keeps its documented behaviour: no refs.
    assert "[ref=" not in (await ok(mcp, "browser_snapshot", selector="#s3"))["snapshot"]


@pytest.mark.parametrize(
    "args",
    [{"offset": -1}, {"offset": 1.5}, {"max_chars": 999}, {"max_chars": MAX_RESULT_CHARS + 1}, {"depth": 0},
     {"offset": 10**9}, {"selector": "h1", "ref": "e1"}],
)  # fmt: skip
async def test_bad_paging_values_are_invalid_params(mcp: BrowserTools, site: Any, args: dict[str, Any]) -> None:
    await ok(mcp, "browser_navigate", url=site.add("/short-page.html", "<h1>Short</h1><a href='#'>a</a>"))
    env = await call(mcp, "browser_snapshot", **args)
    assert env["status"] == "error" and env["error_type"] == "invalid_params", env
    assert "Short" in (await ok(mcp, "browser_snapshot"))["snapshot"]


# ----- element index state ----------------------------------------------------------------------------


async def test_state_fits_the_budget_and_pages_to_the_end(tab: cdp_engine.Tab, long_page: str) -> None:
    await tab.goto(long_page)
    state = await tab.state(screenshot=False)
    content = state["page_content"]
    body, _, marker = content.rpartition("\n")
    end = len(body) + 1
    assert marker == f"[page_content truncated: characters 0-{end:,} shown; more follows. Next: offset={end}.]"
    assert (len(content) + len(json.dumps(state["element_index"]))) / 4 < TOKENS
    texts = [body]
    offset = end
    while True:
        part = (await tab.state(screenshot=False, offset=offset))["page_content"]
        body, _, marker = part.rpartition("\n")
        m = re.match(r"^\[page_content truncated: characters ([\d,]+)-([\d,]+) (of [\d,]+ )?shown; .*\]$", marker)
        assert m, marker
        assert int(m.group(1).replace(",", "")) == offset
        texts.append(body)
        if "This is the end" in marker:
            break
        offset = int(m.group(2).replace(",", ""))
    assert len(texts) >= 5
    assert "Last button" in texts[-1] and "Link 199.24" in texts[-1]
    whole = (await tab.state(screenshot=False, max_chars=MAX_RESULT_CHARS))["page_content"]
    assert "\n".join(texts) == whole
    # The last part's elements are indexed once scrolled into view (the index lists the viewport).
    await tab.act({"action": "scroll", "direction": "down", "pixels": 10**7}, screenshot=False)
    state = await tab.state(screenshot=False)
    button = next(k for k, d in state["element_index"].items() if d["text_content"] == "Last button")
    after = await tab.act({"action": "click_element", "element_index": int(button)}, screenshot=False)
    assert "error" not in after
    assert "clicked the last button" in (await tab.state(screenshot=False, offset=offset))["page_content"]


async def test_state_bad_paging_values_raise_and_change_nothing(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(site.add("/short-state.html", "<h1>Short</h1><button>b</button>"))
    good = await tab.state(screenshot=False)
    for args in ({"offset": -1}, {"max_chars": 10}, {"offset": 10**9}):
        with pytest.raises(ValueError):
            await tab.state(screenshot=False, **args)
    assert tab.element_index.current is not None and tab.element_index.current.state == good
    assert await tab.state(screenshot=False) == good


async def test_service_state_pages_and_refuses_bad_values(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add("/long-service.html", long_page_html(sections=40))
    app = create_app(browser, token="t0ken", start_url=url, result_chars=5_000)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    headers = {"Authorization": "Bearer t0ken"}
    try:
        async with ClientSession() as http:

            async def get(query: str) -> tuple[int, Any]:
                async with http.get(f"{base}/state?screenshot=0{query}", headers=headers) as resp:
                    return resp.status, orjson.loads(await resp.read())

            status, state = await get("")
            assert status == 200 and len(state["page_content"]) <= 5_000 + 200
            end = int(state["page_content"].rsplit("offset=", 1)[1].rstrip(".]"))
            status, second = await get(f"&offset={end}&max_chars=1000")
            assert status == 200 and len(second["page_content"]) <= 1_000 + 200
            assert f"[page_content truncated: characters {end:,}-" in second["page_content"].rsplit("\n", 1)[1]
            for bad in ("&offset=-1", "&offset=x", "&max_chars=5", "&offset=99999999"):
                status, body = await get(bad)
                assert status == 400 and "error" in body, (bad, body)
    finally:
        await runner.cleanup()


# ----- browser toolset ----------------------------------------------------------------------------------


@pytest_asyncio.fixture
async def toolset(browser: cdp_engine.Browser, context: cdp_engine.BrowserContext) -> AsyncIterator[BrowserToolset]:
    ts = await BrowserToolset(browser, context=context, config=ToolsetConfig()).start()
    yield ts
    await ts.close()


async def member(ts: BrowserToolset, name: str, **inp: Any) -> str:
    content, is_error = await ts.call(name, inp)
    assert not is_error, content
    return "\n".join(b["text"] for b in content if b["type"] == "text")


READ_ON = re.compile(r"Read on with read_page ref=(ref_\d+)")


async def walk(ts: BrowserToolset, first: str) -> list[str]:
    """Every part of a cut output, following the continuation refs its markers name, markers removed."""
    parts, out = [], first
    while True:
        assert len(out) <= ToolsetConfig().text_chars
        body, _, marker = out.rpartition("\n")
        assert marker.startswith("[Output truncated: characters "), marker
        parts.append(body)
        token = READ_ON.search(marker)
        if token is None:
            assert marker.endswith("This is the end; read_page or get_page_text again reads from the start.]")
            return parts
        out = await member(ts, "read_page", ref=token.group(1))


async def test_toolset_text_and_tree_page_to_the_end_and_refs_act(toolset: BrowserToolset, site: Any) -> None:
    await member(toolset, "navigate", url=site.add("/long-toolset.html", long_page_html(sections=70)))
    text = await member(toolset, "get_page_text")
    parts = await walk(toolset, text)
    assert len(parts) >= 2 and "Section 69" in parts[-1] and "not clicked" in parts[-1]
    whole = "\n".join(parts)
    assert all(f"Link {s}.24" in whole for s in range(70))
    tree = await walk(toolset, await member(toolset, "read_page", filter="all"))
    assert len(tree) >= 2 and "Viewport: " in tree[-1]
    last = tree[-1]
    button = next(line for line in last.splitlines() if 'button "Last button"' in line).split("[")[1].split("]")[0]
    await member(toolset, "left_click", target={"type": "ref", "ref": button})
    assert "clicked the last button" in await member(toolset, "find", query="clicked the last button")
    # A continuation ref is for reading only, and for the document it was handed out in.
    token = READ_ON.search(text)
    assert token is not None
    content, is_error = await toolset.call("left_click", {"target": {"type": "ref", "ref": token.group(1)}})
    assert is_error and "stale or not found" in content[0]["text"]
    await member(toolset, "navigate", url=site.add("/short-toolset.html", "<p>short</p>"))
    content, is_error = await toolset.call("read_page", {"ref": token.group(1)})
    assert is_error and "stale or not found" in content[0]["text"]


def test_toolset_text_budget_is_a_driver_option() -> None:
    assert ToolsetConfig().text_chars == 50_000
    with pytest.raises(ValueError, match="text_chars"):
        ToolsetConfig(text_chars=10)


async def test_the_servers_budget_is_configurable(browser: cdp_engine.Browser, site: Any) -> None:
    assert Config.from_env({}).result_chars == RESULT_CHARS
    assert Config.from_env({"BROWSER_MCP_RESULT_CHARS": "5000"}).result_chars == 5_000
    with pytest.raises(ValueError, match="BROWSER_MCP_RESULT_CHARS"):
        Config.from_env({"BROWSER_MCP_RESULT_CHARS": "10"})
    manager = InstanceManager(Config(result_chars=5_000), browser=browser)
    tools = BrowserTools(manager)
    try:
        await tools.call("browser_create_instance", {"name": "t"})
        await ok(tools, "browser_navigate", url=site.add("/long-page-10.html", long_page_html(sections=10)))
        data = await ok(tools, "browser_snapshot")
        assert len(data["snapshot"]) <= 5_000 and data["next_offset"] is not None
        assert len((await ok(tools, "browser_snapshot", max_chars=20_000))["snapshot"]) > 10_000
    finally:
        await manager.close()
