#!/usr/bin/env python3
"""What a live viewer costs an agent loop: step time with and without a viewer connected (issue 19 target ≤ 1.1×).

    python benchmarks/live_view.py                 # 4 rounds x 25 steps per case, a few minutes
    python benchmarks/live_view.py --rounds 2 --steps 10

Writes benchmarks/results/live_view.{json,md}. One agent step is what a protocol agent does each turn:
`act(click_element)` on a button that changes the page, returning the next state with a JPEG screenshot
(the Element Index protocol's state, as the harness and the HTTP service take it). The cases, interleaved
round by round so drift on this shared machine hits them alike:

- no view: the engine alone;
- view without a viewer: a LiveView started on the browser, no viewer connected (no screencast runs);
- viewer (socket): a viewer in another process reading every message (frames, log, overlay) at full speed;
- viewer (page): the live view page open in a second headless Chromium (rendering it, overlay on): what a
  person watching on the same machine costs, the viewer's own rendering included;
- slow viewer: a client in another process that connects and never reads (its frames must be dropped).

On a static task page and on an animated page, back to back (a tight loop: the view pauses its screencast
while a call runs and shows the state's own screenshot instead), and on the animated page with 0.3 s of
"model turn" between steps (animated+think: the screencast runs live between the steps; the think time is
not counted). Medians; the ratio is each case's median over "no view" of the same page.

Then why the view's frames are one capture at a time: raw screencasts (continuous at 1280 px and 10 fps, at
800 px and 5 fps, and one capture at a time) running during a think pause on the animated page and stopped when
the step begins, interleaved step by step in random order on one tab, against no screencast.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from aiohttp import web

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

import cdp_engine  # noqa: E402
from cdp_engine.index.element_index import ElementIndex  # noqa: E402
from cdp_engine.view import LiveView  # noqa: E402

TASK_PAGE = (
    "<!doctype html><html><body style='margin:0;font:14px sans-serif'><h1>Orders</h1>"
    "<button id=go onclick=\"document.getElementById('out').textContent = 'clicked ' + (++window.n || (window.n = 1));"
    " document.body.style.background = window.n % 2 ? '#fff' : '#f4f4ff'\">Submit</button><p id=out></p>"
    + "".join(f"<p>Row {i}: <a href='#r{i}'>open {i}</a> <input aria-label='note {i}'></p>" for i in range(25))
    + "</body></html>"
)
ANIMATED_PAGE = TASK_PAGE.replace(
    "<h1>Orders</h1>",
    "<style>@keyframes k{from{margin-left:0}to{margin-left:400px}}</style>"
    "<div style='width:80px;height:40px;background:red;animation:k 1s infinite alternate'></div><h1>Orders</h1>",
)
THINK = 0.3  # seconds of "model turn" between the steps of the +think page (the screencast runs then)
CASES = ("no view", "view without a viewer", "viewer (socket)", "viewer (page)", "slow viewer")

# A viewer in another process: reads every message (fast) or connects and never reads (slow).
CLIENT = """
import asyncio, sys, aiohttp
async def main(url, slow):
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(url, max_msg_size=0) as ws:
            await ws.send_str('{"overlay": true}')
            print("connected", flush=True)
            if slow:
                await asyncio.Event().wait()
            async for _msg in ws:
                pass
asyncio.run(main(sys.argv[1], sys.argv[2] == "slow"))
"""


async def _serve_pages() -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_get("/task", lambda _r: web.Response(text=TASK_PAGE, content_type="text/html"))
    app.router.add_get("/animated", lambda _r: web.Response(text=ANIMATED_PAGE, content_type="text/html"))
    app.router.add_get("/animated+think", lambda _r: web.Response(text=ANIMATED_PAGE, content_type="text/html"))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}"


async def _steps(tab: cdp_engine.Tab, n: int, think: float = 0.0) -> list[float]:
    """n agent steps; `think` seconds between them stand for the model's turn (not counted)."""
    index = ElementIndex.of(tab)
    state = await index.state(screenshot="jpeg")
    button = next(int(i) for i, e in state["element_index"].items() if e["tag"] == "button")
    times = []
    for _ in range(n):
        if think:
            await asyncio.sleep(think)
        t0 = time.perf_counter()
        after = await index.act({"action": "click_element", "element_index": button}, screenshot="jpeg")
        times.append((time.perf_counter() - t0) * 1000)
        assert "error" not in after, after.get("error")
    return times


async def _client(view: LiveView, mode: str) -> asyncio.subprocess.Process:
    url = f"ws://127.0.0.1:{view.port}/ws?token={view.token}"
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", CLIENT, url, mode, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    await proc.stdout.readline()
    await _until(lambda: bool(view.viewers) and bool(view.casts))
    return proc


