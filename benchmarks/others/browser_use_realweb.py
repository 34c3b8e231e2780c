"""browser-use on the real-web suite's component tasks: the same scripted agent (tests/realweb/steps.py), reading
browser-use's browser state (its selector map: each interactive element's index, with its accessibility role
and name, and its text) and acting through its tools by index (click, input, select_dropdown, scroll), as its
agent's act() does, without an LLM.

Runs inside benchmarks/.venv-others; the adapter launches Chromium and browser-use connects over CDP. Reads the
tasks (JSON) from --tasks; emits `start` and `task` per task as playwright_realweb.py does. See
benchmarks/realweb.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "realweb"))

from common import LaunchedChromium, emit, package_version, quiet_browser_use  # noqa: E402
from steps import Agent, Entry, TaskFailed, run_steps  # noqa: E402

VIEWPORT = {"width": 1280, "height": 720}  # the engine's default, which the suite runs at
ROLES = {"LabelText": "label", "StaticText": "generic", "RootWebArea": "generic", "none": "generic"}
# Roles a person names by the text inside (a label's words are in its spans): the rest by their own text only.
NAMED_BY_CONTENT = {"label", "button", "link", "option", "tab", "menuitem", "checkbox", "radio", "cell", "gridcell",
                    "heading", "listitem", "treeitem", "switch"}  # fmt: skip
_TAG_ROLES = {"textarea": "textbox", "select": "combobox", "a": "link", "button": "button", "label": "label",
              "option": "option", "summary": "button", "input": "textbox"}  # fmt: skip


class BrowserUseAgent(Agent):
    surface = "browser-use"

    def __init__(self, session: Any, tools: Any) -> None:
        super().__init__("dom")
        self.session = session
        self.tools = tools
        self.state: Any = None
        self.nodes: dict[str, Any] = {}
        self.scrollable: int | None = None  # the last element browser-use marks scrollable (a list's box)

    async def read(self) -> Any:
        self.state = await self.session.get_browser_state_summary(include_screenshot=False)
        return self.state

    async def entries(self) -> list[Entry]:
        state = await self.read()
        out = []
        self.nodes = {}
        for index, node in state.dom_state.selector_map.items():
            ax = node.ax_node
            attrs = node.attributes or {}
            role = (ax.role if ax and ax.role else "") or attrs.get("role") or _TAG_ROLES.get(node.tag_name, node.tag_name)
            role = ROLES.get(role, role)
            # Its own text (the text nodes directly in it): a container's name is not all the text inside it.
            own = [c.node_value or "" for c in (node.children_nodes or []) if getattr(c.node_type, "value", c.node_type) == 3]
            text = " ".join(" ".join(own).split())
            if role in NAMED_BY_CONTENT and not text:
                text = " ".join(node.get_all_children_text().split())
            name = (ax.name if ax and ax.name else "") or attrs.get("aria-label") or text or attrs.get("placeholder") or ""
            if getattr(node, "is_scrollable", False):
                self.scrollable = index
            checked = None
            for p in (ax.properties or []) if ax else []:
                if p.name == "checked":
                    checked = str(p.value).lower() == "true"
            key = str(index)
            self.nodes[key] = node
            out.append(Entry(key, role, name, checked, attrs.get("value"), "", text))
        return out

    async def page_text(self) -> str:
        return str((await self.read()).dom_state.llm_representation())

    async def _tool(self, name: str, params: dict[str, Any]) -> str | None:
        try:
            result = await self.tools.registry.execute_action(name, params, browser_session=self.session)
        except Exception as exc:
            return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        error = getattr(result, "error", None)
        return str(error).splitlines()[0] if error else None

    async def do_click(self, entry: Entry) -> str | None:
        return await self._tool("click", {"index": int(entry.key)})

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        return await self._tool("input", {"index": int(entry.key), "text": text, "clear": True})

    async def do_type(self, entry: Entry, text: str) -> str | None:
        return await self._tool("input", {"index": int(entry.key), "text": text, "clear": False})

    async def do_select(self, entry: Entry, option: str) -> str | None:
        node = self.nodes.get(entry.key)
        if node is None or node.tag_name != "select":
            return "not native"
        return await self._tool("select_dropdown", {"index": int(entry.key), "text": option})

    async def do_scroll(self, entry: Entry | None) -> str | None:
        """Its scroll tool, on the element browser-use marks scrollable when there is one (a list scrolls in its
        box); when the view did not change, it reads again a moment later (a popup still opening), five times
        at most, before it says the end is reached."""
        before = (await self.read()).dom_state.llm_representation()
        params: dict[str, Any] = {"down": True, "pages": 0.8}
        if self.scrollable is not None:
            params["index"] = self.scrollable
        error = await self._tool("scroll", params)
        if error:
            return error
        for _ in range(5):
            if (await self.read()).dom_state.llm_representation() != before:
                return None
            await asyncio.sleep(0.1)
        return "at the end"

    async def events(self) -> list[dict[str, Any]]:
        self.navigated = False
        return []  # browser-use has no page script the agent reads here: no wrong-element count for it

    async def watched(self, what: str, name: str, error_or_none: Any) -> None:
        await self.events()

    async def evaluate(self, expression: str) -> Any:
        raise NotImplementedError


def steps_of(raw: list[list[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(set(a["set"]) if isinstance(a, dict) else a for a in step) for step in raw]


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", required=True)
    ap.add_argument("--tasks", required=True, help="JSON file: [{name, page, steps}]")
    ns = ap.parse_args()
    tasks = json.loads(Path(ns.tasks).read_text())
    quiet_browser_use(60.0)
    logging.disable(logging.WARNING)
    from browser_use import BrowserSession
    from browser_use.tools.service import Tools

    emit("meta", system="browser-use", version=package_version("browser-use"))
    chrome = LaunchedChromium(30.0)
    session = BrowserSession(cdp_url=chrome.http_url, viewport=dict(VIEWPORT))
    tools = Tools()
    try:
        await session.start()
        for task in tasks:
            emit("start", name=task["name"], page=task["page"])
            agent = BrowserUseAgent(session, tools)
            t0 = time.perf_counter()
            error = None
            try:
                await session.navigate_to(f"{ns.base}/realweb/{task['page']}.html")
                await asyncio.wait_for(run_steps(agent, steps_of(task["steps"])), 60.0)
            except TaskFailed as exc:
                error = str(exc)[:400]
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"[:400]
            ms = (time.perf_counter() - t0) * 1000
            emit("task", name=task["name"], page=task["page"], ms=ms, steps=agent.counters.actions, error=error,
                 wrong_element=None, silent_noops=None)
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.kill(), 10)
        chrome.close()


if __name__ == "__main__":
    asyncio.run(main())
