"""The browser toolset executor (`cdp_engine.toolset`) against a real headless Chromium.

Every test gets a fresh browser context (conftest) and a `BrowserToolset` on it; pages come from
the session's loopback site, each at a path of its own.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from conftest import sent_commands

import cdp_engine
from cdp_engine.toolset import (
    DEFAULT_DISABLED,
    HALT_TEXT,
    MEMBER_NAMES,
    BrowserToolset,
    MemberError,
    ToolsetConfig,
    normalize_url,
)
from cdp_engine.toolset.read_page import OUTPUT_CAP

_n = itertools.count(1)
ALL_ON = {name: {"enabled": True} for name in DEFAULT_DISABLED}


def path(prefix: str) -> str:
    return f"/ts-{prefix}-{os.getpid()}-{next(_n)}"


def page(site: Any, body: str, title: str = "Test page", head: str = "") -> str:
    return site.add(
        path("p"), f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    )


MakeToolset = Callable[..., Awaitable[BrowserToolset]]


@pytest_asyncio.fixture
async def make_ts(
    browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[MakeToolset]:
    made: list[BrowserToolset] = []

    async def make(**config: Any) -> BrowserToolset:
        ts = await BrowserToolset(browser, context=context, config=ToolsetConfig(**config)).start()
        made.append(ts)
        return ts

    yield make
    for ts in made:
        await ts.close()


@pytest_asyncio.fixture
async def ts(make_ts: MakeToolset) -> BrowserToolset:
    return await make_ts()


async def call(ts: BrowserToolset, name: str, **inp: Any) -> tuple[list[dict[str, Any]], bool]:
    return await ts.call(name, inp)


async def ok(ts: BrowserToolset, name: str, **inp: Any) -> list[dict[str, Any]]:
    content, is_error = await ts.call(name, inp)
    assert not is_error, content
    return content


async def fail(ts: BrowserToolset, name: str, **inp: Any) -> str:
    content, is_error = await ts.call(name, inp)
    assert is_error, content
    assert all(block["type"] == "text" for block in content), "an error result never carries browser_state"
    return content[0]["text"]


def text(content: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"] for b in content if b["type"] == "text")


def state(content: list[dict[str, Any]]) -> dict[str, Any]:
    blocks = [b for b in content if b["type"] == "browser_state"]
    assert len(blocks) == 1, content
    block = blocks[0]
    assert sum(1 for t in block["tabs"] if t.get("active")) == (1 if block["tabs"] else 0)
    if "state_changes" in block:
        assert block["state_changes"], "an empty state_changes is omitted"
    return block


def changes(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return state(content).get("state_changes", [])


async def goto(ts: BrowserToolset, url: str) -> list[dict[str, Any]]:
    return await ok(ts, "navigate", url=url)


async def js(ts: BrowserToolset, expression: str, tab_id: str | None = None) -> Any:
    return await ts.book.get(tab_id).tab.evaluate(expression)


async def until(ts: BrowserToolset, expression: str, timeout: float = 5.0, tab_id: str | None = None) -> None:
    """Wait for a page condition that arrives asynchronously (cross-process messages, downloads)."""
    async with asyncio.timeout(timeout):
        while not await js(ts, expression, tab_id):  # noqa: ASYNC110 - polls the page, which has no event to await
            await asyncio.sleep(0.02)


def ref_of(listing: str, needle: str) -> str:
    for line in listing.splitlines():
        if needle in line and "[ref_" in line:
            return line.split("[", 1)[1].split("]", 1)[0]
    raise AssertionError(f"{needle!r} not in:\n{listing}")


def png_size(data: str) -> tuple[int, int]:
    raw = base64.b64decode(data)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


def coord(x: int, y: int) -> dict[str, Any]:
    return {"type": "coordinate", "x": x, "y": y}


def ref(r: str) -> dict[str, Any]:
    return {"type": "ref", "ref": r}


# ----- members, validation, configs ---------------------------------------------------------------


def test_member_table() -> None:
    assert len(MEMBER_NAMES) == 31 and len(set(MEMBER_NAMES)) == 31
    assert DEFAULT_DISABLED == {"javascript_exec", "file_upload", "read_console", "read_network"}
    config = ToolsetConfig()
    assert sum(config.enabled(n) for n in MEMBER_NAMES) == 27
    assert ToolsetConfig(configs={"javascript_exec": {"enabled": True}}).enabled("javascript_exec")
    assert not ToolsetConfig(configs={"navigate": {"enabled": False}}).enabled("navigate")


INVALID_INPUTS: list[tuple[str, dict[str, Any], str]] = [
    ("navigate", {}, "url is required"),
    ("navigate", {"url": 5}, "url must be a string"),
    ("navigate", {"url": "https://e.com", "foo": 1}, "foo is not a field of this member"),
    ("new_tab", {"tab_id": "tab-1"}, "tab_id is not a field of this member"),
    ("switch_tab", {}, "tab_id is required"),
    ("left_click", {"target": {"type": "coordinate", "x": 1}}, "target.y is required"),
    ("left_click", {"target": {"type": "coordinate", "x": 1.5, "y": 2}}, "target.x must be an integer"),
    ("left_click", {"target": {"type": "coordinate", "x": True, "y": 2}}, "target.x must be an integer"),
    (
        "left_click",
        {"target": {"type": "point", "x": 1, "y": 2}},
        "target.type must be 'coordinate' or 'ref'",
    ),
    (
        "left_click",
        {"target": {"type": "ref", "ref": "ref_1", "x": 3}},
        "target.x is not a field of this member",
    ),
    (
        "scroll",
        {"target": {"type": "ref", "ref": "ref_1"}, "scroll_direction": "down"},
        "target.type must be 'coordinate'",
    ),
    (
        "scroll",
        {"target": {"type": "coordinate", "x": 1, "y": 1}, "scroll_direction": "sideways"},
        "scroll_direction must be one of",
    ),
    (
        "scroll",
        {"target": {"type": "coordinate", "x": 1, "y": 1}, "scroll_direction": "up", "scroll_amount": 0},
        "scroll_amount must be between 1 and 10",
    ),
    (
        "scroll",
        {"target": {"type": "coordinate", "x": 1, "y": 1}, "scroll_direction": "up", "scroll_amount": 11},
        "scroll_amount must be between 1 and 10",
    ),
    ("scroll_to", {"target": {"type": "coordinate", "x": 1, "y": 1}}, "target.type must be 'ref'"),
    ("key", {"text": "a", "repeat": 0}, "repeat must be between 1 and 100"),
    ("key", {"text": "a", "repeat": 101}, "repeat must be between 1 and 100"),
    ("key", {"text": ""}, "text must not be empty"),
    ("hold_key", {"text": "a"}, "duration is required"),
    ("hold_key", {"text": "a", "duration": 31}, "duration must be between 0 and 30"),
    ("wait", {"duration": -1}, "duration must be between 0 and 30"),
    ("wait", {"duration": "2"}, "duration must be a number"),
    ("read_page", {"depth": 0}, "depth must be at least 1"),
    ("read_page", {"filter": "visible"}, "filter must be one of 'interactive', 'all'"),
    ("zoom", {"region": [0, 0, 10]}, "region must be a list of four integers"),
    ("zoom", {"region": [10, 0, 5, 10]}, "x0 < x1 and y0 < y1"),
    ("form_input", {"target": {"type": "ref", "ref": "ref_1"}, "value": None}, "value is required"),
    (
        "form_input",
        {"target": {"type": "ref", "ref": "ref_1"}, "value": [1]},
        "value must be a string, a number or a boolean",
    ),
    ("left_click_drag", {"target": {"type": "coordinate", "x": 1, "y": 1}}, "from is required"),
    ("find", {"query": 3}, "query must be a string"),
]


async def test_input_validation(ts: BrowserToolset) -> None:
    for name, inp, expected in INVALID_INPUTS:
        message = await fail(ts, name, **inp)
        assert message.startswith(f"Error: invalid input for {name}: "), message
        assert expected in message, (name, message)


async def test_several_problems_reported_together(ts: BrowserToolset) -> None:
    message = await fail(
        ts, "scroll", target={"type": "coordinate", "x": "1", "y": 2}, scroll_direction="in", extra=1
    )
    assert message == (
        "Error: invalid input for scroll: extra is not a field of this member; target.x must be an integer; "
        "scroll_direction must be one of 'up', 'down', 'left', 'right'."
    )


async def test_unknown_and_disabled_members(make_ts: MakeToolset) -> None:
    ts = await make_ts(configs={"hover": {"enabled": False}})
    assert await fail(ts, "teleport") == "Error: unknown browser toolset member 'teleport'"
    for name in ("javascript_exec", "file_upload", "read_console", "read_network", "hover"):
        assert await fail(ts, name) == f"Error: {name} is not enabled in this environment."
    assert ts.to_dict() == {"type": "browser_toolset_20260801", "configs": {"hover": {"enabled": False}}}


# ----- navigation --------------------------------------------------------------------------------


def test_normalize_url() -> None:
    assert normalize_url("example.com/docs") == "https://example.com/docs"
    assert normalize_url("localhost:8000/x") == "https://localhost:8000/x"
    assert normalize_url("  HTTP://Example.com ") == "HTTP://Example.com"
    assert normalize_url("127.0.0.1:9/a?b#c") == "https://127.0.0.1:9/a?b#c"
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "chrome://settings",
                "view-source:http://e.com", "about:blank", "ftp://e.com/f", "JAVASCRIPT:alert(1)"):  # fmt: skip
        with pytest.raises(MemberError) as info:
            normalize_url(bad)
        assert info.value.text == "Error: Navigation refused. Only http and https URLs are allowed."


async def test_navigate_back_forward_reload(ts: BrowserToolset, site: Any) -> None:
    first = page(site, "<p>one</p>", title="First")
    second = page(site, "<p>two</p>", title="Second")
    content = await goto(ts, first)
    assert text(content) == f"Navigated to {first} — First (HTTP 200)"
    assert state(content)["tabs"] == [{"tab_id": "tab-1", "title": "First", "url": first, "active": True}]
    await goto(ts, second)
    content = await ok(ts, "navigate", url="BACK ")
    assert text(content).startswith(f"Navigated to {first} — First")
    assert state(content)["tabs"][0]["url"] == first
    content = await ok(ts, "navigate", url="forward")
    assert text(content).startswith(f"Navigated to {second} — Second")
    await js(ts, "window.marker = 1")
    content = await ok(ts, "navigate", url="reload")
    assert text(content) == f"Navigated to {second} — Second (HTTP 200)"
    assert await js(ts, "window.marker === undefined")
    assert await fail(ts, "navigate", url="forward") == "Error: There is no later page in this tab's history."
    missing = site.url + path("missing")
    assert text(await goto(ts, missing)).endswith("(HTTP 404)")


async def test_navigate_refusals_and_failures(make_ts: MakeToolset, site: Any) -> None:
    ts = await make_ts(navigation_timeout=0.5)
    assert await fail(ts, "navigate", url="javascript:alert(1)") == (
        "Error: Navigation refused. Only http and https URLs are allowed."
    )

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(1.5)
        return web.Response(text="late", content_type="text/html")

    slow_url = site.add_handler(path("slow"), slow)
    assert await fail(ts, "navigate", url=slow_url) == (
        f'Error: Navigation to "{slow_url}" timed out after 0.5 seconds. The page may be unavailable.'
    )
    # A page whose image never arrives still navigates: parsed is enough, `load` only gets a bounded wait.
    hanging = site.add_handler(path("hang"), slow)
    content = await ok(ts, "navigate", url=page(site, f"<img src='{hanging}'><p>usable</p>", title="Usable"))
    assert text(content).endswith("— Usable (HTTP 200)")
    message = await fail(ts, "navigate", url="http://127.0.0.1:9/")
    assert message.startswith('Error: Navigation to "http://127.0.0.1:9/" failed (net::ERR_')


# ----- read_page, find, get_page_text -------------------------------------------------------------

FORM_PAGE = """
<nav><a href="/docs">Documentation</a></nav>
<main>
  <h1>Sign up</h1>
  <p>Create an account to continue.</p>
  <label>Email <input id="email" type="email" placeholder="you@example.com" value="a@b.c"></label>
  <label>Password <input type="password" value="hunter2"></label>
  <input type="checkbox" id="terms" checked aria-label="Accept terms">
  <select aria-label="Country"><option value="fr">France</option><option value="de" selected>Germany</option></select>
  <button disabled>Later</button>
  <button id="go" onclick="window.clicked = (window.clicked || 0) + 1">Create "account"</button>
  <div style="height: 3000px"></div>
  <a href="/footer">Footer link</a>
