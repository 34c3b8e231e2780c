"""Component libraries people build with (MUI, react-select, Radix UI, Headless UI, react-window, Shoelace, ...),
driven the way an agent drives them: by the one scripted agent (steps.py) on every surface in turn, the element
index, the browser toolset and MCP, in the strict and the extended set, each seeing only what its surface gives
(agents.py). A task passes when, on every surface, the page's submit carries the expected values and the agent's
counters show no wrong-element action, no silent no-op and no stale state; one that ends differently on two
surfaces fails.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import MODES, ComponentSite
from .tasks import COMPONENT_TASKS, Task, expected_values, mark_known, on_every_surface, outcome


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("task", COMPONENT_TASKS, ids=[t.name for t in COMPONENT_TASKS])
async def test_component_task(
    make_agent: Any, components: ComponentSite, task: Task, mode: str, request: pytest.FixtureRequest
) -> None:
    mark_known(request, task, mode)

    async def attempt(surface: str) -> str | None:
        components.submitted.pop(task.page, None)
        agent = await make_agent(surface, mode, components.page(task.page))

        async def result() -> str | None:
            sent = components.submitted.get(task.page)
            return None if sent == [expected_values(task)] else f"the page submitted {sent}"

        return await outcome(agent, task, result)

    await on_every_surface(task, mode, attempt)
