"""Playwright on the real-web suite's component tasks: the same scripted agent (tests/realweb/steps.py), reading
`page.locator("body").aria_snapshot()` and acting through role locators (`get_by_role(...).click()`, `.fill()`,
`.press_sequentially()`, `.select_option()`), which wait for the element to be actionable first.

Runs inside benchmarks/.venv-others with the system Chromium. Reads the tasks (JSON) from --tasks; for each one
emits `start` (the runner clears what the page submitted) and `task` (success is judged by the runner, from what
the page sent to its server). See benchmarks/realweb.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "realweb"))

from common import CHROMIUM, CHROMIUM_FLAGS, emit, package_version  # noqa: E402
from steps import RECORDER, Agent, Entry, TaskFailed, run_steps  # noqa: E402

VIEWPORT = {"width": 1280, "height": 720}  # the engine's default, which the suite runs at
ACTION_TIMEOUT_MS = 5000  # a locator action waits this long for its element to be actionable
# "- role "name" [checked] [level=2]: text" (aria_snapshot's YAML, one node a line); "- text: words" too.
_LINE = re.compile(r'^\s*- (?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<flags>(?: \[[^\]]*\])*)(?::\s*(?P<text>.*))?$')


# The centre of the biggest element that scrolls vertically and shows (else the viewport's centre).
SCROLL_TARGET = """(() => {
  let best = null, area = 0;
  for (const el of document.querySelectorAll('*')) {
    const s = getComputedStyle(el);
    if (!/(auto|scroll)/.test(s.overflowY) || el.scrollHeight <= el.clientHeight) continue;
    const r = el.getBoundingClientRect();
    const a = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
    if (a > area) { area = a; best = r; }
  }
  if (!best) return [innerWidth / 2, innerHeight / 2];
  return [Math.max(best.left, 0) + Math.min(best.width, innerWidth) / 2, Math.max(best.top, 0) + Math.min(best.height, innerHeight) / 2];
})()"""


class PlaywrightAgent(Agent):
    surface = "playwright"

    def __init__(self, page: Any) -> None:
        super().__init__("aria")
        self.page = page
        self.kinds: dict[str, tuple[str, str, int]] = {}

    async def entries(self) -> list[Entry]:
        snapshot = await self.page.locator("body").aria_snapshot()
        seen: dict[tuple[str, str], int] = {}
        out = []
        for line in snapshot.splitlines():
            m = _LINE.match(line)
            if not m:
                continue
            role = m.group("role")
            name = (m.group("name") or "").replace('\\"', '"')
            text = (m.group("text") or "").strip().strip('"')
            if role == "text":  # a text node: what a reader can click as the words it shows
                role, name = "generic", text
            elif not name and text and not text.startswith("/"):
                name = text
            n = seen.get((role, name), 0)
            seen[(role, name)] = n + 1
            key = f"{role}|{name}|{n}"
            self.kinds[key] = (role, name, n)
            checked = True if "[checked]" in (m.group("flags") or "") else (False if role in ("checkbox", "radio", "switch") else None)
            out.append(Entry(key, role, name, checked, None, "", text))
        return out

    async def locator(self, entry: Entry) -> Any:
        """The entry's element: by role and name (by its text for a text entry), among the visible matches
        (the aria snapshot also lists what is visually hidden, such as a library's original <select>), the
        n-th as the snapshot counted them, or the last visible one when fewer are visible."""
        role, name, n = self.kinds[entry.key]
        if role in ("generic", "paragraph", "text") or not name:
            base = self.page.get_by_text(name, exact=True)
        else:
            base = self.page.get_by_role(role, name=name, exact=True)
        visible = base.filter(visible=True)
        count = await visible.count()
        return visible.nth(min(n, count - 1)) if count else base.nth(n)

    async def _do(self, call: Any) -> str | None:
        try:
            await call
        except Exception as exc:  # Playwright's timeout or its refusal: the step failed
            return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        return None

    async def page_text(self) -> str:
        return str(await self.page.locator("body").inner_text())

    async def do_click(self, entry: Entry) -> str | None:
        return await self._do((await self.locator(entry)).click(timeout=ACTION_TIMEOUT_MS))

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        return await self._do((await self.locator(entry)).fill(text, timeout=ACTION_TIMEOUT_MS))

    async def do_type(self, entry: Entry, text: str) -> str | None:
        loc = await self.locator(entry)
        error = await self._do(loc.click(timeout=ACTION_TIMEOUT_MS))
        return error or await self._do(loc.press_sequentially(text, timeout=ACTION_TIMEOUT_MS))

    async def do_select(self, entry: Entry, option: str) -> str | None:
        loc = await self.locator(entry)
        try:
            tag = await loc.evaluate("e => e.localName", timeout=ACTION_TIMEOUT_MS)
        except Exception:
            return "not native"
        if tag != "select":
            return "not native"
        return await self._do(loc.select_option(label=option, timeout=ACTION_TIMEOUT_MS))

    async def do_scroll(self, entry: Entry | None) -> str | None:
        """A wheel over the biggest scrollable area (a list scrolls inside its box), as an agent scrolls what it
        looks at; when the view did not change, it reads again a moment later (a popup still opening), five
        times at most, before it says the end is reached."""
        before = await self.page.locator("body").aria_snapshot()
        x, y = await self.page.evaluate(SCROLL_TARGET)
        await self.page.mouse.move(x, y)
        await self.page.mouse.wheel(0, 600)
        for _ in range(5):
            await self.page.wait_for_timeout(100)
            if await self.page.locator("body").aria_snapshot() != before:
                return None
        return "at the end"

    async def evaluate(self, expression: str) -> Any:
        return await self.page.evaluate(expression)


def steps_of(raw: list[list[Any]]) -> list[tuple[Any, ...]]:
    """The tasks' steps as JSON carries them: a role set is {"set": [...]}."""
    return [tuple(set(a["set"]) if isinstance(a, dict) else a for a in step) for step in raw]


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", required=True)
    ap.add_argument("--tasks", required=True, help="JSON file: [{name, page, steps}]")
    ns = ap.parse_args()
    tasks = json.loads(Path(ns.tasks).read_text())
    from playwright.async_api import async_playwright

    emit("meta", system="playwright", version=package_version("playwright"))
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for task in tasks:
            context = await browser.new_context(viewport=VIEWPORT)
            await context.add_init_script(RECORDER)
            page = await context.new_page()
            emit("start", name=task["name"], page=task["page"])
            agent = PlaywrightAgent(page)
            t0 = time.perf_counter()
            error = None
            try:
                await page.goto(f"{ns.base}/realweb/{task['page']}.html", wait_until="load")
                await run_steps(agent, steps_of(task["steps"]))
            except TaskFailed as exc:
                error = str(exc)[:400]
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"[:400]
            ms = (time.perf_counter() - t0) * 1000
            emit("task", name=task["name"], page=task["page"], ms=ms, steps=agent.counters.actions, error=error,
                 wrong_element=agent.counters.wrong_element, silent_noops=agent.counters.silent_noops)
            await context.close()
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
