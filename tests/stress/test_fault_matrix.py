"""The fault matrix (issue 14, Build 4), table-driven: every case in tests/fault_matrix.py CASES gives the
result it must (a state with the right error code, or the typed error) within its documented deadline,
leaves the engine usable at once, and leaves no Chromium process or temporary folder behind.

The cases not repeated here live in test_faults.py (held dialogs in detail, hung renderer without a cached
state, crashed or dead tab for every action kind) and test_navigation_faults.py (goto timeouts, the abandoned
navigation that must never commit, a tab closed during a slow navigation).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from fault_matrix import CASES, Case, Pages, run_case, serve

pytestmark = pytest.mark.slow  # waits out deadlines by design: .ci/run runs it (`pytest -m slow`)


@pytest_asyncio.fixture(scope="module")
async def pages() -> AsyncIterator[Pages]:
    async with serve() as pages:
        yield pages


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
async def test_fault(case: Case, pages: Pages) -> None:
    row = await run_case(case, pages)
    assert row["result"] == case.expected, row
    assert row["within_deadline"], row
    assert row["usable_after"], row
    assert row["leaked_processes"] == 0 and row["leaked_folders"] == 0, row