</main>
"""


async def test_read_page_grammar_and_filters(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, FORM_PAGE))
    listing = text(await ok(ts, "read_page"))
    lines = listing.splitlines()
    assert lines[0].startswith("navigation [ref_")
    assert lines[1].startswith('  link "Documentation" [ref_') and lines[1].endswith("href=/docs")
    assert any(line.startswith('  heading "Sign up" [ref_') and "level=1" in line for line in lines)
    assert '  paragraph "Create an account to continue." [ref_' in listing
    email = next(line for line in lines if 'textbox "Email"' in line)
    assert "type=email placeholder=you@example.com value=a@b.c" in email
    password = next(line for line in lines if 'textbox "Password"' in line)
    assert "hunter2" not in listing and "value=•••••••" in password
    assert next(line for line in lines if 'checkbox "Accept terms" [ref_' in line).endswith("checked")
    assert 'combobox "Country"' in listing and 'option "Germany"' in listing
    assert any('button "Later"' in line and line.endswith("disabled") for line in lines)
    assert 'button "Create \\"account\\"" [ref_' in listing  # names are escaped
    assert "Footer link" not in listing  # below the viewport
    assert lines[-2] == "Viewport: 1280x720"
    assert lines[-1].startswith("(Not shown: ") and 'filter "all"' in lines[-1]

    everything = text(await ok(ts, "read_page", filter="all"))
    footer_line = next(line for line in everything.splitlines() if "Footer link" in line)
    assert footer_line.endswith("(offscreen)")
    # Refs are stable: the same elements keep their numbers across reads.
    assert ref_of(everything, 'button "Create') == ref_of(listing, 'button "Create')

    interactive = text(await ok(ts, "read_page", filter="interactive"))
    assert "heading" not in interactive and "paragraph" not in interactive
    assert 'link "Documentation"' in interactive and 'textbox "Email"' in interactive

    shallow = text(await ok(ts, "read_page", depth=1))
    assert "navigation [ref_" in shallow and "main [ref_" in shallow and "  " not in shallow.split("\n\n")[0]

    main_ref = ref_of(listing, "main [")
    subtree = text(await ok(ts, "read_page", ref=main_ref))
    assert subtree.startswith(f"main [{main_ref}]") and "Documentation" not in subtree
    assert 'heading "Sign up"' in subtree


async def test_read_page_cap_and_empty(ts: BrowserToolset, site: Any) -> None:
    buttons = "".join(
        f"<button>Button number {i} with a fairly long accessible name</button>" for i in range(1500)
    )
    await goto(ts, page(site, buttons))
    listing = text(await ok(ts, "read_page", filter="all"))
    assert len(listing) <= OUTPUT_CAP
    body, _, marker = listing.rpartition("\n")
    end, token = len(body) + 1, marker.rsplit("ref=", 1)[1].split(",")[0]
    assert marker == (
        f"[Output truncated: characters 0-{end:,} of {marker.split(' of ')[1].split(' ')[0]} shown; "
        f"{marker.split('shown; ')[1].split(' more')[0]} more. Read on with read_page ref={token}, or narrow with "
        "a smaller depth or a ref.]"
    )
    parts = [body]
    while "Read on with read_page ref=" in listing:  # each part names the next one's continuation ref
        token = listing.rsplit("ref=", 1)[1].split(",")[0]
        listing = text(await ok(ts, "read_page", ref=token))
        assert len(listing) <= OUTPUT_CAP
        parts.append(listing.rpartition("\n")[0])
    assert len(parts) == 3 and listing.endswith("This is the end; read_page or get_page_text again reads from the start.]")
    whole = "\n".join(parts)
    assert all(f"Button number {i} with" in whole for i in range(1500)) and "Viewport: 1280x720" in parts[-1]
    await goto(ts, page(site, ""))
    assert text(await ok(ts, "read_page")) == "(empty page)"


async def test_find_ranks_and_limits(ts: BrowserToolset, site: Any) -> None:
    items = "".join(f"<li><a href='/item/{i}'>Item {i}</a></li>" for i in range(40))
    body = f"""
      <input type="search" aria-label="Search docs" placeholder="Search">
      <button>Search</button>
      <button>Add to cart</button>
      <a href="/cart">View cart</a>
      <ul>{items}</ul>"""
    await goto(ts, page(site, body))
    found = text(await ok(ts, "find", query="add to cart button")).splitlines()
    assert found[0].startswith('button "Add to cart" [ref_')
    field = text(await ok(ts, "find", query="search field")).splitlines()
    assert field[0].startswith('searchbox "Search docs" [ref_')
    search_button = text(await ok(ts, "find", query="search button")).splitlines()
    assert search_button[0].startswith('button "Search" [ref_')
    many = text(await ok(ts, "find", query="item link")).splitlines()
    assert len([line for line in many if "[ref_" in line]) == 20
    assert many[-1].startswith("(") and "more matches not shown" in many[-1]
    assert (
        text(await ok(ts, "find", query="zebra crossing"))
        == 'No element matched "zebra crossing". Try read_page.'
    )
    # find hands out the same refs read_page does
    listing = text(await ok(ts, "read_page"))
    assert ref_of(listing, 'button "Add to cart"') == found[0].split("[", 1)[1].split("]", 1)[0]


async def test_get_page_text_main_first(ts: BrowserToolset, site: Any) -> None:
    frame = site.other_url + site.add(path("f"), "<p>Text inside a cross-site frame</p>")[len(site.url) :]
    body = f"""
      <header>Site header</header>
      <nav>Menu entry</nav>
      <main><h1>Article title</h1><p>The main content.</p><p style="display:none">hidden text</p></main>
      <footer>Footer text</footer>
      <iframe src="{frame}"></iframe>"""
    await goto(ts, page(site, body))
    await asyncio.sleep(0.2)
    content = text(await ok(ts, "get_page_text"))
    assert content.startswith("Article title\n\nThe main content.")
    assert "Site header" in content and "Footer text" in content and "hidden text" not in content
    assert content.index("Footer text") > content.index("The main content.")
    assert "Text inside a cross-site frame" in content


# ----- refs -----------------------------------------------------------------------------------------


async def test_stale_refs(ts: BrowserToolset, site: Any) -> None:
    body = """<button id="a" onclick="window.hits = (window.hits||0)+1">Alpha</button>
              <button id="b">Beta</button><button id="c">Gamma</button>"""
    url = page(site, body)
    await goto(ts, url)
    listing = text(await ok(ts, "read_page"))
    alpha, beta, gamma = ref_of(listing, "Alpha"), ref_of(listing, "Beta"), ref_of(listing, "Gamma")
    await ok(ts, "left_click", target=ref(alpha))
    assert await js(ts, "window.hits") == 1

    # Removed from the DOM.
    await js(ts, "document.getElementById('b').remove()")
    message = await fail(ts, "left_click", target=ref(beta))
    assert message.startswith(
        f"Error: {beta} is stale or not found on the current page. Re-read the page to get fresh references."
    )
    # Re-rendered: same text, a new element; the old ref never reaches the new one.
    await js(ts, "const g = document.getElementById('c'); g.replaceWith(g.cloneNode(true))")
    assert (await fail(ts, "left_click", target=ref(gamma))).startswith(f"Error: {gamma} is stale")
    # Changed in place: the name no longer matches.
    await js(ts, "document.getElementById('a').textContent = 'Delete everything'")
    assert (await fail(ts, "left_click", target=ref(alpha))).startswith(f"Error: {alpha} is stale")
    assert await js(ts, "window.hits") == 1
    # New refs are new numbers; old numbers are never reused.
    fresh = text(await ok(ts, "read_page"))
    assert ref_of(fresh, "Delete everything") not in (alpha, beta, gamma)

    # After navigation every earlier ref is stale, even for an identical page.
    await goto(ts, url)
    message = await fail(ts, "left_click", target=ref(ref_of(fresh, "Delete everything")))
    assert message == (
        f"Error: {ref_of(fresh, 'Delete everything')} is stale or not found on the current page. "
        "Re-read the page to get fresh references. The page navigated since it was read."
    )
    assert (await fail(ts, "scroll_to", target=ref("ref_999"))) == (
        "Error: ref_999 is stale or not found on the current page. Re-read the page to get fresh references."
    )
    assert (await fail(ts, "read_page", ref="ref_999")).startswith("Error: ref_999 is stale")
    assert (await fail(ts, "left_click", target=ref("<script>"))).startswith("Error: That ref is stale")


async def test_refs_are_per_tab(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, "<button onclick='void 0'>Only here</button>"))
    button = ref_of(text(await ok(ts, "find", query="only here")), "Only here")
    await ok(ts, "new_tab")
    await goto(ts, page(site, "<button>Other</button>"))
    assert (await fail(ts, "left_click", target=ref(button))).startswith(f"Error: {button} is stale")
    await ok(ts, "left_click", target=ref(button), tab_id="tab-1")


# ----- pointer --------------------------------------------------------------------------------------

RECORDER = """
<style>body { margin: 0 } #pad { position: absolute; left: 100px; top: 100px; width: 300px; height: 200px; background: #ccc }</style>
<div id="pad">pad</div>
<button id="btn" style="position:absolute; left: 500px; top: 100px; width: 120px; height: 40px">Press me</button>
<script>
  window.log = [];
  const rec = e => log.push({type: e.type, button: e.button, buttons: e.buttons, detail: e.detail, x: e.clientX, y: e.clientY,
                            shift: e.shiftKey, ctrl: e.ctrlKey, alt: e.altKey, meta: e.metaKey, target: e.target.id});
  for (const t of ['click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup', 'mouseover'])
    document.addEventListener(t, rec);
  document.addEventListener('mousemove', e => { if (e.buttons) rec(e); });
  document.addEventListener('contextmenu', e => e.preventDefault());
