#!/usr/bin/env python3
"""An action's round trip against its CDP floor: the two cases issue 15 sets targets for.

    python benchmarks/click_settle.py                  # this checkout, 60 reps
    python benchmarks/click_settle.py --root /path/to/other/checkout --reps 60 --out before.json

One Chromium, pages served from 127.0.0.1:
- `static`: 50 buttons, each writes its number into a <p>; `act(click_element)` on one + the next state
  (screenshot off). The button clicked alternates, so every state differs from the one before.
- `fetch`: a button whose handler fetches a resource the server delays by 100 ms and writes the
  answer into the page; `act(click_element)` + next state, and whether that state shows the answer.
- floors with raw CDP on the same tab: press + release sent together, then a bare
  `DOMSnapshot.captureSnapshot` (for the fetch: after the request's `Network.loadingFinished`); and
  (for the input path) an awaited `mouseMoved` alone, and move + press + release sent together then awaited.
Medians, p95 and min over --reps after one warm-up; an action that returns an error is a failure,
never a sample. The engine's own phase timings (tab.last_timings) are reported as medians too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report

FETCH_MS = 100

STATIC = (
    "<!doctype html><title>static</title><body>"
    + "".join(f"<button onclick=\"document.getElementById('n').textContent='n{i}'\">b{i}</button>" for i in range(50))
    + "<p id=n>-</p></body>"
)
FETCH = (
    "<!doctype html><title>fetch</title><body><button id=go onclick=\"const k = ++window.k || (window.k = 1);"
    " fetch('/slow?k=' + k).then(r => r.text()).then(t => { document.getElementById('o').textContent = t })\">"
    "load</button><p id=o>none</p></body>"
)


def summary(samples: list[float]) -> dict[str, Any]:
    s = sorted(samples)
    if not s:
        return {"n": 0}
    return {
        "n": len(s),
        "p50_ms": report.median(s, 2),
        "p95_ms": round(report.percentile(s, 0.95) or 0.0, 2),
        "min_ms": round(s[0], 2),
    }


async def timed(reps: int, call: Callable[[int], Awaitable[str | None]]) -> tuple[list[float], list[str]]:
    """call(i) returns None on success or a failure text; one warm-up call is not recorded."""
    await call(-1)
    samples: list[float] = []
    failures: list[str] = []
    for i in range(reps):
        t0 = time.perf_counter()
        failure = await call(i)
        ms = (time.perf_counter() - t0) * 1000
        if failure is None:
            samples.append(ms)
        else:
            failures.append(failure[:200])
    return samples, failures


def index_of(state: dict[str, Any], text: str) -> int:
    for key, desc in state["element_index"].items():
        if text in json.dumps(desc):
            return int(key)
    raise LookupError(text)


async def run(reps: int) -> dict[str, Any]:
    from aiohttp import web

    import cdp_engine

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(FETCH_MS / 1000)
        return web.Response(text="ARRIVED-" + request.query.get("k", ""))

    app = web.Application()
    app.router.add_get("/static", lambda _r: web.Response(text=STATIC, content_type="text/html"))
    app.router.add_get("/fetch", lambda _r: web.Response(text=FETCH, content_type="text/html"))
    app.router.add_get("/slow", slow)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    out: dict[str, Any] = {}
    try:
        async with cdp_engine.launch() as browser:
            tab = await browser.new_tab()
            await tab.goto(base + "/static")
            state = await tab.state(screenshot=False)
            buttons = [index_of(state, f'"b{i}"') for i in (3, 4)]
            timings: list[dict[str, float]] = []

            async def click(i: int) -> str | None:
                state = await tab.act({"action": "click_element", "element_index": buttons[i % 2]}, screenshot=False)
                if "error" in state:
                    return str(state["error"])
                if f"n{3 + i % 2}" not in state["page_content"]:
                    return "the state does not show the click"
                timings.append(dict(tab.last_timings))
                return None

            samples, failures = await timed(reps, click)
            out["static click + next state"] = {**summary(samples), "failures": len(failures), "phases": phases(timings)}

            # The floor: press + release sent together, then a bare snapshot.
            x, y = await tab.evaluate(
                "(() => { const r = document.querySelectorAll('button')[3].getBoundingClientRect();"
                " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
            )
            s = tab.session
            mouse = {"x": x, "y": y, "button": "left", "clickCount": 1}

            async def floor(_i: int) -> str | None:
                await asyncio.gather(
                    s.send("Input.dispatchMouseEvent", {**mouse, "type": "mousePressed", "buttons": 1}),
                    s.send("Input.dispatchMouseEvent", {**mouse, "type": "mouseReleased", "buttons": 0}),
                )
                await s.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
                return None

            samples, _ = await timed(reps, floor)
            out["floor: press+release together + captureSnapshot"] = summary(samples)

            async def moved(i: int) -> str | None:
                await s.send(
                    "Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x + i % 2, "y": y, "button": "none"}
                )
                return None

            samples, _ = await timed(reps, moved)
            out["raw: awaited mouseMoved alone"] = summary(samples)

            async def pipelined(i: int) -> str | None:
                await asyncio.gather(
                    s.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x + i % 2, "y": y, "button": "none"}),
                    s.send("Input.dispatchMouseEvent", {**mouse, "type": "mousePressed", "buttons": 1}),
                    s.send("Input.dispatchMouseEvent", {**mouse, "type": "mouseReleased", "buttons": 0}),
                )
                return None

            samples, _ = await timed(reps, pipelined)
            out["raw: move+press+release together, all awaited"] = summary(samples)

            # A click whose handler fetches for FETCH_MS.
            await tab.goto(base + "/fetch")
            state = await tab.state(screenshot=False)
            go = index_of(state, '"load"')
            shown = 0
            timings = []

            async def fetch_click(_i: int) -> str | None:
                nonlocal shown
                k = await tab.evaluate("(window.k || 0) + 1")
                state = await tab.act({"action": "click_element", "element_index": go}, screenshot=False)
                if "error" in state:
                    return str(state["error"])
                if f"ARRIVED-{k}" in state["page_content"]:
                    shown += 1
                timings.append(dict(tab.last_timings))
                return None

            samples, failures = await timed(reps, fetch_click)
            out[f"click that fetches for {FETCH_MS} ms + next state"] = {
                **summary(samples), "failures": len(failures), "shows the result": f"{shown}/{reps + 1}",
                "phases": phases(timings),
            }  # fmt: skip

            # Its floor: press + release sent together, the request's loadingFinished, a bare snapshot (which
            # may or may not show the answer yet: the floor does not look).
            x, y = await tab.evaluate(
                "(() => { const r = document.getElementById('go').getBoundingClientRect();"
                " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
            )
            mouse = {"x": x, "y": y, "button": "left", "clickCount": 1}

            async def fetch_floor(_i: int) -> str | None:
                finished = s.wait_for("Network.loadingFinished")
                await asyncio.gather(
                    s.send("Input.dispatchMouseEvent", {**mouse, "type": "mousePressed", "buttons": 1}),
                    s.send("Input.dispatchMouseEvent", {**mouse, "type": "mouseReleased", "buttons": 0}),
                )
                await finished.wait(5)
                await s.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
                return None

            samples, _ = await timed(reps, fetch_floor)
            out["floor: fetch click, press+release together, loadingFinished, captureSnapshot"] = summary(samples)
    finally:
        await runner.cleanup()
    return out


def phases(timings: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for t in timings for k in t if isinstance(t[k], (int, float)) and not isinstance(t[k], bool)})
    return {k: round(statistics.median(t.get(k, 0.0) for t in timings), 2) for k in keys}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="checkout to measure")
    parser.add_argument("--reps", type=int, default=60)
    parser.add_argument("--out", type=Path, help="JSON results file")
    args = parser.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    result = asyncio.run(run(args.reps))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
