"""Scripted agents for the real-web suite: one per surface, each seeing only what its surface gives and acting
only through it, as a model would.

A task is a list of steps in a small vocabulary a person would use: fill a field by its label, choose an option
in a control by its label, check a box by its label, click a control by its name, scroll a list until a control
shows. Each agent turns its surface's view into entries (a key to act on, a role, a name, the checked state) and
finds the control the step names there; the shared logic lives in `Agent`, the surface's words in subclasses:

- `IndexAgent`: the element index and page_content (strict or extended), `AgentTab.act`;
- `ToolsetAgent`: the browser toolset's read_page refs and members (left_click, type, key, scroll);
- `McpAgent`: the MCP snapshot refs and tools (browser_type, browser_click, browser_select_option, ...).

After every action the agent records what the suite counts: an action the surface reported as done that reached
no element of the page (a silent no-op, from the page's own record of trusted events), a click whose events
reached an element other than the one named (wrong element), and a state read on a quiet page that differs
from a fresh full capture (stale state; element index only, where the engine caches states).
"""

from __future__ import annotations

import asyncio
import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import cdp_engine
from cdp_engine.mcp_server import BrowserTools
from cdp_engine.toolset.executor import BrowserToolset

FIELD_ROLES = {"textbox", "searchbox", "combobox", "spinbutton"}
CHOOSER_ROLES = {"combobox", "listbox", "button"}
OPTION_ROLES = {"option", "menuitem", "menuitemradio", "treeitem", "gridcell"}
CHECK_ROLES = {"checkbox", "switch", "radio", "menuitemcheckbox"}


class TaskFailed(Exception):
    """The agent could not do a step: `reason` says what it looked for and what it saw."""


@dataclass
class Entry:
    """A control as a surface shows it."""

    key: str
    role: str
    name: str
    checked: bool | None = None
    value: str | None = None
    label: str = ""  # the text a reader takes as its label (the element index: the text just before it)


@dataclass
class Counters:
    actions: int = 0
    wrong_element: int = 0
    silent_noops: int = 0
    stale_states: int = 0
    notes: list[str] = field(default_factory=list)


def norm(text: str | None) -> str:
    return " ".join((text or "").replace("\u200b", "").split()).lower()


