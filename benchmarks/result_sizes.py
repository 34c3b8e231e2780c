#!/usr/bin/env python3
"""Result sizes (issue 16, Build 6): what each surface's DEFAULT result puts before a model, per page.

For each page (the synthetic benchmark pages and Debian's python3-doc typing.html, os.html and
genindex-all.html) and each surface, called with no size options at all:

- MCP `browser_snapshot`, `browser_screenshot` (viewport) and `browser_screenshot full_page=true` (its first
  tile): the text content the client gets (the envelope's JSON after the image is lifted out), and the image;
- the element index `state()` (screenshot on, its default) and the HTTP service's `GET /state` (the same
  state over HTTP): the state's JSON without the screenshot, and the screenshot;
- the toolset's `read_page`, `get_page_text`, `find` (query "link") and `screenshot`: the text blocks, and
  the image;

and beside them, on the same pages in the same run, Playwright's aria snapshot and AI snapshot (what
playwright-mcp reads) and browser-use's state (its LLM representation), from benchmarks/others/
result_sizes_others.py in benchmarks/.venv-others (set BENCH_VENV to use another venv).

Text is counted in characters, tokens estimated as chars / 4; images separately, as bytes (decoded) and
pixels. A text result over 25,000 tokens (Claude Code's tool-result limit) is flagged. When
benchmarks/changes.py exists (the "what changed" view), it is run and its results/changes.json is folded in.
All at a 1280x720 viewport. Writes benchmarks/results/result_sizes.{json,md}.

    python3 benchmarks/result_sizes.py                      # every page, every surface, the other systems
    python3 benchmarks/result_sizes.py --pages gen-100 docs-typing --no-others
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE), str(HERE / "others")]

import orjson  # noqa: E402
from aiohttp import ClientSession, web  # noqa: E402
from common import PREFIX  # noqa: E402
from pages import serve_pages, specs_by_id  # noqa: E402

import cdp_engine  # noqa: E402
from cdp_engine.core.files import image_size  # noqa: E402
from cdp_engine.index.element_index import ElementIndex  # noqa: E402
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager  # noqa: E402
from cdp_engine.mcp_server.server import lift_image  # noqa: E402
from cdp_engine.service import create_app  # noqa: E402
from cdp_engine.toolset.executor import BrowserToolset  # noqa: E402

RESULTS = HERE / "results"
PAGES = ("gen-100", "gen-1000", "gen-5000", "gen-20000", "frames", "shadow", "docs-typing", "docs-os", "docs-genindex-all")
VIEWPORT = (1280, 720)
TOKEN_LIMIT = 25_000  # Claude Code's tool-result limit, in tokens
TOKEN = "result-sizes-token"
VENV_PY = Path(os.environ.get("BENCH_VENV", HERE / ".venv-others")) / "bin" / "python"
OTHERS = HERE / "others" / "result_sizes_others.py"
CHANGES = HERE / "changes.py"


def tokens(chars: int) -> int:
    return round(chars / 4)


def row(page: str, surface: str, text: str | None, image_b64: str | None = None, **extra: Any) -> dict[str, Any]:
    """One result's sizes: text chars and ≈ tokens, the image's bytes and pixels."""
    out: dict[str, Any] = {"page": page, "surface": surface, **extra}
    if text is not None:
        out.update(chars=len(text), tokens=tokens(len(text)), over_limit=tokens(len(text)) > TOKEN_LIMIT)
    if image_b64:
        raw = base64.b64decode(image_b64)
        size = image_size(raw) or (0, 0)
        out.update(image_bytes=len(raw), image_width=size[0], image_height=size[1], image_pixels=size[0] * size[1])
    return out


def failed(page: str, surface: str, exc: BaseException) -> dict[str, Any]:
    return {"page": page, "surface": surface, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}


async def measured(
    rows: list[dict[str, Any]], surface: str, fn: Callable[..., Awaitable[list[dict[str, Any]]]], *args: Any
) -> None:
    """Append fn(*args, page, url)'s rows, or one error row; never loses the other surfaces."""
    page = args[-2]
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(180):
            got = await fn(*args)
    except Exception as exc:
        got = [failed(page, surface, exc)]
    ms = (time.perf_counter() - t0) * 1000
    for r in got:
        r.setdefault("ms", round(ms))
    rows.extend(got)
    print(f"  {page:18} {surface:34} {', '.join(describe(r) for r in got)}", file=sys.stderr)