</script>
"""


async def events(ts: BrowserToolset, kind: str | None = None) -> list[dict[str, Any]]:
    log = await js(ts, "window.log.splice(0)")
    return [e for e in log if kind is None or e["type"] == kind]


async def test_a_click_by_ref_is_hit_tested_in_its_document(ts: BrowserToolset, site: Any) -> None:
    # The element is resolved in the aim's burst (no round trip of its own); the hit test runs in the page at the
    # point the quads give, so an element that moved since the read is clicked where it is now, and a cover
    # there refuses the click with the name of what covers it.
    await goto(ts, page(site, RECORDER))
    button = ref_of(text(await ok(ts, "find", query="press me button")), "Press me")
    session = ts.book.get(None).tab.session
    with sent_commands(session) as log:
        assert text(await ok(ts, "left_click", target=ref(button))) == "Clicked."
    # The aim's resolves (before the press; after it, a click that changed nothing asks who listens: the
    # page's document does, so it was handled).
    aimed = log[: [m for m, _ in log].index("Input.dispatchMouseEvent")]
    resolves = [answered for method, answered in aimed if method == "DOM.resolveNode"]
    assert resolves and all("DOM.getContentQuads" not in answered for answered in resolves), log
    assert "DOM.getNodeForLocation" not in [m for m, _ in log]
    assert [c["target"] for c in await events(ts, "click")] == ["btn"]

    await js(ts, "document.getElementById('btn').style.left = '700px'")  # moved since the read
    assert text(await ok(ts, "left_click", target=ref(button))) == "Clicked."
    assert [(c["target"], c["x"]) for c in await events(ts, "click")] == [("btn", 760)]

    await js(
        ts,
        "document.body.insertAdjacentHTML('beforeend', '<div style=\"position:absolute; left:690px; top:90px;"
        " width:200px; height:80px; background:red\"></div>')",
    )
    assert "covered by another element (<div>)" in await fail(ts, "left_click", target=ref(button))
    assert await events(ts, "click") == []


async def test_clicks_by_ref_and_coordinate(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, RECORDER))
    button = ref_of(text(await ok(ts, "find", query="press me button")), "Press me")
    assert text(await ok(ts, "left_click", target=ref(button))) == "Clicked."
    clicks = await events(ts, "click")
    assert [(c["target"], c["button"], c["detail"]) for c in clicks] == [("btn", 0, 1)]
    assert (clicks[0]["x"], clicks[0]["y"]) == (560, 120)  # the element's centre

    assert text(await ok(ts, "right_click", target=coord(150, 150))) == "Right-clicked."
    assert [(e["button"], e["target"]) for e in await events(ts, "contextmenu")] == [(2, "pad")]
    assert text(await ok(ts, "middle_click", target=coord(150, 150))) == "Middle-clicked."
    assert [e["button"] for e in await events(ts, "auxclick")] == [1]
    assert text(await ok(ts, "double_click", target=coord(150, 150))) == "Double-clicked."
    log = await events(ts)
    assert [e["detail"] for e in log if e["type"] == "click"] == [1, 2] and any(
        e["type"] == "dblclick" for e in log
    )
    assert text(await ok(ts, "triple_click", target=coord(150, 150))) == "Triple-clicked."
    assert [e["detail"] for e in await events(ts, "click")] == [1, 2, 3]

    await ok(ts, "left_click", target=coord(150, 150), modifiers="shift")
    await ok(ts, "left_click", target=coord(150, 150), modifiers="ctrl+alt")
    await ok(ts, "left_click", target=ref(button), modifiers="cmd")
    assert [(c["shift"], c["ctrl"], c["alt"], c["meta"]) for c in await events(ts, "click")] == [
        (True, False, False, False),
        (False, True, True, False),
        (False, False, False, True),
    ]
    assert await fail(ts, "left_click", target=coord(150, 150), modifiers="ctrl+a") == (
        "Error: modifiers takes modifier keys only, such as shift or ctrl+shift."
    )
    assert (
        await fail(ts, "left_click", target=coord(1280, 10))
        == "Error: (1280, 10) is outside the 1280x720 viewport."
    )


async def test_click_errors_for_hidden_and_covered(ts: BrowserToolset, site: Any) -> None:
    body = """<button id="hide">Hide me</button>
      <button id="under" style="position:absolute; left:10px; top:100px">Under</button>
      <div style="position:absolute; left:0; top:90px; width:400px; height:60px; background:red"></div>"""
    await goto(ts, page(site, body))
    listing = text(await ok(ts, "read_page"))
    hide, under = ref_of(listing, "Hide me"), ref_of(listing, "Under")
    await js(
        ts, "Object.assign(document.getElementById('hide').style, {position: 'absolute', left: '-9999px'})"
    )
    assert await fail(ts, "left_click", target=ref(hide)) == f"Error: The element {hide} is not visible."
    assert (await fail(ts, "left_click", target=ref(under))).startswith(
        f"Error: The element {under} is covered by another element"
    )


async def test_hover_drag_and_raw_mouse(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, RECORDER))
    assert text(await ok(ts, "hover", target=coord(150, 150))) == "Hovered."
    assert any(e["target"] == "pad" for e in await events(ts, "mouseover"))

    assert text(await ok(ts, "left_mouse_down", target=coord(120, 120))) == "Mouse button pressed."
    assert text(await ok(ts, "mouse_move", target=coord(200, 160))) == "Moved the mouse."
    assert text(await ok(ts, "left_mouse_up", target=coord(250, 180))) == "Mouse button released."
    log = await events(ts)
    down = next(e for e in log if e["type"] == "mousedown")
    moves = [e for e in log if e["type"] == "mousemove"]
    up = next(e for e in log if e["type"] == "mouseup")
    assert (down["x"], down["y"], down["buttons"]) == (120, 120, 1)
    assert moves and all(m["buttons"] == 1 for m in moves) and (moves[-1]["x"], moves[-1]["y"]) == (250, 180)
    assert (up["x"], up["y"], up["buttons"]) == (250, 180, 0)

    assert (
        text(await ok(ts, "left_click_drag", **{"from": coord(110, 110), "target": coord(390, 290)}))
        == "Dragged."
    )
    log = await events(ts)
    assert [e["type"] for e in log if e["type"] in ("mousedown", "mouseup")] == ["mousedown", "mouseup"]
    drag_moves = [e for e in log if e["type"] == "mousemove"]
    assert len(drag_moves) >= 5 and drag_moves[-1]["x"] == 390 and drag_moves[-1]["y"] == 290


async def test_scroll_and_scroll_to(ts: BrowserToolset, site: Any) -> None:
    body = """<div id="box" style="height:200px; width:300px; overflow:auto"><div style="height:2000px">inner</div></div>
              <div style="height:3000px"></div><button id="far">Far away</button><div style="height:500px"></div>"""
    await goto(ts, page(site, body))
    assert text(await ok(ts, "scroll", target=coord(600, 400), scroll_direction="down")) == "Scrolled down."
    assert await js(ts, "window.scrollY") == 300  # 3 notches of 100 px
    await ok(ts, "scroll", target=coord(600, 400), scroll_direction="up", scroll_amount=1)
    assert await js(ts, "window.scrollY") == 200
    await ok(ts, "scroll", target=coord(600, 400), scroll_direction="up", scroll_amount=10)
    # At a point over the inner box, the box scrolls, not the page.
    await ok(ts, "scroll", target=coord(100, 100), scroll_direction="down", scroll_amount=2)
    assert await js(ts, "[window.scrollY, document.getElementById('box').scrollTop]") == [0, 200]
    far = ref_of(text(await ok(ts, "find", query="far away")), "Far away")
    assert text(await ok(ts, "scroll_to", target=ref(far))) == f"Scrolled to {far}."
    assert await js(
        ts,
        "(() => { const r = document.getElementById('far').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()",
    )
    assert f'button "Far away" [{far}]' in text(await ok(ts, "read_page"))


async def test_screenshot_and_zoom(ts: BrowserToolset, site: Any) -> None:
    body = '<div style="position:absolute; left:100px; top:100px; width:100px; height:50px; background:rgb(255,0,0)"></div>'
    await goto(ts, page(site, body))
    content = await ok(ts, "screenshot")
    assert content[0]["type"] == "image" and content[0]["source"]["media_type"] == "image/png"
    assert png_size(content[0]["source"]["data"]) == (1280, 720)
    state(content)
    zoomed = await ok(ts, "zoom", region=[100, 100, 200, 150])
    assert zoomed[0]["type"] == "image"
    width, height = png_size(zoomed[0]["source"]["data"])
    assert (width, height) == (800, 400)  # 8x, the upscale cap, rendered by Chromium
    assert await fail(ts, "zoom", region=[0, 0, 1281, 100]) == (
        "Error: The region must lie within the 1280x720 viewport, with x0 < x1 and y0 < y1."
    )


async def test_coordinates_through_a_downscaled_screenshot(make_ts: MakeToolset, site: Any) -> None:
    ts = await make_ts(max_image_long_edge=640)
    await goto(ts, page(site, RECORDER))
    shot = await ok(ts, "screenshot")
    assert png_size(shot[0]["source"]["data"]) == (640, 360)
    assert "Viewport: 640x360" in text(await ok(ts, "read_page"))
    # The button sits at CSS (500..620, 100..140): (280, 60) in the half-size image.
    await ok(ts, "left_click", target=coord(280, 60))
    clicks = await events(ts, "click")
    assert [(c["target"], c["x"], c["y"]) for c in clicks] == [("btn", 560, 120)]
    assert (
        await fail(ts, "left_click", target=coord(700, 10))
        == "Error: (700, 10) is outside the 640x360 viewport."
    )
    zoomed = await ok(ts, "zoom", region=[250, 50, 310, 70])
    assert png_size(zoomed[0]["source"]["data"]) == (640, 213)
    # Screenshots keep one size whatever the page.
    await goto(ts, page(site, "<div style='height:5000px; width:3000px'>big</div>"))
    assert png_size((await ok(ts, "screenshot"))[0]["source"]["data"]) == (640, 360)


async def test_coordinates_inside_cross_origin_iframe(ts: BrowserToolset, site: Any) -> None:
    inner = site.add(
        path("inner"),
        """<body style="margin:0"><button id="b" style="width:200px;height:100px"
           onclick="parent.postMessage('inner-click:' + event.clientX + ',' + event.clientY, '*')">Inside</button></body>""",
    )
    frame_url = site.other_url + inner[len(site.url) :]
    body = f"""<style>body {{ margin: 0 }}</style>
      <iframe src="{frame_url}" style="position:absolute; left:300px; top:200px; width:400px; height:300px; border:0"></iframe>
      <script>window.got = []; addEventListener('message', e => got.push(e.data));</script>"""
    await goto(ts, page(site, body))
    tab = ts.book.get(None).tab
    assert tab.frame_sessions, "the cross-site frame is out of process"
    await ok(ts, "screenshot")  # what the model clicks from
    await ok(ts, "left_click", target=coord(350, 250))
    await until(ts, "window.got.length === 1")
    assert await js(ts, "window.got") == ["inner-click:50,50"]
    inside = ref_of(text(await ok(ts, "find", query="inside button")), "Inside")
    await ok(ts, "left_click", target=ref(inside))
    await until(ts, "window.got.length === 2")


async def test_members_on_a_background_tab(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, RECORDER))
    await ok(ts, "new_tab")
    started = time.perf_counter()
    await ok(ts, "left_click", target=coord(150, 150), tab_id="tab-1")
    shot = await ok(ts, "screenshot", tab_id="tab-1")
    assert time.perf_counter() - started < 1.0
    assert png_size(shot[0]["source"]["data"]) == (1280, 720)
    assert [e["target"] for e in await js(ts, "window.log.filter(e => e.type === 'click')", "tab-1")] == [
        "pad"
    ]
    assert state(shot)["tabs"][1]["active"] is True  # tab_id never changes the active tab


# ----- keyboard and timing --------------------------------------------------------------------------

KEYS_PAGE = """
<form id="f" action="" onsubmit="event.preventDefault(); window.submitted = document.getElementById('q').value">
  <input id="q" autofocus><input id="second"><textarea id="ta"></textarea><button>Search</button>