class Agent:
    """The steps, on top of a surface's view (entries) and actions."""

    surface = ""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.counters = Counters()

    # ----- what a surface provides ------------------------------------------------------------------

    async def entries(self) -> list[Entry]:
        raise NotImplementedError

    async def page_text(self) -> str:
        raise NotImplementedError

    async def do_click(self, entry: Entry) -> str | None:
        raise NotImplementedError

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        raise NotImplementedError

    async def do_type(self, entry: Entry, text: str) -> str | None:
        """Type into a field without clearing it (a combobox's filter)."""
        return await self.do_fill(entry, text)

    async def do_select(self, entry: Entry, option: str) -> str | None:
        """Choose in a native select; None when the surface does it, else it returns 'not native'."""
        return "not native"

    async def do_scroll(self, entry: Entry | None) -> str | None:
        raise NotImplementedError

    async def evaluate(self, expression: str) -> Any:
        raise NotImplementedError

    async def after_action(self) -> None:
        """Surface-specific checks after an action (the stale-state check)."""

    # ----- finding ---------------------------------------------------------------------------------

    async def find(self, roles: set[str], name: str, *, exact: bool = False, scroll: bool = True) -> Entry:
        want = norm(name)
        for attempt in range(12):
            entries = await self.entries()
            matches = [
                e for e in entries
                if e.role in roles and (norm(e.name) == want or norm(e.label) == want
                                        or (not exact and want and want in norm(e.name)))
            ]  # fmt: skip
            exact_matches = [e for e in matches if want in (norm(e.name), norm(e.label))]
            if not matches:  # a field named by the words before it ("City Select..."): the label starts them
                matches = [e for e in entries if e.role in roles and want and norm(e.label).startswith(want + " ")]
            if exact_matches or matches:
                return (exact_matches or matches)[0]
            if not scroll or attempt == 11:
                break
            if await self.do_scroll(None) is not None:
                break
        shown = ", ".join(f"{e.role} {e.name!r}" for e in (await self.entries())[:60])
        raise TaskFailed(f"{self.surface}/{self.mode}: no {sorted(roles)} named {name!r}; the view has: {shown}")

    # ----- steps -----------------------------------------------------------------------------------

    async def act(self, what: str, error: str | None) -> None:
        self.counters.actions += 1
        if error is not None:
            raise TaskFailed(f"{self.surface}/{self.mode}: {what}: {error}")
        await self.after_action()

    async def events(self) -> list[dict[str, Any]]:
        return list(await self.evaluate("window.__events.splice(0)") or [])

    async def watched(self, what: str, name: str, error_or_none: Any) -> None:
        """Count a click that reached nothing (no trusted event) or reached another element than `name`."""
        events = await self.events()
        if error_or_none is None:
            pressed = [e for e in events if e["type"] in ("pointerdown", "click") and e["trusted"]]
            if not pressed:
                self.counters.silent_noops += 1
                self.counters.notes.append(f"{what} {name!r}: no pointer event reached the page")
            elif name and not any(norm(name) in norm(p) for e in pressed for p in e["path"]):
                self.counters.wrong_element += 1
                self.counters.notes.append(f"{what} {name!r}: the press reached {pressed[0]['path'][:2]}")

    async def click(self, roles: set[str], name: str, *, exact: bool = False) -> None:
        entry = await self.find(roles, name, exact=exact)
        await self.events()
        error = await self.do_click(entry)
        await self.watched("click", name, error)
        await self.act(f"click {name!r}", error)

    async def fill(self, label: str, text: str) -> None:
        entry = await self.find(FIELD_ROLES, label)
        await self.act(f"fill {label!r}", await self.do_fill(entry, text))

    async def choose(self, label: str, option: str, *, search: str | None = None) -> None:
        """Pick `option` in the control labelled `label`: a native select by the surface's select action; a
        custom one by opening it (a click, or typing `search` into it) and clicking the option."""
        control = await self.find(CHOOSER_ROLES | FIELD_ROLES, label)
        if await self.do_select(control, option) is None:
            await self.act(f"choose {option!r}", None)
            return
        if search is not None:
            await self.act(f"type {search!r} into {label!r}", await self.do_type(control, search))
        else:
            await self.events()
            error = await self.do_click(control)
            await self.watched("open", label, error)
            await self.act(f"open {label!r}", error)
        await self.click(OPTION_ROLES, option, exact=True)

    async def check(self, label: str) -> None:
        entry = await self.find(CHECK_ROLES | {"label"}, label)
        if entry.checked:
            return
        await self.events()
        error = await self.do_click(entry)
        await self.watched("check", label, error)
        await self.act(f"check {label!r}", error)
        if entry.role != "label":
            again = await self.find(CHECK_ROLES, label, scroll=False)
            if again.checked is not True:
                raise TaskFailed(f"{self.surface}/{self.mode}: {label!r} is not shown checked after the click")

    async def wait_text(self, text: str, timeout: float = 5.0) -> None:
        """Read the page until `text` shows (the app answered); TaskFailed at the deadline."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            if norm(text) in norm(await self.page_text()):
                return
            if loop.time() > end:
                raise TaskFailed(f"{self.surface}/{self.mode}: {text!r} never showed")
            await asyncio.sleep(0.05)  # an agent re-reads the page after a while, as a model would


# ----- the element index ---------------------------------------------------------------------------------

_MARKER = re.compile(r"\[(\d+)\]")
_TAG = re.compile(r"<[^>]*>")


def index_role(el: dict[str, Any]) -> str:
    if el["role"]:
        return str(el["role"])
    tag, kind = el["tag"], (el["attributes"]["type"] or "")
    if tag == "input":
        return {"checkbox": "checkbox", "radio": "radio", "submit": "button", "button": "button",
                "number": "spinbutton"}.get(kind, "textbox")  # fmt: skip
    return {"textarea": "textbox", "select": "combobox", "a": "link", "button": "button", "label": "label",
            "option": "option", "summary": "button"}.get(tag, tag)  # fmt: skip


class IndexAgent(Agent):
    surface = "index"

    def __init__(self, tab: cdp_engine.AgentTab, mode: str) -> None:
        super().__init__(mode)
        self.tab = tab
        self.state: dict[str, Any] = {}

    async def read(self) -> dict[str, Any]:
        self.state = await self.tab.state(interactive=self.mode, screenshot=False)
        return self.state

    async def entries(self) -> list[Entry]:
        state = await self.read()
        content = state["page_content"]
        # The text before each marker, since the previous one: what a reader takes as a field's label.
        before: dict[str, str] = {}
        last = 0
        for m in _MARKER.finditer(content):
            chunk = _TAG.sub("\n", content[last : m.start()])
            lines = [line.strip() for line in chunk.splitlines() if line.strip()]
            # A wrapper's marker (extended mode) has no text of its own: the label before it names both.
            before[m.group(1)] = " ".join(lines) if lines else (before.get(str(int(m.group(1)) - 1), ""))
            last = m.end()
        out = []
        for key, el in state["element_index"].items():
            role = index_role(el)
            name = el["aria-label"] or el["text_content"] or el["attributes"]["placeholder"] or ""
            label = before.get(key, "")
            if role in FIELD_ROLES | CHECK_ROLES and not el["aria-label"]:
                name = label or name
            out.append(Entry(key, role, name, el["attributes"]["checked"], el["attributes"]["value"], label))
        # A label element's text names the next field (strict mode shows the label and the field).
        keyed = {e.key: e for e in out}
        for key, el in state["element_index"].items():
            nxt = keyed.get(str(int(key) + 1))
            if el["tag"] == "label" and nxt is not None and (nxt.role in FIELD_ROLES | CHECK_ROLES) and not norm(nxt.name):
                nxt.name = el["text_content"] or ""
        return out

    async def page_text(self) -> str:
        return str((await self.read())["page_content"])

    async def _act(self, action: dict[str, Any]) -> str | None:
        state = await self.tab.act(action, interactive=self.mode, screenshot=False)
        self.state = state
        return f"{state['error']['code']}: {state['error']['message']}" if "error" in state else None

    async def do_click(self, entry: Entry) -> str | None:
        return await self._act({"action": "click_element", "element_index": int(entry.key)})

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        return await self._act({"action": "input_text", "element_index": int(entry.key), "text": text, "overwrite": True})

    async def do_type(self, entry: Entry, text: str) -> str | None:
        return await self._act({"action": "input_text", "element_index": int(entry.key), "text": text})

    async def do_select(self, entry: Entry, option: str) -> str | None:
        el = self.state["element_index"].get(entry.key, {})
        if el.get("tag") != "select":
            return "not native"
        for key, other in self.state["element_index"].items():
            if other["tag"] == "option" and norm(other["text_content"]) == norm(option):
                return await self._act({"action": "select_option", "element_index": int(entry.key), "option_index": int(key)})
        return f"no option {option!r}"

    async def do_scroll(self, entry: Entry | None) -> str | None:
        before = self.state.get("state_hash")
        error = await self._act({"action": "scroll", "direction": "down"})
        return error if error is not None else ("at the end" if self.state.get("state_hash") == before else None)

    async def evaluate(self, expression: str) -> Any:
        return await self.tab.evaluate(expression)

    async def after_action(self) -> None:
        """A state read now (cached when the page did not change) must equal a fresh full capture."""
        cached = await self.tab.state(interactive=self.mode, screenshot=False)
        cdp_engine.ElementIndex.of(self.tab).capturer.invalidate()
        fresh = await self.tab.state(interactive=self.mode, screenshot=False)
        if (cached["page_content"], cached["element_index"]) != (fresh["page_content"], fresh["element_index"]):
            # A page still animating differs by itself: read once more after it had time to settle.
            again = await self.tab.state(interactive=self.mode, screenshot=False)
            if again["page_content"] != fresh["page_content"] or again["element_index"] != fresh["element_index"]:
                return
            self.counters.stale_states += 1
            diff = difflib.unified_diff(
                cached["page_content"].splitlines(), fresh["page_content"].splitlines(), lineterm="", n=0
            )
            self.counters.notes.append(f"a cached state differed from a fresh capture: {chr(10).join(diff)[:800]}")


# ----- the browser toolset -------------------------------------------------------------------------------

_TS_LINE = re.compile(r'^\s*(?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?.*?\[(?P<ref>ref_\d+)\](?P<rest>.*)$')


class ToolsetAgent(Agent):
    surface = "toolset"

    def __init__(self, ts: BrowserToolset, mode: str) -> None:
        super().__init__(mode)
        self.ts = ts

    async def call(self, name: str, **inp: Any) -> tuple[str, bool]:
        content, is_error = await self.ts.call(name, inp)
        return "\n".join(b["text"] for b in content if b["type"] == "text"), is_error

    async def entries(self) -> list[Entry]:
        listing, is_error = await self.call("read_page", filter="interactive")
        if is_error:
            raise TaskFailed(f"toolset/{self.mode}: read_page failed: {listing}")
        out = []
        for line in listing.splitlines():
            m = _TS_LINE.match(line)
            if m:
                rest = m.group("rest")
                checked = True if re.search(r"\bchecked\b", rest) and "unchecked" not in rest else (False if "unchecked" in rest else None)
                out.append(Entry(m.group("ref"), m.group("role"), (m.group("name") or "").replace('\\"', '"'), checked))
        return out

    async def page_text(self) -> str:
        text, _ = await self.call("get_page_text")
        return text

    async def do_click(self, entry: Entry) -> str | None:
        text, is_error = await self.call("left_click", target={"type": "ref", "ref": entry.key})
        return text if is_error else None

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        error = await self.do_click(entry)
        if error is None:
            _, is_error = await self.call("key", text="ctrl+a")
            out, is_error = await self.call("type", text=text)
            error = out if is_error else None
        return error

    async def do_type(self, entry: Entry, text: str) -> str | None:
        error = await self.do_click(entry)
        if error is None:
            out, is_error = await self.call("type", text=text)
            error = out if is_error else None
        return error

    async def do_scroll(self, entry: Entry | None) -> str | None:
        """Bring the last control the page lists into view (scroll_to: a list's rows past its visible ones are
        listed too, so this moves it on); the page itself with the wheel when that moved nothing."""
        entries = await self.entries()
        if entries:
            out, is_error = await self.call("scroll_to", target={"type": "ref", "ref": entries[-1].key})
            if not is_error and [e.key for e in await self.entries()] != [e.key for e in entries]:
                return None
        out, is_error = await self.call(
            "scroll", target={"type": "coordinate", "coordinate": [640, 400]}, scroll_direction="down", scroll_amount=5
        )
        return out if is_error else None

    async def evaluate(self, expression: str) -> Any:
        return await self.ts.book.get(None).tab.evaluate(expression)


# ----- MCP -----------------------------------------------------------------------------------------------

_MCP_LINE = re.compile(r'^\s*- (?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*?)\[ref=(?P<ref>e\d+)\](?P<tail>.*)$')


class McpAgent(Agent):
    surface = "mcp"

    def __init__(self, tools: BrowserTools, mode: str) -> None:
        super().__init__(mode)
        self.tools = tools

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        return await self.tools.call(tool, {"instance": "t", **args})

    async def snapshot(self) -> str:
        env = await self.call("browser_snapshot", interactive=self.mode)
        if env["status"] != "success":
            raise TaskFailed(f"mcp/{self.mode}: snapshot failed: {env.get('message')}")
        return str(env["data"]["snapshot"])

    async def entries(self) -> list[Entry]:
        out = []
        for line in (await self.snapshot()).splitlines():
            m = _MCP_LINE.match(line)
            if m:
                flags = m.group("rest") + m.group("tail")
                checked = True if "[checked]" in flags else (False if "[checked=false]" in flags else None)
                out.append(Entry(m.group("ref"), m.group("role"), (m.group("name") or "").replace('\\"', '"'), checked))
        return out

    async def page_text(self) -> str:
        return await self.snapshot()

    @staticmethod
    def _error(env: dict[str, Any]) -> str | None:
        return None if env["status"] == "success" else f"{env['error_type']}: {env['message']}"

    async def do_click(self, entry: Entry) -> str | None:
        return self._error(await self.call("browser_click", ref=entry.key))

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        return self._error(await self.call("browser_type", ref=entry.key, text=text))

    async def do_type(self, entry: Entry, text: str) -> str | None:
        return self._error(await self.call("browser_type", ref=entry.key, text=text, clear_first=False))

    async def do_select(self, entry: Entry, option: str) -> str | None:
        env = await self.call("browser_select_option", ref=entry.key, value=[option])
        return self._error(env) if env["status"] == "success" else "not native"

    async def do_scroll(self, entry: Entry | None) -> str | None:
        """Scroll down with the wheel over the last control the page shows (a list scrolls under the pointer)."""
        entries = await self.entries()
        if entries:
            await self.call("browser_hover", ref=entries[-1].key)
        return self._error(await self.call("browser_mouse_wheel", delta_x=0, delta_y=600))

    async def evaluate(self, expression: str) -> Any:
        page = self.tools.manager.instances["t"].selected
        assert page is not None
        return await page.tab.evaluate(expression)
