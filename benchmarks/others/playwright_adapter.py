"""Playwright: `page.locator("body").aria_snapshot()` and the AI-mode snapshot playwright-mcp reads.

Runs inside benchmarks/.venv-others. Uses the system Chromium (never `playwright install`). The AI mode
is `page._snapshot_for_ai()` in the versions that have it, else `page.aria_snapshot(mode="ai")`.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    VIEWPORT,
    Series,
    Watchdog,
    describe_output,
    emit,
    error_text,
    package_version,
    parse_args,
)


async def ai_snapshot(page: Any, timeout_ms: float) -> tuple[str, str]:
    """The AI-mode snapshot text and the API that produced it."""
    if hasattr(page, "_snapshot_for_ai"):
        res = await page._snapshot_for_ai(timeout=timeout_ms)  # noqa: SLF001 - what playwright-mcp calls
        text = res.get("full", "") if isinstance(res, dict) else str(res)
        return text, "page._snapshot_for_ai()"
    return await page.aria_snapshot(mode="ai", timeout=timeout_ms), 'page.aria_snapshot(mode="ai")'


async def main() -> None:
    """Measure each URL in a fresh browser; emit one line per metric."""
    ns = parse_args(__doc__ or "")
    wd = Watchdog(ns.timeout)
    emit("system", name="playwright", version=package_version("playwright"))
    from playwright.async_api import async_playwright

    timeout_ms = ns.timeout * 1000
    async with async_playwright() as pw:
        for url in ns.urls:
            markers = ns.markers.get(url, [])
            browser = None
            try:
                with wd.guard(url, "launch"):
                    t0 = time.perf_counter()
                    browser = await pw.chromium.launch(
                        executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS[1:], timeout=timeout_ms
                    )
                    page = await browser.new_page(viewport=VIEWPORT)
                    launch_ms = (time.perf_counter() - t0) * 1000
                with wd.guard(url, "navigate"):
                    t0 = time.perf_counter()
                    await page.goto(url, wait_until="load", timeout=timeout_ms)
                    emit("page", url=url, load_ms=(time.perf_counter() - t0) * 1000, launch_ms=launch_ms)

                async def aria(page: Any = page) -> tuple[str, str]:
                    text = await page.locator("body").aria_snapshot(timeout=timeout_ms)
                    return text, 'page.locator("body").aria_snapshot()'

                async def ai(page: Any = page) -> tuple[str, str]:
                    return await ai_snapshot(page, timeout_ms)

                for metric, fn in (("aria_snapshot", aria), ("ai_snapshot", ai)):
                    series = Series(url, metric)
                    try:
                        text, api = "", ""
                        for warm in series.runs(ns.warmup, ns.reps, ns.budget):
                            with wd.guard(url, metric):
                                t0 = time.perf_counter()
                                text, api = await fn()
                                series.add((time.perf_counter() - t0) * 1000, warm)
                        series.extra.update(describe_output(text, markers), api=api)
                        series.done()
                    except Exception as exc:
                        emit("error", url=url, metric=metric, error=error_text(exc))
            except Exception as exc:
                emit("error", url=url, metric=None, error=error_text(exc))
            finally:
                if browser is not None:
                    await browser.close()
    emit("done")


if __name__ == "__main__":
    asyncio.run(main())
