"""The peers' interactive sets on the extended target suite (benchmarks/extended.py runs this in .venv-others).

Usage: extended_peers.py URL_PREFIX PAGE... ; prints one JSON object: {tool: {page: [label, ...]}} where
each label is what LABEL_JS (benchmarks/extended_suite.py, passed on stdin) says of one entry of the tool's set.

- playwright: the AI snapshot playwright-mcp reads (playwright_adapter.ai_snapshot: `page._snapshot_for_ai()`
  or `page.aria_snapshot(mode="ai")`); an entry is every line
  with a ref whose role is an interactive one, or that carries `[cursor=pointer]` (Playwright's marker
  for pointer-cursor elements): what an agent reading it can act on. Labels come from `aria-ref=` locators.
- browser-use: `get_browser_state_summary()`'s selector_map (its interactive elements, listener and
  cursor heuristics included); labels come from the DOM tree it returns (the nearest `data-t` at or
  above the node, else the one below it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import CHROMIUM, CHROMIUM_FLAGS, VIEWPORT, LaunchedChromium, quiet_browser_use
from playwright_adapter import ai_snapshot

INTERACTIVE = {
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option", "menuitem",
    "menuitemcheckbox", "menuitemradio", "tab", "treeitem", "switch", "slider", "spinbutton",
}  # fmt: skip
LINE = re.compile(r"^\s*- (?P<role>[a-z]+)\b.*\[ref=(?P<ref>e\d+)\]")


async def playwright_sets(prefix: str, pages: list[str], label_js: str) -> dict[str, list[Any]]:
    from playwright.async_api import async_playwright

    out: dict[str, list[Any]] = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS[1:])
        for name in pages:
            page = await browser.new_page(viewport=VIEWPORT)  # a fresh page each (a reused one lost its refs)
            await page.goto(prefix + name)
            text, _api = await ai_snapshot(page, 30_000)
            labels = []
            for line in text.splitlines():
                m = LINE.match(line)
                if not m or not (m.group("role") in INTERACTIVE or "[cursor=pointer]" in line):
                    continue
                try:
                    labels.append(
                        await page.locator(f"aria-ref={m.group('ref')}").evaluate(f"(e) => ({label_js}).call(e)")
                    )
                except Exception:
                    labels.append(None)
            out[name] = labels
            await page.close()
        await browser.close()
    return out


def _label(node: Any) -> str | None:
    """LABEL_JS over browser-use's own DOM tree."""
    n = node
    while n is not None:
        t = (n.attributes or {}).get("data-t") if hasattr(n, "attributes") else None
        if t:
            return str(t)
        n = n.parent_node
    found: list[str] = []
    stack = list(node.children_nodes or [])
    while stack:
        c = stack.pop()
        t = (c.attributes or {}).get("data-t")
        if t:
            found.append(t)
        stack.extend(c.children_nodes or [])
    return found[0] if len(found) == 1 else None


async def browser_use_sets(prefix: str, pages: list[str]) -> dict[str, list[Any]]:
    quiet_browser_use(30.0)
    from browser_use import BrowserSession

    out: dict[str, list[Any]] = {}
    chrome = LaunchedChromium(30.0)
    session = BrowserSession(cdp_url=chrome.http_url, viewport=dict(VIEWPORT))
    try:
        await session.start()
        for name in pages:
            await session.navigate_to(prefix + name)
            state = await session.get_browser_state_summary(include_screenshot=False)
            assert state.dom_state is not None
            out[name] = [_label(node) for _, node in sorted(state.dom_state.selector_map.items())]
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.kill(), 10)
        chrome.close()
    return out


async def main() -> None:
    prefix, pages = sys.argv[1], sys.argv[2:]
    label_js = sys.stdin.read()
    result: dict[str, Any] = {}
    for tool, run in (
        ("playwright", lambda: playwright_sets(prefix, pages, label_js)),
        ("browser-use", lambda: browser_use_sets(prefix, pages)),
    ):
        try:
            result[tool] = await run()
        except Exception as exc:
            result[tool] = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
