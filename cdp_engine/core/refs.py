"""Identity-checked element references shared by the toolset and MCP surfaces.

A ref names one DOM node: (frame session, frame id, document loaderId, backendNodeId) plus
the role and name it had when handed out. Refs are per tab, numbered from a counter that
never goes back, and the same node keeps its ref until its document goes away. Resolving a
ref proves the node is still that element: same session alive, same document, node still
connected, same role and name (the one check in core.identity); otherwise StaleRefError says
why, and nothing is acted on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError
from .identity import AX_LOOK, Verdict, ax_name, ax_role, verify

if TYPE_CHECKING:
    from .tab import Tab

__all__ = ["NodeRef", "RefRegistry", "StaleRefError", "ax_name", "ax_role", "stale_reason"]


class StaleRefError(CDPEngineError):
    """The ref is unknown, or its element is gone or is no longer the element it named."""

    def __init__(self, ref: str, reason: str, verdict: Verdict | None = None) -> None:
        super().__init__(f"{ref}: {reason}")
        self.ref = ref
        self.reason = reason
        self.verdict = verdict  # the identity check's answer (None for an unknown ref)


@dataclass(frozen=True)
class NodeRef:
    """What a ref points at."""

    ref: str
    session: CDPSession
    frame_id: str
    loader_id: str
    backend_node_id: int
    role: str
    name: str


class RefRegistry:
    """The refs of one tab; `prefix` is 'ref_' for the browser toolset and 'e' for MCP."""

    def __init__(self, tab: Tab, prefix: str = "ref_") -> None:
        self.tab = tab
        self.prefix = prefix
        self._counter = 0
        self._refs: dict[str, NodeRef] = {}
        self._by_node: dict[tuple[str, str, int], str] = {}

    def assign(
        self,
        session: CDPSession,
        frame_id: str,
        backend_node_id: int,
        role: str,
        name: str,
    ) -> str:
        """The node's ref: its existing one while its document lives and its role and name hold, else a new one."""
        frame = self.tab.frames.get(frame_id)
        loader = frame.loader_id if frame else ""
        key = (session.id or "", loader, backend_node_id)
        existing = self._by_node.get(key)
        if existing is not None:
            old = self._refs.get(existing)
            if old is not None and old.role == role and old.name == name:
                return existing
        self._counter += 1
        ref = f"{self.prefix}{self._counter}"
        self._refs[ref] = NodeRef(ref, session, frame_id, loader, backend_node_id, role, name)
        self._by_node[key] = ref
        return ref

    def mint(self) -> str:
        """A new ref name that names no node (a surface's own token, e.g. the toolset's continuation refs):
        numbered from the same counter, so it never equals an element's ref; resolve() calls it unknown."""
        self._counter += 1
        return f"{self.prefix}{self._counter}"

    def get(self, ref: str) -> NodeRef | None:
        return self._refs.get(ref)

    def lookup(self, session: CDPSession, frame_id: str, backend_node_id: int) -> str | None:
        """The ref the node holds in its current document, without handing out a new one (None: none)."""
        frame = self.tab.frames.get(frame_id)
        loader = frame.loader_id if frame else ""
        return self._by_node.get((session.id or "", loader, backend_node_id))

    def count(self) -> int:
        """How many refs are held (refs of old documents included until dropped or cleared)."""
        return len(self._refs)

    def drop_document(self, frame_id: str) -> None:
        """Forget refs of a frame's old documents (called as frames navigate)."""
        frame = self.tab.frames.get(frame_id)
        loader = frame.loader_id if frame else None
        for ref, node in list(self._refs.items()):
            if node.frame_id == frame_id and node.loader_id != loader:
                del self._refs[ref]
                self._by_node.pop((node.session.id or "", node.loader_id, node.backend_node_id), None)

    def clear(self) -> None:
        """Forget every ref (numbers are never reused)."""
        self._refs.clear()
        self._by_node.clear()

    async def resolve(self, ref: str, *, check_identity: bool = True) -> NodeRef:
        """The node a ref names, proven to be the same element still (core.identity); StaleRefError otherwise."""
        node = self._refs.get(ref)
        if node is None:
            raise StaleRefError(ref, "unknown ref")
        if check_identity:
            verdict = await verify(self.tab, node, (node.role, node.name), AX_LOOK)
        else:
            verdict = await verify(self.tab, node)
        if not verdict.same:
            raise StaleRefError(ref, stale_reason(verdict), verdict)
        return node


# The refs' words for each identity verdict (both ref surfaces map these texts further).
STALE_REASONS: dict[str, str] = {
    "frame_closed": "its frame is gone",
    "frame_detached": "the page navigated since the ref was handed out",
    "navigated": "the page navigated since the ref was handed out",
    "removed": "the element was removed from the page",
}


def stale_reason(verdict: Verdict) -> str:
    """The StaleRefError reason for a failed verdict."""
    if verdict.reason == "changed" and verdict.was and verdict.now:
        (was_role, was_name), (role, name) = verdict.was, verdict.now
        return f"the element changed (was {was_role} {was_name!r}, now {role} {name!r})"
    return STALE_REASONS.get(verdict.reason, "the element changed")
