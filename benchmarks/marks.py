#!/usr/bin/env python3
"""What element boxes and marked screenshots cost (issue 19): medians and ratios from one run.

    PYTHONPATH=$PWD python benchmarks/marks.py            # 40 reps each, about a minute
    PYTHONPATH=$PWD python benchmarks/marks.py --reps 80

Writes benchmarks/results/marks.{json,md}. On the 1,000-element page of benchmarks/pages.py (gen-1000) at
1280x720, device scale 1:

- a state capture (the cache invalidated before each, untimed) without and with `tab.boxes()` after it,
  with the screenshot off and on; targets: boxes add at most 10%;
- a plain screenshot (`tab.screenshot_base64()`) and a marked one (`marks=True`) after a state without a
  screenshot (so a new capture plus the compositing in the isolated world), png and jpeg; target: marked at
  most 1.5x plain;
- the marks drawn on the state's own screenshot (`element_index.marked_state_screenshot()`: no new capture),
  and `marks=True` after a state with its screenshot on an unchanged page (that image is marked: one probe
  round trip and the compositing).

The two sides of each comparison alternate rep by rep, so a load change on the shared machine hits both.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

import pages  # noqa: E402

import cdp_engine  # noqa: E402

Call = Callable[[], Awaitable[Any]]


def summary(samples: list[float]) -> dict[str, Any]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 3),
        "p90_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))], 3),
        "min_ms": round(ordered[0], 3),
        "n": len(ordered),
    }


async def paired(a: Call, b: Call, reps: int, before: Call | None = None) -> tuple[list[float], list[float]]:
    """`reps` timings of a() and of b() in ms, alternating (which goes first alternates too), after a warm-up."""
    await a()
    await b()
    out_a: list[float] = []
    out_b: list[float] = []
    for i in range(reps):
        for call, out in ((a, out_a), (b, out_b)) if i % 2 == 0 else ((b, out_b), (a, out_a)):
            if before is not None:
                await before()
            t0 = time.perf_counter()
            await call()
            out.append((time.perf_counter() - t0) * 1000)
    return out_a, out_b


async def measure(reps: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    async with pages.serve_pages() as served, cdp_engine.launch(window_size=(1280, 720)) as browser:
        tab = await browser.new_tab()
        await tab.goto(served.url(pages.specs_by_id()["gen-1000"]))
        index = tab.element_index
        state = await tab.state(screenshot=False)
        boxes = await tab.boxes()
        results["page"] = {
            "elements_indexed": len(state["element_index"]),
            "boxes": len(boxes),
            "boxes_json_bytes": len(json.dumps(boxes)),
            "marks": len(await index.marks()),
        }

        async def invalidate() -> None:
            index.capturer.invalidate()

        for shot in (False, True):
            label = "screenshot on" if shot else "screenshot off"

            async def plain(shot: bool = shot) -> None:
                await tab.state(screenshot=shot)

            async def with_boxes(shot: bool = shot) -> None:
                await tab.state(screenshot=shot)
                await tab.boxes()

            a, b = await paired(plain, with_boxes, reps, invalidate)
            results[f"state ({label})"] = summary(a)
            results[f"state + boxes ({label})"] = summary(b)
        await tab.state(screenshot=True)
        results["boxes() alone"] = summary((await paired(tab.boxes, tab.boxes, reps))[0])
        await tab.state(screenshot=False)  # a state without an image: every marked screenshot is a new capture
        for fmt in ("png", "jpeg"):

            async def shot_plain(fmt: str = fmt) -> None:
                await tab.screenshot_base64(format=fmt)  # type: ignore[arg-type]

            async def shot_marked(fmt: str = fmt) -> None:
                await tab.screenshot_base64(format=fmt, marks=True)  # type: ignore[arg-type]

            a, b = await paired(shot_plain, shot_marked, reps)
            results[f"screenshot {fmt}"] = summary(a)
            results[f"screenshot {fmt}, marks=True"] = summary(b)
        await tab.state(screenshot=True)

        async def on_state() -> None:
            await index.marked_state_screenshot()

        results["marks on the state's own screenshot (png, no new capture)"] = summary(
            (await paired(on_state, on_state, reps))[0]
        )

        async def plain_png() -> None:
            await tab.screenshot_base64()

        async def marked_png() -> None:
            await tab.screenshot_base64(marks=True)  # the page is unchanged since the state: its image is reused

        a, b = await paired(plain_png, marked_png, reps)
        results["screenshot png (after a state with its screenshot)"] = summary(a)
        results["screenshot png, marks=True, page unchanged since the state (its image marked)"] = summary(b)
    return results


def ratios(r: dict[str, Any]) -> dict[str, float]:
    def ratio(a: str, b: str, key: str = "median_ms") -> float:
        return round(r[b][key] / r[a][key], 3)

    return {
        "boxes() alone / state (screenshot on), medians": round(
            r["boxes() alone"]["median_ms"] / r["state (screenshot on)"]["median_ms"], 5
        ),
        "state + boxes / state (screenshot off)": ratio("state (screenshot off)", "state + boxes (screenshot off)"),
        "state + boxes / state (screenshot on)": ratio("state (screenshot on)", "state + boxes (screenshot on)"),
        "marked / plain screenshot (png)": ratio("screenshot png", "screenshot png, marks=True"),
        "marked / plain screenshot (jpeg)": ratio("screenshot jpeg", "screenshot jpeg, marks=True"),
        # The fastest of each: what the work costs with the least of the shared machine's queueing in it.
        "marked / plain screenshot (png), minimums": ratio("screenshot png", "screenshot png, marks=True", "min_ms"),
        "marked / plain screenshot (jpeg), minimums": ratio(
            "screenshot jpeg", "screenshot jpeg, marks=True", "min_ms"
        ),
        "marks on the state's screenshot / plain screenshot (png)": ratio(
            "screenshot png", "marks on the state's own screenshot (png, no new capture)"
        ),
        "marked (page unchanged since the state) / plain screenshot (png)": ratio(
            "screenshot png (after a state with its screenshot)",
            "screenshot png, marks=True, page unchanged since the state (its image marked)",
        ),
    }


def markdown(out: dict[str, Any]) -> str:
    lines = [
        "# Element boxes and marked screenshots (benchmarks/marks.py)",
        "",
        f"{out['date']}, {out['machine']}, Chromium {out['chromium']}, {out['reps']} reps per figure, the two sides",
        "of each comparison alternating. Load average at start / end: "
        f"{out['loadavg_start']} / {out['loadavg_end']} (a shared machine: ratios say more than milliseconds).",
        "",
        f"Page: gen-1000 (benchmarks/pages.py), {out['page']['elements_indexed']} elements indexed in the viewport, "
        f"{out['page']['marks']} marks drawn; boxes as JSON: {out['page']['boxes_json_bytes']} bytes.",
        "",
        "| measurement | median ms | p90 ms | min ms |",
        "|---|---|---|---|",
    ]
    for name, row in out["results"].items():
        if isinstance(row, dict) and "median_ms" in row:
            lines.append(f"| {name} | {row['median_ms']} | {row['p90_ms']} | {row['min_ms']} |")
    lines += ["", "| ratio | value | target |", "|---|---|---|"]
    targets = {"state + boxes": "≤ 1.10", "boxes() alone": "≤ 0.10", "marked / plain": "≤ 1.5"}
    for name, value in out["ratios"].items():
        target = next((t for k, t in targets.items() if name.startswith(k)), "")
        lines.append(f"| {name} | {value} | {target} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    load_start = os.getloadavg()
    results = asyncio.run(measure(args.reps))
    page = results.pop("page")
    chromium = os.popen("/usr/bin/chromium --version 2>/dev/null").read().strip()
    out = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "chromium": chromium,
        "reps": args.reps,
        "loadavg_start": [round(x, 2) for x in load_start],
        "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "page": page,
        "results": results,
        "ratios": ratios(results),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "marks.json").write_text(json.dumps(out, indent=2) + "\n")
    (args.out / "marks.md").write_text(markdown(out))
    print(markdown(out))


if __name__ == "__main__":
    main()
