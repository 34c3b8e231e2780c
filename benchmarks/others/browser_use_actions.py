"""browser-use: each action case through its tools, then the browser state an agent reads next (no LLM).

Runs inside benchmarks/.venv-others. The adapter launches Chromium itself; browser-use connects over CDP.
One timed run is `Tools.registry.execute_action(...)` (what the agent's act() calls per action) plus
`get_browser_state_summary(include_screenshot=False)` and `dom_state.llm_representation()`. An ActionResult
with an error is a failure. See actions.py for the cases and the runner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from collections.abc import Awaitable, Callable

from action_cases import SCROLL_PX, Case, CaseRecord, Failed, by_id, parse_args, run_case, shows
from common import VIEWPORT, LaunchedChromium, Watchdog, emit, package_version, quiet_browser_use


def index_of(state: Any, case: Case) -> int:
    """The selector_map index of the case's element (matched by its id attribute)."""
    want = case.selector.lstrip("#")
    for index, node in state.dom_state.selector_map.items():
        if (node.attributes or {}).get("id") == want:
            return int(index)
    raise LookupError(f"{case.selector} not in browser-use's selector_map")


def action_of(case: Case, state: Any, k: int, base: str) -> tuple[str, dict[str, Any]]:
    """The tool name and parameters of the k-th action."""
    if case.kind == "click":
        return "click", {"index": index_of(state, case)}
    if case.kind == "type":
        return "input", {"index": index_of(state, case), "text": case.text(k), "clear": True}
    if case.kind == "select":
        return "select_dropdown", {"index": index_of(state, case), "text": case.option(k)}
    if case.kind == "scroll":
        return "scroll", {"down": True, "pages": SCROLL_PX / VIEWPORT["height"]}
    return "navigate", {"url": case.url(base, k), "new_tab": False}


def steps(
    session: Any, tools: Any, case: Case, ns: Any
) -> tuple[Callable[[], Awaitable[None]], Callable[[int], Awaitable[tuple[float, bool]]]]:
    """The case's setup and its timed step (tool action + browser state) for run_case."""
    state: Any = None

    async def setup() -> None:
        nonlocal state
        await session.navigate_to(case.url(ns.base))
        state = await session.get_browser_state_summary(include_screenshot=False)

    async def step(k: int) -> tuple[float, bool]:
        nonlocal state
        name, params = action_of(case, state, k, ns.base)
        t0 = time.perf_counter()
        result = await tools.registry.execute_action(name, params, browser_session=session)
        state = await session.get_browser_state_summary(include_screenshot=False)
        text = state.dom_state.llm_representation()
        ms = (time.perf_counter() - t0) * 1000
        error = getattr(result, "error", None) or getattr(state, "state_error", None)
        if error:
            raise Failed(str(error))
        return ms, shows(text, case.expected(k))

    return setup, step


async def main() -> None:
    ns = parse_args(__doc__ or "")
    quiet_browser_use(ns.timeout)
    logging.disable(logging.WARNING)
    wd = Watchdog(ns.timeout)
    emit("system", name="browser-use", version=package_version("browser-use"))
    from browser_use import BrowserSession
    from browser_use.tools.service import Tools

    chrome = LaunchedChromium(ns.timeout)
    session = BrowserSession(cdp_url=chrome.http_url, viewport=dict(VIEWPORT))
    tools = Tools()

    try:
        await session.start()
        for case in (by_id()[c] for c in ns.cases):
            await run_case(CaseRecord("browser-use", case.id), ns, wd, *steps(session, tools, case, ns))
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.kill(), 10)
        chrome.close()
    emit("done")


if __name__ == "__main__":
    asyncio.run(main())
