"""Playwright: each action case, then `page.locator("body").aria_snapshot()` (the state an agent reads).

Runs inside benchmarks/.venv-others with the system Chromium. `--path mouse` acts like a coordinate agent
(page.mouse / page.keyboard at points measured beforehand), `--path locator` through locators, which wait
for the element to be actionable first. See actions.py for the cases and the runner.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from collections.abc import Awaitable, Callable

from action_cases import SCROLL_PX, Case, CaseRecord, by_id, parse_args, run_case, shows
from common import CHROMIUM, CHROMIUM_FLAGS, VIEWPORT, Watchdog, emit, package_version


async def act(page: Any, case: Case, k: int, base: str, path: str, point: tuple[float, float]) -> None:
    """The k-th action of a case through the chosen path."""
    if case.kind == "click":
        if path == "mouse":
            await page.mouse.click(*point)
        else:
            await page.locator(case.selector).click()
    elif case.kind == "type":
        if path == "mouse":
            await page.keyboard.press("ControlOrMeta+a")
            await page.keyboard.insert_text(case.text(k))
        else:
            await page.locator(case.selector).fill(case.text(k))
    elif case.kind == "select":
        await page.locator(case.selector).select_option(case.option(k))
    elif case.kind == "scroll":
        if path == "mouse":
            await page.mouse.wheel(0, SCROLL_PX)
        else:
            await page.evaluate(f"window.scrollBy(0, {SCROLL_PX})")
    else:
        await page.goto(case.url(base, k), wait_until="load")


async def setup(page: Any, case: Case, base: str, path: str) -> tuple[float, float]:
    """Load the case's page; the point to click (mouse path); the field focused (mouse path's typing)."""
    await page.goto(case.url(base), wait_until="load")
    point = (0.0, 0.0)
    if case.selector:
        box = await page.locator(case.selector).bounding_box()
        point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    if case.kind == "type" and path == "mouse":
        await page.focus(case.selector)
    if case.kind == "scroll":
        await page.mouse.move(
            VIEWPORT["width"] / 2, VIEWPORT["height"] / 2
        )  # the wheel scrolls what is under it
    return point


def steps(
    page: Any, case: Case, ns: Any
) -> tuple[Callable[[], Awaitable[None]], Callable[[int], Awaitable[tuple[float, bool]]]]:
    """The case's setup and its timed step (action + aria snapshot) for run_case."""
    point = (0.0, 0.0)

    async def setup_case() -> None:
        nonlocal point
        point = await setup(page, case, ns.base, ns.path)

    async def step(k: int) -> tuple[float, bool]:
        t0 = time.perf_counter()
        await act(page, case, k, ns.base, ns.path, point)
        text = await page.locator("body").aria_snapshot()
        return (time.perf_counter() - t0) * 1000, shows(text, case.expected(k))

    return setup_case, step


async def main() -> None:
    ns = parse_args(__doc__ or "", path={"choices": ["mouse", "locator"], "default": "mouse"})
    name = f"playwright-{ns.path}"
    wd = Watchdog(ns.timeout)
    emit("system", name=name, version=package_version("playwright"))
    from playwright.async_api import async_playwright

    timeout_ms = ns.timeout * 1000
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS[1:], timeout=timeout_ms
        )
        page = await browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(timeout_ms)
        try:
            for case in (by_id()[c] for c in ns.cases):
                await run_case(CaseRecord(name, case.id), ns, wd, *steps(page, case, ns))
        finally:
            await browser.close()
    emit("done")


if __name__ == "__main__":
    asyncio.run(main())
