#!/usr/bin/env python3
"""What a screenshot costs: the raw CDP ways to get one, and the engine's, in one run on one machine.

    python benchmarks/screenshot.py              # raw CDP (30 each) + engine (60 each), a few minutes
    python benchmarks/screenshot.py --reps 60 --engine-reps 60 --skip-alternatives

Writes benchmarks/results/screenshot.{json,md}. Everything at a 1280x720 viewport, device scale 1.

- raw: the minimal client of floor.py against /usr/bin/chromium as the engine launches it (new headless):
  one `Runtime.evaluate` and one animation frame (the frame clock), `Page.captureScreenshot` per format and
  option on a static page and on a page changed just before the call, a 64x36 viewport (what is left
  when there is nothing to encode), and `Page.startScreencast` (a DOM change until its frame arrives).
- alternatives (not what the engine runs; --skip-alternatives leaves them out): the same Chromium with
  --disable-frame-rate-limit (and how fast an animated page's frames then run), and the old headless shell
  (/usr/bin/chromium-headless-shell, Debian's chromium-headless-shell) with begin-frame control, where
  `HeadlessExperimental.beginFrame` draws a frame on demand and returns its screenshot.
- engine: `Tab.screenshot_base64()` (png) and jpeg, `ElementIndex.state()` on a small page with the
  screenshot off and on, on a page changed just before (a fresh capture) and unchanged (the reused one),
  and a click that changes the page with its next state.

The machine is shared with other test runs: every figure is a median of many, and ratios against the raw
floor measured in the same run say more than the milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE)]  # the engine comes from PYTHONPATH: its worker process gets the tree to measure

import floor  # noqa: E402

WIDTH, HEIGHT = 1280, 720
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"

# A text page that fills the viewport (so encoding has real work), with one element whose colour changes.
ROWS = "".join(
    f"<p>Paragraph {i}: lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
    f"<a href='/x{i}'>link {i}</a> <button>Button {i}</button></p>"
    for i in range(40)
)
TEXT_PAGE = (
    "<!doctype html><html><body style='margin:0;font:14px sans-serif'>"
    f"<div id=box style='height:40px;background:rgb(0,0,255)'></div>{ROWS}</body></html>"
)
# A small task page like MiniWoB's click-button: a few elements, one that changes the page when clicked.
SMALL_PAGE = (
    "<!doctype html><html><body style='margin:0;font:14px sans-serif'><div id=query>Click on the Submit button."
    "</div><div id=area><button id=other>Cancel</button> <button id=go onclick=\"document.getElementById('out')"
    ".textContent = 'clicked ' + (++window.n || (window.n = 1))\">Submit</button><p id=out></p></div>"
    "</body></html>"
)
ANIMATED_PAGE = (
    "<!doctype html><html><body><style>@keyframes k{from{margin-left:0}to{margin-left:500px}}</style>"
    "<div style='width:100px;height:100px;background:red;animation:k 1s infinite alternate'></div></body></html>"
)
CHANGE = "document.getElementById('box').style.background = `rgb(${Date.now() % 256},0,0)`"
ONE_FRAME = "new Promise(r => requestAnimationFrame(() => r(1)))"
RAF_RATE = (
    "new Promise(r => { let n = 0; const t = performance.now(); const f = () => { n++;"
    " if (performance.now() - t < 1000) requestAnimationFrame(f); else r(n); }; requestAnimationFrame(f); })"
)

RAW_SHOTS: dict[str, dict[str, Any]] = {
    "png": {"format": "png"},
    "png, optimizeForSpeed": {"format": "png", "optimizeForSpeed": True},
    "jpeg 80": {"format": "jpeg", "quality": 80},
    "jpeg 80, optimizeForSpeed": {"format": "jpeg", "quality": 80, "optimizeForSpeed": True},
    "webp 80, optimizeForSpeed": {"format": "webp", "quality": 80, "optimizeForSpeed": True},
    "png, clip at scale 0.5 (640x360)": {
        "format": "png",
        "optimizeForSpeed": True,
        "clip": {"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "scale": 0.5},
    },
}


def data_url(html: str) -> str:
    from urllib.parse import quote

    return "data:text/html," + quote(html)


def summary(samples: list[float], **extra: Any) -> dict[str, Any]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))], 2),
        "min_ms": round(ordered[0], 2),
        "n": len(ordered),
        **extra,
    }


async def timed(call: Callable[[], Awaitable[Any]], reps: int, before: Callable[[], Awaitable[Any]] | None = None) -> list[float]:
    """`reps` timings of call() in ms, after one untimed warm-up; before() runs untimed ahead of each."""
    await call()
    out = []
    for _ in range(reps):
        if before is not None:
            await before()
        t0 = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


# ----- raw CDP ----------------------------------------------------------------------------------------------


async def raw_page(flags: list[str] | None = None, binary: str | None = None) -> tuple[floor.Browser, str]:
    if binary is not None:
        floor.CHROMIUM = binary
    browser = await floor.launch("websocket", extra_flags=flags or [])
    _, session = await floor.first_page_session(browser)
    conn = browser.conn
    await conn.send("Page.enable", session=session)
    await conn.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    return browser, session


async def load(conn: floor.Connection, session: str, html: str) -> None:
    loaded = conn.wait_event("Page.loadEventFired", session)
    await conn.send("Page.navigate", {"url": data_url(html)}, session=session)
    await asyncio.wait_for(loaded, 30)
    await conn.send("Runtime.evaluate", {"expression": ONE_FRAME, "awaitPromise": True}, session=session)


async def measure_raw(reps: int, flags: list[str] | None = None) -> dict[str, Any]:
    browser, s = await raw_page(flags)
    conn = browser.conn
    out: dict[str, Any] = {}
    try:
        await load(conn, s, TEXT_PAGE)

        async def change() -> None:
            await conn.send("Runtime.evaluate", {"expression": CHANGE}, session=s)

        out["Runtime.evaluate(1)"] = summary(
            await timed(lambda: conn.send("Runtime.evaluate", {"expression": "1"}, session=s), reps)
        )
        out["one animation frame (awaited rAF)"] = summary(
            await timed(lambda: conn.send("Runtime.evaluate", {"expression": ONE_FRAME, "awaitPromise": True}, session=s), reps)
        )
        for name, params in RAW_SHOTS.items():
            size = len((await conn.send("Page.captureScreenshot", params, session=s))["data"]) * 3 // 4

            def shot(params: dict[str, Any] = params) -> Awaitable[Any]:
                return conn.send("Page.captureScreenshot", params, session=s)

            out[f"captureScreenshot {name}, static"] = summary(await timed(shot, reps), bytes=size)
            out[f"captureScreenshot {name}, just changed"] = summary(await timed(shot, reps, change), bytes=size)
        # Screencast: from a DOM change to the frame that shows it.
        for fmt in ("png", "jpeg"):
            await conn.send("Page.startScreencast", {"format": fmt, "quality": 80}, session=s)
            first = await asyncio.wait_for(conn.wait_event("Page.screencastFrame", s), 10)
            await conn.send("Page.screencastFrameAck", {"sessionId": first["sessionId"]}, session=s)
            samples = []
            for _ in range(reps):
                arrived = conn.wait_event("Page.screencastFrame", s)
                t0 = time.perf_counter()
                await change()
                frame = await asyncio.wait_for(arrived, 10)
                samples.append((time.perf_counter() - t0) * 1000)
                await conn.send("Page.screencastFrameAck", {"sessionId": frame["sessionId"]}, session=s)
            await conn.send("Page.stopScreencast", session=s)
            out[f"screencast {fmt}: DOM change to its frame"] = summary(samples)
        # The frame floor: a tiny viewport leaves nothing to raster or encode.
        await conn.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 64, "height": 36, "deviceScaleFactor": 1, "mobile": False},
            session=s,
        )
        out["captureScreenshot png at a 64x36 viewport, static"] = summary(
            await timed(lambda: conn.send("Page.captureScreenshot", {"format": "png"}, session=s), reps)
        )
        await load(conn, s, ANIMATED_PAGE)
        rate = await conn.send("Runtime.evaluate", {"expression": RAF_RATE, "awaitPromise": True}, session=s)
        out["animation frames per second on an animated page"] = {"value": rate["result"]["value"]}
    finally:
        await browser.close()
    return out


async def measure_begin_frame(reps: int) -> dict[str, Any]:
    """The old headless shell with begin-frame control: a frame, and its screenshot, only on demand."""
    saved_binary, saved_flags = floor.CHROMIUM, list(floor.CHROMIUM_FLAGS)
    floor.CHROMIUM = HEADLESS_SHELL
    floor.CHROMIUM_FLAGS = [f for f in saved_flags if f != "--headless"]
    out: dict[str, Any] = {}
    try:
        browser = await floor.launch(
            "websocket", extra_flags=["--enable-begin-frame-control", "--run-all-compositor-stages-before-draw"]
        )
    finally:
        floor.CHROMIUM, floor.CHROMIUM_FLAGS = saved_binary, saved_flags
    conn = browser.conn
    try:
        target = await conn.send(
            "Target.createTarget",
            {"url": "about:blank", "enableBeginFrameControl": True, "width": WIDTH, "height": HEIGHT},
        )
        s = (await conn.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}))["sessionId"]
        await conn.send("Page.enable", session=s)
        navigated = conn.send("Page.navigate", {"url": data_url(TEXT_PAGE)}, session=s)
        for _ in range(10):  # nothing renders (and nothing loads to its end) without frames
            await conn.send("HeadlessExperimental.beginFrame", {}, session=s)
        await navigated

        async def change() -> None:
            await conn.send("Runtime.evaluate", {"expression": CHANGE}, session=s)

        for fmt in ("png", "jpeg"):
            params = {"screenshot": {"format": fmt, "optimizeForSpeed": True}}

            def frame(params: dict[str, Any] = params) -> Awaitable[Any]:
                return conn.send("HeadlessExperimental.beginFrame", params, session=s)

            out[f"beginFrame + {fmt} screenshot, static"] = summary(await timed(frame, reps))
            out[f"beginFrame + {fmt} screenshot, just changed"] = summary(await timed(frame, reps, change))
        out["beginFrame, no screenshot, nothing changed"] = summary(
            await timed(lambda: conn.send("HeadlessExperimental.beginFrame", {}, session=s), reps)
        )
    finally:
        await browser.close()
    return out


# ----- the engine -------------------------------------------------------------------------------------------


async def measure_engine(reps: int, extra_args: list[str] | None = None, short: bool = False) -> dict[str, Any]:
    """The engine's screenshots and states; `short`: only the screenshot and state rows (for a flag run)."""
    import cdp_engine
    from cdp_engine.index.element_index import ElementIndex

    try:
        from cdp_engine.core.files import ScreenshotOptions
    except ImportError:  # an engine from before the options (--before): those rows are left out
        ScreenshotOptions = None  # type: ignore[assignment,misc]

    out: dict[str, Any] = {"engine source": {"value": str(Path(cdp_engine.__file__).parent)}}
    async with cdp_engine.launch(window_size=(WIDTH, HEIGHT), args=extra_args or []) as browser:
        context = await browser.new_context()
        tab = await context.new_tab()
        await tab.goto(data_url(TEXT_PAGE))

        async def change() -> None:
            await tab.evaluate(CHANGE)

        out["Tab.screenshot_base64() png, static"] = summary(await timed(tab.screenshot_base64, reps))
        out["Tab.screenshot_base64() png, just changed"] = summary(await timed(tab.screenshot_base64, reps, change))
        if short:
            await tab.goto(data_url(SMALL_PAGE))
            index = ElementIndex.of(tab)
            await index.state(screenshot=False)
            out["state(), png, just changed"] = summary(
                await timed(
                    lambda: index.state(screenshot=True),
                    reps,
                    lambda: tab.evaluate("document.body.dataset.n = Date.now()"),
                )
            )
            await context.close()
            return out
        out["Tab.screenshot_base64(jpeg 80), just changed"] = summary(
            await timed(lambda: tab.screenshot_base64(format="jpeg", quality=80), reps, change)
        )
        if ScreenshotOptions is not None:
            out["Tab.screenshot_base64(max_width=640), just changed"] = summary(
                await timed(lambda: tab.screenshot_base64(max_width=640), reps, change)
            )

        await tab.goto(data_url(SMALL_PAGE))
        index = ElementIndex.of(tab)

        async def small_change() -> None:
            await tab.evaluate("document.getElementById('out').textContent = 'x' + Date.now()")

        def state(shot: Any) -> Callable[[], Awaitable[Any]]:
            return lambda: index.state(screenshot=shot)

        out["state(), screenshot off, just changed"] = summary(await timed(state(False), reps, small_change))
        out["state(), png, just changed"] = summary(await timed(state(True), reps, small_change))
        out["state(), jpeg 80, just changed"] = summary(await timed(state("jpeg"), reps, small_change))
        if ScreenshotOptions is not None:
            out["state(), png max_width=640, just changed"] = summary(
                await timed(state(ScreenshotOptions(max_width=640)), reps, small_change)
            )
        await index.state(screenshot=True)
        reused = await timed(state(True), reps)
        out["state(), png, unchanged page (screenshot reused)"] = summary(
            reused, cached=tab.last_timings.get("cached") == 1.0
        )
        go = next(k for k, d in (await index.state(screenshot=False))["element_index"].items() if d["text_content"] == "Submit")
        click = {"action": "click_element", "element_index": int(go)}
        out["act(click) + next state, screenshot off"] = summary(
            await timed(lambda: index.act(click, screenshot=False), reps)
        )
        out["act(click) + next state, png"] = summary(await timed(lambda: index.act(click, screenshot=True), reps))
        await context.close()
    return out


