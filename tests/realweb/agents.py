"""The real-web suite's one scripted agent (`Agent`, steps.py) on every surface, through adapters that only
translate: each sees only what its surface gives and acts only through it, as a model would.

A task is a list of steps in a small vocabulary a person would use: fill a field by its label, choose an option
in a control by its label, check a box by its label, click a control by its name, scroll a list until a control
shows. All of the deciding (which control a step names, when to scroll, what counts as the end, what to do when
a select is not native) is `Agent`'s, the same for every surface. An adapter turns its surface's output into
entries (a key to act on, a role, a name, the checked state) and each primitive (click, fill, type, select,
scroll over a control) into the surface's own call; it decides nothing about what the page holds:

- `IndexAgent`: the element index and page_content (strict or extended), `AgentTab.act`;
- `ToolsetAgent`: the browser toolset's read_page refs and members (left_click, type, key, scroll);
- `McpAgent`: the MCP snapshot refs and tools (browser_type, browser_click, browser_select_option, ...).

After every action the agent records what the suite counts: an action the surface reported as done that reached
no element of the page (a silent no-op, from the page's own record of trusted events), a click whose events
reached an element other than the one named (wrong element), and a view read on a quiet page that differs
from a fresh full capture (stale state: the element index's cached or incremental state, the toolset's and MCP's
accessibility tree served from cache or built on the last one).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

import cdp_engine
from cdp_engine.mcp_server import BrowserTools
from cdp_engine.snapshot.ax_capturer import AXTreeCapturer
from cdp_engine.snapshot.probes import ChangeProbes
from cdp_engine.toolset.executor import BrowserToolset

from .steps import CHECK_ROLES, FIELD_ROLES, RECORDER, Agent, Counters, Entry, TaskFailed, norm

__all__ = ["RECORDER", "Agent", "Entry", "IndexAgent", "McpAgent", "TaskFailed", "ToolsetAgent"]

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
            value_named = el["tag"] == "input" and role == "button"  # <input type=submit value="Log in">
            name = (el["aria-label"] or el["text_content"] or el["attributes"]["placeholder"]
                    or (el["attributes"]["value"] if value_named else "") or "")  # fmt: skip
            label = before.get(key, "")
            if role in FIELD_ROLES and not el["aria-label"]:
                name = label or name
            elif role in CHECK_ROLES and not el["aria-label"] and not norm(el["text_content"]):
                name = label or name  # a box whose label is beside it; one that holds its text is named by it
            out.append(Entry(key, role, name, el["attributes"]["checked"], el["attributes"]["value"], label,
                             el["text_content"] or ""))  # fmt: skip
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
        """The protocol's scroll names no point: the page (extended mode: an inner list when the page cannot move)."""
        return await self._act({"action": "scroll", "direction": "down"})

    async def evaluate(self, expression: str) -> Any:
        return await self.tab.evaluate(expression)

    async def after_action(self) -> None:
        """A state read now (cached when the page did not change) must equal a fresh full capture, unless the
        page's change probe saw a change from before the first read to after the second (the page went on
        changing after the action: a delayed close, a fade a script drives): only a difference the probe did not
        see is a stale state. The probe is read again after the fresh capture, as for the trees
        (check_tree_fresh): a change after the fresh capture's own probe read reaches its snapshot too."""
        index = cdp_engine.ElementIndex.of(self.tab)
        probes = ChangeProbes.of(self.tab)
        key = await probes.version_key()
        cached = await self.tab.state(interactive=self.mode, screenshot=False)
        index.capturer.invalidate()
        fresh = await self.tab.state(interactive=self.mode, screenshot=False)
        if (cached["page_content"], cached["element_index"]) != (fresh["page_content"], fresh["element_index"]):
            if key[0] is None or key != await probes.version_key():
                return  # the probe saw the page change between the two reads
            self.counters.stale_states += 1
            diff = difflib.unified_diff(
                cached["page_content"].splitlines(), fresh["page_content"].splitlines(), lineterm="", n=0
            )
            self.counters.notes.append(f"a cached state differed from a fresh capture: {chr(10).join(diff)[:800]}")


