"""Real Python web apps (Django's admin, a Flask form, a NiceGUI app), each started as its own server with its
own SQLite database, driven through every surface by the scripted agents; the result is read from the
app's database, never from the DOM. Needs the optional extra `realweb` (pip install -e ".[realweb]")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import SURFACES
from .servers import start
from .tasks import APP_TASKS, Task, run_or_say

pytest.importorskip("django")
pytest.importorskip("flask")
pytest.importorskip("nicegui")


@pytest.mark.parametrize(("surface", "mode"), SURFACES, ids=[f"{s}-{m}" for s, m in SURFACES])
@pytest.mark.parametrize("task", APP_TASKS, ids=[t.name for t in APP_TASKS])
async def test_app_task(make_agent: Any, tmp_path: Path, task: Task, surface: str, mode: str) -> None:
    async with start(task.page, tmp_path) as app:
        agent = await make_agent(surface, mode, app.url)
        await run_or_say(agent, task, mode)
        table = "orders_order" if task.page == "django" else "orders"
        rows = [{k: r[k] for k in task.expected} for r in app.rows(table)]
        assert rows == [task.expected]
        c = agent.counters
        assert (c.wrong_element, c.silent_noops, c.stale_states) == (0, 0, 0), c.notes
