"""The "what changed" views against real Chromium (docs/changes.md, docs/mcp.md): the element index's
changes extra (AgentTab.changes(), GET /changes, BrowserEnv(changes=True)) and browser_snapshot's
`changes` mode, on pages that add, remove and modify elements and text.

The rule every test checks: a changes result never drops an actionable ref or index (each current
one is listed, and acting on one from the listing works), and the state object and its
state_hash are exactly what they are without the mode.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest_asyncio
from aiohttp import ClientSession, web

import cdp_engine
from cdp_engine.harness import BrowserEnv
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.mcp_server.snapshot_changes import NO_CHANGES, Parsed, diff, refs_listing
from cdp_engine.service import create_app
from cdp_engine.snapshot.changes import describe, text_diff
from cdp_engine.util import schema

_paths = itertools.count(1)
REF = re.compile(r"\[ref=(e\d+)\]")
STATE_KEYS = {"url", "page_content", "element_index", "screenshot", "state_hash"}

# One page that adds, removes and modifies elements and text, each on a button.
PAGE = """<!doctype html><html><head><title>changes</title></head><body>
<h1>Shop</h1>
<p id="status">Cart is empty</p>
<ul id="items"><li>Apples <button class="del" onclick="this.parentElement.remove()">Remove apples</button></li>
<li>Pears <button class="del" onclick="this.parentElement.remove()">Remove pears</button></li></ul>
<label for="qty">Quantity</label><input id="qty" name="qty" value="1">
<input type="checkbox" id="gift" name="gift"><label for="gift">Gift wrap</label>
<button id="add" onclick="add()">Add plums</button>
<button id="rename" onclick="rename()">Rename</button>
<a id="help" href="/help">Help</a>
<script>
function add() {
  const li = document.createElement('li');
  li.innerHTML = 'Plums <button class="del" onclick="this.parentElement.remove()">Remove plums</button>';
  document.getElementById('items').appendChild(li);
  document.getElementById('status').textContent = 'Cart has plums';
}
function rename() {
  document.getElementById('help').setAttribute('aria-label', 'Get help');
  document.getElementById('help').href = '/support';
}
</script></body></html>"""


def url(site: Any, html: str = PAGE) -> str:
    return site.add(f"/changes/{next(_paths)}", html)


def check(state: dict[str, Any]) -> dict[str, Any]:
    assert set(state) == STATE_KEYS, state.keys()
    assert not schema.validate("state", state)
    return state


def find(state: dict[str, Any], text: str) -> int:
    return next(
        int(k) for k, d in state["element_index"].items() if text in (d["text_content"] or "", d["aria-label"] or "")
    )


def complete(changes: dict[str, Any], state: dict[str, Any]) -> None:
    """The extra lists every index of the state, each with its compact description."""
    assert changes["indices"] == {k: describe(d) for k, d in state["element_index"].items()}


# ----- the element index: AgentTab.changes() -----------------------------------------------------


async def test_first_state_is_full_then_an_unchanged_page_says_no_changes(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site))
    first = check(await tab.state(screenshot=False))
    full = tab.changes()
    assert full["mode"] == "full" and full["reason"] == "no previous observation"
    complete(full, first)
    again = check(await tab.state(screenshot=False))
    same = tab.changes()
    assert same == {
        "mode": "diff", "since": first["state_hash"], "summary": "no changes", "added": {}, "removed": [],
        "changed": {}, "renumbered": {}, "text": "", "indices": same["indices"],
    }  # fmt: skip
    complete(same, again)


async def test_added_removed_and_changed_elements_and_text(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site))
    before = check(await tab.state(screenshot=False))
    after = check(await tab.act({"action": "click_element", "element_index": find(before, "Add plums")}, screenshot=False))
    changes = tab.changes()
    assert changes["mode"] == "diff" and changes["since"] == before["state_hash"]
    assert [d["text_content"] for d in changes["added"].values()] == ["Remove plums"]
    added = int(next(iter(changes["added"])))
    assert after["element_index"][str(added)]["text_content"] == "Remove plums"
    assert changes["removed"] == [] and changes["changed"] == {}
    assert "- <p>Cart is empty</p>" in changes["text"] and "+ <p>Cart has plums</p>" in changes["text"]
    assert "Plums" in changes["text"] and changes["summary"].startswith("1 added")
    complete(changes, after)

    # Removing an element renumbers those after it: each keeps its identity, and the extra says how.
    removed = check(await tab.act({"action": "click_element", "element_index": find(after, "Remove apples")}, screenshot=False))
    changes = tab.changes()
    assert [r["element"] for r in changes["removed"]] == ['button type=submit "Remove apples"']
    assert changes["removed"][0]["was_index"] == find(after, "Remove apples")
    assert changes["added"] == {} and changes["changed"] == {}
    assert changes["renumbered"][str(find(after, "Remove pears"))] == find(removed, "Remove pears")
    assert "- <li>Apples <button>Remove apples</button></li>" in changes["text"]
    complete(changes, removed)


async def test_changed_values_checked_state_names_and_hrefs(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site))
    start = check(await tab.state(screenshot=False))
    qty = next(int(k) for k, d in start["element_index"].items() if d["attributes"]["name"] == "qty")
    typed = check(await tab.act({"action": "input_text", "element_index": qty, "text": "3", "overwrite": True}, screenshot=False))
    assert tab.changes()["changed"] == {str(qty): {"was_index": qty, "fields": {"attributes.value": ["1", "3"]}}}
    gift = next(int(k) for k, d in typed["element_index"].items() if d["attributes"]["name"] == "gift")
    await tab.act({"action": "click_element", "element_index": gift}, screenshot=False)
    assert tab.changes()["changed"][str(gift)]["fields"] == {"attributes.checked": [False, True]}
    checked = check(await tab.state(screenshot=False))
    renamed = check(await tab.act({"action": "click_element", "element_index": find(checked, "Rename")}, screenshot=False))
    changes = tab.changes()
    help_index = find(renamed, "Get help")
    assert changes["changed"][str(help_index)]["fields"]["aria-label"] == [None, "Get help"]
    assert changes["changed"][str(help_index)]["fields"]["attributes.href"] == ["/help", "/support"]
    assert changes["added"] == {} and changes["removed"] == []
    complete(changes, renamed)


async def test_indices_from_the_extra_are_actionable(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site))
    first = await tab.state(screenshot=False)
    await tab.act({"action": "click_element", "element_index": find(first, "Add plums")}, screenshot=False)
    added = int(next(iter(tab.changes()["added"])))
    after = check(await tab.act({"action": "click_element", "element_index": added}, screenshot=False))
    assert "error" not in after and "Remove plums" not in after["page_content"]
    assert [r["element"] for r in tab.changes()["removed"]] == ['button type=submit "Remove plums"']


async def test_a_rerender_into_equal_elements_is_no_change(tab: cdp_engine.Tab, site: Any) -> None:
    """New nodes with the same descriptors (a framework re-rendering a list) are the same elements to the caller."""
    html = """<ul id="l"><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul>
    <button onclick="const l = document.getElementById('l'); l.innerHTML = l.innerHTML + '<li><a href=/c>C</a></li>'">
    More</button>"""
    await tab.goto(url(site, html))
    first = check(await tab.state(screenshot=False))
    after = check(await tab.act({"action": "click_element", "element_index": find(first, "More")}, screenshot=False))
    changes = tab.changes()
    assert [d["text_content"] for d in changes["added"].values()] == ["C"]
    assert changes["removed"] == [] and changes["changed"] == {}
    assert changes["renumbered"] == {"3": 4}  # the button moved down one
    assert "+ <li>[3]<a href=\"/c\">C</a></li>" in changes["text"]
    complete(changes, after)


async def test_navigation_gives_a_full_extra(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(url(site))
    await tab.state(screenshot=False)
    other = site.add(f"/changes/{next(_paths)}", "<title>o</title><a href='/x'>Elsewhere</a>")
    state = check(await tab.act({"action": "navigate", "url": other}, screenshot=False))
    changes = tab.changes()
    assert changes["mode"] == "full" and changes["reason"] == "navigated"
    complete(changes, state)
    # The same URL loaded again is a new document too: full, never a diff against the old one.
    state = check(await tab.act({"action": "navigate", "url": other}, screenshot=False))
    assert tab.changes()["reason"] == "navigated"


async def test_the_mode_never_touches_the_state_or_its_hash(tab: cdp_engine.Tab, site: Any) -> None:
    """Two tabs on the same page, one asked for changes after every state and one never: same states."""
    page = url(site)
    plain = await tab.browser.new_tab()
    try:
        states: dict[str, list[dict[str, Any]]] = {"with": [], "without": []}
        for which, t in (("with", tab), ("without", plain)):
            await t.goto(page)
            first = check(await t.state(screenshot=False))
            after = check(await t.act({"action": "click_element", "element_index": find(first, "Add plums")}, screenshot=False))
            states[which] = [first, after]
            if which == "with":
                t.changes()
                t.changes()  # asking twice changes nothing either
        assert states["with"] == states["without"]
        assert check(await tab.state(screenshot=False)) == states["with"][1]
    finally:
        await plain.close()


async def test_changes_before_any_state_is_a_lookup_error(tab: cdp_engine.Tab) -> None:
    try:
        tab.changes()
    except LookupError as exc:
        assert "request a state first" in str(exc)
    else:
        raise AssertionError("no LookupError")


def test_text_diff_hunks() -> None:
    assert text_diff(["a", "b", "c"], ["a", "B", "c", "d"]) == "@@ 2\n- b\n+ B\n@@ 4\n+ d"
    assert text_diff(["x"], ["x"]) == ""
    # Compared through the key (page_content's index markers), shown as the new line is.
    assert text_diff(["[1]<a>x</a>"], ["[2]<a>x</a>"], key=lambda line: line[3:]) == ""


def test_text_diff_hunks_rebuild_the_new_text() -> None:
    """Applying the hunks to the old lines gives the new ones (the head and tail trimming keeps positions)."""
    rng = random.Random(16)
    for _ in range(2000):
        old = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        new = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        rebuilt = list(old)  # hunks applied in order: each starts at its line of the new text
        for hunk in filter(None, text_diff(old, new).split("@@ ")):
            start, *lines = hunk.strip("\n").split("\n")
            removed = [ln[2:] for ln in lines if ln.startswith("- ")]
            added = [ln[2:] for ln in lines if ln.startswith("+ ")]
            i = int(start) - 1
            assert rebuilt[i : i + len(removed)] == removed, (old, new)
            rebuilt[i : i + len(removed)] = added
        assert rebuilt == new, (old, new, text_diff(old, new))


# ----- the HTTP service and the harness ---------------------------------------------------------


@pytest_asyncio.fixture
async def service(browser: cdp_engine.Browser, site: Any) -> AsyncIterator[tuple[str, ClientSession]]:
    app = create_app(browser, token="t0ken-for-changes", start_url=url(site))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    async with ClientSession(headers={"Authorization": "Bearer t0ken-for-changes"}) as http:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}", http
    await runner.cleanup()


async def test_service_changes_route(service: tuple[str, ClientSession]) -> None:
    base, http = service
    async with http.get(base + "/changes") as resp:
        assert resp.status == 409 and "request a state first" in (await resp.json())["error"]
    async with http.get(base + "/state?screenshot=0") as resp:
        first = check(orjson.loads(await resp.read()))
    action = {"action": "click_element", "element_index": find(first, "Add plums")}
    async with http.post(base + "/action?screenshot=0", data=json.dumps(action)) as resp:
        after = check(orjson.loads(await resp.read()))  # the body is the state alone
    async with http.get(base + "/changes") as resp:
        changes = await resp.json()
    assert resp.status == 200 and changes["since"] == first["state_hash"]
    assert [d["text_content"] for d in changes["added"].values()] == ["Remove plums"]
    complete(changes, after)


async def test_harness_observation_carries_changes(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser, changes=True) as env:
        obs = await env.reset(url(site))
        assert obs["changes"]["mode"] == "full"
        obs, info = await env.step({"action": "click_element", "element_index": find(obs, "Add plums")})
        assert info["error"] is None and obs["changes"]["mode"] == "diff"
        assert [d["text_content"] for d in obs["changes"]["added"].values()] == ["Remove plums"]
        assert obs["changes"]["indices"] == {k: describe(d) for k, d in obs["element_index"].items()}
        obs, info = await env.step({"action": "click_element", "element_index": 999})  # fails: the same state
        assert info["error"] is not None and obs["changes"]["summary"] == "no changes"
    async with BrowserEnv(browser) as env:
        assert "changes" not in await env.reset(url(site))


# ----- MCP: browser_snapshot(changes=true) ------------------------------------------------------


class Mcp:
    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools

    async def ok(self, tool: str, **args: Any) -> dict[str, Any]:
        env = await self.tools.call(tool, {"instance": "t", **args})
        assert env["status"] == "success", env
        return dict(env["data"])

    async def snap(self, **args: Any) -> dict[str, Any]:
        return await self.ok("browser_snapshot", **args)


@pytest_asyncio.fixture
async def mcp(browser: cdp_engine.Browser) -> AsyncIterator[Mcp]:
    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)
    assert (await tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
    yield Mcp(tools)
    await manager.close()


def ref_of(snapshot: str, text: str) -> str:
    line = next(ln for ln in snapshot.splitlines() if text in ln and "[ref=" in ln)
    match = REF.search(line)
    assert match is not None
    return match.group(1)


async def current_refs(mcp: Mcp) -> set[str]:
    """Every ref of a full snapshot now (the refs a node keeps do not change by taking one)."""
    return set(REF.findall((await mcp.snap())["snapshot"]))


async def changes_after(mcp: Mcp) -> tuple[dict[str, Any], set[str]]:
    """A changes result, checked: every current ref is in `refs`, and no ref in it is not current."""
    result = await mcp.snap(changes=True)
    assert result["mode"] == "changes" and "snapshot" not in result
    now = await current_refs(mcp)
    listed = REF.findall(result["refs"])
    assert set(listed) == now and len(listed) == len(now)
    assert set(REF.findall(result["changes"])) <= now  # a gone ref is written [gone=eN]
    return result, now


async def test_snapshot_changes_full_first_then_no_changes(mcp: Mcp, site: Any) -> None:
    await mcp.ok("browser_navigate", url=url(site))
    plain = await mcp.snap()
    assert set(plain) == {"snapshot", "url", "page_id", "frame_id"}  # without the mode: as before
    mcp_page = url(site)
    await mcp.ok("browser_navigate", url=mcp_page)
    first = await mcp.snap(changes=True)
    assert first["mode"] == "full" and first["reason"] == "navigated" and "[ref=" in first["snapshot"]
    second = await mcp.snap(changes=True)
    assert second["changes"] == NO_CHANGES
    assert REF.findall(second["refs"]) == REF.findall(first["snapshot"])
    assert set(second) == {"mode", "changes", "refs", "url", "page_id", "frame_id"}


async def test_snapshot_changes_add_remove_modify(mcp: Mcp, site: Any) -> None:
    await mcp.ok("browser_navigate", url=url(site))
    full = (await mcp.snap(changes=True))["snapshot"]
    await mcp.ok("browser_click", ref=ref_of(full, '"Add plums"'))
    result, _ = await changes_after(mcp)
    text = result["changes"]
    assert "- changed:\n  - paragraph" in text and "Cart has plums" in text and "- was: paragraph" in text
    assert "- added:\n  - in list [ref=" in text and 'button "Remove plums" [ref=' in text
    assert "- removed:" not in text

    apples = ref_of(full, '"Remove apples"')
    await mcp.ok("browser_click", ref=apples)
    await mcp.snap(changes=True)  # the baseline: the page after the click
    result, _ = await changes_after(mcp)
    assert result["changes"] == NO_CHANGES  # changes_after took a full snapshot after: still nothing new
    await mcp.ok("browser_click", ref=ref_of(full, '"Remove pears"'))
    result, now = await changes_after(mcp)
    assert "- removed:\n  - in list [ref=" in result["changes"]
    gone = re.findall(r"\[gone=(e\d+)\]", result["changes"])
    assert ref_of(full, '"Remove pears"') in gone and not set(gone) & now


async def test_snapshot_changes_states_values_names(mcp: Mcp, site: Any) -> None:
    await mcp.ok("browser_navigate", url=url(site))
    full = (await mcp.snap(changes=True))["snapshot"]
    await mcp.ok("browser_click", ref=ref_of(full, "checkbox"))
    result, _ = await changes_after(mcp)
    changed = r'- changed:\n  - checkbox "Gift wrap" (\[active\] )?\[checked\] \[ref=e\d+\]\n    - was: checkbox "Gift wrap" \['
    assert re.search(changed, result["changes"]), result["changes"]
    await mcp.ok("browser_type", ref=ref_of(full, 'textbox "Quantity"'), text="7")
    await mcp.snap(changes=True)
    # A changed name is a new element to a ref (core/refs.py): the old ref gone, a new one added.
    help_ref = ref_of(full, 'link "Help"')
    await mcp.ok("browser_click", ref=ref_of(full, '"Rename"'))
    result, now = await changes_after(mcp)
    assert f"[gone={help_ref}]" in result["changes"] and help_ref not in now
    new_help = ref_of(result["refs"], 'link "Get help"')
    assert f'link "Get help" [ref={new_help}]' in result["changes"] and "/url: /support" in result["changes"]


async def test_snapshot_changes_value_typed(mcp: Mcp, site: Any) -> None:
    await mcp.ok("browser_navigate", url=url(site))
    full = (await mcp.snap(changes=True))["snapshot"]
    await mcp.ok("browser_type", ref=ref_of(full, 'textbox "Quantity"'), text="7")
    result, _ = await changes_after(mcp)
    assert "7" in result["changes"] and result["changes"] != NO_CHANGES


async def test_snapshot_refs_from_changes_are_actionable(mcp: Mcp, site: Any) -> None:
    await mcp.ok("browser_navigate", url=url(site))
    full = (await mcp.snap(changes=True))["snapshot"]
    await mcp.ok("browser_click", ref=ref_of(full, '"Add plums"'))
    result = await mcp.snap(changes=True)
    plums = ref_of(result["changes"], '"Remove plums"')
    await mcp.ok("browser_click", ref=plums)
    # An unchanged ref, known only from the refs listing, still acts.
    await mcp.ok("browser_click", ref=ref_of(result["refs"], '"Add plums"'))
    result = await mcp.snap(changes=True)
    assert f"[gone={plums}]" in result["changes"] and 'button "Remove plums" [ref=' in result["changes"]


async def test_snapshot_changes_after_navigation_is_full(mcp: Mcp, site: Any) -> None:
    page = url(site)
    await mcp.ok("browser_navigate", url=page)
    await mcp.snap(changes=True)
    await mcp.ok("browser_navigate", url=page)  # the same URL again: a new document
    result = await mcp.snap(changes=True)
    assert result["mode"] == "full" and result["reason"] == "navigated"
    assert set(REF.findall(result["snapshot"])) == await current_refs(mcp)


async def test_snapshot_changes_of_another_frame_is_full(mcp: Mcp, site: Any) -> None:
    inner = site.add(f"/changes/{next(_paths)}", "<button>Inside</button>")
    await mcp.ok("browser_navigate", url=url(site, f"<h1>Outer</h1><iframe src='{inner}'></iframe>"))
    frames = (await mcp.ok("browser_frames"))["frames"]
    child = next(f["frame_id"] for f in frames if f["url"] == inner)
    await mcp.snap(changes=True)
    result = await mcp.snap(changes=True, frame_id=child)
    assert result["mode"] == "full" and result["reason"] == "previous snapshot was of another frame"
    assert 'button "Inside"' in result["snapshot"]
    again = await mcp.snap(changes=True, frame_id=child)
    assert again["changes"] == NO_CHANGES and 'button "Inside" [ref=' in again["refs"]


async def test_snapshot_changes_refuses_a_selector(mcp: Mcp, site: Any) -> None:
    await mcp.ok("browser_navigate", url=url(site))
    env = await mcp.tools.call("browser_snapshot", {"instance": "t", "selector": "ul", "changes": True})
    assert env["status"] == "error" and env["error_type"] == "invalid_params"


def test_snapshot_diff_format() -> None:
    before = Parsed.of(
        '- heading "A" [level=1] [ref=e1]\n- list [ref=e2]:\n  - listitem [ref=e3]: one\n'
        '  - listitem [ref=e4]:\n    - text: two\n    - button "x" [ref=e5]\n- link "L" [ref=e6] [cursor=pointer]:\n'
        "  - /url: /a\n- text: tail"
    )
    after = Parsed.of(
        '- heading "A" [level=1] [ref=e1]\n- list [ref=e2]:\n  - listitem [ref=e3]: uno\n'
        '  - listitem [ref=e7]: three\n- link "L" [ref=e6] [cursor=pointer]:\n  - /url: /b\n- text: end'
    )
    assert diff(before, after) == "\n".join(
        [
            "- changed:",
            "  - listitem [ref=e3]: uno",
            "    - was: listitem [ref=e3]: one",
            '  - link "L" [ref=e6] [cursor=pointer]',
            "    - /url: /b",
            '    - was: link "L" [ref=e6] [cursor=pointer]',
            "      - /url: /a",
            "- added:",
            "  - in page:",
            "    - text: end",
            "  - in list [ref=e2]:",
            "    - listitem [ref=e7]: three",
            "- removed:",
            "  - in page:",
            "    - text: tail",
            "  - in list [ref=e2]:",
            "    - listitem [gone=e4]:",
            "      - text: two",
            '      - button "x" [gone=e5]',
        ]
    )
    assert diff(after, after) == NO_CHANGES
    # An element moved out of a container that then went keeps its ref: only the dead refs are [gone=eN].
    moved = Parsed.of('- region [ref=e1]:\n  - button "Keep" [ref=e2]\n  - button "Drop" [ref=e3]')
    left = Parsed.of('- button "Keep" [ref=e2]')
    assert diff(moved, left) == "\n".join(
        ["- removed:", "  - in page:", "    - region [gone=e1]:", '      - button "Keep" [ref=e2]', '      - button "Drop" [gone=e3]']
    )
    assert refs_listing(after) == (
        '- heading "A" [level=1] [ref=e1]\n- list [ref=e2]\n- listitem [ref=e3]\n- listitem [ref=e7]\n- link "L" [ref=e6]'
    )
