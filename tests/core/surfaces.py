"""One scripted hand for every surface: find a control by its accessible name in what the surface shows, then
click, fill, check or select it through that surface's own tools.

Each adapter only translates (how the surface's output is read, how a ref is written, which tool acts); the
decision of what to act on is the same for all: the first control whose name is the one asked for. Every action
answers None on success, else the surface's error text, so one case table can run on every surface.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

import cdp_engine
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.toolset.driver_config import ToolsetConfig
from cdp_engine.toolset.executor import BrowserToolset

SURFACES = ["index", "toolset", "mcp"]


def same_name(asked: str, shown: str | None) -> bool:
    """A name as a person matches it: the same words, whatever the case (CSS may draw it in capitals)."""
    return " ".join((shown or "").split()).casefold() == asked.casefold()


class NotShown(AssertionError):
    """The surface does not show a control of that name."""


class Hand:
    """One surface, as a scripted agent uses it."""

    name = ""

    async def open(self, url: str) -> None:
        raise NotImplementedError

    async def look(self) -> None:
        """Read what the surface shows (its refs or indices name what was there then)."""
        raise NotImplementedError

    def key(self, name: str) -> str:
        """The key (index or ref) of the control named `name` in the last look."""
        raise NotImplementedError

    async def click(self, key: str) -> str | None:
        raise NotImplementedError

    async def fill(self, key: str, text: str) -> str | None:
        raise NotImplementedError

    async def type(self, key: str, text: str) -> str | None:
        """Type text into the field as a person does: click it, then the keys (the field keeps what it had)."""
        raise NotImplementedError

    async def check(self, key: str, checked: bool) -> str | None:
        raise NotImplementedError

    async def select(self, key: str, option: str) -> str | None:
        """Choose the option whose label (and value) is `option`."""
        raise NotImplementedError

    async def evaluate(self, expression: str) -> Any:
        raise NotImplementedError

    async def hover(self, key: str) -> str | None:
        """Move the pointer over the control (the element index has no hover: its spec's seven actions)."""
        raise NotImplementedError

    async def wheel(self, x: float, y: float, notches: int) -> str | None:
        """A wheel turned `notches` down with the pointer at (x, y) in CSS px; None when the surface has no such
        input (the element index's scroll names no point: its spec's `scroll` moves the page)."""
        raise NotImplementedError


class IndexHand(Hand):
    name = "index"

    def __init__(self, tab: cdp_engine.AgentTab) -> None:
        self.tab = tab
        self.state: dict[str, Any] = {}

    async def open(self, url: str) -> None:
        await self.tab.goto(url, wait_until="load")

    async def look(self) -> None:
        self.state = await self.tab.state(screenshot=False)

    def key(self, name: str) -> str:
        for key, el in self.state["element_index"].items():
            if same_name(name, el["aria-label"]) or same_name(name, el["text_content"]):
                return str(key)
        raise NotShown(f"{name!r} not in the element index: {self.state['element_index']}")

    async def _act(self, action: dict[str, Any]) -> str | None:
        state = await self.tab.act(action)
        self.state = state
        return str(state["error"]["message"]) if "error" in state else None

    async def click(self, key: str) -> str | None:
        return await self._act({"action": "click_element", "element_index": int(key)})

    async def fill(self, key: str, text: str) -> str | None:
        return await self._act({"action": "input_text", "element_index": int(key), "text": text, "overwrite": True})

    async def type(self, key: str, text: str) -> str | None:
        return await self._act({"action": "input_text", "element_index": int(key), "text": text, "overwrite": False})

    async def check(self, key: str, checked: bool) -> str | None:
        el = self.state["element_index"][key]
        if bool(el["attributes"]["checked"]) == checked:
            return None
        return await self.click(key)

    async def select(self, key: str, option: str) -> str | None:
        options = [k for k, el in self.state["element_index"].items()
                   if el["tag"] == "option" and (el["text_content"] or "").strip() == option]  # fmt: skip
        assert options, f"no option {option!r} in the element index"
        return await self._act({"action": "select_option", "element_index": int(key), "option_index": int(options[0])})

    async def evaluate(self, expression: str) -> Any:
        return await self.tab.evaluate(expression)


class ToolsetHand(Hand):
    name = "toolset"

    def __init__(self, ts: BrowserToolset) -> None:
        self.ts = ts
        self.listing = ""

    async def open(self, url: str) -> None:
        content, is_error = await self.ts.call("navigate", {"url": url})
        assert not is_error, content

    async def look(self) -> None:
        content, is_error = await self.ts.call("read_page", {"filter": "all"})
        assert not is_error, content
        self.listing = "\n".join(b["text"] for b in content if b["type"] == "text")

    def key(self, name: str) -> str:
        for line in self.listing.splitlines():
            m = re.search(r'"([^"]*)" \[(ref_\d+)\]', line)
            if m and same_name(name, m.group(1)):
                return m.group(2)
        raise NotShown(f"{name!r} not in read_page:\n{self.listing}")

    async def _member(self, member: str, args: dict[str, Any]) -> str | None:
        content, is_error = await self.ts.call(member, args)
        return str(content[0]["text"]) if is_error else None

    async def click(self, key: str) -> str | None:
        return await self._member("left_click", {"target": {"type": "ref", "ref": key}})

    async def fill(self, key: str, text: str) -> str | None:
        return await self._member("form_input", {"target": {"type": "ref", "ref": key}, "value": text})

    async def type(self, key: str, text: str) -> str | None:
        return await self._member("left_click", {"target": {"type": "ref", "ref": key}}) or await self._member(
            "type", {"text": text}
        )

    async def check(self, key: str, checked: bool) -> str | None:
        return await self._member("form_input", {"target": {"type": "ref", "ref": key}, "value": checked})

    async def select(self, key: str, option: str) -> str | None:
        return await self._member("form_input", {"target": {"type": "ref", "ref": key}, "value": option})

    async def evaluate(self, expression: str) -> Any:
        return await self.ts.book.get(None).tab.evaluate(expression)

    async def hover(self, key: str) -> str | None:
        return await self._member("hover", {"target": {"type": "ref", "ref": key}})

    async def wheel(self, x: float, y: float, notches: int) -> str | None:
        scale = self.ts.image_scale  # the toolset's coordinates are the screenshot's pixels
        target = {"type": "coordinate", "x": round(x * scale), "y": round(y * scale)}
        return await self._member("scroll", {"target": target, "scroll_direction": "down", "scroll_amount": notches})


class McpHand(Hand):
    name = "mcp"

    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools
        self.snapshot = ""

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        return await self.tools.call(tool, {"instance": "t", **args})

    async def open(self, url: str) -> None:
        env = await self.call("browser_navigate", url=url)
        assert env["status"] == "success", env

    async def look(self) -> None:
        env = await self.call("browser_snapshot")
        assert env["status"] == "success", env
        self.snapshot = str(env["data"]["snapshot"])

    def key(self, name: str) -> str:
        for line in self.snapshot.splitlines():
            # `- button "Go" [ref=e3]`, or a control named by its text: `- generic [ref=e5] [cursor=pointer]: Go`
            named = re.search(r'"([^"]*)"[^\n]*\[ref=(e\d+)\]', line)
            texted = re.search(r"\[ref=(e\d+)\][^:\n]*: (.+)$", line)
            if named and same_name(name, named.group(1)):
                return named.group(2)
            if not named and texted and same_name(name, texted.group(2).strip('"')):
                return texted.group(1)
        raise NotShown(f"{name!r} not in the snapshot:\n{self.snapshot}")

    async def _tool(self, tool: str, **args: Any) -> str | None:
        env = await self.call(tool, **args)
        return None if env["status"] == "success" else str(env["message"])

    async def click(self, key: str) -> str | None:
        return await self._tool("browser_click", ref=key)

    async def fill(self, key: str, text: str) -> str | None:
        return await self._tool("browser_type", ref=key, text=text)

    async def type(self, key: str, text: str) -> str | None:
        return await self._tool("browser_type", ref=key, text=text, clear_first=False)

    async def check(self, key: str, checked: bool) -> str | None:
        return await self._tool("browser_fill_form", fields=[{"ref": key, "value": checked, "type": "checkbox"}])

    async def select(self, key: str, option: str) -> str | None:
        return await self._tool("browser_select_option", ref=key, value=option)

    async def evaluate(self, expression: str) -> Any:
        page = self.tools.manager.instances["t"].selected
        assert page is not None
        return await page.tab.evaluate(expression)

    async def hover(self, key: str) -> str | None:
        return await self._tool("browser_hover", ref=key)

    async def wheel(self, x: float, y: float, notches: int) -> str | None:
        return await self._tool("browser_mouse_move_xy", x=x, y=y) or await self._tool(
            "browser_mouse_wheel", delta_x=0, delta_y=100 * notches
        )


@contextlib.asynccontextmanager
async def open_hand(
    surface: str, browser: cdp_engine.Browser, context: cdp_engine.BrowserContext, interactive: str = "strict"
) -> AsyncIterator[Hand]:
    """The scripted hand on one surface, every surface set to the same interactive set."""
    if surface == "index":
        tab = await context.new_tab()
        assert isinstance(tab, cdp_engine.AgentTab)
        tab.element_index.interactive = interactive
        yield IndexHand(tab)
    elif surface == "toolset":
        config = ToolsetConfig(interactive="extended" if interactive == "extended" else "strict")
        ts = await BrowserToolset(browser, context=context, config=config).start()
        try:
            yield ToolsetHand(ts)
        finally:
            await ts.close()
    else:
        manager = InstanceManager(Config(interactive="extended" if interactive == "extended" else "strict"), browser=browser)
        tools = BrowserTools(manager)
        try:
            env = await tools.call("browser_create_instance", {"name": "t"})
            assert env["status"] == "success", env
            yield McpHand(tools)
        finally:
            await manager.close()


@pytest_asyncio.fixture(params=SURFACES, name="hand")
async def hand_fixture(
    request: pytest.FixtureRequest, browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[Hand]:
    """The same scripted hand on each surface in turn."""
    async with open_hand(request.param, browser, context) as hand:
        yield hand


@pytest_asyncio.fixture(params=SURFACES, name="extended_hand")
async def extended_hand_fixture(
    request: pytest.FixtureRequest, browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[Hand]:
    """The same scripted hand on each surface in turn, every surface in the extended interactive set."""
    async with open_hand(request.param, browser, context, "extended") as hand:
        yield hand
