#!/usr/bin/env python3
"""Round trips of one action on every surface, for comparing two checkouts of the engine.

    python benchmarks/surfaces.py                      # this checkout
    python benchmarks/surfaces.py --root /path/to/other/checkout --label before

Each surface runs against one page with 50 buttons and a text input, served from 127.0.0.1, in one
shared Chromium: element index `state()` (no screenshot), `act(click_element)` + next state,
`act(input_text)` + next state; toolset `left_click` by ref, `type`; MCP `browser_click` by ref,
`browser_snapshot`; harness `step(click)`. Medians and p95 in ms over --reps runs after a warm-up.
A call that fails is counted as a failure and never timed. Results are printed as a Markdown table
and written as JSON (--out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report

PAGE = (
    "<!doctype html><title>surfaces</title><body>"
    + "".join(f"<button onclick=\"document.getElementById('n').textContent={i}\">b{i}</button>" for i in range(50))
    + "<input id=t aria-label=text><p id=n>-</p></body>"
)


class Result:
    def __init__(self, name: str) -> None:
        self.name = name
        self.samples: list[float] = []
        self.failures: list[str] = []

    def row(self) -> dict[str, Any]:
        s = self.samples
        p50, p95 = report.median(s, 2), report.percentile(s, 0.95)
        return {
            "metric": self.name,
            "n": len(s),
            "p50_ms": p50,
            "p95_ms": round(p95, 2) if p95 is not None else None,
            "failures": len(self.failures),
            "first_failure": self.failures[0] if self.failures else None,
        }


async def timed(result: Result, reps: int, call: Callable[[], Awaitable[str | None]]) -> None:
    """call() returns None on success or a failure text; one warm-up call is not recorded."""
    await call()
    for _ in range(reps):
        t0 = time.perf_counter()
        try:
            failure = await call()
        except Exception as exc:  # a failed call is a failure, never a sample
            failure = f"{type(exc).__name__}: {exc}"
        ms = (time.perf_counter() - t0) * 1000
        if failure is None:
            result.samples.append(ms)
        else:
            result.failures.append(failure[:200])


def first_index(state: dict[str, Any], tag: str) -> int:
    return next(int(k) for k, d in state["element_index"].items() if d["tag"] == tag)


async def run(reps: int) -> list[dict[str, Any]]:
    from aiohttp import web

    import cdp_engine

    app = web.Application()
    app.router.add_get("/", lambda _r: web.Response(text=PAGE, content_type="text/html"))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    await web.SockSite(runner, sock).start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    results: list[Result] = []
    async with cdp_engine.launch() as browser:
        # element index
        context = await browser.new_context()
        tab = await browser.new_tab(url, context=context)
        state_r, click_r, input_r = Result("index state"), Result("index click + state"), Result("index input_text + state")
        results += [state_r, click_r, input_r]

        async def state() -> str | None:
            tab.element_index.capturer.invalidate()
            await tab.state(screenshot=False)
            return None

        await timed(state_r, reps, state)
        first = await tab.state(screenshot=False)
        button, text = first_index(first, "button"), first_index(first, "input")

        async def click() -> str | None:
            s = await tab.act({"action": "click_element", "element_index": button}, screenshot=False)
            return s["error"]["message"] if "error" in s else None

        async def type_text() -> str | None:
            s = await tab.act(
                {"action": "input_text", "element_index": text, "text": "hello", "overwrite": True}, screenshot=False
            )
            return s["error"]["message"] if "error" in s else None

        await timed(click_r, reps, click)
        await timed(input_r, reps, type_text)
        await context.close()

        # toolset
        from cdp_engine.toolset import BrowserToolset

        context = await browser.new_context()
        toolset = await BrowserToolset(browser, context=context).start()
        await toolset.call("navigate", {"url": url})
        page = "".join(b.get("text", "") for b in (await toolset.call("find", {"query": "button b3"}))[0])
        ref = page[page.index("ref_") :].split()[0].strip("[]():,")
        t_click, t_type = Result("toolset left_click ref"), Result("toolset type")
        results += [t_click, t_type]

        async def ts_click() -> str | None:
            blocks, is_error = await toolset.call("left_click", {"target": {"type": "ref", "ref": ref}})
            return str(blocks)[:200] if is_error else None

        async def ts_type() -> str | None:
            blocks, is_error = await toolset.call("type", {"text": "x"})
            return str(blocks)[:200] if is_error else None

        await timed(t_click, reps, ts_click)
        await timed(t_type, reps, ts_type)
        await toolset.close()
        await context.close()

        # MCP
        try:
            from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
        except ImportError as exc:
            print(f"MCP skipped: {exc}", file=sys.stderr)
        else:
            manager = InstanceManager(Config(), browser=browser)
            tools = BrowserTools(manager)
            await tools.call("browser_create_instance", {"name": "bench"})
            await tools.call("browser_navigate", {"instance": "bench", "url": url})
            snap = (await tools.call("browser_snapshot", {"instance": "bench"}))["data"]["snapshot"]
            line = next(ln for ln in snap.splitlines() if '"b3"' in ln)
            mref = line[line.index("[ref=") + 5 :].split("]")[0]
            m_click, m_snap = Result("mcp browser_click ref"), Result("mcp browser_snapshot")
            results += [m_click, m_snap]

            async def mcp_click() -> str | None:
                env = await tools.call("browser_click", {"instance": "bench", "ref": mref})
                return None if env["status"] == "success" else env.get("message")

            async def mcp_snap() -> str | None:
                env = await tools.call("browser_snapshot", {"instance": "bench"})
                return None if env["status"] == "success" else env.get("message")

            await timed(m_click, reps, mcp_click)
            await timed(m_snap, reps, mcp_snap)
            await manager.close()

        # harness
        from cdp_engine.harness import BrowserEnv

        env = BrowserEnv(browser, screenshot=False)
        h_step, h_reset = Result("harness step click"), Result("harness reset")
        results += [h_step, h_reset]
        obs = await env.reset(url)
        hb = first_index(obs, "button")

        async def h_click() -> str | None:
            _obs, info = await env.step({"action": "click_element", "element_index": hb})
            return info.get("error", {}).get("message") if info.get("error") else None

        async def h_reset_call() -> str | None:
            await env.reset(url)
            return None

        await timed(h_step, reps, h_click)
        await timed(h_reset, reps, h_reset_call)
        await env.close()
    await runner.cleanup()
    return [r.row() for r in results]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent), help="checkout to measure")
    ap.add_argument("--label", default="this checkout")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--out", help="JSON results file")
    args = ap.parse_args()
    sys.path.insert(0, args.root)
    rows = asyncio.run(run(args.reps))
    print(f"\n{args.label} ({args.root}), medians of {args.reps}:\n")
    print("| metric | p50 ms | p95 ms | failures |\n|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['metric']} | {r['p50_ms']} | {r['p95_ms']} | {r['failures']} |")
    if args.out:
        Path(args.out).write_text(json.dumps({"label": args.label, "root": args.root, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