async def check_tree_fresh(counters: Counters, tab: cdp_engine.Tab, read: Any) -> None:
    """The stale-state check of a surface drawn from the accessibility tree (the toolset, MCP): what it shows
    now, when the tree was served from cache or built on the last one, must equal what it shows from a full
    capture, unless the change probe saw the page change in between. (A full capture that differs from the
    next one is the page changing after the settle, not a stale state.)"""
    probes, trees = ChangeProbes.of(tab), AXTreeCapturer.of(tab)
    key = await probes.version_key()
    served = await read()
    if trees.served not in ("cached", "incremental"):
        return
    trees.last = None  # the next tree is a full capture
    fresh = await read()
    if served != fresh and key[0] is not None and key == await probes.version_key():
        counters.stale_states += 1
        diff = difflib.unified_diff(served.splitlines(), fresh.splitlines(), lineterm="", n=0)
        counters.notes.append(f"a served tree differed from a full capture: {chr(10).join(diff)[:800]}")


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

    async def do_select(self, entry: Entry, option: str) -> str | None:
        """form_input sets a native select by the option's value or text; anything else is 'not native'. A
        native select is the combobox read_page lists with its options right under it (a custom one lists
        none until it is opened, and form_input would only type into its text field)."""
        entries = await self.entries()
        keys = [e.key for e in entries]
        at = keys.index(entry.key) if entry.key in keys else -1
        if entry.role != "combobox" or at < 0 or at + 1 >= len(entries) or entries[at + 1].role != "option":
            return "not native"
        _out, is_error = await self.call("form_input", target={"type": "ref", "ref": entry.key}, value=option)
        return "not native" if is_error else None

    async def do_scroll(self, entry: Entry | None) -> str | None:
        """Over a control: scroll_to, the toolset's one scroll aimed at a ref (it brings the control into view,
        so a list moves on to it); over the page: the wheel at the middle of the screenshot."""
        if entry is not None:
            out, is_error = await self.call("scroll_to", target={"type": "ref", "ref": entry.key})
        else:
            width, height = self.ts.image_size
            target = {"type": "coordinate", "x": width // 2, "y": height // 2}
            out, is_error = await self.call("scroll", target=target, scroll_direction="down", scroll_amount=5)
        return out if is_error else None

    async def evaluate(self, expression: str) -> Any:
        return await self.ts.book.get(None).tab.evaluate(expression)

    async def after_action(self) -> None:
        async def read() -> str:
            return (await self.call("read_page", filter="interactive"))[0]

        await check_tree_fresh(self.counters, self.ts.book.get(None).tab, read)


# ----- MCP -----------------------------------------------------------------------------------------------

_MCP_LINE = re.compile(r'^\s*- (?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<rest>.*?)\[ref=(?P<ref>e\d+)\](?P<tail>.*)$')
_MCP_INLINE = re.compile(r"\]: (?P<text>.+)$")  # "- generic [ref=e18]: Research": the text it holds


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
                inline = _MCP_INLINE.search(line)
                text = inline.group("text").strip().strip('"') if inline else ""
                name = (m.group("name") or "").replace('\\"', '"') or text
                out.append(Entry(m.group("ref"), m.group("role"), name, checked, text=text))
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
        """The wheel with the pointer over the control (browser_hover), or at the middle of the viewport."""
        if entry is not None:
            moved = await self.call("browser_hover", ref=entry.key)
        else:
            moved = await self.call("browser_mouse_move_xy", x=640, y=360)
        return self._error(moved) or self._error(await self.call("browser_mouse_wheel", delta_x=0, delta_y=600))

    async def evaluate(self, expression: str) -> Any:
        page = self.tools.manager.instances["t"].selected
        assert page is not None
        return await page.tab.evaluate(expression)

    async def after_action(self) -> None:
        page = self.tools.manager.instances["t"].selected
        assert page is not None
        await check_tree_fresh(self.counters, page.tab, self.snapshot)
