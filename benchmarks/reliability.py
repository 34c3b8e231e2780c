#!/usr/bin/env python3
"""Reliability figures: fuzzed hostile inputs per surface, the fault matrix, and a load run.

    python benchmarks/reliability.py                     # 5,000 inputs per surface, the matrix, the load run
    python benchmarks/reliability.py --inputs 500 --skip-load

Writes benchmarks/results/reliability.json and reliability.md. The parts are the stress tests' own, run here at
full size: tests/stress/fuzz_inputs.py (generators and checks of tests/stress/test_fuzz.py), tests/stress/fault_runs.py
(tests/fault_matrix.py's table, as tests/stress/test_fault_matrix.py runs it) and tests/stress/load_run.py. Everything runs against pages served from 127.0.0.1
and Chromiums this run starts; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "stress")]

import cdp_engine  # noqa: E402


async def run_fuzz(inputs: int, seed: int) -> list[dict[str, Any]]:
    import fuzz_inputs

    async with cdp_engine.launch() as browser:
        rows: list[dict[str, Any]] = await fuzz_inputs.fuzz_all(browser, inputs, seed)
    for row in rows:
        print(f"fuzz {row}", file=sys.stderr)
    return rows


async def run_faults(reps: int) -> list[dict[str, Any]]:
    import fault_runs

    rows = await fault_runs.fault_matrix(reps=reps)
    for row in rows:
        print(f"fault {row}", file=sys.stderr)
    return rows


async def run_load() -> dict[str, Any]:
    import load_run

    result = await load_run.load_run()
    print(f"load {result}", file=sys.stderr)
    return result


def markdown(out: dict[str, Any]) -> str:
    lines = [f"# Reliability run {out['date']}", "", f"Machine: {out['machine']}", ""]
    if out.get("fuzz"):
        keys = ["surface", "inputs", "uncaught", "http_500", "wrong_codes", "page_changes", "hangs", "slowest_ms"]
        lines += ["## Fuzzed inputs", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
        lines += ["| " + " | ".join(str(row.get(k, "")) for k in keys) + " |" for row in out["fuzz"]]
        lines.append("")
    if out.get("faults"):
        keys = ["case", "result", "ms", "deadline_ms", "within_deadline", "usable_after", "leaked_processes", "leaked_folders"]
        lines += ["## Fault matrix", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
        lines += ["| " + " | ".join(str(row.get(k, "")) for k in keys) + " |" for row in out["faults"]]
        lines.append("")
    if out.get("load"):
        lines += ["## Load", "", "```json", json.dumps(out["load"], indent=1), "```", ""]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=5000, help="fuzzed inputs per surface (default 5000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fault-reps", type=int, default=1)
    ap.add_argument("--skip-fuzz", action="store_true")
    ap.add_argument("--skip-faults", action="store_true")
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--out", default=str(HERE / "results" / "reliability"))
    args = ap.parse_args()
    out: dict[str, Any] = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "machine": f"{os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}",
        "inputs_per_surface": args.inputs,
        "seed": args.seed,
    }
    if not args.skip_fuzz:
        out["fuzz"] = asyncio.run(run_fuzz(args.inputs, args.seed))
    if not args.skip_faults:
        out["faults"] = asyncio.run(run_faults(args.fault_reps))
    if not args.skip_load:
        out["load"] = asyncio.run(run_load())
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".json").write_text(json.dumps(out, indent=1) + "\n")
    Path(args.out + ".md").write_text(markdown(out))
    print(f"wrote {args.out}.json and .md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
