"""The default result of every surface whose result grows with the page, measured: characters and estimated tokens
(chars / 4) on the synthetic 5,000-row page and Python's documentation (Debian's python3-doc; benchmarks/setup.sh).

    python3 tools/result_sizes.py [--json]

Surfaces, each called with its defaults only (so the same script measures an older checkout as "before"):
MCP `browser_snapshot` (the envelope's JSON text, what the client receives once), the element index state
(the state object's JSON without the screenshot: url, page_content, element_index, state_hash; the HTTP
service's GET /state?screenshot=0 body is this same object), and the browser toolset's `read_page`,
`read_page filter=all`, `get_page_text` and `find`. The screenshot is left out of the state on purpose: it is an
image (counted by image tokens, not characters); benchmarks/ measures images. `measure()` is importable (the
result-size benchmark uses it).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from pages import serve_pages, specs_by_id  # noqa: E402

import cdp_engine  # noqa: E402
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager  # noqa: E402
from cdp_engine.toolset import BrowserToolset, ToolsetConfig  # noqa: E402

PAGES = ("gen-5000", "docs-typing", "docs-os", "docs-genindex-all")
TOKEN_LIMIT = 25_000


async def measure(pages: tuple[str, ...] = PAGES) -> list[dict[str, Any]]:
    """One row per (page, surface): {page, surface, chars, tokens, status}."""
    rows: list[dict[str, Any]] = []
    specs = specs_by_id()

    def row(page: str, surface: str, text: str, status: str = "ok") -> None:
        rows.append({"page": page, "surface": surface, "chars": len(text), "tokens": len(text) // 4, "status": status})

    async with serve_pages() as served, cdp_engine.launch(window_size=(1280, 720)) as browser:
        manager = InstanceManager(Config(caps=("all",), window=(1280, 720)), browser=browser)
        tools = BrowserTools(manager)
        await tools.call("browser_create_instance", {"name": "b"})
        context = await browser.new_context()
        toolset = await BrowserToolset(browser, context=context, config=ToolsetConfig()).start()
        tab = await context.new_tab()
        try:
            for page in pages:
                if page.startswith("docs") and served.docs_root is None:
                    continue
                url = served.url(specs[page])
                nav = await tools.call("browser_navigate", {"instance": "b", "url": url})
                assert nav["status"] == "success", nav
                envelope, raw = await tools.call_raw("browser_snapshot", {"instance": "b"})
                status = "ok" if envelope["status"] == "success" else envelope["error_type"]
                row(page, "mcp browser_snapshot", raw.decode(), status)
                await tab.goto(url)
                state = await tab.state(screenshot=False)  # type: ignore[attr-defined]
                state.pop("screenshot", None)
                row(page, "state (library, HTTP service)", json.dumps(state, ensure_ascii=False))
                await toolset.call("navigate", {"url": url})
                for surface, name, inp in [
                    ("toolset read_page", "read_page", {}),
                    ("toolset read_page filter=all", "read_page", {"filter": "all"}),
                    ("toolset get_page_text", "get_page_text", {}),
                    ("toolset find", "find", {"query": "link"}),
                ]:
                    content, is_error = await toolset.call(name, inp)
                    text = "\n".join(b.get("text", "") for b in content if b["type"] == "text")
                    row(page, surface, text, "error" if is_error else "ok")
        finally:
            await toolset.close()
            await manager.close()
            await context.close()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    pages = list(dict.fromkeys(r["page"] for r in rows))
    surfaces = list(dict.fromkeys(r["surface"] for r in rows))
    out = ["| result | " + " | ".join(pages) + " |", "|---|" + "---:|" * len(pages)]
    for surface in surfaces:
        cells = []
        for page in pages:
            r = next((r for r in rows if r["page"] == page and r["surface"] == surface), None)
            if r is None:
                cells.append("–")
                continue
            cell = f"{r['chars']:,} ≈ {r['tokens']:,} tok"
            if r["status"] != "ok":
                cell += f" ({r['status']})"
            elif r["tokens"] > TOKEN_LIMIT:
                cell += " (over 25k)"
            cells.append(cell)
        out.append(f"| {surface} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    rows = asyncio.run(measure())
    print(json.dumps(rows, indent=2) if "--json" in sys.argv else table(rows))


if __name__ == "__main__":
    main()