def describe(r: dict[str, Any]) -> str:
    if "error" in r:
        return "ERROR " + r["error"]
    parts = [f"{r['chars']:,} chars ≈ {r['tokens']:,} tok"] if "chars" in r else []
    if "image_bytes" in r:
        parts.append(f"image {r['image_width']}x{r['image_height']} {r['image_bytes']:,} B")
    return " + ".join(parts)


# ----- the engine's surfaces --------------------------------------------------------------------------------


async def mcp_rows(tools: BrowserTools, page: str, url: str) -> list[dict[str, Any]]:
    nav = await tools.call("browser_navigate", {"instance": "r", "url": url})
    if nav["status"] != "success":
        raise RuntimeError(f"navigate: {nav.get('message')}")
    out = []
    for surface, name, args in [
        ("MCP browser_snapshot", "browser_snapshot", {}),
        ("MCP browser_screenshot", "browser_screenshot", {}),
        ("MCP browser_screenshot full_page", "browser_screenshot", {"full_page": True}),
    ]:
        envelope, raw = await tools.call_raw(name, {"instance": "r", **args})
        lifted, text, image = lift_image(envelope, raw)
        status = "success" if envelope["status"] == "success" else envelope["error_type"]
        extra: dict[str, Any] = {"status": status}
        if status != "success":
            extra["message"] = str(envelope.get("message", ""))[:300]
        data = lifted.get("data") if isinstance(lifted.get("data"), dict) else {}
        if data and "tile_count" in data:
            extra["tiles"] = data["tile_count"]
        out.append(row(page, surface, text.decode(), image[0] if image else None, **extra))
    return out


def state_rows(page: str, surface: str, state: dict[str, Any]) -> list[dict[str, Any]]:
    shot = state.get("screenshot") or None
    text = orjson.dumps({**state, "screenshot": ""}).decode()
    return [row(page, surface, text, shot, elements=len(state.get("element_index", {})))]


async def index_rows(context: cdp_engine.BrowserContext, page: str, url: str) -> list[dict[str, Any]]:
    tab = await context.new_tab(url)
    try:
        return state_rows(page, "element index state()", await ElementIndex.of(tab).state())
    finally:
        await tab.close()


async def service_rows(browser: cdp_engine.Browser, page: str, url: str) -> list[dict[str, Any]]:
    app = create_app(browser, token=TOKEN, start_url=url)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        async with ClientSession() as http:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with http.get(f"http://127.0.0.1:{port}/state", headers=headers) as resp:
                body = await resp.read()
                if resp.status != 200:
                    raise RuntimeError(f"GET /state: {resp.status} {body[:200]!r}")
        state = orjson.loads(body)
        rows = state_rows(page, "HTTP service GET /state", state)
        rows[0]["body_bytes"] = len(body)
        return rows
    finally:
        await runner.cleanup()


async def toolset_rows(browser: cdp_engine.Browser, page: str, url: str) -> list[dict[str, Any]]:
    out = []
    async with BrowserToolset(browser) as toolset:
        content, is_error = await toolset.call("navigate", {"url": url})
        if is_error:
            raise RuntimeError(f"navigate: {content}")
        for surface, name, args in [
            ("toolset read_page", "read_page", {}),
            ("toolset get_page_text", "get_page_text", {}),
            ("toolset find", "find", {"query": "link"}),
            ("toolset screenshot", "screenshot", {}),
        ]:
            content, is_error = await toolset.call(name, args)
            texts = [b["text"] for b in content if b.get("type") == "text"]
            others = [json.dumps(b) for b in content if b.get("type") not in ("text", "image")]
            image = next((b["source"]["data"] for b in content if b.get("type") == "image"), None)
            text = "\n".join([*texts, *others]) if texts or others else None
            out.append(row(page, surface, text, image, status="error" if is_error else "success"))
    return out