async def _until(predicate: Any, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():  # noqa: ASYNC110 - a benchmark waiting for the view to see its viewer
            await asyncio.sleep(0.02)


async def _case(
    case: str, browser: cdp_engine.Browser, viewer_browser: cdp_engine.Browser, url: str, steps: int, options: dict[str, Any]
) -> dict[str, Any]:
    context = await browser.new_context()
    tab = await context.new_tab(url)
    view: LiveView | None = None
    proc: asyncio.subprocess.Process | None = None
    viewer_context = None
    try:
        if case != "no view":
            view = await LiveView(browser, **options).start()
        if view is not None and case in ("viewer (socket)", "slow viewer"):
            proc = await _client(view, "slow" if case == "slow viewer" else "fast")
        if view is not None and case == "viewer (page)":
            viewer_context = await viewer_browser.new_context()
            page = await viewer_context.new_tab(view.url)
            await page.evaluate("document.getElementById('overlay').click()")
            await _until(lambda: bool(view.viewers) and bool(view.casts))
        await _steps(tab, 3)  # warm: the first state, the caches
        frames0 = sum(c.frames for c in view.casts.values()) if view else 0
        sent0 = sum(v.sent for v in view.viewers) if view else 0
        times = await _steps(tab, steps, THINK if url.endswith("+think") else 0.0)
        frames = (sum(c.frames for c in view.casts.values()) if view else 0) - frames0
        viewer = next(iter(view.viewers), None) if view else None
        sent = (viewer.sent - sent0) if viewer else 0
        return {"times": times, "frames": frames, "sent": sent, "dropped": viewer.dropped if viewer else 0}
    finally:
        if proc is not None:
            proc.terminate()
            await proc.wait()
        if viewer_context is not None:
            await viewer_context.close()
        if view is not None:
            await view.close()
        await context.close()


DESIGNS = ("no screencast", "continuous 1280 px 10 fps", "continuous 800 px 5 fps", "one capture at a time 800 px 5 fps")


async def designs(browser: cdp_engine.Browser, url: str, steps: int) -> dict[str, list[float]]:
    """Why the view takes one capture at a time: raw screencasts during a 0.3 s think pause, stopped when the
    step begins, and the step time after it; the designs interleaved step by step in random order on one tab."""
    context = await browser.new_context()
    tab = await context.new_tab(url)
    session, loop = tab.session, asyncio.get_running_loop()
    now: dict[str, Any] = {"design": DESIGNS[0], "capturing": False, "last": 0.0}

    def ack(frame_session: Any) -> None:
        now["last"] = loop.time()
        session.send("Page.screencastFrameAck", {"sessionId": frame_session})

    def on_frame(params: dict[str, Any]) -> None:
        if now["design"].startswith("one capture"):
            session.send("Page.stopScreencast")
            now["capturing"] = False
            ack(params["sessionId"])
        else:
            fps = 10 if "10 fps" in now["design"] else 5
            loop.call_later(max(0.0, now["last"] + 1 / fps - loop.time()), ack, params["sessionId"])

    session.on("Page.screencastFrame", on_frame)
    index = ElementIndex.of(tab)
    state = await index.state(screenshot="jpeg")
    button = next(int(i) for i, e in state["element_index"].items() if e["tag"] == "button")
    order = list(DESIGNS) * steps
    random.Random(1).shuffle(order)
    times: dict[str, list[float]] = {d: [] for d in DESIGNS}
    for design in order:
        now["design"] = design
        size = 1280 if "1280" in design else 800
        params = {"format": "jpeg", "quality": 60, "maxWidth": size, "maxHeight": size * 5 // 8}
        if design.startswith("continuous"):
            session.send("Page.startScreencast", params)
            await asyncio.sleep(THINK)
            session.send("Page.stopScreencast")
        elif design.startswith("one capture"):
            end = time.perf_counter() + THINK
            while time.perf_counter() < end:
                if not now["capturing"]:
                    now["capturing"] = True
                    session.send("Page.startScreencast", params)
                await asyncio.sleep(0.2)
            if now["capturing"]:
                session.send("Page.stopScreencast")
                now["capturing"] = False
        else:
            await asyncio.sleep(THINK)
        t0 = time.perf_counter()
        await index.act({"action": "click_element", "element_index": button}, screenshot="jpeg")
        times[design].append((time.perf_counter() - t0) * 1000)
    await context.close()
    return times


async def main(
    rounds: int, steps: int, pages: tuple[str, ...] = ("task", "animated"), cases: tuple[str, ...] = CASES,
    options: dict[str, Any] | None = None,
    design_steps: int = 40,
) -> dict[str, Any]:
    options = options or {}
    runner, base = await _serve_pages()
    load_start = os.getloadavg()
    results: dict[str, dict[str, dict[str, Any]]] = {}
    async with cdp_engine.launch() as browser, cdp_engine.launch() as viewer_browser:
        for page in pages:
            results[page] = {case: {"times": [], "frames": 0, "sent": 0, "dropped": 0} for case in cases}
            for r in range(rounds):
                order = cases if r % 2 == 0 else tuple(reversed(cases))
                for case in order:
                    one = await _case(case, browser, viewer_browser, f"{base}/{page}", steps, options)
                    agg = results[page][case]
                    agg["times"] += one["times"]
                    for key in ("frames", "sent", "dropped"):
                        agg[key] += one[key]
                    print(f"{page:9} round {r + 1} {case:24} median {statistics.median(one['times']):7.1f} ms, frames {one['frames']}", flush=True)
        design_times = await designs(browser, f"{base}/animated", design_steps) if design_steps else {}
        version = browser.version.get("product", "")
    await runner.cleanup()
    summary: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}",
        "chromium": version,
        "load_start": load_start,
        "load_end": os.getloadavg(),
        "rounds": rounds,
        "steps_per_round": steps,
        "view_options": options,
        "pages": {},
    }
    for page, cases in results.items():
        base_median = statistics.median(cases["no view"]["times"])
        summary["pages"][page] = {
            case: {
                "median_ms": round(statistics.median(v["times"]), 2),
                "p90_ms": round(statistics.quantiles(v["times"], n=10)[-1], 2),
                "n": len(v["times"]),
                "ratio": round(statistics.median(v["times"]) / base_median, 3),
                "frames": v["frames"],
                "frames_sent": v["sent"],
                "frames_dropped": v["dropped"],
            }
            for case, v in cases.items()
        }
    if design_times:
        none = statistics.median(design_times[DESIGNS[0]])
        summary["designs"] = {
            d: {"median_ms": round(statistics.median(t), 2), "n": len(t), "ratio": round(statistics.median(t) / none, 3)}
            for d, t in design_times.items()
        }
    return summary


