#!/usr/bin/env python3
"""Harness soak: many short episodes over 4 parallel environments; nothing may leak.

    python tests/stress/soak_run.py                       # 200 episodes, both layouts below
    python tests/stress/soak_run.py --episodes 1000 --layout one-browser
    python benchmarks/run.py --suite harness-soak         # the same, from the benchmarks' entry point

CI runs it small (tests/stress/test_soak_smoke.py); the figures come from a full run by hand.

Layouts: ``one-browser`` — 4 environments (contexts) in one Chromium, driven by asyncio in this
process; ``processes`` — 2 spawned worker processes, one Chromium and 2 environments each.
Episodes are the example tasks in tools/tasks/ (login, select, checkbox, search: 2-3 steps each)
played by a ScriptedPolicy. Recorded: episodes/s, p50/p95 reset and step ms, this process's open
file descriptors and RSS before and after, the Chromium processes and their memory (PSS) sampled
through the run (warm-up vs end), and every Chromium process still alive after the run (leaked).
Processes are told apart from other Chromiums on the machine by a marker in their environment.
Writes benchmarks/results/harness_soak.json. A benchmark, not a timed test.
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
import threading
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT))

import cdp_engine  # noqa: E402
from cdp_engine.harness import EpisodeResult, ScriptedPolicy, TaskSite, TaskSpec, run_in_processes, run_tasks  # noqa: E402

TAG_VAR = "CDP_ENGINE_SOAK_TAG"
TASKS = [
    TaskSpec(
        "login",
        "/login.html",
        setup_js="localStorage.setItem('users', JSON.stringify({agent: 'hunter2'}))",
        reward_js="location.pathname === '/welcome.html' && document.cookie.includes('session=agent')",
    ),
    TaskSpec("select", "/select.html", reward_js="localStorage.getItem('country') === 'ca'"),
    TaskSpec(
        "preferences",
        "/checkbox.html",
        reward_js="(() => { const p = JSON.parse(localStorage.getItem('prefs') || '{}');"
        " return p.newsletter === false && p.updates === true; })()",
    ),
    TaskSpec(
        "search", "/search.html", reward_js="new URLSearchParams(location.search).get('id') === 'blue-widget'"
    ),
]
POLICY = ScriptedPolicy(
    {
        "login": ["fill({name=user}, 'agent')", "fill({name=pass}, 'hunter2')", "click({text=Sign in})"],
        "select": ["select_option({tag=select}, 'Canada')", "click({text=Save})"],
        "preferences": [
            "uncheck({name=newsletter})",
            "check({name=updates})",
            "click({text=Save preferences})",
        ],
        "search": [
            "fill({Search products}, 'widget')",
            "press({Search products}, 'Enter')",
            "click({text=Blue widget&tag=a})",
        ],
    }
)


# ----- /proc ------------------------------------------------------------------------------------


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _stat(pid: str) -> tuple[str, int, int] | None:
    """(state, ppid, start time) of a process, or None."""
    stat = _read(f"/proc/{pid}/stat").decode(errors="replace")
    if not stat:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), int(fields[19])


def ours(tag: str) -> dict[tuple[int, int], str]:
    """{(pid, start time): kind} of live processes started under the marker, and their descendants.

    Chromium starts its zygotes and utilities with an environment of its own, so the marker is
    found on the browser process and the workers; renderers are found as descendants. kind is
    'chromium', 'worker' or 'helper' (multiprocessing's resource tracker, which lives as long as
    the process that started the pool)."""
    me = os.getpid()
    children: dict[int, list[int]] = {}
    info: dict[int, tuple[str, int]] = {}
    roots = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        st = _stat(entry.name)
        if st is None or st[0] in ("Z", "X"):
            continue
        pid = int(entry.name)
        info[pid] = (st[0], st[2])
        children.setdefault(st[1], []).append(pid)
        if tag.encode() in _read(f"/proc/{pid}/environ"):
            roots.append(pid)
    found: dict[tuple[int, int], str] = {}
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid not in info or any(k[0] == pid for k in found):
            continue
        cmd = _read(f"/proc/{pid}/cmdline")
        exe = cmd.split(b"\0", 1)[0]
        kind = "chromium" if b"chrom" in exe else ("helper" if b"resource_tracker" in cmd else "worker")
        found[(pid, info[pid][1])] = kind
        stack.extend(children.get(pid, ()))
    return found


def still_alive(seen: dict[tuple[int, int], str]) -> list[dict[str, Any]]:
    """Processes once seen in our trees that are alive now (same pid and start time: not a reused pid)."""
    alive = []
    for (pid, start), kind in seen.items():
        st = _stat(str(pid))
        if st is not None and st[0] not in ("Z", "X") and st[2] == start:
            cmd = _read(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode(errors="replace")[:120]
            alive.append({"pid": pid, "kind": kind, "cmdline": cmd})
    return alive


def pss_mb(pid: int) -> float:
    """Proportional set size (shared pages divided among sharers), so a sum over processes is honest."""
    for line in _read(f"/proc/{pid}/smaps_rollup").decode(errors="replace").splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return 0.0


def rss_mb(pid: int | str = "self") -> float:
    for line in _read(f"/proc/{pid}/status").decode(errors="replace").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fds(pid: int | str = "self") -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def loadavg() -> list[float]:
    return [float(x) for x in _read("/proc/loadavg").split()[:3]]


class Sampler(threading.Thread):
    """Samples the marked processes every `interval` s: Chromium count and PSS, worker PSS."""

    def __init__(self, tag: str, interval: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.tag, self.interval = tag, interval
        self.samples: list[dict[str, float]] = []
        self.seen: dict[tuple[int, int], str] = {}
        self._halt = threading.Event()
        self.t0 = time.perf_counter()

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            procs = ours(self.tag)
            self.seen.update(procs)
            chromium = [p for (p, _), kind in procs.items() if kind == "chromium"]
            workers = [p for (p, _), kind in procs.items() if kind == "worker"]
            self.samples.append(
                {
                    "t": round(time.perf_counter() - self.t0, 2),
                    "chromium_processes": len(chromium),
                    "chromium_pss_mb": round(sum(pss_mb(p) for p in chromium), 1),
                    "workers_pss_mb": round(sum(pss_mb(p) for p in workers), 1),
                    "self_rss_mb": round(rss_mb(), 1),
                }
            )

    def stop(self) -> None:
        self._halt.set()
        self.join()

    def summary(self) -> dict[str, Any]:
        """Warm (20-40 % of the run) against late (70-90 %), start-up and shut-down left out: growth shows here."""
        s = self.samples
        if len(s) < 5:
            return {"samples": s}
        n = len(s)
        early, late = s[n // 5 : 2 * n // 5] or s[:1], s[7 * n // 10 : 9 * n // 10] or s[-1:]

        def avg(rows: list[dict[str, float]], key: str) -> float:
            return round(statistics.fmean(r[key] for r in rows), 1)

        keys = ("chromium_processes", "chromium_pss_mb", "workers_pss_mb", "self_rss_mb")
        return {
            "n_samples": n,
            "interval_s": self.interval,
            "early": {k: avg(early, k) for k in keys},
            "late": {k: avg(late, k) for k in keys},
            "max": {k: max(r[k] for r in s) for k in keys},
            "series": s[:: max(1, n // 40)],
        }


def leaked(
    seen: dict[tuple[int, int], str], tag: str, timeout: float = 10.0
) -> dict[str, list[dict[str, Any]]]:
    """After a run: every process of our trees still alive once `timeout` passed, helpers apart."""
    seen = {**seen, **ours(tag)}
    deadline = time.monotonic() + timeout
    while True:
        alive = still_alive(seen)
        if not [a for a in alive if a["kind"] != "helper"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return {
        "leaked": [a for a in alive if a["kind"] != "helper"],
        "helpers": [a for a in alive if a["kind"] == "helper"],
        "processes_seen": len(seen),
    }


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 1)


def figures(results: list[EpisodeResult], elapsed: float) -> dict[str, Any]:
    resets = [r.reset_ms for r in results if not r.error]
    steps = [ms for r in results for ms in r.step_ms]  # failed steps are in step_errors, never timed
    return {
        "episodes": len(results),
        "succeeded": sum(r.success for r in results),
        "errors": sorted({r.error for r in results if r.error}),
        "elapsed_s": round(elapsed, 2),
        "episodes_per_s": round(len(results) / elapsed, 2),
        "steps": len(steps),
        "failed_steps": sum(len(r.step_errors) for r in results),
        "step_errors": sorted({e for r in results for e in r.step_errors})[:10],
        "reset_ms": {"p50": pct(resets, 0.5), "p95": pct(resets, 0.95), "max": pct(resets, 1.0)},
        "step_ms": {"p50": pct(steps, 0.5), "p95": pct(steps, 0.95), "max": pct(steps, 1.0)},
        "workers": sorted({r.worker for r in results}),
    }


# ----- layouts ----------------------------------------------------------------------------------


def task_list(episodes: int) -> list[TaskSpec]:
    return [TASKS[i % len(TASKS)] for i in range(episodes)]


def pages() -> dict[str, str]:
    return {"/" + p.name: p.read_text() for p in (ROOT / "tools" / "tasks").glob("*.html")}


async def one_browser(episodes: int, envs: int, tag: str, prewarm: bool) -> dict[str, Any]:
    fds_before, rss_before = fds(), rss_mb()
    sampler = Sampler(tag)
    checkpoints: list[dict[str, Any]] = []
    async with TaskSite(pages()) as site:
        browser = await cdp_engine.launch()
        sampler.start()
        done = 0

        def checkpoint(_result: EpisodeResult) -> None:
            nonlocal done
            done += 1
            if done % 25 == 0:
                procs = [p for (p, _), kind in ours(tag).items() if kind == "chromium"]
                checkpoints.append(
                    {
                        "episodes": done,
                        "self_fds": fds(),
                        "self_rss_mb": round(rss_mb(), 1),
                        "chromium_processes": len(procs),
                        "chromium_pss_mb": round(sum(pss_mb(p) for p in procs), 1),
                        "browser_tabs": len(browser.tabs),
                        "browser_contexts": len(browser.contexts),
                        "connection_sessions": len(browser.connection.sessions),
                    }
                )

        t0 = time.perf_counter()
        try:
            results = await run_tasks(
                task_list(episodes),
                POLICY,
                browser=browser,
                concurrency=envs,
                base_url=site.url,
                on_result=checkpoint,
                env_options={"prewarm": prewarm},
            )
        finally:
            elapsed = time.perf_counter() - t0
            await browser.close()
            sampler.stop()
    after = leaked(sampler.seen, tag)
    return {
        "layout": f"{envs} environments (contexts) in one Chromium, asyncio, one process",
        **figures(results, elapsed),
        "self_fds": {"before": fds_before, "after": fds()},
        "self_rss_mb": {"before": round(rss_before, 1), "after": round(rss_mb(), 1)},
        "checkpoints": checkpoints,
        "memory": sampler.summary(),
        "leaked_processes": after["leaked"],
        "processes_seen": after["processes_seen"],
        "helpers_alive": after["helpers"],
    }


def processes(episodes: int, workers: int, envs: int, tag: str, prewarm: bool) -> dict[str, Any]:
    fds_before, rss_before = fds(), rss_mb()
    sampler = Sampler(tag)
    sampler.start()
    t0 = time.perf_counter()
    try:
        results = run_in_processes(
            task_list(episodes),
            POLICY,
            workers=workers,
            concurrency=envs,
            pages=pages(),
            env_options={"prewarm": prewarm},
        )
    finally:
        elapsed = time.perf_counter() - t0
        sampler.stop()
    after = leaked(sampler.seen, tag)
    return {
        "layout": f"{workers} spawned worker processes x {envs} environments, one Chromium per worker",
        **figures(results, elapsed),
        "self_fds": {"before": fds_before, "after": fds()},
        "self_rss_mb": {"before": round(rss_before, 1), "after": round(rss_mb(), 1)},
        "memory": sampler.summary(),
        "leaked_processes": after["leaked"],
        "processes_seen": after["processes_seen"],
        "helpers_alive": after["helpers"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--layout", choices=["one-browser", "processes", "both"], default="both")
    parser.add_argument("--out", default=str(RESULTS / "harness_soak.json"))
    parser.add_argument(
        "--no-prewarm", dest="prewarm", action="store_false", help="no spare context prepared during episodes"
    )
    args = parser.parse_args()
    tag = f"soak-{uuid.uuid4().hex}"
    os.environ[TAG_VAR] = tag  # inherited by every Chromium and worker this run starts
    browser_version = ""

    async def version() -> str:
        async with cdp_engine.launch() as b:
            return b.version.get("product", "")

    browser_version = asyncio.run(version())
    leaked({}, tag)
    out: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "chromium": browser_version,
            "loadavg_start": loadavg(),
        },
        "episodes_per_run": args.episodes,
        "parallel_environments": 4,
        "prewarm": args.prewarm,
        "runs": {},
    }
    if args.layout in ("one-browser", "both"):
        print(f"one browser, 4 environments, {args.episodes} episodes …", file=sys.stderr)
        out["runs"]["one_browser"] = asyncio.run(one_browser(args.episodes, 4, tag, args.prewarm))
    if args.layout in ("processes", "both"):
        print(f"2 worker processes x 2 environments, {args.episodes} episodes …", file=sys.stderr)
        out["runs"]["processes"] = processes(args.episodes, 2, 2, tag, args.prewarm)
    out["machine"]["loadavg_end"] = loadavg()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    ok = True
    for name, run in out["runs"].items():
        mem = run["memory"]
        print(
            f"{name}: {run['episodes']} episodes ({run['succeeded']} succeeded) in {run['elapsed_s']} s ="
            f" {run['episodes_per_s']} episodes/s; reset p50 {run['reset_ms']['p50']} ms, step p50"
            f" {run['step_ms']['p50']} ms; fds {run['self_fds']['before']} -> {run['self_fds']['after']};"
            f" RSS {run['self_rss_mb']['before']} -> {run['self_rss_mb']['after']} MB; Chromium PSS early"
            f" {mem.get('early', {}).get('chromium_pss_mb')} late {mem.get('late', {}).get('chromium_pss_mb')} MB;"
            f" leaked processes {len(run['leaked_processes'])}",
            file=sys.stderr,
        )
        ok = ok and not run["leaked_processes"] and run["succeeded"] == run["episodes"]
    print(f"wrote {args.out}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
