#!/usr/bin/env python3
"""The one benchmark command: the CDP floor, cdp-engine and other systems on the same pages, interleaved.

    python benchmarks/run.py --quick     # 100 and 1,000 element pages + typing.html, 5 runs: a few minutes
    python benchmarks/run.py --full      # every page (20,000 elements, frames, shadow roots, python docs)
    python benchmarks/run.py --list      # every suite of this folder
    python benchmarks/run.py --suite incremental --pages gen-1000   # one suite, with its own arguments

Writes benchmarks/results/latest.{json,md,png} (the latest run); progress goes to stderr. (Actions and
the state after them are benchmarks/actions.py.) Each
system runs in its own process per page with its own fresh Chromium (the floor in this process), so a
system that fails, hangs or is missing is reported with its error and the run goes on. Run
benchmarks/setup.sh first for python3-doc and the other systems' venv (benchmarks/.venv-others).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import platform
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(HERE / "others"), str(ROOT)]

import floor  # noqa: E402
import pages  # noqa: E402
import report  # noqa: E402
from common import PREFIX, Series, Watchdog, describe_output, emit, error_text  # noqa: E402

VENV_PY = Path(os.environ.get("BENCH_VENV", HERE / ".venv-others")) / "bin" / "python"
OTHERS = {
    "playwright": HERE / "others" / "playwright_adapter.py",
    "browser-use": HERE / "others" / "browser_use_adapter.py",
    "browsergym": HERE / "others" / "browsergym_adapter.py",
}
ENGINE_SYSTEMS = {"engine-websocket": "websocket", "engine-pipe": "pipe"}
FLOOR_SYSTEMS = {"floor-websocket": "websocket", "floor-pipe": "pipe"}
ALL_SYSTEMS = [*FLOOR_SYSTEMS, *ENGINE_SYSTEMS, *OTHERS]
QUICK_PAGES = ["gen-100", "gen-1000", "docs-typing"]
OTHERS_PACKAGES = ["playwright", "browser-use", "browsergym-core", "cdp-use", "matplotlib"]
MAIN_PACKAGES = ["websockets", "orjson", "aiohttp", "xxhash", "cdp-engine"]


# =============================================================================================================
# ENGINE MEASUREMENTS — for the lead to fill in / extend against cdp_engine's real API.
#
# Runs in a worker process (`run.py --engine-worker ...`, the engine's own interpreter) per page and
# transport, so peak memory and CPU are the engine's alone. Report with Series(url, metric) → .add(ms,
# warm) → .extra[...] → .done(); facts with emit("facts", url=..., ...). Wrap each metric in
# `wd.guard(url, metric)` (hard timeout: reports and exits) and its own try/except (one failing metric
# must not lose the others). The runner's headline for the engine is the metric "state".
# =============================================================================================================


def _pick(state: dict[str, Any], kind: str) -> int | None:
    """The first element of the state's element_index to click ("click") or to type into ("input")."""
    index = state.get("element_index", {})
    for key, d in index.items():
        attrs = d["attributes"]
        if kind == "click" and d["tag"] == "button":
            return int(key)
        if kind == "input" and (
            d["tag"] == "textarea" or (d["tag"] == "input" and attrs["type"] in ("text", "search"))
        ):
            return int(key)
    if kind == "click":  # pages without buttons (the docs): a link to an anchor on the same page
        for key, d in index.items():
            if d["tag"] == "a" and (d["attributes"]["href"] or "").startswith("#"):
                return int(key)
    return None


async def _engine_cdp_calls(tab: Any) -> float:
    """The bare CDP calls one capture makes, through the same connection: the engine's own floor (ms).

    Per frame session a snapshot, per frame the change probe, per out-of-process frame its owner, then as
    many role lookups as the last state needed (elements whose role the HTML mapping left open)."""
    from cdp_engine.snapshot.snapshot_doc import SNAPSHOT_STYLES

    capturer = tab.element_index.capturer
    current = tab.element_index.current
    lookups = sum(1 for el in current.elements.values() if not el.role_known) if current else 0
    params = {"computedStyles": SNAPSHOT_STYLES, "includePaintOrder": True, "includeDOMRects": False}
    frames = capturer.frame_sessions()
    t0 = time.perf_counter()
    probes = capturer.probes.send_probes()
    snaps = await asyncio.gather(
        *[s.send("DOMSnapshot.captureSnapshot", params) for _, s in frames],
        *[(s.parent or tab.session).send("DOM.getFrameOwner", {"frameId": fid}) for fid, s in frames[1:]],
        return_exceptions=True,
    )
    await capturer.probes.read_probes(probes)
    snap = snaps[0]
    strings, nodes = snap["strings"], snap["documents"][0]["nodes"]
    wanted = {"A", "BUTTON", "INPUT", "SELECT", "TEXTAREA", "OPTION"}
    backend_ids = [
        b for n, b in zip(nodes["nodeName"], nodes["backendNodeId"], strict=True) if strings[n] in wanted
    ][:lookups]
    await asyncio.gather(
        *[
            tab.session.send("Accessibility.getPartialAXTree", {"backendNodeId": b, "fetchRelatives": False})
            for b in backend_ids
        ],
        return_exceptions=True,
    )
    del snap, snaps
    return (time.perf_counter() - t0) * 1000