</form>
<script>
  window.keys = [];
  document.addEventListener('keydown', e => keys.push({key: e.key, code: e.code, shift: e.shiftKey, ctrl: e.ctrlKey,
                                                        location: e.location, t: performance.now(), type: 'down'}));
  document.addEventListener('keyup', e => keys.push({key: e.key, t: performance.now(), type: 'up'}));
</script>
"""


async def test_type_and_key_chords_and_sequences(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, KEYS_PAGE))
    await js(ts, "document.getElementById('q').focus()")
    assert text(await ok(ts, "type", text="héllo wörld")) == "Typed."
    assert await js(ts, "q.value") == "héllo wörld"
    assert text(await ok(ts, "key", text="ctrl+a")) == "Pressed ctrl+a."
    await ok(ts, "key", text="BackSpace")
    assert await js(ts, "q.value") == ""
    await ok(ts, "type", text="abcdef")
    await ok(ts, "key", text="BackSpace BackSpace Left Delete", repeat=1)
    assert await js(ts, "q.value") == "abc"
    await ok(ts, "key", text="BackSpace", repeat=3)
    assert await js(ts, "q.value") == ""
    await ok(ts, "key", text="shift+a KP_0 plus Page_Up")
    assert await js(ts, "q.value") == "A0+"
    await js(ts, "window.keys = []")
    await ok(ts, "key", text="Tab")
    assert await js(ts, "document.activeElement.id") == "second"
    await ok(ts, "key", text="shift+Tab")
    assert await js(ts, "document.activeElement.id") == "q"
    await ok(ts, "type", text="query")
    content = await ok(ts, "key", text="Return")
    assert text(content) == "Pressed Return."
    assert await js(ts, "window.submitted") == "query"
    # Multi-line text: Enter in a textarea, and the key events a page's handlers expect.
    await js(ts, "document.getElementById('ta').focus()")
    await ok(ts, "type", text="line one\nline two")
    assert await js(ts, "ta.value") == "line one\nline two"
    message = await fail(ts, "key", text="ctrl+shift+banana")
    assert message.startswith("Error: Unknown key 'banana'")
    assert (await fail(ts, "key", text="a+b")).startswith("Error: 'a' is not a modifier")


async def test_key_submits_a_form_and_reports_the_new_url(ts: BrowserToolset, site: Any) -> None:
    results = site.add(path("results"), "<title>Results</title><p>results</p>")
    await goto(ts, page(site, f'<form action="{results}"><input name="q" autofocus></form>'))
    await js(ts, "document.querySelector('input').focus()")
    await ok(ts, "type", text="install")
    content = await ok(ts, "key", text="Enter")
    tab = state(content)["tabs"][0]
    assert tab["url"] == f"{results}?q=install" and tab["title"] == "Results"


async def test_hold_key_and_wait(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, KEYS_PAGE))
    await js(ts, "window.keys = []")
    content = await ok(ts, "hold_key", text="shift", duration=0.3)
    assert text(content) == "Held shift for 0.3s."
    log = await js(ts, "window.keys")
    assert [(k["type"], k["key"]) for k in log] == [("down", "Shift"), ("up", "Shift")]
    assert log[1]["t"] - log[0]["t"] >= 250
    assert (await fail(ts, "hold_key", text="a b", duration=0.1)).startswith(
        "Error: 'a b' is a sequence of keys"
    )
    started = time.perf_counter()
    assert text(await ok(ts, "wait", duration=0.25)) == "Waited 0.25s."
    assert time.perf_counter() - started >= 0.25
    assert text(await ok(ts, "wait", duration=0)) == "Waited 0s."


# ----- forms and uploads ----------------------------------------------------------------------------

FORMS = """
<input id="name" aria-label="Name">
<textarea id="bio" aria-label="Bio"></textarea>
<input id="age" type="number" aria-label="Age">
<input id="when" type="date" aria-label="When">
<select id="country" aria-label="Country"><option value="fr">France</option><option value="de">Germany</option></select>
<input id="news" type="checkbox" aria-label="Newsletter">
<input id="r1" type="radio" name="size" aria-label="Small"><input id="r2" type="radio" name="size" aria-label="Large">
<div id="ed" contenteditable="true" aria-label="Editor">old</div>
<div id="sw" role="switch" aria-checked="false" tabindex="0" aria-label="Dark mode"
     onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')"></div>
