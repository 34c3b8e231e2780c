"""The toolset's reading members: read_page, find, get_page_text (long texts cut into parts that continuation refs
read on), read_console, read_network, javascript_exec.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..core import scripts
from ..errors import CDPEngineError, JavaScriptError
from ..util.text_windows import context_lines, window
from . import read_page as reader
from .diagnostics import ConsoleLog, NetworkLog
from .driver_config import MemberError
from .member_host import MemberHost
from .state import ManagedTab, one_line

CONTINUATIONS_KEPT = 64  # continuation refs a tab keeps (the oldest go first)


@dataclass(frozen=True)
class Continuation:
    """What a continuation ref reads on: a read_page ("tree": its scope ref, filter, depth), get_page_text
    ("text") or find, from `offset` characters into the whole text, while the page keeps its document."""

    kind: Literal["tree", "text", "find"]
    scope: str | None = None
    filter: str | None = None
    depth: int = 15
    offset: int = 0
    loader: str = ""


def _loader(managed: ManagedTab) -> str:
    """The main frame's document id: a continuation is for the document it was handed out in."""
    frame = managed.tab.frames.get(managed.tab.main_frame_id)
    return frame.loader_id if frame is not None else ""


class ReadingMembers(MemberHost):
    """read_page, find, get_page_text, read_console, read_network and javascript_exec."""

    # ----- reading ----------------------------------------------------------------------------

    def _window(self, managed: ManagedTab, text: str, read: Continuation) -> str:
        """The part of a whole read_page / get_page_text / find text that fits ToolsetConfig.text_chars, from
        `read.offset` (util.text_windows): an outline's part repeats the ancestors of its first line, and a cut part
        ends with the marker naming a continuation ref that read_page takes as its `ref` to read on."""
        limit = self.config.text_chars
        if read.offset == 0 and len(text) <= limit:
            return text
        start = window(text, limit, min(read.offset, len(text))).start
        head = context_lines(text, start) if read.kind == "tree" else []
        reserve = sum(len(line) + 1 for line in head) + 200  # the ancestors and the marker
        part = window(text, max(limit - reserve, limit // 2), start)
        token = None
        if part.more and read.kind != "find":
            token = managed.refs.mint()
            managed.continuations[token] = replace(read, offset=part.end, loader=_loader(managed))
            while len(managed.continuations) > CONTINUATIONS_KEPT:
                managed.continuations.pop(next(iter(managed.continuations)))
        how = "Narrow the query." if read.kind == "find" else reader.read_on(token, tree=read.kind == "tree")
        body = part.text.rstrip("\n")
        return "\n".join([*head, *([body] if body else []), part.marker(reader.WHAT, how)])

    async def _continue(self, managed: ManagedTab, ref: str) -> str:
        """The next part of a cut read_page / get_page_text, read from the page as it is now."""
        read: Continuation = managed.continuations[ref]
        if read.loader != _loader(managed):
            raise MemberError(self._stale_text(ref, "navigated"))
        if read.kind == "text":
            return self._window(managed, await self._page_text(managed), read)
        text = await self._read_tree(managed, read.scope, read.filter, read.depth)
        return self._window(managed, text, read)

    async def _m_read_page(self, p: dict[str, Any], managed: ManagedTab) -> str:
        subtree_ref = p.get("ref")
        if subtree_ref in managed.continuations:
            return await self._continue(managed, subtree_ref)
        filter, depth = p.get("filter"), p.get("depth", 15)
        text = await self._read_tree(managed, subtree_ref, filter, depth)
        return self._window(managed, text, Continuation("tree", subtree_ref, filter, depth))

    async def _read_tree(
        self, managed: ManagedTab, subtree_ref: str | None, filter: str | None, depth: int
    ) -> str:
        """The whole read_page text of the page or of one element's subtree."""
        node = await self._resolve(managed, subtree_ref) if subtree_ref else None
        root = managed.last_tree = await self._tree(managed)
        subtree = None
        if node is not None:
            subtree = reader.find_node(root, node.session.id or "", node.backend_node_id) if root else None
            if subtree is None:
                raise MemberError(self._stale_text(subtree_ref or "", "unknown ref"))
        return await reader.read_page(
            managed.tab,
            root,
            managed.refs,
            filter=filter,
            depth=depth,
            subtree=subtree,
            viewport=self.image_size,
        )

    async def _m_find(self, p: dict[str, Any], managed: ManagedTab) -> str:
        root = managed.last_tree = await self._tree(managed)
        return self._window(managed, reader.find(root, managed.refs, p["query"]), Continuation("find"))

    async def _m_get_page_text(self, p: dict[str, Any], managed: ManagedTab) -> str:
        return self._window(managed, await self._page_text(managed), Continuation("text"))

    async def _page_text(self, managed: ManagedTab) -> str:
        try:
            return await reader.page_text(managed.tab)
        except (JavaScriptError, TimeoutError):
            raise MemberError(
                "Error: The page text could not be read; try again after it finishes loading."
            ) from None

    async def _m_read_console(self, p: dict[str, Any], managed: ManagedTab) -> str:
        if managed.console is None:
            managed.console = ConsoleLog(managed.tab)
            managed.console.attach_all()
        await managed.console.settle()
        return managed.console.read()

    async def _m_read_network(self, p: dict[str, Any], managed: ManagedTab) -> str:
        if managed.network is None:
            managed.network = NetworkLog(managed.tab)
            managed.network.attach_all()
        return managed.network.read()

    async def _m_javascript_exec(self, p: dict[str, Any], managed: ManagedTab) -> str:
        limit = self.config.script_timeout
        started = asyncio.get_running_loop().time()
        managed.tab.scroll_epoch += 1  # the agent's script may change anything, scrolls included
        try:
            value = await scripts.evaluate(
                managed.tab.session,
                p["text"],
                user_gesture=True,
                repl_mode=True,
                script_timeout=limit,
                timeout=limit + 1,
            )
        except TimeoutError:
            raise MemberError(f"Error: The script did not finish within {limit:g} seconds.") from None
        except JavaScriptError as exc:
            text = scripts.exception_text(exc.details or {}, "Uncaught exception")
            if "terminated" in text.lower() and "execution" in text.lower():
                raise MemberError(f"Error: The script did not finish within {limit:g} seconds.") from None
            first = one_line(text.splitlines()[0] if text else "", 500)
            raise MemberError(f"Error: The script threw an exception: {first}") from None
        except CDPEngineError:
            if asyncio.get_running_loop().time() - started >= limit * 0.9:
                # Chromium terminates a script past `timeout` and answers with an internal error.
                raise MemberError(f"Error: The script did not finish within {limit:g} seconds.") from None
            raise MemberError("Error: The script could not be run on this page.") from None
        if "value" in value:
            v = value["value"]
            text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
        elif "unserializableValue" in value:
            text = str(value["unserializableValue"])
        elif value.get("type") == "undefined":
            text = "undefined"
        else:
            text = str(value.get("description") or value.get("type") or "")
        cap = self.policies.result.limit or reader.OUTPUT_CAP
        if len(text) > cap:
            text = text[: cap - 60] + f"\n{reader.TEXT_TRUNCATED}"
        return text