async def engine_measurements(
    urls: list[str],
    transport: str,
    reps: int,
    warmup: int,
    timeout: float,
    markers: dict[str, list[str]],
    budget_s: float | None = None,
) -> None:
    """Measure cdp-engine on each URL: state without/with screenshot, unchanged-page state, element count,
    page_content size, click and input_text round trips, navigation, Python CPU vs wall, peak memory."""
    import cdp_engine

    wd = Watchdog(timeout)
    emit("system", name=f"engine-{transport}", version=getattr(cdp_engine, "__version__", None))
    async with cdp_engine.launch(transport=transport) as browser:
        tab = await browser.new_tab()
        for url in urls:
            nav, state_s, cpu_s, unchanged_s, shot_s, calls_s = (
                Series(url, m)
                for m in (
                    "navigate",
                    "state",
                    "state.cpu",
                    "state.unchanged",
                    "state+screenshot",
                    "state.cdp_calls",
                )
            )
            phases: dict[str, list[float]] = {}
            state: dict[str, Any] = {}
            try:
                # Series.runs() cuts the timed runs when the warm-up iteration shows they would not fit budget_s.
                iteration = Series(url, "iteration")
                for warm in iteration.runs(warmup, reps, budget_s):
                    t_iteration = time.perf_counter()
                    # A fresh load before each state, so the engine cannot answer from "unchanged".
                    with wd.guard(url, "navigate"):
                        t0 = time.perf_counter()
                        await tab.goto(url, wait_until="load")
                        nav.add((time.perf_counter() - t0) * 1000, warm)
                    with wd.guard(url, "state"):
                        c0, t0 = time.process_time(), time.perf_counter()
                        state = await tab.state(screenshot=False)
                        state_s.add((time.perf_counter() - t0) * 1000, warm)
                        cpu_s.add((time.process_time() - c0) * 1000, warm)
                    if not warm:
                        for k, v in (getattr(tab, "last_timings", None) or {}).items():
                            if isinstance(v, int | float):
                                phases.setdefault(k, []).append(float(v))
                    with wd.guard(url, "state.unchanged"):
                        t0 = time.perf_counter()
                        await tab.state(screenshot=False)
                        unchanged_s.add((time.perf_counter() - t0) * 1000, warm)
                    with wd.guard(url, "navigate"):
                        t0 = time.perf_counter()
                        await tab.goto(url, wait_until="load")
                        nav.add((time.perf_counter() - t0) * 1000, warm)
                    with wd.guard(url, "state+screenshot"):
                        t0 = time.perf_counter()
                        await tab.state(screenshot=True)
                        shot_s.add((time.perf_counter() - t0) * 1000, warm)
                    # The same CDP calls on an equally fresh load: the engine's own floor.
                    with wd.guard(url, "navigate"):
                        await tab.goto(url, wait_until="load")
                    with wd.guard(url, "state.cdp_calls"):
                        calls_s.add(await _engine_cdp_calls(tab), warm)
                    iteration.add((time.perf_counter() - t_iteration) * 1000, warm)
                content = str(state.get("page_content") or "")
                index = state.get("element_index")
                state_s.extra.update(
                    {**iteration.extra, **describe_output(content, markers.get(url, []))},
                    elements=len(index) if hasattr(index, "__len__") else None,
                    page_content_chars=len(content),
                    phases_median_ms={k: sorted(v)[len(v) // 2] for k, v in phases.items()},
                )
                for s in (nav, state_s, cpu_s, unchanged_s, shot_s, calls_s):
                    s.done()
            except Exception as exc:
                emit("error", url=url, metric="state", error=error_text(exc))
                continue
            # Round trips of actions, each returning the new state. The indices come from a state of the
            # document the actions run on (each series starts on a fresh load: a click on an anchor link
            # scrolls the text field away); an action that answers with an error state is a failure with
            # its error text, never a timed sample.
            for metric, words, action in (
                ("click", "click", {"action": "click_element"}),
                ("input_text", "input", {"action": "input_text", "text": "hello"}),
            ):
                series = Series(url, metric)
                try:
                    with wd.guard(url, "navigate"):
                        await tab.goto(url, wait_until="load")
                        state = await tab.state(screenshot=False)
                    for warm in series.runs(warmup, reps, budget_s):
                        idx = _pick(state, words)
                        if idx is None:
                            raise LookupError(f"no element for {metric} in element_index")
                        with wd.guard(url, metric):
                            t0 = time.perf_counter()
                            result = await tab.act({**action, "element_index": idx})
                            ms = (time.perf_counter() - t0) * 1000
                        if "error" in result:
                            err = result["error"]
                            series.fail(f"{err.get('code')}: {err.get('message')}")
                            state = await tab.state(screenshot=False)  # indices of the page as it is now
                            continue
                        state = result
                        series.add(ms, warm)
                    series.done()
                except Exception as exc:
                    emit("error", url=url, metric=metric, error=error_text(exc))
            emit(
                "facts",
                url=url,
                peak_rss_mb=_peak_rss_mb(),
                **_validator_cost(),
            )
    emit("done")


def _peak_rss_mb() -> float:
    """This process's own peak RSS. Linux carries ru_maxrss across fork and exec, so a worker started while
    the runner held a large snapshot would report the runner's peak; VmHWM counts only this process."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _validator_cost() -> dict[str, float]:
    """What checking an incoming action against protocol/schemas costs (µs per action)."""
    from cdp_engine.index.actions import parse_action, validate_action

    action = {"action": "input_text", "element_index": 12, "text": "user@example.com", "overwrite": True}
    raw = json.dumps(action)
    out: dict[str, float] = {}
    for name, fn, arg in (
        ("validate_action_us", validate_action, action),
        ("parse_action_us", parse_action, raw),
    ):
        n = 20_000
        t0 = time.perf_counter()
        for _ in range(n):
            fn(arg)  # type: ignore[operator]
        out[name] = round((time.perf_counter() - t0) / n * 1e6, 2)
    return out


async def engine_cold_start(
    url: str, transport: str, reps: int, warmup: int, timeout: float, budget_s: float | None = None
) -> None:
    """Cold launch to first state: launch, new tab, goto, state — each run in a new browser."""
    import cdp_engine

    wd = Watchdog(timeout)
    emit("system", name=f"engine-{transport}", version=getattr(cdp_engine, "__version__", None))
    parts = {m: Series(url, f"cold.{m}") for m in ("first_state", "launch", "new_tab", "goto", "state")}
    try:
        for warm in parts["first_state"].runs(warmup, reps, budget_s):
            with wd.guard(url, "cold.first_state"):
                t0 = time.perf_counter()
                async with cdp_engine.launch(transport=transport) as browser:
                    t1 = time.perf_counter()
                    tab = await browser.new_tab()
                    t2 = time.perf_counter()
                    await tab.goto(url, wait_until="load")
                    t3 = time.perf_counter()
                    await tab.state(screenshot=False)
                    t4 = time.perf_counter()
            for name, ms in (
                ("first_state", t4 - t0),
                ("launch", t1 - t0),
                ("new_tab", t2 - t1),
                ("goto", t3 - t2),
                ("state", t4 - t3),
            ):
                parts[name].add(ms * 1000, warm)
        for s in parts.values():
            s.done()
    except Exception as exc:
        emit("error", url=url, metric="cold.first_state", error=error_text(exc))
    emit("done")


def engine_worker(argv: list[str]) -> None:
    """Entry point of the engine worker process."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine-worker", action="store_true")
    ap.add_argument("--transport", default="websocket")
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("urls", nargs="+")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--markers", default="{}")
    ap.add_argument("--budget", type=float, default=0)
    ns = ap.parse_args(argv)
    try:
        if ns.cold:
            asyncio.run(
                engine_cold_start(ns.urls[0], ns.transport, ns.reps, ns.warmup, ns.timeout, ns.budget)
            )
        else:
            asyncio.run(
                engine_measurements(
                    ns.urls, ns.transport, ns.reps, ns.warmup, ns.timeout, json.loads(ns.markers), ns.budget
                )
            )
    except Exception as exc:  # import failure, launch failure: the runner reports it and goes on
        emit("error", url=None, metric=None, error=error_text(exc))


# =============================================================================================================
# The runner
# =============================================================================================================


class Progress:
    """One stderr line per finished job, with the count, elapsed time and the job's key number."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.t0 = total, 0, time.monotonic()
        self.tty = sys.stderr.isatty()
        self.loads: list[float] = []  # 1-minute load average after each job: a loaded machine skews numbers

    def elapsed(self) -> str:
        s = int(time.monotonic() - self.t0)
        return f"{s // 60}:{s % 60:02d}"

    def start(self, page: str, system: str) -> None:
        if self.tty:
            sys.stderr.write(
                f"\r\x1b[K[{self.done + 1:>3}/{self.total} {self.elapsed()}] {page:<18} {system:<16} …"
            )
            sys.stderr.flush()

    def finish(self, page: str, system: str, secs: float, note: str) -> None:
        self.done += 1
        self.loads.append(round(os.getloadavg()[0], 2))
        prefix = "\r\x1b[K" if self.tty else ""
        sys.stderr.write(
            f"{prefix}[{self.done:>3}/{self.total} {self.elapsed()}] {page:<18} {system:<16} {secs:6.1f}s  {note}\n"
        )
        sys.stderr.flush()

    def say(self, msg: str) -> None:
        sys.stderr.write(("\r\x1b[K" if self.tty else "") + msg + "\n")
        sys.stderr.flush()


class Collector:
    """Everything measured, keyed the way report.py reads it."""

    def __init__(self) -> None:
        self.measurements: list[dict[str, Any]] = []
        self.pages: dict[str, dict[str, Any]] = {}
        self.systems: dict[str, dict[str, Any]] = {}
        self.loads: list[dict[str, Any]] = []

    def system(self, name: str) -> dict[str, Any]:
        return self.systems.setdefault(name, {"status": "not run", "errors": {}})

    def add(
        self,
        system: str,
        page: str,
        metric: str,
        first_ms: float | None,
        samples: list[float],
        extra: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        self.measurements.append(
            {
                "system": system,
                "page": page,
                "metric": metric,
                "first_ms": first_ms,
                "samples_ms": samples,
                "extra": extra or {},
                "error": error,
            }
        )

    def fail(self, system: str, page: str, error: str) -> None:
        info = self.system(system)
        info["errors"][page] = error
        if info["status"] != "ok":
            info["status"] = "error"
            info["error"] = error


async def run_worker(
    cmd: list[str], deadline_s: float, env: dict[str, str]
) -> tuple[list[dict[str, Any]], str, int | None, bool]:
    """Run an adapter in its own process group; return (protocol events, stderr tail, exit code, killed)."""
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        limit=2**26,
    )
    events: list[dict[str, Any]] = []
    err_tail: list[str] = []

    async def read_out() -> None:
        assert proc.stdout is not None
        async for raw in proc.stdout:
            line = raw.decode(errors="replace")
            if line.startswith(PREFIX):
                with contextlib.suppress(json.JSONDecodeError):
                    events.append(json.loads(line[len(PREFIX) :]))

    async def read_err() -> None:
        assert proc.stderr is not None
        async for raw in proc.stderr:
            err_tail.append(raw.decode(errors="replace").rstrip())
            del err_tail[:-40]

    killed = False
    readers = asyncio.gather(read_out(), read_err())
    try:
        await asyncio.wait_for(proc.wait(), deadline_s)
    except TimeoutError:
        killed = True
    finally:
        # End the adapter's whole group: its Chromium and driver processes too (the group is ours alone).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(readers, 10)
    return events, "\n".join(err_tail), proc.returncode, killed


def absorb(
    col: Collector,
    system: str,
    page: str,
    events: list[dict[str, Any]],
    err_tail: str,
    code: int | None,
    killed: bool,
    deadline_s: float,
) -> tuple[str, bool]:
    """Turn a worker's events into measurements; return (progress note, whether it timed out)."""
    notes, timed_out, done = [], False, False
    info = col.system(system)
    for ev in events:
        kind = ev.get("event")
        if kind == "system":
            info["version"] = ev.get("version")
            info.update({k: v for k, v in ev.items() if k not in ("event", "name", "version")})
        elif kind == "page":
            col.loads.append(
                {"system": system, "page": page, **{k: v for k, v in ev.items() if k != "event"}}
            )
        elif kind == "measure":
            col.add(
                system,
                page,
                ev["metric"],
                ev.get("first_ms"),
                ev.get("samples_ms") or [],
                ev.get("extra"),
                ev.get("error"),  # failed calls (never samples), counted in extra["failures"]
            )
            if ev.get("error"):
                notes.append(f"{ev['metric']}: {ev['error'][:120]}")
            info["status"] = "ok"
            info.pop("error", None)
            st = report.stats(ev.get("samples_ms") or [])
            if st["median_ms"] is not None and len(notes) < 3:
                notes.append(f"{ev['metric']} {st['median_ms']:,.1f} ms")
        elif kind == "timeout":
            timed_out = (
                timed_out or ev.get("metric") != "launch"
            )  # a slow launch says nothing about page size
            msg = f"timeout after {ev.get('timeout_s'):g} s in {ev.get('metric')}"
            col.add(system, page, ev.get("metric") or "?", None, [], error=msg)
            col.fail(system, page, msg)
            notes.append(msg)
        elif kind == "error":
            msg = ev.get("error") or "error"
            if ev.get("metric"):
                col.add(system, page, ev["metric"], None, [], error=msg)
            col.fail(system, page, msg)
            notes.append(f"error: {msg[:120]}")
        elif kind == "facts":
            col.pages.setdefault(page, {}).setdefault("facts", {})[system] = {
                k: v for k, v in ev.items() if k not in ("event", "url")
            }
        elif kind == "done":
            done = True
    if killed:
        timed_out = True
        msg = f"worker exceeded its {deadline_s:.0f} s deadline"
        col.fail(system, page, msg)
        notes.append(msg)
    elif not done and not timed_out:
        last = err_tail.strip().splitlines()[-1] if err_tail.strip() else ""
        msg = f"worker exited with code {code} before finishing: {last[:300]}"
        col.fail(system, page, msg)
        notes.append(msg)
    return " · ".join(notes) or "no measurements", timed_out


def worker_env() -> dict[str, str]:
    """Environment for adapter processes: ours, minus anything that would mix the two Python environments."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


async def run_floor(
    col: Collector, system: str, page: str, url: str, ns: argparse.Namespace
) -> tuple[str, bool]:
    """The floor on one page, in this process (it is a few hundred lines of our own code)."""
    transport = FLOOR_SYSTEMS[system]
    info = col.system(system)
    reps = page_reps(ns, page)
    budget = ns.timeout * (len(floor.DEFAULT_METRICS) * (reps + 1) + 4)
    try:
        if page == "launch":
            timed = await asyncio.wait_for(floor.measure_launch(transport, reps, 1, ns.timeout), budget)
            recs = [{"facts": {}, "measurements": [t.as_dict() for t in timed]}]
        else:
            recs = await asyncio.wait_for(
                floor.measure_pages(transport, [url], reps, 1, ns.timeout, budget_s=ns.budget or None), budget
            )
    except TimeoutError:
        col.fail(system, page, f"floor exceeded {budget:.0f} s")
        return "timeout", True
    rec = recs[0]
    if rec.get("error"):
        col.fail(system, page, rec["error"])
        return f"error: {rec['error']}", False
    if "browser" in rec:
        info["version"] = rec["browser"].get("product")
        col.pages.setdefault("_browser", rec["browser"])
    facts = rec.get("facts", {})
    if facts.get("dom_nodes") and not col.pages[page].get("dom_nodes"):
        col.pages[page].update({k: v for k, v in facts.items() if k != "load_ms"})
    if "load_ms" in facts:
        col.loads.append({"system": system, "page": page, "load_ms": facts["load_ms"]})
    notes, timed_out = [], False
    for m in rec["measurements"]:
        col.add(system, page, m["metric"], m["first_ms"], m["samples_ms"], m["extra"], m["error"])
        if m["error"]:
            col.fail(system, page, f"{m['metric']}: {m['error']}")
            timed_out = timed_out or "timeout" in m["error"]
    info["status"] = "ok" if any(m["samples_ms"] for m in rec["measurements"]) else info["status"]
    for m in rec["measurements"]:
        if m["metric"] in ("snapshot.none", "fullAX", "launch.first_session") and m["samples_ms"]:
            notes.append(f"{m['metric']} {report.stats(m['samples_ms'])['median_ms']:,.1f} ms")
    return " · ".join(notes) or "done", timed_out


def page_reps(ns: argparse.Namespace, page: str) -> int:
    """Timed runs for a page: launches are slow and page-independent, so quick mode does fewer."""
    return ns.launch_reps if page == "launch" else ns.reps


def worker_cmd(system: str, page: str, url: str, markers: list[str], ns: argparse.Namespace) -> list[str]:
    """The command line that measures `system` on one page."""
    common = [
        url,
        "--reps",
        str(page_reps(ns, page)),
        "--budget",
        str(ns.budget or 0),
        "--timeout",
        str(ns.timeout),
        "--markers",
        json.dumps({url: markers}),
    ]
    if system in ENGINE_SYSTEMS:
        cmd = [sys.executable, str(HERE / "run.py"), "--engine-worker", "--transport", ENGINE_SYSTEMS[system]]
        return [*cmd, *(["--cold"] if page == "launch" else []), *common]
    return [str(VENV_PY), str(OTHERS[system]), *common]


def machine_info() -> dict[str, Any]:
    """CPU model, cores, memory, OS and Python."""
    cpu = platform.processor()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem_gb = None
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": mem_gb,
        "os": platform.platform(),
        "python": platform.python_version(),
        "load_avg_at_start": os.getloadavg(),
    }


def versions() -> dict[str, Any]:
    """Package versions of both environments, the Chromium binary and python3-doc."""
    from importlib import metadata

    out: dict[str, Any] = {"main": {}, "others": {}}
    for name in MAIN_PACKAGES:
        try:
            out["main"][name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out["main"][name] = None
    if VENV_PY.exists():
        code = (
            "import json, sys\nfrom importlib import metadata as m\nr = {}\nfor n in sys.argv[1:]:\n"
            "    try: r[n] = m.version(n)\n    except m.PackageNotFoundError: r[n] = None\nprint(json.dumps(r))"
        )
        with contextlib.suppress(Exception):
            res = subprocess.run(
                [str(VENV_PY), "-c", code, *OTHERS_PACKAGES],
                capture_output=True,
                text=True,
                timeout=60,
                env=worker_env(),
            )
            out["others"] = json.loads(res.stdout)
    with contextlib.suppress(Exception):
        out["chromium_binary"] = subprocess.run(
            [floor.CHROMIUM, "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    with contextlib.suppress(Exception):
        out["python3-doc"] = (
            subprocess.run(
                ["dpkg-query", "-W", "-f=${Version}", "python3-doc"],
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout.strip()
            or None
        )
    return out


def draw_chart(json_path: Path, png: Path, col_notes: dict[str, Any]) -> str | None:
    """Draw the chart with matplotlib from .venv-others (or this interpreter if it has it); the error if neither."""
    cmds = []
    if VENV_PY.exists():
        cmds.append([str(VENV_PY), str(HERE / "report.py"), "chart", str(json_path), str(png)])
    cmds.append([sys.executable, str(HERE / "report.py"), "chart", str(json_path), str(png)])
    err = "no interpreter with matplotlib"
    for cmd in cmds:
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=worker_env())
        except Exception as exc:
            err = f"{type(exc).__name__}: {exc}"
            continue
        if res.returncode == 0 and png.exists():
            return None
        err = (res.stderr.strip().splitlines() or ["chart failed"])[-1]
    col_notes["chart_error"] = err
    return err


async def main_async(ns: argparse.Namespace) -> int:
    specs = pages.specs_by_id()
    page_ids = ns.pages or (QUICK_PAGES if ns.mode == "quick" else [s.id for s in pages.page_specs()])
    unknown = [p for p in page_ids if p not in specs]
    if unknown:
        sys.exit(f"unknown pages {unknown}; known: {list(specs)}")
    page_ids = sorted(page_ids, key=lambda p: specs[p].order)
    systems = ns.systems or ALL_SYSTEMS
    col = Collector()
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    started = time.time()
    meta: dict[str, Any] = {
        "stamp": stamp,
        "mode": ns.mode,
        "reps": ns.reps,
        "launch_reps": ns.launch_reps,
        "budget_s": ns.budget or None,
        "warmup": 1,
        "timeout_s": ns.timeout,
        "machine": machine_info(),
        "pages_requested": page_ids,
        "systems_requested": systems,
    }
    meta["versions"] = versions()
    others_ok = VENV_PY.exists()
    docs_root = pages.find_docs_root()
    prog_total = len(systems) * len(page_ids) + sum(
        1 for s in systems if s in FLOOR_SYSTEMS or s in ENGINE_SYSTEMS
    )
    prog = Progress(prog_total)
    prog.say(
        f"benchmark {ns.mode}: pages {', '.join(page_ids)}; systems {', '.join(systems)}; "
        f"{ns.reps} runs after 1 warm-up; {ns.timeout:g} s per measurement"
        + (f"; metrics slower than {ns.budget:g} s per run get fewer runs (min 3)" if ns.budget else "")
    )
    if not others_ok:
        prog.say(
            f"note: {VENV_PY} missing — run benchmarks/setup.sh; other systems will be reported as errors"
        )
    if docs_root is None and any(specs[p].kind == "real" for p in page_ids):
        prog.say(
            "note: python3-doc not installed — run benchmarks/setup.sh; doc pages will be reported as errors"
        )
    env = worker_env()
    skip_above: dict[str, int] = {}  # system -> order of the smallest page it timed out on

    async with pages.serve_pages(docs_root) as served:
        meta["served"] = {"main": served.main, "other": served.other, "docs_root": str(served.docs_root)}
        col.pages["launch"] = {"kind": "launch", "url": None}
        for p in page_ids:
            col.pages[p] = {
                "kind": specs[p].kind,
                "url": served.url(specs[p]),
                "path": specs[p].path,
                "interactive": specs[p].interactive,
                "markers": list(specs[p].markers),
            }
        # Launch to first session / first state: once per floor and engine transport.
        launch_url = served.url(specs["gen-100"])
        for system in [s for s in systems if s in FLOOR_SYSTEMS or s in ENGINE_SYSTEMS]:
            prog.start("launch", system)
            t0 = time.monotonic()
            if system in FLOOR_SYSTEMS:
                note, _ = await run_floor(col, system, "launch", launch_url, ns)
            else:
                deadline = ns.timeout * (ns.launch_reps + 2) + 60
                ev, tail, code, killed = await run_worker(
                    worker_cmd(system, "launch", launch_url, [], ns), deadline, env
                )
                note, _ = absorb(col, system, "launch", ev, tail, code, killed, deadline)
            prog.finish("launch", system, time.monotonic() - t0, note)

        for n, page in enumerate(page_ids):
            spec = specs[page]
            url = served.url(spec)
            # Interleave: every system on this page before the next page, starting with a different one each time.
            order = systems[n % len(systems) :] + systems[: n % len(systems)]
            for system in order:
                prog.start(page, system)
                t0 = time.monotonic()
                if spec.kind == "real" and docs_root is None:
                    col.fail(system, page, "python3-doc is not installed (run benchmarks/setup.sh)")
                    prog.finish(page, system, 0, "skipped: python3-doc missing")
                    continue
                if system in skip_above and spec.order > skip_above[system]:
                    msg = "skipped: timed out on a smaller page"
                    col.add(system, page, "(skipped)", None, [], error=msg)
                    prog.finish(page, system, 0, msg)
                    continue
                if system in FLOOR_SYSTEMS:
                    note, timed_out = await run_floor(col, system, page, url, ns)
                elif system in OTHERS and not others_ok:
                    col.fail(system, page, f"{VENV_PY} missing: run benchmarks/setup.sh")
                    note, timed_out = "skipped: .venv-others missing", False
                else:
                    deadline = ns.timeout * (4 * (ns.reps + 1) + 4) + 120
                    cmd = worker_cmd(system, page, url, list(spec.markers), ns)
                    ev, tail, code, killed = await run_worker(cmd, deadline, env)
                    note, timed_out = absorb(col, system, page, ev, tail, code, killed, deadline)
                if timed_out and spec.kind in ("generated", "real"):
                    # Bigger pages would time out too; a hang on a frames/shadow page says nothing about size.
                    skip_above[system] = min(skip_above.get(system, spec.order), spec.order)
                prog.finish(page, system, time.monotonic() - t0, note)

    browser_info = col.pages.pop("_browser", {})
    meta["chromium"] = {"version": meta["versions"].get("chromium_binary"), **browser_info}
    meta["duration_s"] = round(time.time() - started, 1)
    meta["load_avg_1min"] = {
        "start": meta["machine"]["load_avg_at_start"][0],
        "max": max(prog.loads, default=None),
        "mean": round(sum(prog.loads) / len(prog.loads), 2) if prog.loads else None,
    }
    for info in col.systems.values():
        if not info["errors"]:
            info.pop("errors")
    raw = {
        "meta": meta,
        "pages": col.pages,
        "systems": col.systems,
        "measurements": col.measurements,
        "page_loads": col.loads,
    }
    results = report.build(raw)
    out_dir = Path(ns.out)
    json_path = report.write(results, out_dir)
    md = report.markdown(results)
    (out_dir / "latest.md").write_text(md)
    png = out_dir / "latest.png"
    if not ns.no_chart:
        err = draw_chart(json_path, png, meta)
        if err:
            prog.say(f"chart not drawn: {err}")
            report.write(results, out_dir)  # again, now with meta["chart_error"]
    print(md)
    load, cores = meta["load_avg_1min"], meta["machine"]["cores"]
    if load["max"] and cores and load["max"] > cores:
        prog.say(
            f"warning: load average reached {load['max']} on {cores} cores: rerun on an idle machine to quote numbers"
        )
    drawn = not ns.no_chart and "chart_error" not in meta
    prog.say(f"done in {meta['duration_s']:.0f} s: {json_path}" + (f", {png.name}" if drawn else ""))
    return 0


# Every suite this folder holds, for `run.py --list` and `run.py --suite NAME [its arguments]` (the one entry point;
# each suite is also its own script). "capture" is this file's own run (--quick / --full).
SUITES: dict[str, tuple[str, str]] = {
    "capture": ("run.py", "the state of each page: the CDP floor, the engine and the other systems, interleaved"),
    "actions": ("actions.py", "an action plus the next state, every system side by side"),
    "incremental": ("incremental.py", "the state after a change: served, full capture and Playwright (issue 32)"),
    "realweb": ("realweb.py", "the real-web component tasks through every surface, Playwright and browser-use"),
    "extended": ("extended.py", "the extended interactive set: recall and precision, capture cost, MiniWoB++"),
    "screenshot": ("screenshot.py", "what a screenshot costs, raw and through the engine"),
    "changes": ("changes.py", "tokens a model reads per step: full states against the changes views"),
    "result-sizes": ("result_sizes.py", "each surface's default result size beside the other systems'"),
    "mcp-content": ("mcp_content.py", "MCP tool definitions and result sizes on the wire"),
    "marks": ("marks.py", "marked screenshots: what the marks cost"),
    "live-view": ("live_view.py", "the live view's cost to the engine it watches"),
    "surfaces": ("surfaces.py", "one action's round trip on every surface, for comparing two checkouts"),
    "full-capture": ("full_capture.py", "the element index's full capture as a whole process, for comparing two checkouts"),
    "click-settle": ("click_settle.py", "two click cases against their CDP floor"),
    "reliability": ("reliability.py", "fuzzed inputs, the fault matrix and load at full size (CI runs them small)"),
    "harness-soak": ("../tests/stress/soak_run.py", "many harness episodes in a row: memory, leaks, time per episode"),
    "floor": ("floor.py", "the raw CDP calls alone"),
}


def main() -> int:
    if "--engine-worker" in sys.argv[1:]:
        engine_worker(sys.argv[1:])
        return 0
    if sys.argv[1:2] == ["--list"]:
        for name, (script, what) in SUITES.items():
            print(f"{name:14} {os.path.normpath('benchmarks/' + script):28} {what}")
        return 0
    if sys.argv[1:2] == ["--suite"] and len(sys.argv) > 2 and sys.argv[2] != "capture":
        found = SUITES.get(sys.argv[2])
        if found is None:
            print(f"unknown suite {sys.argv[2]!r}; run.py --list names them", file=sys.stderr)
            return 2
        return subprocess.call([sys.executable, str(HERE / found[0]), *sys.argv[3:]])
    if sys.argv[1:3] == ["--suite", "capture"]:
        del sys.argv[1:3]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--quick", dest="mode", action="store_const", const="quick", help="small pages, 5 runs (default)"
    )
    mode.add_argument("--full", dest="mode", action="store_const", const="full", help="every page")
    ap.add_argument("--pages", nargs="+", help=f"page ids (known: {', '.join(pages.specs_by_id())})")
    ap.add_argument("--systems", nargs="+", choices=ALL_SYSTEMS, help="systems to run (default: all)")
    ap.add_argument("--reps", type=int, default=5, help="timed runs after one warm-up (default 5)")
    ap.add_argument("--timeout", type=float, help="seconds for one measurement (default 60 quick, 300 full)")
    ap.add_argument("--launch-reps", type=int, help="timed launches (default 3 quick, --reps full)")
    ap.add_argument(
        "--budget",
        type=float,
        help="seconds per metric and page: a metric whose warm-up shows its runs would not fit gets fewer "
        "(at least 3, marked in the results); default 5 quick, none full",
    )
    ap.add_argument("--out", default=str(HERE / "results"), help="results folder")
    ap.add_argument("--no-chart", action="store_true")
    ns = ap.parse_args()
    ns.mode = ns.mode or "quick"
    ns.timeout = ns.timeout or (60.0 if ns.mode == "quick" else 300.0)
    quick = ns.mode == "quick"
    ns.launch_reps = ns.launch_reps or (min(3, ns.reps) if quick else ns.reps)
    ns.budget = (5.0 if quick else 0.0) if ns.budget is None else ns.budget
    if ns.reps < 1:
        ap.error("--reps must be at least 1")
    return asyncio.run(main_async(ns))


if __name__ == "__main__":
    sys.exit(main())