<input id="file" type="file" aria-label="Attachment">
<input id="ro" readonly value="fixed" aria-label="Fixed">
<p id="para">Just text</p>
<script>window.changes = []; document.addEventListener('change', e => changes.push(e.target.id));</script>
"""


async def test_form_input(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, FORMS))
    listing = text(await ok(ts, "read_page", filter="all"))

    def r(name: str) -> dict[str, Any]:
        return ref(ref_of(listing, f'"{name}"'))

    assert (
        text(await ok(ts, "form_input", target=r("Name"), value="Ada"))
        == f"Set the value of {r('Name')['ref']}."
    )
    await ok(ts, "form_input", target=r("Bio"), value="line 1\nline 2")
    await ok(ts, "form_input", target=r("Age"), value=42)
    await ok(ts, "form_input", target=r("When"), value="2026-11-30")
    await ok(ts, "form_input", target=r("Country"), value="de")
    assert await js(ts, "['name', 'bio', 'age', 'when', 'country'].map(id => document.getElementById(id).value)") == [
        "Ada", "line 1\nline 2", "42", "2026-11-30", "de"
    ]  # fmt: skip
    await ok(ts, "form_input", target=r("Country"), value="France")  # by visible text
    assert await js(ts, "country.value") == "fr"
    await ok(ts, "form_input", target=r("Newsletter"), value=True)
    assert await js(ts, "news.checked") is True
    await ok(ts, "form_input", target=r("Newsletter"), value=False)
    assert await js(ts, "news.checked") is False
    await ok(ts, "form_input", target=r("Large"), value=True)
    assert await js(ts, "[r1.checked, r2.checked]") == [False, True]
    await ok(ts, "form_input", target=r("Editor"), value="new text")
    assert await js(ts, "ed.textContent") == "new text"
    await ok(ts, "form_input", target=r("Dark mode"), value=True)
    assert await js(ts, "sw.getAttribute('aria-checked')") == "true"
    assert "name" in await js(ts, "window.changes") and "country" in await js(ts, "window.changes")

    def name_ref(name: str) -> str:
        return r(name)["ref"]

    errors = {
        ("Attachment", "x"): f"Error: {name_ref('Attachment')} is a file input; use file_upload.",
        (
            "Newsletter",
            "yes",
        ): f"Error: {name_ref('Newsletter')} is a checkbox or radio button; set it to true or false.",
        (
            "Large",
            False,
        ): f"Error: {name_ref('Large')} is a radio button and cannot be cleared; set the one you want in its group to true instead.",
        ("Name", True): f"Error: {name_ref('Name')} is not a checkbox; give it a text or number value.",
        (
            "Country",
            "Spain",
        ): f"Error: The select {name_ref('Country')} has no option with that value or text.",
        ("Fixed", "x"): f"Error: {name_ref('Fixed')} is read-only.",
        (
            "Age",
            "not a number",
        ): f"Error: {name_ref('Age')} did not accept that value; check the format the field expects.",
    }
    for (name, value), expected in errors.items():
        assert await fail(ts, "form_input", target=r(name), value=value) == expected
    para = ref_of(listing, 'paragraph "Just text"')
    assert await fail(ts, "form_input", target=ref(para), value="x") == f"Error: {para} is not a form field."


UPLOAD_PAGE = """
<input id="single" type="file" aria-label="Single">
<input id="multi" type="file" multiple aria-label="Multi" style="display:none">
<button id="chooser" onclick="document.getElementById('multi').click()">Attach files</button>
<button id="plain">Plain button</button>
<script>
  window.got = {};
  for (const id of ['single', 'multi'])
    document.getElementById(id).addEventListener('change', async e => {
      got[id] = await Promise.all(Array.from(e.target.files).map(async f => f.name + ':' + await f.text()));
    });
