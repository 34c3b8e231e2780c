"""The size of what other systems give a model, for benchmarks/result_sizes.py (no timings).

Runs inside benchmarks/.venv-others. Per URL, in one Chromium per system at the engine's 1280x720 viewport:
Playwright's `page.locator("body").aria_snapshot()` and its AI-mode snapshot (what playwright-mcp reads), and
browser-use's state as its agent gives it to the model (`dom_state.llm_representation()`, viewport-scoped by
browser-use itself). Emits `size` lines: url, system, output, chars (or an `error` line). RESULT_SIZES_SYSTEM=
playwright or browser-use runs one system only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    LaunchedChromium,
    Watchdog,
    emit,
    error_text,
    package_version,
    parse_args,
    stop_browser_use,
)
from playwright_adapter import ai_snapshot

VIEWPORT = {"width": 1280, "height": 720}


async def playwright_sizes(urls: list[str], wd: Watchdog, timeout_ms: float) -> None:
    from playwright.async_api import async_playwright

    emit("system", name="playwright", version=package_version("playwright"))
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS[1:], timeout=timeout_ms
        )
        try:
            for url in urls:
                page: Any = None
                try:
                    page = await browser.new_page(viewport=VIEWPORT)
                    with wd.guard(url, "navigate"):
                        await page.goto(url, wait_until="load", timeout=timeout_ms)
                    with wd.guard(url, "aria_snapshot"):
                        aria = await page.locator("body").aria_snapshot(timeout=timeout_ms)
                    emit("size", url=url, system="playwright", output='aria_snapshot (locator("body"))', chars=len(aria))
                    with wd.guard(url, "ai_snapshot"):
                        text, api = await ai_snapshot(page, timeout_ms)
                    emit("size", url=url, system="playwright", output=f"AI snapshot ({api})", chars=len(text))
                except Exception as exc:
                    emit("error", url=url, system="playwright", error=error_text(exc))
                finally:
                    if page is not None:
                        with contextlib.suppress(Exception):
                            await page.close()
        finally:
            await browser.close()


async def browser_use_sizes(urls: list[str], wd: Watchdog, timeout: float) -> None:
    from browser_use import BrowserSession

    emit("system", name="browser-use", version=package_version("browser-use"))
    for url in urls:
        chrome: LaunchedChromium | None = None
        session = None
        try:
            with wd.guard(url, "launch"):
                chrome = LaunchedChromium(timeout, extra_flags=[f"--window-size={VIEWPORT['width']},{VIEWPORT['height']}"])
                session = BrowserSession(cdp_url=chrome.http_url, viewport=dict(VIEWPORT))
                await session.start()
            with wd.guard(url, "navigate"):
                await session.navigate_to(url)
            with wd.guard(url, "dom_state"):
                state = await session.get_browser_state_summary(include_screenshot=False)
                assert state.dom_state is not None
                text = state.dom_state.llm_representation()
            emit(
                "size", url=url, system="browser-use", output="state (dom_state.llm_representation())", chars=len(text),
                preview=text[:160] if len(text) < 400 else None,
            )  # fmt: skip
        except Exception as exc:
            emit("error", url=url, system="browser-use", error=error_text(exc))
        finally:
            await stop_browser_use(session, chrome)


async def main() -> None:
    ns = parse_args(__doc__ or "")
    from common import quiet_browser_use

    quiet_browser_use(ns.timeout)
    wd = Watchdog(ns.timeout)
    # One system per process when SYSTEM says so: a timeout ends the process, and should lose only that system.
    system = os.environ.get("RESULT_SIZES_SYSTEM", "")
    if system in ("", "playwright"):
        await playwright_sizes(ns.urls, wd, ns.timeout * 1000)
    if system in ("", "browser-use"):
        await browser_use_sizes(ns.urls, wd, ns.timeout)
    emit("done")


if __name__ == "__main__":
    asyncio.run(main())
