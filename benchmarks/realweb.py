"""The real-web benchmark row: the real-web suite's component tasks (tests/realweb/tasks.py: MUI, react-select,
Radix, Headless UI, a 5,000-row virtual list, Shoelace, Ant Design, react-datepicker, Bootstrap, Tom Select,
flatpickr, Quill, CodeMirror), each solved by the same scripted agent through every engine surface (the element
index, the browser toolset and the MCP tools, strict and extended) and through Playwright (its aria snapshot and
role locators) and browser-use (its state and its tools), in one run, on one machine.

    python benchmarks/realweb.py                      # every system, every task, 3 runs each
    python benchmarks/realweb.py --systems index-extended playwright --runs 1

Per task and system: success (what the page sent its server equals the task's expected values, the suite's
check), steps (actions the agent took) and the wall time from the page's load to the app's answer (median of
the runs that succeeded; a failed run is a failure, never a timed sample). Playwright runs inside
benchmarks/.venv-others (bash benchmarks/setup.sh), and so does browser-use (its browser state's selector map
with roles and names, its tools by index, no LLM). Results: benchmarks/results/realweb.{json,md} (the latest run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from realweb.agents import RECORDER, Agent, IndexAgent, McpAgent, ToolsetAgent  # noqa: E402
from realweb.steps import TaskFailed, run_steps  # noqa: E402
from realweb.tasks import COMPONENT_TASKS, Task, expected_values  # noqa: E402

import cdp_engine  # noqa: E402
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager  # noqa: E402
from cdp_engine.toolset.driver_config import ToolsetConfig  # noqa: E402
from cdp_engine.toolset.executor import BrowserToolset  # noqa: E402

PAGES = HERE.parent / "tests" / "realweb" / "pages"
OTHERS_PYTHON = HERE / ".venv-others" / "bin" / "python"
ENGINE_SYSTEMS = ["index-strict", "index-extended", "toolset-strict", "toolset-extended", "mcp-strict", "mcp-extended"]
PEERS = {"playwright": "playwright_realweb.py", "browser-use": "browser_use_realweb.py"}
SYSTEMS = [*ENGINE_SYSTEMS, *PEERS]


class Site:
    """The bundled pages and the endpoint their forms submit to (as tests/realweb/conftest.py serves them)."""

    def __init__(self) -> None:
        self.url = ""
        self.submitted: dict[str, list[dict[str, Any]]] = {}
        self.runner: web.AppRunner | None = None

    async def start(self) -> None:
        async def submit(request: web.Request) -> web.Response:
            self.submitted.setdefault(request.match_info["page"], []).append(await request.json())
            return web.json_response({"order": sum(len(v) for v in self.submitted.values())})

        app = web.Application()
        app.router.add_post("/realweb/submit/{page}", submit)
        app.router.add_static("/realweb/", PAGES)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        server = web.TCPSite(self.runner, "127.0.0.1", 0)
        await server.start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}"

    def succeeded(self, task: Task) -> bool:
        return self.submitted.get(task.page) == [expected_values(task)]


async def engine_agent(browser: cdp_engine.Browser, system: str, url: str, closers: list[Any]) -> Agent:
    surface, mode = system.split("-")
    context = await browser.new_context()
    closers.append(context.close)
    if surface == "index":
        tab = await context.new_tab()
        assert isinstance(tab, cdp_engine.AgentTab)
        await tab.goto(url, wait_until="load")
        return IndexAgent(tab, mode)
    if surface == "toolset":
        ts = await BrowserToolset(browser, context=context, config=ToolsetConfig(interactive=mode)).start()
        closers.insert(0, ts.close)
        content, is_error = await ts.call("navigate", {"url": url})
        if is_error:
            raise TaskFailed(str(content))
        return ToolsetAgent(ts, mode)
    manager = InstanceManager(Config(interactive=mode), browser=browser)
    closers.insert(0, manager.close)
    tools = BrowserTools(manager)
    await tools.call("browser_create_instance", {"name": "t"})
    env = await tools.call("browser_navigate", {"instance": "t", "url": url})
    if env["status"] != "success":
        raise TaskFailed(str(env))
    return McpAgent(tools, mode)


async def run_engine(site: Site, systems: list[str], tasks: list[Task], runs: int) -> list[dict[str, Any]]:
    rows = []
    async with cdp_engine.launch() as browser:
        await browser.add_init_script(RECORDER)
        for _ in range(runs):
            for system in systems:
                for task in tasks:
                    site.submitted.pop(task.page, None)
                    closers: list[Any] = []
                    t0 = time.perf_counter()
                    error, steps, counters = None, 0, None
                    try:
                        agent = await engine_agent(browser, system, f"{site.url}/realweb/{task.page}.html", closers)
                        await run_steps(agent, task.steps)
                        steps, counters = agent.counters.actions, agent.counters
                    except TaskFailed as exc:
                        error = str(exc)[:400]
                    except Exception as exc:
                        error = f"{type(exc).__name__}: {exc}"[:400]
                    ms = (time.perf_counter() - t0) * 1000
                    for close in closers:
                        await close()
                    ok = error is None and site.succeeded(task)
                    rows.append({
                        "system": system, "task": task.name, "ok": ok, "ms": ms, "steps": steps,
                        "error": error if error else (None if ok else f"the page sent {site.submitted.get(task.page)}"),
                        "wrong_element": counters.wrong_element if counters else None,
                        "silent_noops": counters.silent_noops if counters else None,
                        "strict_unreachable": bool(task.strict_unreachable) and system.endswith("strict"),
                    })  # fmt: skip
                    print(f"{system:17} {task.name:28} {'ok ' if ok else 'FAIL'} {ms:8.0f} ms", flush=True)
    return rows


async def run_peer(
    system: str, site: Site, tasks: list[Task], runs: int
) -> tuple[list[dict[str, Any]], str | None]:
    """A peer's adapter (benchmarks/others/PEERS[system]) in the peers' environment; success judged here."""
    if not OTHERS_PYTHON.exists():
        print(f"{system}: benchmarks/.venv-others is missing (bash benchmarks/setup.sh)", flush=True)
        return [], None
    spec = [{"name": t.name, "page": t.page,
             "steps": [[{"set": sorted(a)} if isinstance(a, set) else a for a in step] for step in t.steps]}
            for t in tasks]  # fmt: skip
    by_name = {t.name: t for t in tasks}
    rows: list[dict[str, Any]] = []
    version = None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec * runs, f)
    try:
        proc = await asyncio.create_subprocess_exec(
            str(OTHERS_PYTHON), str(HERE / "others" / PEERS[system]), "--base", site.url, "--tasks", f.name,
            stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdout is not None
        async for raw in proc.stdout:
            line = raw.decode()
            if not line.startswith("@@BENCH "):
                continue
            event = json.loads(line[len("@@BENCH ") :])
            if event["event"] == "meta":
                version = event.get("version")
            elif event["event"] == "start":
                site.submitted.pop(event["page"], None)
            elif event["event"] == "task":
                task = by_name[event["name"]]
                ok = event["error"] is None and site.succeeded(task)
                rows.append({
                    "system": system, "task": task.name, "ok": ok, "ms": event["ms"], "steps": event["steps"],
                    "error": event["error"] or (None if ok else f"the page sent {site.submitted.get(task.page)}"),
                    "wrong_element": event["wrong_element"], "silent_noops": event["silent_noops"],
                    "strict_unreachable": False,
                })  # fmt: skip
                print(f"{system:17} {task.name:28} {'ok ' if ok else 'FAIL'} {event['ms']:8.0f} ms", flush=True)
        await proc.wait()
    finally:
        os.unlink(f.name)
    return rows, version


def table(rows: list[dict[str, Any]], systems: list[str], tasks: list[Task], runs: int) -> str:
    """Markdown: per task and system, runs passed / runs, median steps and median ms of the passing runs."""
    lines = ["| task | " + " | ".join(systems) + " |", "|---|" + "---|" * len(systems)]
    totals = {s: 0 for s in systems}
    for task in tasks:
        cells = []
        for system in systems:
            mine = [r for r in rows if r["system"] == system and r["task"] == task.name]
            good = [r for r in mine if r["ok"]]
            totals[system] += len(good) == len(mine) and bool(mine)
            if not mine:
                cells.append("–")
            elif not good:
                cells.append(f"0/{len(mine)}" + (" (strict set)" if mine[0]["strict_unreachable"] else ""))
            else:
                ms = statistics.median(r["ms"] for r in good)
                steps = statistics.median(r["steps"] for r in good)
                cells.append(f"{len(good)}/{len(mine)} · {steps:.0f} · {ms:,.0f} ms")
        lines.append(f"| {task.name} | " + " | ".join(cells) + " |")
    lines.append("| **tasks passed in every run** | " + " | ".join(f"**{totals[s]}/{len(tasks)}**" for s in systems) + " |")
    return "\n".join(lines)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", nargs="+", default=SYSTEMS, choices=SYSTEMS)
    ap.add_argument("--tasks", nargs="+", default=[t.name for t in COMPONENT_TASKS])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(HERE / "results"))
    ns = ap.parse_args()
    tasks = [t for t in COMPONENT_TASKS if t.name in ns.tasks]
    site = Site()
    await site.start()
    started = time.strftime("%Y%m%d-%H%M%S")
    rows = await run_engine(site, [s for s in ns.systems if s in ENGINE_SYSTEMS], tasks, ns.runs)
    versions = {}
    for peer in PEERS:
        if peer in ns.systems:
            peer_rows, versions[peer] = await run_peer(peer, site, tasks, ns.runs)
            rows += peer_rows
    assert site.runner is not None
    await site.runner.cleanup()
    md = table(rows, ns.systems, tasks, ns.runs)
    load = os.getloadavg()
    header = (
        f"# Real-web tasks, {started}\n\ncdp-engine {cdp_engine.__version__}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; {ns.runs} runs;"
        f" load {load[0]:.1f}. Cell: runs passed / runs · median steps · median ms (page load to the app's"
        " answer) of the passing runs. \"(strict set)\": the task's controls are outside the seed's strict"
        " interactive set (tests/realweb/tasks.py says which).\n\n"
    )
    failures = "\n".join(f"- {r['system']} {r['task']}: {r['error']}" for r in rows if not r["ok"])
    out = Path(ns.out)
    out.mkdir(exist_ok=True)
    (out / "realweb.md").write_text(header + md + ("\n\nFailures:\n\n" + failures if failures else "") + "\n")
    (out / "realweb.json").write_text(json.dumps({"started": started, "rows": rows}, indent=1))
    print(md)
    print(f"wrote {out / 'realweb.md'}")


if __name__ == "__main__":
    asyncio.run(main())