</script>
"""


async def test_file_upload_allowed_and_refused(make_ts: MakeToolset, site: Any, tmp_path: Path) -> None:
    root = tmp_path / "uploads"
    root.mkdir()
    (root / "a.txt").write_text("alpha")
    (root / "b.txt").write_text("beta")
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (root / "link.txt").symlink_to(secret)
    ts = await make_ts(
        configs={"file_upload": {"enabled": True}},
        upload_roots=[root],
        upload_documents={"doc-1": root / "b.txt"},
    )
    await goto(ts, page(site, UPLOAD_PAGE))
    listing = text(await ok(ts, "read_page", filter="all"))
    single, chooser, plain = (
        ref_of(listing, "Single"),
        ref_of(listing, "Attach files"),
        ref_of(listing, "Plain button"),
    )

    assert text(await ok(ts, "file_upload", target=ref(single), paths=[str(root / "a.txt")])) == "Uploaded."
    await until(ts, "window.got.single")
    assert await js(ts, "window.got.single") == ["a.txt:alpha"]
    # A button that opens a file chooser: intercepted, filled, the tab unharmed.
    await ok(ts, "file_upload", target=ref(chooser), paths=[str(root / "a.txt")], document_ids=["doc-1"])
    await until(ts, "window.got.multi")
    assert await js(ts, "window.got.multi") == ["a.txt:alpha", "b.txt:beta"]
    assert await fail(
        ts, "file_upload", target=ref(single), paths=[str(root / "a.txt"), str(root / "b.txt")]
    ) == (f"Error: {single} takes one file.")

    refused = {
        str(secret): "Error: paths[0] is outside the allowed upload folders.",
        str(root / "link.txt"): "Error: paths[0] is outside the allowed upload folders.",
        str(root / ".." / "secret.txt"): "Error: paths[0] is outside the allowed upload folders.",
        str(root / "nope.txt"): "Error: paths[0] is not an existing file.",
        "/etc/passwd": "Error: paths[0] is outside the allowed upload folders.",
    }
    for bad, expected in refused.items():
        assert await fail(ts, "file_upload", target=ref(single), paths=[bad]) == expected
    assert await fail(ts, "file_upload", target=ref(single), document_ids=["doc-9"]) == (
        "Error: document_ids[0] is not in the upload allowlist."
    )
    assert await fail(ts, "file_upload", target=ref(plain), paths=[str(root / "a.txt")]) == (
        f"Error: {plain} is not a file input, and clicking it opened no file chooser."
    )
    # The tab still works after every refusal.
    assert "Attach files" in text(await ok(ts, "read_page"))


async def test_upload_roots_never_include_downloads(browser: cdp_engine.Browser, context: Any) -> None:
    for root in (browser.downloads_dir, browser.downloads_dir.parent):
        with pytest.raises(ValueError, match="downloads folder"):
            BrowserToolset(browser, context=context, config=ToolsetConfig(upload_roots=[root]))
    ts = await BrowserToolset(
        browser, context=context, config=ToolsetConfig(configs={"file_upload": {"enabled": True}})
    ).start()
    try:
        assert await fail(ts, "file_upload", target=ref("ref_1"), paths=["/tmp/x"]) == (
            "Error: file_upload has no configured upload folders."
        )
    finally:
        await ts.close()


# ----- tabs, popups, browser_state --------------------------------------------------------------


async def test_tab_members(ts: BrowserToolset, site: Any) -> None:
    first = page(site, "<p>first</p>", title="First")
    await goto(ts, first)
    content = await ok(ts, "new_tab")
    assert [b["type"] for b in content] == ["browser_state"]  # exactly one block, no text
    block = state(content)
    assert block["tabs"] == [
        {"tab_id": "tab-1", "title": "First", "url": first},
        {"tab_id": "tab-2", "title": "about:blank", "url": "about:blank", "active": True},
    ]
    assert block["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-2"}]
    second = page(site, "<p>second</p>", title="Second")
    await goto(ts, second)  # acts on the new active tab

    listed = await ok(ts, "list_tabs")
    assert [b["type"] for b in listed] == ["browser_state"] and "state_changes" not in listed[0]
    assert [(t["tab_id"], t.get("active", False)) for t in listed[0]["tabs"]] == [
        ("tab-1", False),
        ("tab-2", True),
    ]

    switched = await ok(ts, "switch_tab", tab_id="tab-1")
    assert [b["type"] for b in switched] == ["browser_state"]
    assert [t["tab_id"] for t in switched[0]["tabs"] if t.get("active")] == ["tab-1"]
    assert "first" in text(await ok(ts, "get_page_text"))
    # tab_id acts on another tab without changing the active one
    assert "second" in text(await ok(ts, "get_page_text", tab_id="tab-2"))
    assert state(await ok(ts, "wait", duration=0))["tabs"][0]["active"] is True

    closed = await ok(ts, "close_tab", tab_id="tab-1")
    assert [b["type"] for b in closed] == ["browser_state"]
    assert closed[0]["tabs"] == [{"tab_id": "tab-2", "title": "Second", "url": second, "active": True}]
    # ids are never reused
    assert state(await ok(ts, "new_tab"))["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-3"}]
    assert await fail(ts, "switch_tab", tab_id="tab-1") == (
        'Error: tab_id "tab-1" is not an open tab. Use list_tabs to see what is open.'
    )
    assert (await fail(ts, "navigate", url=first, tab_id="tab-9")).startswith(
        'Error: tab_id "tab-9" is not an open tab'
    )
    # Closing every tab leaves an empty inventory, and members say how to go on.
    await ok(ts, "close_tab", tab_id="tab-2")
    assert (await ok(ts, "close_tab", tab_id="tab-3"))[0]["tabs"] == []
    assert await fail(ts, "screenshot") == "Error: No tab is open. Call new_tab to open one."
    assert state(await ok(ts, "new_tab"))["tabs"] == [
        {"tab_id": "tab-4", "title": "about:blank", "url": "about:blank", "active": True}
    ]


async def test_popups_are_reported_not_followed(ts: BrowserToolset, site: Any) -> None:
    target = page(site, "<p>popup</p>", title="Popup")
    body = f"""<a id="blank" href="{target}" target="_blank">New window link</a>
               <button onclick="window.open('{target}', 'w', 'noopener')">Open popup</button>"""
    await goto(ts, page(site, body, title="Opener"))
    listing = text(await ok(ts, "read_page"))
    content = await ok(ts, "left_click", target=ref(ref_of(listing, "New window link")))
    block = state(content)
    assert block["state_changes"] == [{"type": "tab_opened", "tab_id": "tab-2"}]
    assert [(t["tab_id"], t.get("active", False)) for t in block["tabs"]] == [
        ("tab-1", True),
        ("tab-2", False),
    ]
    content = await ok(ts, "left_click", target=ref(ref_of(listing, "Open popup")))
    assert changes(content) == [{"type": "tab_opened", "tab_id": "tab-3"}]
    assert len(state(content)["tabs"]) == 3
    # the next result reports the same inventory without repeating tab_opened
    assert "state_changes" not in state(await ok(ts, "wait", duration=0))
    await ok(ts, "switch_tab", tab_id="tab-2")
    tabs = state(await ok(ts, "wait", duration=0))["tabs"]
    assert tabs[1] == {"tab_id": "tab-2", "title": "Popup", "url": target, "active": True}
    # A page that closes itself leaves the inventory, and another tab becomes active.
    closed = asyncio.Event()
    popup = ts.book.tabs["tab-2"].tab
    popup.add_listener(lambda kind, _: kind == "closed" and closed.set())
    await js(ts, "setTimeout(() => window.close(), 0)", "tab-2")
    if not popup.closed:
        await asyncio.wait_for(closed.wait(), 5)
    tabs = state(await ok(ts, "wait", duration=0))["tabs"]
    assert [t["tab_id"] for t in tabs] == ["tab-1", "tab-3"] and sum(bool(t.get("active")) for t in tabs) == 1


async def test_follow_popups_option(make_ts: MakeToolset, site: Any) -> None:
    ts = await make_ts(follow_popups=True)
    target = page(site, "<p>popup</p>", title="Popup")
    await goto(ts, page(site, f'<a href="{target}" target="_blank">Go</a>'))
    content = await ok(
        ts, "left_click", target=ref(ref_of(text(await ok(ts, "find", query="go link")), "Go"))
    )
    assert [t["tab_id"] for t in state(content)["tabs"] if t.get("active")] == ["tab-2"]


async def test_dialogs_are_dismissed_and_reported(ts: BrowserToolset, site: Any) -> None:
    body = """<button onclick="window.answer = confirm('Delete everything?')">Confirm</button>
              <button onclick="alert('Saved'); alert('Again'); window.p = prompt('Name?', 'x')">Several</button>"""
    await goto(ts, page(site, body))
    listing = text(await ok(ts, "read_page"))
    content = await ok(ts, "left_click", target=ref(ref_of(listing, "Confirm")))
    assert [b["text"] for b in content if b["type"] == "text"] == [
        "Clicked.",
        'A confirm dialog "Delete everything?" was dismissed.',
    ]
    assert content[-1]["type"] == "browser_state"
    assert await js(ts, "window.answer") is False
    content = await ok(ts, "left_click", target=ref(ref_of(listing, "Several")))
    assert text(content).splitlines()[1:] == [
        'An alert dialog "Saved" was dismissed.',
        'An alert dialog "Again" was dismissed.',
        'A prompt dialog "Name?" was dismissed.',
    ]
    assert await js(ts, "window.p") is None
    # A dialog during a tab member waits for the next result that can carry text.
    await js(ts, "setTimeout(() => alert('Later'), 0)")
    await asyncio.sleep(0.1)
    listed = await ok(ts, "list_tabs")
    assert [b["type"] for b in listed] == ["browser_state"]
    assert 'An alert dialog "Later" was dismissed.' in text(await ok(ts, "wait", duration=0))
    # On an error result the lines follow the error text.
    await js(ts, "setTimeout(() => alert('During error'), 0)")
    await asyncio.sleep(0.1)
    content, is_error = await ts.call("navigate", {"url": "file:///etc/passwd"})
    assert is_error and [b["text"] for b in content] == [
        "Error: Navigation refused. Only http and https URLs are allowed.",
        'An alert dialog "During error" was dismissed.',
    ]


async def test_downloads_reported(make_ts: MakeToolset, site: Any) -> None:
    ts = await make_ts(expose_download_paths=True)

    async def csv(request: web.Request) -> web.Response:
        return web.Response(
            body=b"a,b\n1,2\n", headers={"Content-Disposition": 'attachment; filename="prices.csv"'}
        )

    gate = asyncio.Event()

    async def slow(request: web.Request) -> web.StreamResponse:
        headers = {"Content-Disposition": 'attachment; filename="slow.bin"', "Content-Length": "2048"}
        response = web.StreamResponse(headers=headers)
        await response.prepare(request)
        await response.write(b"1" * 1024)  # enough for Chromium to decide it is a download
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(gate.wait(), 10)
        await response.write(b"2" * 1024)
        return response

    async def broken(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Disposition": 'attachment; filename="broken.bin"', "Content-Length": "100000"}
        )
        await response.prepare(request)
        await response.write(b"x" * 1024)
        await asyncio.sleep(0.1)
        assert request.transport is not None
        request.transport.close()
        return response

    csv_url = site.add_handler(path("csv"), csv) + "?id=7&token=secret"
    slow_url = site.add_handler(path("slow"), slow)
    broken_url = site.add_handler(path("broken"), broken)
    body = f'<a href="{csv_url}">CSV</a> <a href="{slow_url}">Slow</a> <a href="{broken_url}">Broken</a>'
    await goto(ts, page(site, body))
    listing = text(await ok(ts, "read_page"))

    content = await ok(ts, "left_click", target=ref(ref_of(listing, "CSV")))
    for _ in range(50):  # started, maybe completed within the click; else on a later result
        found = (
            [c for c in changes(content) if c["type"] == "download_completed"]
            if "state_changes" in state(content)
            else []
        )
        if found:
            break
        content = await ok(ts, "wait", duration=0.05)
    (done,) = found
    assert done["download_id"] == "dl-1" and done["size_bytes"] == 8
    assert done["url"] == csv_url.replace("&token=secret", "")  # signed/credential parameters are dropped
    assert Path(done["path"]).read_bytes() == b"a,b\n1,2\n"

    content = await ok(ts, "left_click", target=ref(ref_of(listing, "Slow")))
    assert changes(content) == [{"type": "download_started", "download_id": "dl-2", "url": slow_url}]
    gate.set()
    for _ in range(100):
        content = await ok(ts, "wait", duration=0.05)
        if "state_changes" in state(content):
            break
    (completed,) = changes(content)
    assert completed["type"] == "download_completed" and completed["download_id"] == "dl-2"

    content = await ok(ts, "left_click", target=ref(ref_of(listing, "Broken")))
    seen = list(changes(content)) if "state_changes" in state(content) else []
    for _ in range(100):
        if any(c["type"] == "download_failed" for c in seen):
            break
        content = await ok(ts, "wait", duration=0.05)
        seen += changes(content) if "state_changes" in state(content) else []
    assert {"type": "download_failed", "download_id": "dl-3", "url": broken_url,
            "error": "The download was cancelled or failed."} in seen  # fmt: skip

    # A download link that opens a new window: the window comes and goes, the download is still ours.
    popup_csv = site.add_handler(path("csv"), csv)
    await goto(ts, page(site, f'<a href="{popup_csv}" target="_blank">Popup CSV</a>'))
    content = await ok(
        ts, "left_click", target=ref(ref_of(text(await ok(ts, "find", query="popup csv")), "Popup CSV"))
    )
    seen = list(changes(content)) if "state_changes" in state(content) else []
    for _ in range(50):
        if any(c["type"] == "download_completed" for c in seen):
            break
        content = await ok(ts, "wait", duration=0.05)
        seen += changes(content) if "state_changes" in state(content) else []
    assert any(c["type"] == "download_completed" and c["download_id"] == "dl-4" for c in seen), seen

    # A navigation that turns into a download is a success, reported as a download.
    content = await ok(ts, "navigate", url=site.add_handler(path("csv"), csv))
    assert text(content).startswith("Navigated to")
    kinds = [c["type"] for c in changes(content)]
    assert kinds and kinds[0] in ("download_started", "download_completed")


async def test_browser_state_rules_across_failures(make_ts: MakeToolset, site: Any) -> None:
    ts = await make_ts(configs={"javascript_exec": {"enabled": True}})
    gate = asyncio.Event()

    async def slow(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Disposition": 'attachment; filename="f.bin"', "Content-Length": "2048"}
        )
        await response.prepare(request)
        await response.write(b"1" * 1024)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(gate.wait(), 10)
        await response.write(b"2" * 1024)
        return response

    slow_url = site.add_handler(path("slowdl"), slow)
    await goto(ts, page(site, f'<a href="{slow_url}">Get file</a>'))
    content = await ok(
        ts, "left_click", target=ref(ref_of(text(await ok(ts, "find", query="get file")), "Get file"))
    )
    assert changes(content) == [{"type": "download_started", "download_id": "dl-1", "url": slow_url}]

    # The download completes and a tab opens during a failed call: the error result carries no block, ...
    gate.set()
    tabs = set(ts.browser.tabs)
    message = await fail(
        ts,
        "javascript_exec",
        text="window.open('about:blank'); await new Promise(r => setTimeout(r, 300)); throw new Error('boom')",
    )
    assert message == "Error: The script threw an exception: Error: boom"
    assert len(set(ts.browser.tabs) - tabs) == 1
    # ... and further failures carry nothing either.
    await fail(ts, "navigate", url="chrome://settings")
    # The next successful result carries the download (once) and lists the new tab, with no tab_opened for it.
    content = await ok(ts, "list_tabs")
    block = state(content)
    assert [t["tab_id"] for t in block["tabs"]] == ["tab-1", "tab-2"]
    assert block["state_changes"] == [
        {"type": "download_completed", "download_id": "dl-1", "url": slow_url, "size_bytes": 2048}
    ]  # no path: paths are not exposed by default
    assert "state_changes" not in state(await ok(ts, "list_tabs"))


async def test_javascript_exec(make_ts: MakeToolset, site: Any) -> None:
    ts = await make_ts(configs={"javascript_exec": {"enabled": True}}, script_timeout=0.5)
    await goto(ts, page(site, "<p id='p'>hello</p>", title="JS"))
    assert text(await ok(ts, "javascript_exec", text="document.title")) == "JS"
    assert text(await ok(ts, "javascript_exec", text="const a = 2; a * 21")) == "42"
    assert (
        text(await ok(ts, "javascript_exec", text="({x: [1, 'two'], y: null})"))
        == '{"x": [1, "two"], "y": null}'
    )
    assert (
        text(await ok(ts, "javascript_exec", text="await new Promise(r => setTimeout(() => r('later'), 10))"))
        == "later"
    )
    assert text(await ok(ts, "javascript_exec", text="undefined")) == "undefined"
    assert text(await ok(ts, "javascript_exec", text="1/0")) == "Infinity"
    assert text(await ok(ts, "javascript_exec", text="''")) == "(empty)"
    assert await fail(ts, "javascript_exec", text="nope()") == (
        "Error: The script threw an exception: ReferenceError: nope is not defined"
    )
    assert (
        await fail(ts, "javascript_exec", text="while (true) {}")
        == "Error: The script did not finish within 0.5 seconds."
    )
    assert text(await ok(ts, "javascript_exec", text="document.getElementById('p').textContent")) == "hello"


async def test_console_and_network_logs(make_ts: MakeToolset, site: Any) -> None:
    # Its own browser: in the session's shared browser, after some other suites, Chromium stops reporting
    # this page's fetch on the tab's session although the server receives it (an open engine bug, see
    # the closing note of the toolset issue); this test checks the logs, not that interference.
    async with cdp_engine.launch() as own:
        ts = await BrowserToolset(
            own,
            config=ToolsetConfig(
                configs={"read_console": {"enabled": True}, "read_network": {"enabled": True}}
            ),
        ).start()
        try:
            await _console_and_network_logs(ts, site)
        finally:
            await ts.close()
    # Only tabs of a toolset with the member enabled pay for the events.
    plain = await make_ts()
    assert all(m.console is None and m.network is None for m in plain.book.tabs.values())


async def _console_and_network_logs(ts: BrowserToolset, site: Any) -> None:
    data = site.add(path("data"), "{}")
    body = f"""<script>
      console.log('hello', 42, {{a: 1}});
      console.warn('careful');
      console.error('bad thing');
      fetch('{data}?api_key=s3cret&page=2');
      setTimeout(() => {{ throw new Error('uncaught boom') }}, 0);
    </script>"""
    # The page names its icon: otherwise Chromium asks for /favicon.ico at a moment of its own, which can fall
    # between the two reads below and make the second one see a request.
    icon = site.add(path("icon"), b"\x00")
    await goto(ts, page(site, body, head=f'<link rel="icon" href="{icon}">'))
    # The page's script runs after the navigation answers: wait (bounded) for its last request and error.
    [managed] = ts.book.tabs.values()

    def arrived() -> bool:
        return (
            managed.network is not None
            and any(data in str(e.get("url", "")) for e in managed.network.entries)
            and any(icon in str(e.get("url", "")) and e.get("status") is not None for e in managed.network.entries)
            and managed.console is not None
            and any("uncaught boom" in str(e) for e in managed.console.entries)
        )

    try:
        async with asyncio.timeout(10):
            while not arrived():  # noqa: ASYNC110 - the test watches the buffers the members read
                await asyncio.sleep(0.02)
    except TimeoutError:
        network_seen = [e.get("url") for e in managed.network.entries] if managed.network else None
        console_seen = [str(e) for e in managed.console.entries] if managed.console else None
        raise AssertionError(
            f"network {network_seen}; console {console_seen}; server hits {site.hits.get(data.split('?')[0].replace(site.url, ''))}"
        ) from None
    console = text(await ok(ts, "read_console")).splitlines()
    assert console[0].startswith("[log] hello 42 {a: 1}")
    assert console[1].startswith("[warning] careful") and console[2].startswith("[error] bad thing")
    assert any(line.startswith("[exception] Uncaught Error: uncaught boom") for line in console)
    assert text(await ok(ts, "read_console")) == "No console messages since the last read."
    network = text(await ok(ts, "read_network"))
    assert any(line.startswith("GET ") and " → 200 text/html" in line for line in network.splitlines())
    fetched = next(line for line in network.splitlines() if data in line)
    assert "api_key=REDACTED&page=2" in fetched and "s3cret" not in network
    assert text(await ok(ts, "read_network")) == "No network requests since the last read."


# ----- batches ------------------------------------------------------------------------------------


def tool_use(i: int, name: str, toolset: str | None = "browser", **inp: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{i:02d}", "name": name, "input": inp}
    if toolset is not None:
        block["toolset_name"] = toolset
    return block


async def test_batch_runs_in_order(ts: BrowserToolset, site: Any) -> None:
    results_url = site.add(path("results"), "<title>Results</title>results")
    await goto(
        ts, page(site, f'<form action="{results_url}"><input name="q" aria-label="Search docs"></form>')
    )
    box = ref_of(text(await ok(ts, "find", query="search docs")), "Search docs")
    content = [
        {"type": "text", "text": "Searching."},
        tool_use(1, "left_click", target=ref(box)),
        tool_use(2, "type", text="install"),
        tool_use(3, "navigate", toolset=None, url="custom tool sharing a member name"),
        tool_use(4, "key", text="Enter"),
    ]
    results = await ts.run_batch(content)
    assert [r["tool_use_id"] for r in results] == [
        "toolu_01",
        "toolu_02",
        "toolu_04",
    ]  # the custom tool is the caller's
    assert all(
        r["type"] == "tool_result" and r["toolset_name"] == "browser" and "is_error" not in r for r in results
    )
    assert [r["content"][0]["text"] for r in results] == ["Clicked.", "Typed.", "Pressed Enter."]
    assert state(results[2]["content"])["tabs"][0]["url"] == f"{results_url}?q=install"


async def test_batch_halt_rule(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, "<input aria-label='Box'>"))
    content = [
        tool_use(1, "screenshot"),
        tool_use(2, "left_click", target=ref("ref_404")),
        tool_use(3, "type", text="never typed"),
        tool_use(4, "key", text="Enter"),
    ]
    results = await ts.run_batch(content)
    assert [r["tool_use_id"] for r in results] == ["toolu_01", "toolu_02", "toolu_03", "toolu_04"]
    assert "is_error" not in results[0] and results[0]["content"][0]["type"] == "image"
    assert results[1]["is_error"] is True and results[1]["content"][0]["text"].startswith(
        "Error: ref_404 is stale"
    )
    for halted in results[2:]:
        assert halted == {
            "type": "tool_result",
            "tool_use_id": halted["tool_use_id"],
            "toolset_name": "browser",
            "content": HALT_TEXT,
            "is_error": True,
        }
    assert HALT_TEXT == "Not executed: an earlier action in this turn failed."
    assert await js(ts, "document.querySelector('input').value") == ""
    # An unknown or disabled member is an error result (never silence), and halts the rest too.
    results = await ts.run_batch(
        [tool_use(5, "javascript_exec", text="1"), tool_use(6, "teleport"), tool_use(7, "wait", duration=0)]
    )
    assert (
        results[0]["is_error"]
        and results[0]["content"][0]["text"] == "Error: javascript_exec is not enabled in this environment."
    )
    assert results[1]["content"] == HALT_TEXT and results[2]["content"] == HALT_TEXT
    results = await ts.run_batch([tool_use(8, "teleport"), tool_use(9, "wait", duration=0)])
    assert results[0]["content"][0]["text"] == "Error: unknown browser toolset member 'teleport'"
    assert results[1]["content"] == HALT_TEXT


async def test_tab_entries_are_one_line_and_bounded(ts: BrowserToolset, site: Any) -> None:
    await goto(ts, page(site, "<p>x</p>"))
    await js(ts, "document.title = 'Line\\u2028break\\u0007bell ' + 'x'.repeat(5000)")
    await js(ts, "history.replaceState(null, '', '?q=' + 'y'.repeat(5000))")
    (entry,) = state(await ok(ts, "list_tabs"))["tabs"]
    assert entry["title"].startswith("Line break bell x") and len(entry["title"]) <= 4096
    assert len(entry["url"]) <= 4096
    for value in (entry["title"], entry["url"]):
        assert not any(ord(ch) < 32 or ch in "\u2028\u2029" for ch in value)


def test_works_without_anthropic() -> None:
    """The executor never imports anthropic; the SDK driver says which extra it needs."""
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['anthropic'] = None\n"
        "import cdp_engine.toolset as t; from cdp_engine.toolset import *\n"
        "assert 'anthropic' not in [m.split('.')[0] for m in sys.modules if sys.modules[m] is not None]\n"
        "try:\n    t.CdpEngineBrowserToolset\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert "pip install 'cdp-engine[anthropic]'" in out.stdout


NAN, INF = float("nan"), float("inf")


async def test_validation_non_finite_huge_and_integral_numbers(ts: BrowserToolset) -> None:
    """util.schema checks the members' schemas (protocol/schemas/tools/browser-toolset.json): NaN and the
    infinities are never numbers, absurd coordinates are out of range, 2.0 is the integer 2; each with the
    toolset's invalid-input text, values never echoed."""
    point = {"type": "coordinate", "x": 1, "y": 1}
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("wait", {"duration": NAN}, "duration must be a number"),
        ("wait", {"duration": INF}, "duration must be a number"),
        ("hold_key", {"text": "a", "duration": -INF}, "duration must be a number"),
        ("left_click", {"target": {"type": "coordinate", "x": NAN, "y": 1}}, "target.x must be an integer"),
        ("mouse_move", {"target": {"type": "coordinate", "x": 1, "y": INF}}, "target.y must be an integer"),
        ("form_input", {"target": {"type": "ref", "ref": "ref_1"}, "value": NAN}, "value must be a string, a number or a boolean"),
        ("zoom", {"region": [0, 0, NAN, 10]}, "region must be a list of four integers [x0, y0, x1, y1]"),
        ("left_click", {"target": {"type": "coordinate", "x": 10**300, "y": 1}}, "target.x must be between -1000000000 and 1000000000"),
        ("hover", {"target": {"type": "coordinate", "x": 1, "y": -(10**12)}}, "target.y must be between -1000000000 and 1000000000"),
        ("wait", {"duration": 1e308}, "duration must be between 0 and 30"),
        ("scroll", {"target": point, "scroll_direction": "up", "scroll_amount": 10**30}, "scroll_amount must be between 1 and 10"),
        ("left_click", {"target": "ref_1"}, "target must be an object"),
        ("left_click", {"target": {"x": 1, "y": 1}}, "target.type must be 'coordinate' or 'ref'"),
        ("scroll", {"target": point, "scroll_direction": "up", "scroll_amount": 2.5}, "scroll_amount must be an integer"),
        ("navigate", {"url": "https://e.com", "tab_id": 7}, "tab_id must be a string"),
        ("navigate", {"url": "https://e.com", "\x00" * 3: 1}, "… is not a field of this member"),
    ]  # fmt: skip
    for name, inp, expected in cases:
        message = await fail(ts, name, **inp)
        assert message == f"Error: invalid input for {name}: {expected}.", (name, message)
    # A whole float is an integer (JSON Schema and the SDK's model agree), handed on as an int.
    from cdp_engine.toolset.inputs import validate

    checked = validate("scroll", {"target": {"type": "coordinate", "x": 3.0, "y": 4}, "scroll_direction": "up", "scroll_amount": 2.0})
    assert checked["scroll_amount"] == 2 and type(checked["scroll_amount"]) is int
    assert checked["target"] == {"type": "coordinate", "x": 3, "y": 4} and type(checked["target"]["x"]) is int


def test_member_schemas_are_data() -> None:
    """Every member's input schema is in the protocol's tool schemas, and nothing else is."""
    from cdp_engine.util import schema

    doc = schema.tool_schema("browser-toolset")
    assert set(doc["members"]) == set(MEMBER_NAMES)
    for member in doc["members"].values():
        assert member["type"] == "object" and member["additionalProperties"] is False