def write(summary: dict[str, Any]) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "live_view.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [
        "# Live view cost (benchmarks/live_view.py)",
        "",
        f"{summary['machine']}. Chromium: {summary['chromium']}. {summary['date']}.",
        f"Load average at start / end: {summary['load_start']} / {summary['load_end']} (a shared machine: read the ratios).",
        f"{summary['rounds']} rounds x {summary['steps_per_round']} steps per case, interleaved. One step: "
        "act(click_element) with the next state and its JPEG screenshot.",
        "",
        "Target (issue 19): an agent loop's step time with a live viewer connected ≤ 1.1× without.",
        "",
    ]
    for page, cases in summary["pages"].items():
        lines += [
            f"## {page} page",
            "",
            "| case | median ms | p90 ms | n | ratio to no view | screencast frames | frames sent to the viewer (screencast + state screenshots) | dropped |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for case, v in cases.items():
            lines.append(
                f"| {case} | {v['median_ms']} | {v['p90_ms']} | {v['n']} | {v['ratio']}× | {v['frames']} | "
                f"{v['frames_sent']} | {v['frames_dropped']} |"
            )
        lines.append("")
    if summary.get("designs"):
        lines += [
            "## Why one capture at a time (raw screencasts on the animated page)",
            "",
            "A screencast running during a 0.3 s think pause and stopped when the step begins; the step after it.",
            "The designs interleaved step by step in random order on one tab.",
            "",
            "| screencast during the pause | median ms | n | ratio to none |",
            "|---|---:|---:|---:|",
            *(f"| {d} | {v['median_ms']} | {v['n']} | {v['ratio']}× |" for d, v in summary["designs"].items()),
            "",
        ]
    (RESULTS / "live_view.md").write_text("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--pages", default="task,animated,animated+think")
    parser.add_argument("--cases", default=",".join(CASES), help="','-separated, of: " + ", ".join(CASES))
    parser.add_argument("--max-fps", type=float, help="LiveView(max_fps=...) (default: the view's)")
    parser.add_argument("--quality", type=int, help="LiveView(quality=...)")
    parser.add_argument("--max-width", type=int, help="LiveView(max_size=(w, w * 5 // 8))")
    parser.add_argument("--design-steps", type=int, default=40, help="steps per screencast design (0: skip them)")
    parser.add_argument("--no-write", action="store_true", help="print only (trying settings)")
    args = parser.parse_args()
    view_options: dict[str, Any] = {k: v for k, v in {"max_fps": args.max_fps, "quality": args.quality}.items() if v is not None}
    if args.max_width:
        view_options["max_size"] = (args.max_width, args.max_width * 5 // 8)
    result = asyncio.run(main(args.rounds, args.steps, tuple(args.pages.split(",")), tuple(args.cases.split(",")), view_options, args.design_steps))
    if args.no_write:
        print(json.dumps(result["pages"], indent=1))
        sys.exit(0)
    write(result)
    print((RESULTS / "live_view.md").read_text())
