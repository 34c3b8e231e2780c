"""A small soak (tests/stress/soak_run.py; its full run gives the figures in docs/harness.md): a few harness
episodes over parallel environments in one Chromium, then nothing of the run may be left alive, and every
episode must have succeeded."""

from __future__ import annotations

import os
import uuid

import pytest
import soak_run as soak

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


async def test_a_small_soak_succeeds_and_leaks_no_process() -> None:
    tag = f"soak-{uuid.uuid4().hex}"
    before = os.environ.get(soak.TAG_VAR)
    os.environ[soak.TAG_VAR] = tag  # inherited by the Chromium the run starts: its processes are told apart
    try:
        run = await soak.one_browser(8, 2, tag, prewarm=True)
    finally:
        if before is None:
            os.environ.pop(soak.TAG_VAR, None)
        else:
            os.environ[soak.TAG_VAR] = before
    assert run["episodes"] == 8 and run["succeeded"] == 8, run
    assert run["leaked_processes"] == [], run["leaked_processes"]
    assert run["processes_seen"] > 0  # the check saw the run's Chromium, so it would see one left behind
