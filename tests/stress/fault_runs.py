#!/usr/bin/env python3
"""The fault matrix of issue 14 as figures: every case of tests/fault_matrix.py CASES (the one table the
tests run too), `reps` times, each in its own Chromium with short deadlines.

    python tests/stress/fault_runs.py            # one pass, prints the table
    python tests/stress/fault_runs.py --reps 3

benchmarks/reliability.py imports fault_matrix() and writes the rows into its results file. A row:
{"case", "result", "expected", "ms", "deadline_ms", "within_deadline", "usable_after", "leaked_processes",
"leaked_folders"}: `result` is `state:ok`, `state:<error code>`, `raise:<ErrorType>` or `failed:<why>` (a
broken expectation inside the case); `ms` is the faulting call's time, judged against `deadline_ms` plus
the matrix's slack; `usable_after` says the next call (same tab, new tab or a new launch) answered at once.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fault_matrix import CASES, SLACK, run_case, serve  # noqa: E402


async def fault_matrix(reps: int = 1) -> list[dict[str, Any]]:
    """One row per case and repetition, in table order."""
    rows: list[dict[str, Any]] = []
    async with serve() as pages:
        for _ in range(reps):
            for case in CASES:
                rows.append(await run_case(case, pages))
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, a summary line last."""
    lines = [
        "| case | result | ms | deadline ms | within | usable after | leaked processes | leaked folders |",
        "|---|---|---:|---:|---|---|---:|---:|",
    ]
    for row in rows:
        result = row["result"] if row["result"] == row["expected"] else f"**{row['result']}** (expected {row['expected']})"
        lines.append(
            f"| {row['case']} | {result} | {row['ms']:.0f} | {row['deadline_ms']} | {'yes' if row['within_deadline'] else '**no**'} "
            f"| {'yes' if row['usable_after'] else '**no**'} | {row['leaked_processes']} | {row['leaked_folders']} |"
        )
    bad = [r["case"] for r in rows if r["result"] != r["expected"] or not r["within_deadline"] or not r["usable_after"]
           or r["leaked_processes"] or r["leaked_folders"]]
    lines.append(f"\n{len(rows)} runs, {len(rows) - len(bad)} as required (deadline slack {SLACK:g} s); failing: {bad or 'none'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    print(table(asyncio.run(fault_matrix(args.reps))))


if __name__ == "__main__":
    main()
