"""browser-use: the DOM state it gives the model, without any LLM and without a screenshot.

Runs inside benchmarks/.venv-others. The adapter launches Chromium itself and browser-use connects to
it over CDP. One measurement is `get_browser_state_summary(include_screenshot=False)` plus
`dom_state.llm_representation()`, i.e. everything between "agent wants the page" and "text for the model".
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (
    VIEWPORT,
    LaunchedChromium,
    Series,
    Watchdog,
    describe_output,
    emit,
    error_text,
    package_version,
    parse_args,
    quiet_browser_use,
    stop_browser_use,
)


async def main() -> None:
    """Measure each URL in a fresh Chromium; emit one line per metric."""
    ns = parse_args(__doc__ or "")
    quiet_browser_use(ns.timeout)
    wd = Watchdog(ns.timeout)
    emit("system", name="browser-use", version=package_version("browser-use"))
    from browser_use import BrowserSession

    for url in ns.urls:
        markers = ns.markers.get(url, [])
        chrome: LaunchedChromium | None = None
        session = None
        try:
            with wd.guard(url, "launch"):
                t0 = time.perf_counter()
                chrome = LaunchedChromium(ns.timeout)
                session = BrowserSession(cdp_url=chrome.http_url, viewport=dict(VIEWPORT))
                await session.start()
                launch_ms = (time.perf_counter() - t0) * 1000
            with wd.guard(url, "navigate"):
                t0 = time.perf_counter()
                await session.navigate_to(url)
                emit("page", url=url, load_ms=(time.perf_counter() - t0) * 1000, launch_ms=launch_ms)
            series = Series(url, "dom_state")
            text, elements = "", 0
            for warm in series.runs(ns.warmup, ns.reps, ns.budget):
                with wd.guard(url, "dom_state"):
                    t0 = time.perf_counter()
                    state = await session.get_browser_state_summary(include_screenshot=False)
                    assert state.dom_state is not None
                    text = state.dom_state.llm_representation()
                    ms = (time.perf_counter() - t0) * 1000
                error = getattr(state, "state_error", None)
                if error:  # a state that says it failed is a failure, never a timed sample
                    series.fail(f"state_error: {error}")
                    continue
                series.add(ms, warm)
                elements = len(state.dom_state.selector_map)
            series.extra.update(describe_output(text, markers), elements=elements)
            series.done()
        except Exception as exc:
            emit("error", url=url, metric=None, error=error_text(exc))
        finally:
            await stop_browser_use(session, chrome)
    emit("done")


if __name__ == "__main__":
    asyncio.run(main())
