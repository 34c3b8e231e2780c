"""Real Python web apps (Django's admin, a Flask form, a NiceGUI app), each started as its own server with its
own SQLite database, driven by the one scripted agent on every surface in turn; the result is read from the
app's database, never from the DOM, and must be the same on every surface. Needs the optional extra `realweb`
(pip install -e ".[realweb]")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import MODES
from .servers import start
from .tasks import APP_TASKS, Task, mark_known, on_every_surface, outcome

pytest.importorskip("django")
pytest.importorskip("flask")
pytest.importorskip("nicegui")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task", APP_TASKS, ids=[t.name for t in APP_TASKS])
async def test_app_task(
    make_agent: Any, tmp_path: Path, task: Task, mode: str, request: pytest.FixtureRequest
) -> None:
    mark_known(request, task, mode)

    async def attempt(surface: str) -> str | None:
        (tmp_path / surface).mkdir()
        async with start(task.page, tmp_path / surface) as app:
            agent = await make_agent(surface, mode, app.url)

            async def result() -> str | None:
                table = "orders_order" if task.page == "django" else "orders"
                rows = [{k: r[k] for k in task.expected} for r in app.rows(table)]
                return None if rows == [task.expected] else f"the app saved {rows}"

            return await outcome(agent, task, result)

    await on_every_surface(task, mode, attempt)