async def engine(pages: list[str]) -> list[dict[str, Any]]:
    specs = specs_by_id()
    rows: list[dict[str, Any]] = []
    async with serve_pages() as served, cdp_engine.launch(window_size=VIEWPORT) as browser:
        manager = InstanceManager(Config(caps=("all",), window=VIEWPORT), browser=browser)
        async with manager:
            tools = BrowserTools(manager)
            created = await tools.call("browser_create_instance", {"name": "r"})
            assert created["status"] == "success", created
            for page in pages:
                if page.startswith("docs") and served.docs_root is None:
                    rows.append({"page": page, "surface": "*", "error": "python3-doc is not installed"})
                    continue
                url = served.url(specs[page])
                context = await browser.new_context()
                try:
                    await measured(rows, "MCP", mcp_rows, tools, page, url)
                    await measured(rows, "element index", index_rows, context, page, url)
                    await measured(rows, "HTTP service", service_rows, browser, page, url)
                    await measured(rows, "toolset", toolset_rows, browser, page, url)
                finally:
                    await context.close()
        urls = {page: served.url(specs[page]) for page in pages if not page.startswith("docs") or served.docs_root}
        others = await asyncio.to_thread(other_rows, urls) if RUN_OTHERS else []
    return rows + others


# ----- the other systems ------------------------------------------------------------------------------------


RUN_OTHERS = True


def other_rows(urls: dict[str, str]) -> list[dict[str, Any]]:
    """Playwright's and browser-use's outputs for each page (one adapter process per page, so that one
    page's timeout loses only that page)."""
    if not VENV_PY.exists():
        return [{"page": "*", "surface": "other systems", "error": f"{VENV_PY} missing: run benchmarks/setup.sh"}]
    rows: list[dict[str, Any]] = []
    for page, url in urls.items():
        t0 = time.perf_counter()
        lines = []
        for system in ("playwright", "browser-use"):  # one process each: a timeout loses only that system
            lines += adapter_lines(system, url)
        versions = {e["name"]: e.get("version") for e in lines if e["event"] == "system"}
        for e in lines:
            if e["event"] == "size":
                system = e["system"]
                r = {"page": page, "surface": f"{system} {e['output']}", "chars": e["chars"], "tokens": tokens(e["chars"])}
                r.update(over_limit=r["tokens"] > TOKEN_LIMIT, other=True, version=versions.get(system))
                if e.get("preview") is not None:
                    r["preview"] = e["preview"]
                rows.append(r)
            elif e["event"] in ("error", "timeout"):
                what = e.get("system") or e.get("metric") or "other systems"
                rows.append({"page": page, "surface": str(what), "error": e.get("error") or "timed out", "other": True})
        print(f"  {page:18} other systems ({time.perf_counter() - t0:.0f} s): "
              + ", ".join(f"{r['surface']} {describe(r)}" for r in rows if r["page"] == page), file=sys.stderr)  # fmt: skip
    return rows


def adapter_lines(system: str, url: str) -> list[dict[str, Any]]:
    """The adapter's protocol lines for one system on one page (an error line when it printed none)."""
    env = {**os.environ, "RESULT_SIZES_SYSTEM": system}
    try:
        proc = subprocess.run(
            [str(VENV_PY), str(OTHERS), url, "--timeout", "240"],
            capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, env=env,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return [{"event": "error", "system": system, "error": "adapter timed out (600 s)"}]
    lines = [json.loads(line[len(PREFIX) :]) for line in proc.stdout.splitlines() if line.startswith(PREFIX)]
    for e in lines:
        if e["event"] == "timeout":
            e.update(system=system, error=f"{e.get('metric')} timed out ({e.get('timeout_s')} s)")
    return lines or [{"event": "error", "system": system, "error": proc.stderr.strip()[-300:] or "no output"}]


def changes() -> dict[str, Any] | None:
    """The "what changed" savings, when benchmarks/changes.py exists (it writes results/changes.json)."""
    if not CHANGES.exists():
        return None
    try:
        subprocess.run([sys.executable, str(CHANGES)], timeout=1200, check=True, capture_output=True, text=True)
        return json.loads((RESULTS / "changes.json").read_text())  # type: ignore[no-any-return]
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}


# ----- the report -------------------------------------------------------------------------------------------


