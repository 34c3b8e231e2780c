"""Component libraries people build with (MUI, react-select, Radix UI, Headless UI, react-window, Shoelace),
driven the way an agent drives them: through the element index (strict and extended), the browser toolset and
MCP, each by a scripted agent that sees only what its surface gives (agents.py). A task passes when the page's
submit carries the expected values and the agent's counters show no wrong-element action, no silent no-op and
no stale state.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import SURFACES, ComponentSite
from .tasks import COMPONENT_TASKS, Task, expected_values, run_or_say


@pytest.mark.parametrize(("surface", "mode"), SURFACES, ids=[f"{s}-{m}" for s, m in SURFACES])
@pytest.mark.parametrize("task", COMPONENT_TASKS, ids=[t.name for t in COMPONENT_TASKS])
async def test_component_task(
    make_agent: Any, components: ComponentSite, task: Task, surface: str, mode: str
) -> None:
    components.submitted.pop(task.page, None)
    agent = await make_agent(surface, mode, components.page(task.page))
    await run_or_say(agent, task, mode)
    assert components.submitted.get(task.page) == [expected_values(task)]
    c = agent.counters
    assert (c.wrong_element, c.silent_noops, c.stale_states) == (0, 0, 0), c.notes
