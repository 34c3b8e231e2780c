"""What the "what changed" views save: tokens a model reads per step, full vs changes (docs/changes.md).

Two surfaces, each over the same flows in one run:
- element index: per step, the state without its screenshot (url, page_content, element_index, state_hash:
  what an agent shows a model) against the changes extra (`tab.changes()`), which replaces it on a diff
  step; a full step (first observation, new document) costs the state either way.
- MCP: per step, `browser_snapshot`'s data (JSON) against `browser_snapshot(changes=true)`'s (a diff:
  the changes and every current ref; full: the snapshot as before). Both are taken after each step,
  the changes one first (its baseline is the previous step's page).

Flows: a MiniWoB-style booking form filled over eight steps in one document (served here on 127.0.0.1),
and Python's documentation pages (Debian's python3-doc; benchmarks/setup.sh): load, scroll down twice, a
click on an in-page link (same document), scroll up. Tokens are estimated as chars / 4.

    python3 benchmarks/changes.py            # writes benchmarks/results/changes.{json,md}
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pages import serve_pages, specs_by_id  # noqa: E402

import cdp_engine  # noqa: E402
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DOCS = ("docs-typing", "docs-os", "docs-genindex-all")
REF = re.compile(r"\[ref=(e\d+)\]")
NAV = "".join(f'<li><a href="/help/{i}">Help topic {i}</a></li>' for i in range(1, 25))
# A booking form in three steps on one document, as MiniWoB's multi-step tasks are, inside a page with the
# usual frame around it (a navigation list, a header, a footer).
FORM = f"""<!doctype html><html><head><title>Book a flight</title></head><body>
<header><h1>SkyBook</h1><p>Book a flight in three steps.</p></header>
<nav><ul>{NAV}</ul></nav>
<main><p id="progress">Step 1 of 3: who is flying</p>
<section id="s1"><label for="name">Full name</label><input id="name" name="name">
<label for="email">Email</label><input id="email" name="email" type="email">
<button type="button" onclick="go(2)">Next</button></section>
<section id="s2" hidden><label for="date">Date</label><select id="date" name="date"><option value="">Pick a date</option>
<option>2027-01-10</option><option>2027-01-11</option><option>2027-01-12</option></select>
<label for="seats">Passengers</label><input id="seats" name="seats" type="number" value="1">
<input id="terms" name="terms" type="checkbox"><label for="terms">I accept the terms</label>
<button type="button" onclick="go(3)">Next</button></section>
<section id="s3" hidden><p id="review"></p><button type="button" onclick="done()">Book now</button></section>
<p id="result"></p></main>
<footer><p>SkyBook is a demonstration page. Fares shown include taxes and fees where the law asks for it.</p></footer>
<script>
const v = id => document.getElementById(id).value;
function go(n) {{
  for (const s of [1, 2, 3]) document.getElementById('s' + s).hidden = s !== n;
  document.getElementById('progress').textContent = 'Step ' + n + ' of 3' + (n === 2 ? ': when' : ': review');
  if (n === 3) document.getElementById('review').textContent = v('name') + ', ' + v('seats') + ' seat(s) on ' + v('date');
}}
function done() {{
  document.getElementById('s3').hidden = true;
  document.getElementById('result').textContent = 'Booked! A confirmation was sent to ' + v('email') + '.';
}}
</script></body></html>"""


def chars(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def no_shot(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("screenshot", "error")}


# ----- the element index ------------------------------------------------------------------------


Step = tuple[str, Callable[[dict[str, Any]], dict[str, Any] | None]]


def by_label(state: dict[str, Any], text: str, tag: str | None = None) -> int:
    for key, d in state["element_index"].items():
        label = " ".join(str(x) for x in (d["text_content"], d["aria-label"], d["attributes"]["name"]) if x)
        if text in label and (tag is None or d["tag"] == tag):
            return int(key)
    raise LookupError(text)


def option(state: dict[str, Any], text: str) -> int:
    return next(int(k) for k, d in state["element_index"].items() if d["tag"] == "option" and d["text_content"] == text)


FORM_STEPS: list[Step] = [
    ("type name", lambda s: {"action": "input_text", "element_index": by_label(s, "name", "input"), "text": "Ada Lovelace"}),
    ("type email", lambda s: {"action": "input_text", "element_index": by_label(s, "email", "input"), "text": "ada@example.org"}),
    ("next", lambda s: {"action": "click_element", "element_index": by_label(s, "Next", "button")}),
    ("pick date", lambda s: {"action": "select_option", "element_index": by_label(s, "date", "select"),
                             "option_index": option(s, "2027-01-11")}),
    ("passengers", lambda s: {"action": "input_text", "element_index": by_label(s, "seats", "input"), "text": "2",
                              "overwrite": True}),
    ("accept terms", lambda s: {"action": "click_element", "element_index": by_label(s, "terms", "input")}),
    ("next", lambda s: {"action": "click_element", "element_index": by_label(s, "Next", "button")}),
    ("book", lambda s: {"action": "click_element", "element_index": by_label(s, "Book now", "button")}),
]  # fmt: skip


def in_page_link(state: dict[str, Any]) -> dict[str, Any] | None:
    """A click on the first link in view that stays in the document (#fragment), if any."""
    for key, d in state["element_index"].items():
        href = d["attributes"]["href"] or ""
        if d["tag"] == "a" and "#" in href and "genindex" not in href:
            return {"action": "click_element", "element_index": int(key)}
    return None


DOC_STEPS: list[Step] = [
    ("scroll down", lambda s: {"action": "scroll", "direction": "down"}),
    ("scroll down", lambda s: {"action": "scroll", "direction": "down"}),
    ("in-page link", in_page_link),
    ("scroll up", lambda s: {"action": "scroll", "direction": "up"}),
]


async def index_flow(tab: cdp_engine.Tab, start: str, steps: list[Step]) -> list[dict[str, Any]]:
    await tab.goto(start)
    state = await tab.state(screenshot=False)
    rows = [index_row("load", state, tab.changes())]
    for name, make in steps:
        action = make(state)
        if action is None:
            continue
        state = await tab.act(action, screenshot=False)
        if "error" in state:
            raise RuntimeError(f"{name}: {state['error']}")
        rows.append(index_row(name, state, tab.changes()))
    return rows


def index_row(step: str, state: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    full = chars(no_shot(state))
    diff = full if extra["mode"] == "full" else chars(extra)
    return {"step": step, "mode": extra["mode"], "full_chars": full, "changes_chars": diff,
            "indices": len(extra["indices"]), "summary": extra.get("summary", extra.get("reason"))}  # fmt: skip


# ----- MCP ----------------------------------------------------------------------------------------


class Mcp:
    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools
        self.snapshot = ""

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        env = await self.tools.call(tool, {"instance": "b", **args})
        if env["status"] != "success":
            raise RuntimeError(f"{tool}: {env.get('error_type')}: {env.get('message')}")
        return dict(env["data"])

    def ref(self, pattern: str) -> str:
        match = re.search(pattern + r".*?\[ref=(e\d+)\]", self.snapshot)
        if match is None:
            raise LookupError(pattern)
        return match.group(1)


McpStep = tuple[str, Callable[[Mcp], Awaitable[None]]]


def _form_mcp_steps() -> list[McpStep]:
    async def type_into(m: Mcp, field: str, text: str) -> None:
        await m.call("browser_type", ref=m.ref(field), text=text, clear_first=True)

    async def click(m: Mcp, pattern: str) -> None:
        await m.call("browser_click", ref=m.ref(pattern))

    async def select(m: Mcp) -> None:
        await m.call("browser_select_option", ref=m.ref('combobox "Date"'), value="2027-01-11")

    return [
        ("type name", lambda m: type_into(m, 'textbox "Full name"', "Ada Lovelace")),
        ("type email", lambda m: type_into(m, 'textbox "Email"', "ada@example.org")),
        ("next", lambda m: click(m, 'button "Next"')),
        ("pick date", select),
        ("passengers", lambda m: type_into(m, 'spinbutton "Passengers"', "2")),
        ("accept terms", lambda m: click(m, 'checkbox "I accept the terms"')),
        ("next", lambda m: click(m, 'button "Next"')),
        ("book", lambda m: click(m, 'button "Book now"')),
    ]


async def _scroll(m: Mcp, dy: int) -> None:
    await m.call("browser_evaluate", expression=f"window.scrollBy(0, {dy})")


async def _in_page(m: Mcp) -> None:
    match = re.search(r'link "[^"]+" \[ref=(e\d+)\] \[cursor=pointer\]:\n\s+- /url: "?#', m.snapshot)
    if match is not None:
        await m.call("browser_click", ref=match.group(1))


DOC_MCP_STEPS: list[McpStep] = [
    ("scroll down", lambda m: _scroll(m, 720)),
    ("scroll down", lambda m: _scroll(m, 720)),
    ("in-page link", _in_page),
    ("scroll up", lambda m: _scroll(m, -720)),
]


async def mcp_flow(m: Mcp, start: str, steps: list[McpStep]) -> list[dict[str, Any]]:
    await m.call("browser_navigate", url=start)
    rows = []
    for name, step in [("load", None), *steps]:
        if step is not None:
            await step(m)
        diff = await m.call("browser_snapshot", changes=True)
        full = await m.call("browser_snapshot")
        m.snapshot = full["snapshot"]
        assert diff["mode"] == "full" or set(REF.findall(diff["refs"])) == set(REF.findall(m.snapshot)), name
        rows.append({"step": name, "mode": diff["mode"], "full_chars": chars(full), "changes_chars": chars(diff),
                     "refs": len(REF.findall(m.snapshot)), "refs_listing_chars": len(diff.get("refs", "")),
                     "summary": diff.get("reason") or _summary(diff["changes"])})  # fmt: skip
    return rows


def _summary(changes: str) -> str:
    if changes == "no changes":
        return changes
    return ", ".join(line[2:-1] for line in changes.splitlines() if line.startswith("- ") and line.endswith(":"))


# ----- the run ------------------------------------------------------------------------------------


@asynccontextmanager
async def form_site() -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_get("/book", lambda _r: _html(FORM))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/book"
    finally:
        await runner.cleanup()


async def _html(text: str) -> web.Response:
    return web.Response(text=text, content_type="text/html")


def total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    full = sum(r["full_chars"] for r in rows)
    diff = sum(r["changes_chars"] for r in rows)
    after = rows[1:]  # the steps after the first full observation
    full_after = sum(r["full_chars"] for r in after)
    diff_after = sum(r["changes_chars"] for r in after)
    return {
        "steps": len(rows), "full_tokens": full // 4, "changes_tokens": diff // 4,
        "saved": round(1 - diff / full, 3) if full else 0.0,
        "saved_after_load": round(1 - diff_after / full_after, 3) if full_after else 0.0,
    }  # fmt: skip


async def run() -> dict[str, Any]:
    flows: list[dict[str, Any]] = []
    specs = specs_by_id()
    # No result bound here: the sizes are measured as they are (the default bound is noted in the report).
    # Generous deadlines: a snapshot of genindex-all.html (≈ 3 MB of YAML) takes well over the default 30 s here.
    config = Config(caps=("all",), window=(1280, 720), max_result_bytes=1 << 30, operation_timeout=600.0)
    launch = cdp_engine.launch(window_size=(1280, 720), command_timeout=300.0)
    async with form_site() as form_url, serve_pages() as served, launch as browser:
        targets = [("booking form (8 steps)", form_url, FORM_STEPS, _form_mcp_steps())]
        if served.docs_root is not None:
            targets += [(specs[p].path.rsplit("/", 1)[-1], served.url(specs[p]), DOC_STEPS, DOC_MCP_STEPS) for p in DOCS]
        manager = InstanceManager(config, browser=browser)
        async with manager:
            tools = BrowserTools(manager)
            await tools.call("browser_create_instance", {"name": "b"})
            for name, start, steps, mcp_steps in targets:
                tab = await browser.new_tab()
                try:
                    t0 = time.perf_counter()
                    rows = await index_flow(tab, start, steps)
                    flows.append({"flow": name, "surface": "element index", "rows": rows, "total": total(rows),
                                  "seconds": round(time.perf_counter() - t0, 1)})  # fmt: skip
                finally:
                    await tab.close()
                print(f"{name}: element index done", flush=True)
                t0 = time.perf_counter()
                try:
                    rows = await mcp_flow(Mcp(tools), start, mcp_steps)
                except RuntimeError as exc:  # a page the snapshot cannot take in time: say so, go on
                    flows.append({"flow": name, "surface": "MCP browser_snapshot", "error": str(exc)})
                    print(f"{name}: MCP failed: {exc}", flush=True)
                    continue
                flows.append({"flow": name, "surface": "MCP browser_snapshot", "rows": rows, "total": total(rows),
                              "seconds": round(time.perf_counter() - t0, 1)})  # fmt: skip
                print(f"{name}: MCP done", flush=True)
                write({"flows": flows, "tokens": "chars / 4", "viewport": [1280, 720], "partial": True})
    return {"flows": flows, "tokens": "chars / 4", "viewport": [1280, 720]}


def report(data: dict[str, Any]) -> str:
    out = [
        "# What changed: tokens saved (benchmarks/changes.py)",
        "",
        "Per step, what a model reads: full = the element index state without its screenshot (JSON), or MCP",
        "`browser_snapshot`'s data; changes = the changes extra (`tab.changes()`) or `browser_snapshot(changes=true)`'s",
        "data, which is the full result again on a full step (first observation, new document). Every changes result",
        "lists every current index or ref. Tokens = chars / 4. `after load` leaves out the first (always full) step.",
        "",
        "| flow | surface | steps | full ≈ tokens | changes ≈ tokens | saved | saved after load |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for f in data["flows"]:
        if "error" in f:
            out.append(f"| {f['flow']} | {f['surface']} | failed: {f['error']} | | | | |")
            continue
        t = f["total"]
        out.append(
            f"| {f['flow']} | {f['surface']} | {t['steps']} | {t['full_tokens']:,} | {t['changes_tokens']:,} | "
            f"{t['saved']:.0%} | {t['saved_after_load']:.0%} |"
        )
    out += ["", "## Per step", ""]
    for f in data["flows"]:
        if "error" in f:
            continue
        out += [f"### {f['flow']} — {f['surface']}", "", "| step | mode | full chars | changes chars | what changed |",
                "|---|---|---:|---:|---|"]  # fmt: skip
        for r in f["rows"]:
            what = r["summary"]
            if r["mode"] == "changes" and "refs_listing_chars" in r:
                what += f" (of which the refs listing: {r['refs_listing_chars']:,} chars, {r['refs']:,} refs)"
            out.append(f"| {r['step']} | {r['mode']} | {r['full_chars']:,} | {r['changes_chars']:,} | {what} |")
        out.append("")
    return "\n".join(out)


def write(data: dict[str, Any]) -> None:
    """The results so far (after each flow: a slow page never costs the ones measured before it)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "changes.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    (RESULTS / "changes.md").write_text(report(data) + "\n")


def main() -> None:
    data = asyncio.run(run())
    write(data)
    print(report(data))


if __name__ == "__main__":
    main()
