"""MCP result and definition sizes: what each tool set's tools/list costs, and what one tool result puts on the
wire before and after the envelope is sent once and screenshot bytes only as image content.

Writes benchmarks/results/mcp_content.{json,md}. Sizes are the SDK's own serialisation of the result
(`CallToolResult.model_dump_json(by_alias=True, exclude_none=True)`, as the server sends it) and of the
tools/list entries (compact JSON); tokens are estimated as chars / 4. Pages: a generated page and Python's
documentation (Debian's python3-doc; benchmarks/setup.sh), at a 1280x720 viewport.

    python3 benchmarks/mcp_content.py
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import mcp_types as types  # noqa: E402
from pages import serve_pages, specs_by_id  # noqa: E402

from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager  # noqa: E402
from cdp_engine.mcp_server.caps import CAPS, parse_caps  # noqa: E402
from cdp_engine.mcp_server.server import lift_image  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
PAGES = ("gen-100", "docs-typing", "docs-os", "docs-genindex-all")


def wire(envelope: dict[str, Any], raw: bytes, *, before: bool) -> int:
    """Bytes of the CallToolResult the server sends: before = text + structured copy + base64 in both + image;
    after = the text once, the image bytes only in the image block."""
    image: tuple[str, str] | None
    if before:
        data = envelope.get("data") or {}
        shot = envelope["status"] == "success" and isinstance(data.get("image_base64"), str)
        image = (data["image_base64"], "image/png") if shot else None
        structured: dict[str, Any] | None = envelope
    else:
        envelope, raw, image = lift_image(envelope, raw)
        structured = None
    content: list[Any] = [types.TextContent(type="text", text=raw.decode())]
    if image is not None:
        content.append(types.ImageContent(type="image", data=image[0], mime_type=image[1]))
    result = types.CallToolResult(content=content, structured_content=structured, is_error=False)
    return len(result.model_dump_json(by_alias=True, exclude_none=True))


def definitions() -> list[dict[str, Any]]:
    rows = []
    for caps in [("core",), *[("core", c) for c in CAPS if c != "core"], tuple(CAPS), ("all",)]:
        selected = parse_caps(caps)
        tools = BrowserTools(InstanceManager(Config(caps=selected))).list_tools()
        chars = len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))
        label = "every group (no `all`)" if caps == tuple(CAPS) else ",".join(caps)
        rows.append({"caps": label, "tools": len(tools), "chars": chars, "tokens": chars // 4})
    return rows


async def results() -> list[dict[str, Any]]:
    rows = []
    specs = specs_by_id()
    async with serve_pages() as served:
        manager = InstanceManager(Config(caps=("all",), window=(1280, 720)))
        async with manager:
            tools = BrowserTools(manager)
            await tools.call("browser_create_instance", {"name": "b"})
            for page in PAGES:
                if page.startswith("docs") and served.docs_root is None:
                    continue
                nav = await tools.call("browser_navigate", {"instance": "b", "url": served.url(specs[page])})
                assert nav["status"] == "success", nav
                for tool, args in [("browser_snapshot", {}), ("browser_screenshot", {})]:
                    envelope, raw = await tools.call_raw(tool, {"instance": "b", **args})
                    before, after = wire(envelope, raw, before=True), wire(envelope, raw, before=False)
                    status = envelope["status"] if envelope["status"] == "success" else envelope["error_type"]
                    rows.append(
                        {"page": page, "tool": tool, "status": status, "before": before, "after": after,
                         "text_after": len(lift_image(envelope, raw)[1])}
                    )  # fmt: skip
    return rows


def report(defs: list[dict[str, Any]], res: list[dict[str, Any]]) -> str:
    lines = [
        "# MCP definition and result sizes (benchmarks/mcp_content.py)",
        "",
        "Tool definitions: the tools/list entries of each selection as compact JSON; tokens = chars / 4.",
        "",
        "| caps | tools | chars | ≈ tokens |",
        "|---|---:|---:|---:|",
        *[f"| {d['caps']} | {d['tools']} | {d['chars']:,} | {d['tokens']:,} |" for d in defs],
        "",
        "One result on the wire (the SDK's JSON of the CallToolResult). Before: the envelope as text and again as",
        "structuredContent, a screenshot's base64 inside both and once more as image content. After (default): the",
        "envelope once as text; the screenshot's bytes only in the image block. `text` = the text block after.",
        "",
        "| page | tool | status | before (bytes) | after (bytes) | saved | text after (chars) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in res:
        saved = 1 - r["after"] / r["before"]
        lines.append(
            f"| {r['page']} | {r['tool']} | {r['status']} | {r['before']:,} | {r['after']:,} | {saved:.0%} "
            f"| {r['text_after']:,} |"
        )
    return "\n".join(lines) + "\n"


async def main() -> None:
    defs = definitions()
    res = await results()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mcp_content.json").write_text(json.dumps({"definitions": defs, "results": res}, indent=2) + "\n")
    text = report(defs, res)
    (RESULTS / "mcp_content.md").write_text(text)
    print(text)


if __name__ == "__main__":
    asyncio.run(main())
