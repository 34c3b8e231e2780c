"""A small load run (tests/stress/load_run.py; benchmarks/reliability.py runs the big one): 2 agents, 2 MCP sessions, 2 HTTP clients, one episode each.

The figures come from the benchmark; this only checks that concurrent clients of every surface get no error,
no HTTP 500 and never another client's page, and that the run's cross-talk check would notice if they did.
"""

from __future__ import annotations

import time
from pathlib import Path

import load_run as load
import pytest

import cdp_engine

ROOT = Path(__file__).resolve().parents[2]




def test_cross_talk_check_notices_another_clients_token() -> None:
    tally = load.Tally()
    mine, other = load.new_token(), load.new_token()
    tally.check_own("a", mine, f"http://127.0.0.1/c/{mine}", f"Client {mine} idle {mine}")
    assert tally.cross_talk == 0
    tally.check_own("a", mine, f"http://127.0.0.1/c/{mine}", f"Client {other}")
    assert tally.cross_talk == 1 and other in tally.samples[0]


async def test_small_load_run_has_no_errors_and_no_cross_talk(browser: cdp_engine.Browser) -> None:
    pytest.importorskip("mcp")
    pytest.importorskip("uvicorn")
    t0 = time.perf_counter()
    result = await load.load_run((2,), 2, 2, seconds=15, steps=7, browser=browser)
    assert time.perf_counter() - t0 < 30
    parts = [*result["agents"], result["mcp_sessions"], result["http_clients"]]
    assert [p["n"] for p in parts] == [2, 2, 2]
    for part in parts:
        assert part["steps"] >= 2 * 6, part  # at least one whole episode per client
        assert (part["errors"], part["hangs"], part["http_500"], part["cross_talk"]) == (0, 0, 0, 0), part
        assert part["p95_ms"] >= part["p50_ms"] > 0
