#!/usr/bin/env python3
"""The state after a change: the engine's served state (cached, built on the last one, or captured in full, as
it decides: docs/incremental.md) against its full capture and Playwright's aria snapshot, in one run.

    python3 benchmarks/incremental.py                  # gen-1000, typing.html, os.html, genindex-all, gen-20000
    python3 benchmarks/incremental.py --pages gen-1000 --reps 5

Changes (benchmarks/others/incremental_cases.py, the same script for every system): one character typed into a
focused field, one class toggled (a rule with an outline and padding), one row appended, and a large change
(every other child of the main content hidden or shown). Per page and change, after the change and a frame:
the engine's state as an agent gets it (`capture()`), then a full capture of the same page (`capture_full()`),
compared byte for byte (a difference is reported as a failure, never timed); Playwright's
`locator("body").aria_snapshot()` in its own browser (benchmarks/.venv-others). Medians over the repetitions;
the unchanged page's state (a second read, nothing changed) is measured too. Results:
benchmarks/results/incremental.{json,md} (the latest run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "others")]

import report  # noqa: E402
from incremental_cases import CHANGES, NEXT_FRAME, SETUP  # noqa: E402
from pages import serve_pages, specs_by_id  # noqa: E402

import cdp_engine  # noqa: E402
from cdp_engine import ElementIndex  # noqa: E402
from cdp_engine.snapshot.ax_capturer import AXTreeCapturer  # noqa: E402
from cdp_engine.snapshot.ax_tree import tree_bytes  # noqa: E402
from cdp_engine.snapshot.snapshot_doc import SNAPSHOT_STYLES  # noqa: E402

RESULTS = HERE / "results"
OTHERS_PYTHON = HERE / ".venv-others" / "bin" / "python"
PAGES = ("gen-1000", "docs-typing", "docs-os", "docs-genindex-all", "gen-20000")
FIRST_AFTER_FULL = ("class", "row")  # measured again as the first change after a full capture (the engine only)


# One box per element of the document, read in an isolated world: what the structural increment's proof reads
# (docs/incremental.md), with nothing else around it. Returns the element count.
BOX_PER_ELEMENT = """(() => { const all = document.getElementsByTagName('*'); const n = all.length; let s = 0;
  for (let i = 0; i < n; i++) s += all[i].getBoundingClientRect().top; return s === s ? n : -n; })()"""


async def engine_floors(tab: Any, reps: int) -> dict[str, Any]:
    """What the targets are up against, on the unchanged page: one box per element (the structural proof's
    floor) and one DOMSnapshot.captureSnapshot as the engine asks for it (the full capture's floor)."""
    frame = (await tab.session.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
    world = await tab.session.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": "cdp-engine-bench"})
    snapshot = {"computedStyles": SNAPSHOT_STYLES, "includePaintOrder": True, "includeDOMRects": False}
    boxes, snaps, elements = [], [], 0
    for rep in range(reps + 1):
        t0 = time.perf_counter()
        answer = await tab.session.send("Runtime.evaluate", {"expression": BOX_PER_ELEMENT, "returnByValue": True,
                                                             "contextId": world["executionContextId"]})  # fmt: skip
        t1 = time.perf_counter()
        await tab.session.send("DOMSnapshot.captureSnapshot", snapshot)
        t2 = time.perf_counter()
        elements = int(answer["result"]["value"])
        if rep:  # the first is a warm-up
            boxes.append((t1 - t0) * 1000)
            snaps.append((t2 - t1) * 1000)
    return {"elements": elements, "boxes": boxes, "snapshot": snaps}


def state_bytes(capture: Any) -> bytes:
    return orjson.dumps({k: capture.state[k] for k in ("url", "page_content", "element_index", "state_hash")},
                        option=orjson.OPT_SORT_KEYS)  # fmt: skip


async def engine_page(browser: Any, url: str, reps: int, warmup: int) -> dict[str, Any]:
    """The engine's samples on one page: per change, served / full milliseconds and how each state was served."""
    tab = await browser.new_tab()
    try:
        await tab.goto(url, timeout=120)
        await tab.evaluate(SETUP)
        capturer = ElementIndex.of(tab).capturer
        await capturer.capture(screenshot=False)
        out: dict[str, Any] = {}
        unchanged = []
        for _ in range(reps):
            t0 = time.perf_counter()
            await capturer.capture(screenshot=False)
            unchanged.append((time.perf_counter() - t0) * 1000)
        out["unchanged"] = {"served": unchanged, "full": [], "how": {"cached": reps}, "mismatches": 0}
        floors = await engine_floors(tab, reps)
        await capturer.capture(screenshot=False)  # the state the change rows start from, after the floors' calls
        # The first small change after a full capture (measured first: the large change leaves the page half
        # hidden): the change rows below build on one snapshot rep after rep, so what the engine finds once per
        # snapshot (the reach it judges against) lands in their warm-ups.
        firsts: dict[str, Any] = {}  # reported after the other rows
        for change in FIRST_AFTER_FULL:
            script = CHANGES[change][1]
            served, full, how, mismatches = [], [], {}, 0
            for rep in range(warmup + reps):
                capturer.invalidate(scrolled=True)
                await capturer.capture(screenshot=False)  # a full capture: the next change is the first after it
                await tab.evaluate(script)
                await tab.evaluate(NEXT_FRAME)
                t0 = time.perf_counter()
                got = await capturer.capture(screenshot=False)
                t1 = time.perf_counter()
                reference = await capturer.capture_full()
                t2 = time.perf_counter()
                if state_bytes(got) != state_bytes(reference):
                    mismatches += 1
                    continue
                if rep < warmup:
                    continue
                kind = next((k for k in ("incremental", "cached") if got.timings.get(k)), "full")
                how[kind] = how.get(kind, 0) + 1
                served.append((t1 - t0) * 1000)
                full.append((t2 - t1) * 1000)
            firsts[f"{change}, first after a full capture"] = {"served": served, "full": full, "how": how,
                                                                "mismatches": mismatches}  # fmt: skip
        for change, (_what, script) in CHANGES.items():
            served, full, how, mismatches = [], [], {}, 0
            for rep in range(warmup + reps):
                if script == "insertText":
                    await tab.session.send("Input.insertText", {"text": "a"})
                else:
                    await tab.evaluate(script)
                await tab.evaluate(NEXT_FRAME)
                t0 = time.perf_counter()
                got = await capturer.capture(screenshot=False)
                t1 = time.perf_counter()
                reference = await capturer.capture_full()
                t2 = time.perf_counter()
                if state_bytes(got) != state_bytes(reference):
                    mismatches += 1  # a wrong state is a failure, never a timed sample
                    continue
                if rep < warmup:
                    continue
                kind = next((k for k in ("incremental", "cached") if got.timings.get(k)), "full")
                how[kind] = how.get(kind, 0) + 1
                served.append((t1 - t0) * 1000)
                full.append((t2 - t1) * 1000)
            out[change] = {"served": served, "full": full, "how": how, "mismatches": mismatches}
        out.update(firsts)
        return out, floors
    finally:
        await tab.close()


async def engine_tree_page(browser: Any, url: str, reps: int, warmup: int) -> dict[str, Any]:
    """The accessibility tree the surfaces read (read_page, the MCP snapshot) after each change: served (cached,
    built on the last one, or captured in full, as the engine decides) and a full capture, compared node for node."""
    tab = await browser.new_tab()
    try:
        await tab.goto(url, timeout=120)
        await tab.evaluate(SETUP)
        capturer = AXTreeCapturer.of(tab)
        await capturer.tree()
        out: dict[str, Any] = {}
        unchanged = []
        for _ in range(reps):
            t0 = time.perf_counter()
            await capturer.tree()
            unchanged.append((time.perf_counter() - t0) * 1000)
        out["unchanged"] = {"served": unchanged, "full": [], "how": {capturer.served: reps}, "mismatches": 0}
        for change, (_what, script) in CHANGES.items():
            served, full, how, mismatches = [], [], {}, 0
            for rep in range(warmup + reps):
                if script == "insertText":
                    await tab.session.send("Input.insertText", {"text": "a"})
                else:
                    await tab.evaluate(script)
                await tab.evaluate(NEXT_FRAME)
                t0 = time.perf_counter()
                got = await capturer.tree()
                t1 = time.perf_counter()
                kind = capturer.served
                reference = await capturer.capture_full()
                t2 = time.perf_counter()
                if tree_bytes(got) != tree_bytes(reference):
                    mismatches += 1  # a wrong tree is a failure, never a timed sample
                    continue
                if rep < warmup:
                    continue
                how[kind] = how.get(kind, 0) + 1
                served.append((t1 - t0) * 1000)
                full.append((t2 - t1) * 1000)
            out[change] = {"served": served, "full": full, "how": how, "mismatches": mismatches}
        return out
    finally:
        await tab.close()


async def playwright_samples(urls: list[str], reps: int, warmup: int) -> tuple[dict[str, dict[str, list[float]]], str | None]:
    """Playwright's aria snapshot after each change, per URL and change (benchmarks/.venv-others)."""
    samples: dict[str, dict[str, list[float]]] = {}
    if not OTHERS_PYTHON.exists():
        print("playwright: benchmarks/.venv-others is missing (bash benchmarks/setup.sh)", file=sys.stderr)
        return samples, None
    version = None
    proc = await asyncio.create_subprocess_exec(
        str(OTHERS_PYTHON), str(HERE / "others" / "playwright_incremental.py"), "--urls", json.dumps(urls),
        "--reps", str(reps), "--warmup", str(warmup), stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    async for raw in proc.stdout:
        line = raw.decode()
        if not line.startswith("@@BENCH "):
            continue
        event = json.loads(line[len("@@BENCH ") :])
        if event["event"] == "system":
            version = event.get("version")
        elif event["event"] == "sample" and "ms" in event:
            samples.setdefault(event["url"], {}).setdefault(event["change"], []).append(event["ms"])
        elif event["event"] == "sample":
            print(f"playwright {event['url']} {event['change']}: {event['error']}", file=sys.stderr)
    await proc.wait()
    return samples, version


def median(values: list[float]) -> float | None:
    return report.median(values)


def table(rows: list[dict[str, Any]], what: str = "state") -> str:
    def ms(value: float | None) -> str:
        return "—" if value is None else f"{value:,.1f}"

    lines = [
        f"| page | change | engine {what} (ms) | served as | engine full capture (ms) | {what} / full | Playwright aria (ms) | Playwright / {what} | mismatches |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = f"{r['served'] / r['full'] * 100:.0f} %" if r["served"] and r["full"] else "—"
        peer = f"{r['playwright'] / r['served']:.1f}×" if r["served"] and r["playwright"] else "—"
        how = ", ".join(f"{k} {v}" for k, v in sorted(r["how"].items()))
        lines.append(
            f"| {r['page']} | {r['change']} | {ms(r['served'])} | {how} | {ms(r['full'])} | {ratio} | "
            f"{ms(r['playwright'])} | {peer} | {r['mismatches']} |"
        )
    return "\n".join(lines)


FLOORS_TEXT = (
    "Measured on the unchanged page (medians of the same repetitions), beside the full capture and Playwright's aria "
    "snapshot after a class toggle or a row appended (the rows above). One box per element: a loop of "
    "`getBoundingClientRect()` over every element of the document in an isolated world, nothing else (what the "
    "structural increment reads to prove that no box moved into view). DOMSnapshot alone: one "
    "`DOMSnapshot.captureSnapshot` with the parameters a full capture sends, nothing built from it."
)


def floors_table(rows: list[dict[str, Any]]) -> str:
    def ms(value: float | None) -> str:
        return "—" if value is None else f"{value:,.1f}"

    lines = [
        "| page | elements | engine full capture (ms) | 10 % of it | one box per element (ms) | DOMSnapshot alone (ms) "
        "| Playwright aria (ms) | half of it |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        tenth = None if r["full"] is None else r["full"] / 10
        half = None if r["playwright"] is None else r["playwright"] / 2
        lines.append(
            f"| {r['page']} | {r['elements']:,} | {ms(r['full'])} | {ms(tenth)} | {ms(r['boxes'])} | {ms(r['snapshot'])} "
            f"| {ms(r['playwright'])} | {ms(half)} |"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", default=list(PAGES))
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--no-peers", action="store_true", help="the engine only")
    parser.add_argument("--tree-reps", type=int, default=5, help="repetitions of the accessibility tree rows")
    parser.add_argument("--no-tree", action="store_true", help="the state's rows only")
    ns = parser.parse_args()
    specs = specs_by_id()
    async with serve_pages() as served:
        urls = {page: served.url(specs[page]) for page in ns.pages}
        engine: dict[str, Any] = {}
        trees: dict[str, Any] = {}
        floors: dict[str, Any] = {}
        async with cdp_engine.launch() as browser:
            for page, url in urls.items():
                print(f"engine {page} …", file=sys.stderr, flush=True)
                engine[page], floors[page] = await engine_page(browser, url, ns.reps, ns.warmup)
                if not ns.no_tree:
                    trees[page] = await engine_tree_page(browser, url, ns.tree_reps, ns.warmup)
        print("playwright …", file=sys.stderr, flush=True)
        peers, version = ({}, None) if ns.no_peers else await playwright_samples(list(urls.values()), ns.reps, ns.warmup)
    def rows_of(results: dict[str, Any]) -> list[dict[str, Any]]:
        rows = []
        for page, url in urls.items():
            for change, data in results.get(page, {}).items():
                rows.append({
                    "page": page, "change": change, "served": median(data["served"]), "full": median(data["full"]),
                    "how": data["how"], "mismatches": data["mismatches"],
                    "playwright": median(peers.get(url, {}).get(change, [])) if change != "unchanged" else None,
                    "samples": {"served": data["served"], "full": data["full"], "playwright": peers.get(url, {}).get(change, [])},
                })  # fmt: skip
        return rows

    rows, tree_rows = rows_of(engine), rows_of(trees)
    floor_rows = []
    for page, url in urls.items():
        if page not in floors:
            continue
        small = [x for change in ("class", "row") for x in engine[page].get(change, {}).get("full", [])]
        peer = [x for change in ("class", "row") for x in peers.get(url, {}).get(change, [])]
        floor_rows.append({
            "page": page, "elements": floors[page]["elements"], "full": median(small), "boxes": median(floors[page]["boxes"]),
            "snapshot": median(floors[page]["snapshot"]), "playwright": median(peer),
            "samples": {"full": small, "boxes": floors[page]["boxes"], "snapshot": floors[page]["snapshot"], "playwright": peer},
        })  # fmt: skip
    meta = {
        "time": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.platform(), "python": platform.python_version(),
        "cpus": __import__("os").cpu_count(), "load": __import__("os").getloadavg(), "reps": ns.reps, "warmup": ns.warmup,
        "engine": cdp_engine.__version__, "playwright": version,
        "changes": {name: what for name, (what, _script) in CHANGES.items()},
        "note": "The engine ran first, then Playwright (its own browser, its own process), on the same pages; the "
                "engine's state and its full capture are read one after the other on the same page.",
    }  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "incremental.json").write_text(
        json.dumps({"meta": meta, "rows": rows, "tree_rows": tree_rows, "floors": floor_rows}, indent=1)
    )
    text = "\n".join([
        f"# The state after a change ({meta['time']}, load {', '.join(f'{x:.1f}' for x in meta['load'])})", "",
        "Medians of " + str(ns.reps) + " repetitions after " + str(ns.warmup) + " warm-ups; python3 benchmarks/incremental.py.",
        "Changes: " + "; ".join(f"{k}: {v}" for k, v in meta["changes"].items()) + ".",
        "Rows \"…, first after a full capture\": the same change right after a full capture (the other rows build on "
        "one snapshot rep after rep, so what the engine finds once per snapshot falls in their warm-ups); the "
        "engine only.", "", table(rows), "",
    ])  # fmt: skip
    if floor_rows:
        text += "\n".join(["", "## What the targets are up against", "", FLOORS_TEXT, "", floors_table(floor_rows), ""])
    if tree_rows:
        text += "\n".join([
            "", "## The accessibility tree after a change (read_page, find, the MCP snapshot)", "",
            f"Medians of {ns.tree_reps} repetitions after {ns.warmup} warm-ups; the same changes, after the state's rows on the "
            "same tab. Playwright's column is the same aria snapshot as above (it has one view of a page).", "",
            table(tree_rows, "tree"), "",
        ])  # fmt: skip
    (RESULTS / "incremental.md").write_text(text)
    print(text)


if __name__ == "__main__":
    asyncio.run(main())
