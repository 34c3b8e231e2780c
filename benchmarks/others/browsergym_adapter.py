"""BrowserGym: its observation extraction (browsergym-core) against a Playwright page, without a screenshot.

Runs inside benchmarks/.venv-others. `observation` is what BrowserEnv._get_obs does for the page:
mark elements, DOM snapshot, merged AX tree of all frames, focused element, extra properties, unmark.
`axtree_text` is `flatten_axtree_to_str` of that AX tree, the text an agent prompt usually holds.
BrowserGym pins an old Playwright; setup.sh installs it beside the current one (its extract functions
only use CDP sessions and evaluate, which the current Playwright has).
"""

from __future__ import annotations

import os
import sys
import time

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
    measure_sync,
    package_version,
    parse_args,
)


def main() -> None:
    """Measure each URL in a fresh browser; emit one line per metric."""
    ns = parse_args(__doc__ or "")
    wd = Watchdog(ns.timeout)
    emit(
        "system",
        name="browsergym",
        version=package_version("browsergym-core"),
        playwright=package_version("playwright"),
    )
    from browsergym.core.observation import (
        _post_extract,
        _pre_extract,
        extract_dom_extra_properties,
        extract_dom_snapshot,
        extract_focused_element_bid,
        extract_merged_axtree,
    )
    from browsergym.utils.obs import flatten_axtree_to_str
    from playwright.sync_api import sync_playwright

    timeout_ms = ns.timeout * 1000
    with sync_playwright() as pw:
        for url in ns.urls:
            markers = ns.markers.get(url, [])
            browser = None
            try:
                with wd.guard(url, "launch"):
                    t0 = time.perf_counter()
                    browser = pw.chromium.launch(
                        executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS[1:], timeout=timeout_ms
                    )
                    page = browser.new_page(viewport=VIEWPORT)
                    page.set_default_timeout(timeout_ms)
                    launch_ms = (time.perf_counter() - t0) * 1000
                with wd.guard(url, "navigate"):
                    t0 = time.perf_counter()
                    page.goto(url, wait_until="load", timeout=timeout_ms)
                    emit("page", url=url, load_ms=(time.perf_counter() - t0) * 1000, launch_ms=launch_ms)

                def observe(page=page):  # type: ignore[no-untyped-def]
                    _pre_extract(page, tags_to_mark="standard_html", lenient=False)
                    dom = extract_dom_snapshot(page)
                    axtree = extract_merged_axtree(page)
                    focused = extract_focused_element_bid(page)
                    scale = getattr(page, "_bgym_scale_factor", 1.0)
                    extra = extract_dom_extra_properties(dom, scale_factor=scale)
                    _post_extract(page)
                    return dom, axtree, focused, extra

                series = Series(url, "observation")
                try:
                    dom, axtree, _, extra = measure_sync(series, wd, observe, ns.reps, ns.warmup, ns.budget)
                    series.extra.update(
                        ax_nodes=len(axtree.get("nodes", [])),
                        dom_documents=len(dom.get("documents", [])),
                        elements=len(extra),
                    )
                    series.done()
                except Exception as exc:
                    emit("error", url=url, metric="observation", error=error_text(exc))
                    continue
                text_series = Series(url, "axtree_text")
                try:
                    text = measure_sync(
                        text_series,
                        wd,
                        lambda axtree=axtree: flatten_axtree_to_str(axtree),
                        ns.reps,
                        ns.warmup,
                    )
                    text_series.extra.update(describe_output(text, markers))
                    text_series.done()
                except Exception as exc:
                    emit("error", url=url, metric="axtree_text", error=error_text(exc))
            except Exception as exc:
                emit("error", url=url, metric=None, error=error_text(exc))
            finally:
                if browser is not None:
                    browser.close()
    emit("done")


if __name__ == "__main__":
    main()
