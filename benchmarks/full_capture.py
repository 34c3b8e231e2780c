#!/usr/bin/env python3
"""The element index's full capture on the 1,000-row page, for comparing two checkouts as whole processes.

    python benchmarks/full_capture.py                          # this checkout
    PYTHONPATH=/path/to/other python benchmarks/full_capture.py --root /path/to/other

Serves benchmarks/pages.py's rows page from 127.0.0.1, captures the state --runs times with the cache invalidated
(screenshot off) and prints the checkout measured and the median of all but the first five, in ms. Run it in
pairs, before and after in turn (farm-bench --vs does), since one machine's speed drifts between runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from aiohttp import web


async def main(root: str, rows: int, runs: int) -> None:
    sys.path.insert(0, root)
    sys.path.insert(0, str(Path(root) / "benchmarks"))
    import pages  # the checkout's own page

    import cdp_engine

    body = pages.rows_page(rows)

    async def page(_request: web.Request) -> web.Response:
        return web.Response(body=body, content_type="text/html")

    app = web.Application()
    app.router.add_get("/", page)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/"
    try:
        async with await cdp_engine.launch() as browser:
            tab = await browser.new_tab()
            await tab.goto(url, wait_until="load")
            index = cdp_engine.ElementIndex.of(tab)
            times = []
            for _ in range(runs):
                index.capturer.invalidate()
                start = time.perf_counter()
                await tab.state(screenshot=False)
                times.append((time.perf_counter() - start) * 1000)
            print(cdp_engine.__file__, round(statistics.median(times[5:]), 2))
    finally:
        await runner.cleanup()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent), help="checkout to measure")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=45)
    args = ap.parse_args()
    asyncio.run(main(args.root, args.rows, args.runs))