def engine_step(reps: int, engine_root: Path, extra_args: list[str] | None = None, short: bool = False) -> dict[str, Any]:
    """measure_engine in a worker process whose cdp_engine comes from engine_root (this tree, or --before's)."""
    import subprocess

    command = [sys.executable, __file__, "--engine-worker", "--engine-reps", str(reps)]
    if short:
        command.append("--short")
    for arg in extra_args or []:
        command.append(f"--engine-arg={arg}")
    env = {**os.environ, "PYTHONPATH": str(engine_root)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# ----- report -----------------------------------------------------------------------------------------------


def ratios(results: dict[str, Any]) -> dict[str, float]:
    """Engine figures against the raw floor of the same run."""
    raw = results.get("raw", {})
    eng = results.get("engine", {})
    floor_changed = raw.get("captureScreenshot png, optimizeForSpeed, just changed", {}).get("median_ms")
    floor_static = raw.get("captureScreenshot png, optimizeForSpeed, static", {}).get("median_ms")
    out: dict[str, float] = {}
    if floor_changed:
        for name, row in eng.items():
            if "median_ms" in row and "changed" in name:
                out[f"{name} / raw png (optimizeForSpeed), just changed"] = round(row["median_ms"] / floor_changed, 2)
    if floor_static:
        row = eng.get("Tab.screenshot_base64() png, static", {})
        if "median_ms" in row:
            out["Tab.screenshot_base64() png, static / raw, static"] = round(row["median_ms"] / floor_static, 2)
    for name, row in results.get("engine_before", {}).items():
        now = eng.get(name, {})
        if "median_ms" in row and "median_ms" in now and row["median_ms"]:
            out[f"{name}: now / before"] = round(now["median_ms"] / row["median_ms"], 2)
    return out


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "# Screenshot cost (benchmarks/screenshot.py)",
        "",
        f"{results['machine']}. Chromium: {results['chromium']}. Viewport {WIDTH}x{HEIGHT}, device scale 1.",
        f"Load average at start / end: {results['loadavg_start']} / {results['loadavg_end']} — the machine is shared",
        "with other test runs, so read the ratios against the raw floor of this same run before the milliseconds.",
        "",
    ]
    titles = {
        "raw": "Raw CDP, Chromium as the engine launches it (new headless)",
        "raw_unthrottled": "Raw CDP, the same Chromium with --disable-frame-rate-limit (not the engine's default)",
        "begin_frame": "Old headless shell with begin-frame control (not the engine's browser)",
        "engine": "cdp-engine",
        "engine_unthrottled": "cdp-engine launched with args=['--disable-frame-rate-limit'] (opt-in)",
        "engine_before": "cdp-engine before this change (--before)",
    }
    for key, title in titles.items():
        rows = results.get(key)
        if not rows:
            continue
        lines += [f"## {title}", "", "| what | median ms | p90 ms | min ms | n | note |", "|---|---:|---:|---:|---:|---|"]
        for name, row in rows.items():
            if "median_ms" not in row:
                lines.append(f"| {name} | | | | | {row.get('value', row.get('error', ''))} |")
                continue
            note = ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("median_ms", "p90_ms", "min_ms", "n"))
            lines.append(f"| {name} | {row['median_ms']} | {row['p90_ms']} | {row['min_ms']} | {row['n']} | {note} |")
        lines.append("")
    if results.get("ratios"):
        lines += ["## Ratios (same run)", "", "| engine / floor | ratio |", "|---|---:|"]
        lines += [f"| {k} | {v} |" for k, v in results["ratios"].items()]
        lines.append("")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=30, help="timed calls per raw measurement (default 30)")
    parser.add_argument("--engine-reps", type=int, default=60, help="timed calls per engine measurement (default 60)")
    parser.add_argument("--skip-alternatives", action="store_true", help="leave out the flag and headless-shell runs")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="folder for screenshot.{json,md}")
    parser.add_argument("--before", type=Path, help="a source tree of an earlier cdp-engine, measured in the same run")
    parser.add_argument("--engine-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--short", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engine-arg", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.engine_worker:
        print(json.dumps(await measure_engine(args.engine_reps, args.engine_arg, args.short)))
        return

    def load_average() -> list[float]:
        return [round(x, 2) for x in os.getloadavg()]

    results: dict[str, Any] = {
        "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}",
        "loadavg_start": load_average(),
    }
    browser, _ = await raw_page()
    results["chromium"] = (await floor.browser_version(browser)).get("product")
    await browser.close()
    steps: list[tuple[str, Callable[[], Awaitable[dict[str, Any]]]]] = [("raw", lambda: measure_raw(args.reps))]
    if not args.skip_alternatives:
        steps.append(("raw_unthrottled", lambda: measure_raw(args.reps, ["--disable-frame-rate-limit"])))
        if shutil.which(HEADLESS_SHELL):
            steps.append(("begin_frame", lambda: measure_begin_frame(args.reps)))
    steps.append(("engine", lambda: asyncio.to_thread(engine_step, args.engine_reps, ROOT)))
    if args.before is not None:
        before = args.before.resolve()
        steps.append(("engine_before", lambda: asyncio.to_thread(engine_step, args.engine_reps, before)))
    if not args.skip_alternatives:
        steps.append((
            "engine_unthrottled",
            lambda: asyncio.to_thread(engine_step, args.engine_reps, ROOT, ["--disable-frame-rate-limit"], True),
        ))
    for key, step in steps:
        print(f"screenshot benchmark: {key} ...", file=sys.stderr, flush=True)
        try:
            results[key] = await step()
        except Exception as exc:  # one failing part is reported; the others still run
            results[key] = {"failed": {"error": f"{type(exc).__name__}: {exc}"}}
    results["loadavg_end"] = load_average()
    results["ratios"] = ratios(results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "screenshot.json").write_text(json.dumps(results, indent=1) + "\n")
    (args.out / "screenshot.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    asyncio.run(main())