def markdown(result: dict[str, Any]) -> str:
    rows = result["rows"]
    pages = list(dict.fromkeys(r["page"] for r in rows if r["page"] != "*"))
    surfaces = list(dict.fromkeys(r["surface"] for r in rows if not r.get("other") and r["surface"] != "*"))
    others = list(dict.fromkeys(r["surface"] for r in rows if r.get("other") and "error" not in r))
    lines = [
        "# Result sizes (benchmarks/result_sizes.py)",
        "",
        f"Run {result['started']} on cdp-engine {result['version']} ({result['git']}), Chromium {result['chromium']},",
        f"viewport {VIEWPORT[0]}x{VIEWPORT[1]}. Each surface's DEFAULT result (no size options), text in characters",
        "and ≈ tokens (chars / 4); images apart, as bytes and pixels. **bold** = over 25,000 tokens (Claude Code's",
        "tool-result limit). MCP text = the envelope's JSON after the image is lifted into its own content block;",
        "state = the state's JSON without its screenshot; toolset = its text blocks.",
        "",
        "## Text (chars ≈ tokens)",
        "",
        "| surface | " + " | ".join(pages) + " |",
        "|---|" + "---:|" * len(pages),
    ]
    by = {(r["page"], r["surface"]): r for r in rows}

    def cell(page: str, surface: str) -> str:
        r = by.get((page, surface))
        if r is None:
            return ""
        if "error" in r:
            return "error"
        if "chars" not in r:
            return "(image only)"
        text = f"{r['chars']:,} ≈ {r['tokens']:,}"
        if r.get("status") not in (None, "success"):
            text = f"{r['status']}: {text}"
        return f"**{text}**" if r["over_limit"] else text

    for surface in [*surfaces, *others]:
        lines.append(f"| {surface} | " + " | ".join(cell(p, surface) for p in pages) + " |")
    lines += ["", "## Images (pixels, bytes)", "", "| surface | " + " | ".join(pages) + " |", "|---|" + "---:|" * len(pages)]
    for surface in surfaces:
        if not any("image_bytes" in r for r in rows if r["surface"] == surface):
            continue
        cells = []
        for p in pages:
            r = by.get((p, surface))
            if r is None or "image_bytes" not in r:
                cells.append("")
                continue
            tiles = f", tile 1 of {r['tiles']}" if r.get("tiles") else ""
            cells.append(f"{r['image_width']}x{r['image_height']}, {r['image_bytes'] / 1024:,.0f} KiB{tiles}")
        lines.append(f"| {surface} | " + " | ".join(cells) + " |")
    over = [r for r in rows if r.get("over_limit") and not r.get("other")]
    lines += ["", f"Engine results over {TOKEN_LIMIT:,} tokens: "
              + (", ".join(f"{r['surface']} on {r['page']} ({r['tokens']:,})" for r in over) or "none") + "."]  # fmt: skip
    refused = [r for r in rows if r.get("status") not in (None, "success")]
    lines += ["", "Engine results that are an error instead of content: "
              + (", ".join(f"{r['surface']} on {r['page']} ({r['status']}: {r.get('message', '')})" for r in refused)
                 or "none") + "."]  # fmt: skip
    previews = [r for r in rows if r.get("preview")]
    if previews:
        lines += ["", "Short outputs of other systems, as they read:", "",
                  *[f"- {r['page']} / {r['surface']}: `{' '.join(r['preview'].split())}`" for r in previews]]  # fmt: skip
    errors = [r for r in rows if "error" in r]
    if errors:
        lines += ["", "Errors:", "", *[f"- {r['page']} / {r['surface']}: {r['error']}" for r in errors]]
    versions = {r["surface"].split(" ")[0]: r.get("version") for r in rows if r.get("other") and r.get("version")}
    if versions:
        lines += ["", "Other systems: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + "."]
    lines += ["", "## What changed (benchmarks/changes.py)", ""]
    if result["changes"] is None:
        lines.append("benchmarks/changes.py is not in this tree: no \"what changed\" figures in this run.")
    else:
        lines += ["```json", json.dumps(result["changes"], indent=1)[:6000], "```"]
    return "\n".join(lines) + "\n"


def git_describe() -> str:
    with contextlib.suppress(Exception):
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    return "unknown"


async def chromium_version() -> str:
    async with cdp_engine.launch() as browser:
        return str(browser.version.get("product", ""))


def main() -> None:
    global RUN_OTHERS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(specs_by_id()))
    ap.add_argument("--no-others", action="store_true", help="skip Playwright and browser-use")
    ap.add_argument("--no-changes", action="store_true", help="skip benchmarks/changes.py even if it exists")
    ns = ap.parse_args()
    RUN_OTHERS = not ns.no_others
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = asyncio.run(engine(ns.pages))
    result = {
        "started": started,
        "version": cdp_engine.__version__,
        "git": git_describe(),
        "chromium": asyncio.run(chromium_version()),
        "viewport": list(VIEWPORT),
        "token_limit": TOKEN_LIMIT,
        "rows": rows,
        "changes": None if ns.no_changes else changes(),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "result_sizes.json").write_text(json.dumps(result, indent=1) + "\n")
    text = markdown(result)
    (RESULTS / "result_sizes.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
