"""Playwright's aria snapshot after each change of the incremental-state benchmark (benchmarks/incremental.py).

Runs inside benchmarks/.venv-others with the system Chromium. Arguments: --urls (JSON list), --reps, --warmup.
Emits one `sample` line per change and repetition: {url, change, ms} (a failed snapshot: {error}).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import CHROMIUM, CHROMIUM_FLAGS, emit, package_version  # noqa: E402
from incremental_cases import CHANGES, NEXT_FRAME, SETUP  # noqa: E402

VIEWPORT = {"width": 1280, "height": 720}  # the engine's default, which the benchmark runs at


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", required=True)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--warmup", type=int, default=2)
    ns = parser.parse_args()
    from playwright.async_api import async_playwright

    emit("system", name="playwright", version=package_version("playwright"))
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS[1:])
        for url in json.loads(ns.urls):
            page = await browser.new_page(viewport=VIEWPORT)
            await page.goto(url, wait_until="load", timeout=120_000)
            await page.evaluate(SETUP)
            for change, (_what, script) in CHANGES.items():
                for rep in range(ns.warmup + ns.reps):
                    if script == "insertText":
                        await page.keyboard.insert_text("a")
                    else:
                        await page.evaluate(script)
                    await page.evaluate(NEXT_FRAME)
                    t0 = time.perf_counter()
                    try:
                        await page.locator("body").aria_snapshot(timeout=120_000)
                    except Exception as exc:  # a failure is reported, never timed
                        emit("sample", url=url, change=change, error=f"{type(exc).__name__}: {exc}"[:300])
                        continue
                    if rep >= ns.warmup:
                        emit("sample", url=url, change=change, ms=(time.perf_counter() - t0) * 1000)
            await page.close()
        await browser.close()


if __name__ == "__main__":
    asyncio.run(main())
