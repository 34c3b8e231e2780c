"""Component libraries people build with (MUI, react-select, Radix UI, Headless UI, react-window, Shoelace),
driven the way an agent drives them: through the element index (strict and extended), the browser toolset and
MCP, each by a scripted agent that sees only what its surface gives (agents.py). A task passes when the page's
submit carries the expected values and the agent's counters show no wrong-element action, no silent no-op and
no stale state.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

import cdp_engine
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.toolset.executor import BrowserToolset, ToolsetConfig

from .agents import Agent, IndexAgent, McpAgent, TaskFailed, ToolsetAgent
from .conftest import ComponentSite
from .tasks import COMPONENT_TASKS, Task, run_steps

SURFACES = [("index", "strict"), ("index", "extended"), ("toolset", "strict"), ("toolset", "extended"),
            ("mcp", "strict"), ("mcp", "extended")]  # fmt: skip


@pytest_asyncio.fixture
async def make_agent(
    browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[Any]:
    closers: list[Any] = []

    async def make(surface: str, mode: str, url: str) -> Agent:
        if surface == "index":
            tab = await context.new_tab()
            assert isinstance(tab, cdp_engine.AgentTab)
            await tab.goto(url, wait_until="load")
            return IndexAgent(tab, mode)
        if surface == "toolset":
            ts = await BrowserToolset(browser, context=context, config=ToolsetConfig(interactive=mode)).start()
            closers.append(ts.close)
            _content, is_error = await ts.call("navigate", {"url": url})
            assert not is_error, _content
            return ToolsetAgent(ts, mode)
        manager = InstanceManager(Config(interactive=mode), browser=browser)
        closers.append(manager.close)
        tools = BrowserTools(manager)
        assert (await tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
        env = await tools.call("browser_navigate", {"instance": "t", "url": url})
        assert env["status"] == "success", env
        return McpAgent(tools, mode)

    yield make
    for close in closers:
        await close()


@pytest.mark.parametrize(("surface", "mode"), SURFACES, ids=[f"{s}-{m}" for s, m in SURFACES])
@pytest.mark.parametrize("task", COMPONENT_TASKS, ids=[t.name for t in COMPONENT_TASKS])
async def test_component_task(
    make_agent: Any, components: ComponentSite, task: Task, surface: str, mode: str
) -> None:
    components.submitted.pop(task.page, None)
    agent = await make_agent(surface, mode, components.page(task.page))
    if surface == "index" and mode == "strict" and task.strict_unreachable:  # the seed's set, the index's alone
        with pytest.raises(TaskFailed):
            await run_steps(agent, task.steps)
        pytest.xfail(f"strict mode cannot reach this task: {task.strict_unreachable}")
    await run_steps(agent, task.steps)
    assert components.submitted.get(task.page) == [task.expected]
    c = agent.counters
    assert (c.wrong_element, c.silent_noops, c.stale_states) == (0, 0, 0), c.notes
