"""The accessibility tree of a tab as the surfaces read it (the toolset's read_page and find, the MCP snapshot):
served from the last one while the page is unchanged, built on it when only typing and focus changed, else
captured in full (snapshot/ax_tree.py), as the state is (snapshot/capturer.py; docs/incremental.md).

Why its own module: the tree's full capture is the slowest read the engine has (`Accessibility.getFullAXTree`
is most of 3 s on an 88k-node page), and what may be reused of it is the part a reader has to check. The
differential test (tests/stress/test_differential_ax.py) holds every served tree to a full capture.

Building on the last tree: the change probe (snapshot/probes.py) places every change since it, and

- a text field typed into changes its own node (its value), the names and values of its ancestors (a cell's
  or a button's name holds the values of the fields inside it) and its own subtree (the browser's inner
  editor and its text): the node and its ancestors are read again (`Accessibility.getAXNodeAndAncestors`),
  its subtree too (`Accessibility.getChildAXNodes`), and the tree is copied along their paths. The field must
  be where the tree's snapshot has it (the probe's place, tag and box), and no other name may hold its value
  (an aria-labelledby naming it or an element around it, a label around it that labels another control);
- focus moving changes the focused flags of the element that had it and the one that has it (read again);
- the pointer moving changes nothing the tree shows (the probe proved no style rule restyles it).

Anything else (a mutation, even inside a hidden subtree: a name may come from hidden content), an input the
engine sent that may scroll an element (Tab.scroll_epoch), page-made shadow content, the extended
interactive set (it reads event listeners, which the probe cannot see): a full capture.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession
from ..core.refs import ax_name
from ..core.scripts import retrieve_quietly
from ..errors import CDPEngineError
from .ax_tree import AXNode, AXTreeCapture, NodeMaker, ax_fields, full_ax_tree, propagate_visibility
from .extended import check_mode
from .probes import ChangeProbes, TypedField

if TYPE_CHECKING:
    from ..core.tab import Tab

__all__ = ["AXTreeCapturer", "capture_ax_tree"]

NodeKey = tuple[str, int]  # (session id, backend node id): an AXNode's place in the tree's index
FOCUS_GROUP = "cdp-engine-ax-focus"


async def capture_ax_tree(tab: Tab, *, interactive: str = "strict") -> AXNode | None:
    """The tab's accessibility tree across all frames, or None for an empty page: the last one while the page
    is unchanged, built on it after typing or focus, else captured in full (module docstring). With
    `interactive="extended"` the nodes of the extended interactive set carry their reason (AXNode.reason); that
    tree is always captured in full. A tree is never changed once returned."""
    return await AXTreeCapturer.of(tab).tree(interactive)


@dataclass
class TreeIndex:
    """Where each keyed node of a tree is: built once per tree lineage, then kept up to date by each increment."""

    nodes: dict[NodeKey, AXNode] = field(default_factory=dict)
    parents: dict[NodeKey, NodeKey | None] = field(default_factory=dict)
    focused: set[NodeKey] = field(default_factory=set)

    @staticmethod
    def key(node: AXNode) -> NodeKey | None:
        return None if node.backend_node_id is None else (node.session.id or "", node.backend_node_id)

    def add(self, node: AXNode, parent: NodeKey | None) -> bool:
        """Index `node` and its subtree under `parent`; False when a key appears twice (the index cannot be used)."""
        stack = [(node, parent)]
        nodes, parents, focused = self.nodes, self.parents, self.focused
        while stack:
            node, parent = stack.pop()
            key = self.key(node)
            if key is not None:
                if key in nodes:
                    return False
                nodes[key], parents[key] = node, parent
                if node.properties.get("focused"):
                    focused.add(key)
            for child in node.children:
                stack.append((child, key if key is not None else parent))
        return True

    def drop(self, node: AXNode) -> None:
        """Forget the subtree under `node` (not `node` itself)."""
        stack = list(node.children)
        while stack:
            child = stack.pop()
            key = self.key(child)
            if key is not None:
                self.nodes.pop(key, None)
                self.parents.pop(key, None)
                self.focused.discard(key)
            stack.extend(child.children)


@dataclass
class LastTree:
    """The latest tree a capturer served, and what serving or building on it needs."""

    capture: AXTreeCapture
    epoch: int  # Tab.scroll_epoch when it was captured
    index: TreeIndex | None = None  # built at the first increment


class AXTreeCapturer:
    """Serves one tab's accessibility tree: cached, built on the last one, or captured in full."""

    @classmethod
    def of(cls, tab: Tab) -> AXTreeCapturer:
        return tab.extension(cls)

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.probes = ChangeProbes.of(tab)
        self.last: LastTree | None = None
        self.served = ""  # how the latest tree was served: "cached", "incremental" or "full" (tests, benchmarks)

    async def tree(self, interactive: str = "strict") -> AXNode | None:
        """The current tree (module docstring)."""
        extended = check_mode(interactive) == "extended"
        last, tab = self.last, self.tab
        if not extended and last is not None and not last.capture.facts.shadow and last.epoch == tab.scroll_epoch:
            key = await self.probes.version_key()
            base = last.capture.key
            moved = ChangeProbes.moved_counts(key, base)
            if moved is not None and not moved:
                self.served = "cached"
                return last.capture.root
            if moved and tab.scroll_epoch == last.epoch:
                built = await self._build_on(last, key, moved)
                if built is not None:
                    self.served = "incremental"
                    return built
        return await self._full(extended)

    async def capture_full(self, interactive: str = "strict") -> AXNode | None:
        """A full capture that leaves the served tree alone: what a served tree must equal (the differential
        test, the benchmarks)."""
        return (await full_ax_tree(self.tab, self.probes, extended=check_mode(interactive) == "extended")).root

    async def _full(self, extended: bool) -> AXNode | None:
        epoch = self.tab.scroll_epoch
        capture = await full_ax_tree(self.tab, self.probes, extended=extended)
        self.last = None if extended else LastTree(capture, epoch)
        self.probes.hold("tree", None if extended else capture.key)
        self.served = "full"
        return capture.root

    async def _build_on(self, last: LastTree, key: tuple[Any, ...], moved: list[tuple[str, str, int]]) -> AXNode | None:
        """The tree built on `last` (module docstring), or None when a full capture must follow."""
        root = last.capture.root
        if root is None:
            return None
        answers = await asyncio.gather(*[self.probes.changes_since(fid, loader, v) for fid, loader, v in moved])
        fields: list[tuple[str, int]] = []  # (frame id, backend node id) of each typed field
        focus_frames: list[str] = []
        for (fid, _loader, _v), changes in zip(moved, answers, strict=True):
            if changes is None or changes.hidden:
                return None
            for typed in changes.fields:
                backend = self._field_node(last.capture, fid, changes.total, typed)
                if backend is None:
                    return None
                fields.append((fid, backend))
            if changes.focus:
                focus_frames.append(fid)
        if not fields and not focus_frames:  # only the pointer moved
            last.capture.key = key
            self.probes.hold("tree", key)
            return root
        if last.index is None:
            last.index = TreeIndex()
            if not last.index.add(root, None):
                self.last = None
                return None
        index = last.index
        builder = TreeEdit(self.tab, index)
        try:
            done = await asyncio.gather(
                *[builder.field(fid, backend) for fid, backend in fields],
                *[builder.focus(fid) for fid in focus_frames],
            )
        except CDPEngineError:
            return None
        if not all(done):
            return None
        new_root = builder.apply(root)
        if new_root is None:
            last.index = None  # it may be half updated; the full capture that follows starts a new one
            return None
        last.capture = AXTreeCapture(new_root, key, last.capture.facts)
        self.probes.hold("tree", key)
        return new_root

    @staticmethod
    def _field_node(capture: AXTreeCapture, frame_id: str, count: int, typed: TypedField) -> int | None:
        """The backend node id of a typed field: the `typed.place`-th text field of the frame's document in the
        tree's snapshot, when the document still holds `count` of them, the tag agrees, the box is where the
        snapshot has it to the last bit (typing that scrolled moved boxes) and no other name may hold its value."""
        listed = capture.facts.text_fields.get(frame_id)
        if listed is None or len(listed) != count or not 0 <= typed.place < count or typed.names_elsewhere:
            return None
        backend, tag, rect = listed[typed.place]
        return backend if tag == typed.tag and rect == typed.box else None


class TreeEdit:
    """One increment: the nodes read again, then one copy of the tree along their paths."""

    def __init__(self, tab: Tab, index: TreeIndex) -> None:
        self.tab = tab
        self.index = index
        # key -> its new name, properties, value and own name (AXNode.own_name)
        self.patches: dict[NodeKey, tuple[str, dict[str, Any], str | None, str | None]] = {}
        self.subtrees: dict[NodeKey, list[AXNode]] = {}  # key -> the node's new children

    def _frame(self, frame_id: str) -> tuple[CDPSession, str] | None:
        frame = self.tab.frames.get(frame_id)
        return None if frame is None or frame.session.closed else (frame.session, frame_id)

    async def field(self, frame_id: str, backend: int) -> bool:
        """Read a typed field again: its node and ancestors, and its subtree (the inner editor and its text)."""
        where = self._frame(frame_id)
        if where is None:
            return False
        session, _ = where
        chain = await session.send("Accessibility.getAXNodeAndAncestors", {"backendNodeId": backend})
        raws = chain.get("nodes", [])
        if not raws or raws[0].get("backendDOMNodeId") != backend or not self._patch_chain(session, raws):
            return False
        key = (session.id or "", backend)
        old = self.index.nodes.get(key)
        if old is None:  # the field is not a node of the last tree (ignored there): the tree is read in full
            return False
        by_id: dict[str, dict[str, Any]] = {}
        level = [raws[0]]
        while level:  # the subtree, a level per round trip (an editor, its text, the text's boxes)
            wanted = [raw for raw in level if raw.get("childIds")]
            answers = await asyncio.gather(*[
                session.send("Accessibility.getChildAXNodes", {"id": raw["nodeId"], "frameId": frame_id}) for raw in wanted
            ])  # fmt: skip
            level = [child for answer in answers for child in answer.get("nodes", [])]
            for child in level:
                by_id[child["nodeId"]] = child
        # The nodes under a field are the browser's own (its inner editor), which no snapshot holds: no boxes.
        maker = NodeMaker(session, frame_id, {}, {}, {})
        holder = replace(old, children=[])
        maker.grow(raws[0], holder, by_id)
        for child in holder.children:
            propagate_visibility(child, old.visible)
        self.subtrees[key] = holder.children
        return True

    async def focus(self, frame_id: str) -> bool:
        """Read again the node that had focus in the frame's document and the one that has it now."""
        where = self._frame(frame_id)
        if where is None:
            return False
        session, _ = where
        sid = session.id or ""
        reads = [
            session.send("Accessibility.getAXNodeAndAncestors", {"backendNodeId": backend})
            for (key_sid, backend) in self.index.focused
            if key_sid == sid and self.index.nodes[(key_sid, backend)].frame_id == frame_id
        ]
        ctx = ChangeProbes.of(self.tab).world_context(frame_id)
        if ctx is None:
            return False
        active = await session.send(
            "Runtime.evaluate", {"expression": "document.activeElement", "contextId": ctx, "objectGroup": FOCUS_GROUP}
        )
        object_id = (active.get("result") or {}).get("objectId")
        try:
            if object_id is not None:
                reads.append(session.send("Accessibility.getAXNodeAndAncestors", {"objectId": object_id}))
            chains = await asyncio.gather(*reads)
        finally:
            session.send("Runtime.releaseObjectGroup", {"objectGroup": FOCUS_GROUP}).add_done_callback(retrieve_quietly)
        return all(self._patch_chain(session, chain.get("nodes", [])) for chain in chains)

    def _patch_chain(self, session: CDPSession, raws: list[dict[str, Any]]) -> bool:
        """Take the new name, properties and value of a node and its ancestors (`raws`, the node first), when the
        tree's structure around them is the same: each node not ignored is in the tree under the previous one
        not ignored, each ignored one is not in the tree, and no role changed."""
        sid = session.id or ""
        nodes, parents = self.index.nodes, self.index.parents
        previous: NodeKey | None = None
        for raw in raws:
            backend = raw.get("backendDOMNodeId")
            key = (sid, backend) if backend is not None else None
            if raw.get("ignored"):
                if key is not None and key in nodes:
                    return False
                continue
            if key is None or key not in nodes:
                return False
            if previous is not None and parents.get(previous) != key:
                return False
            old = nodes[key]
            handed = None if old.own_name is None else old.name  # a handed name holds (snapshot/handover.py)
            role, name, props, value = ax_fields(raw, handed)
            own = None if handed is None else ax_name(raw)
            if role != old.role:
                return False
            if (name, props, value, own) != (old.name, old.properties, old.value, old.own_name):
                self.patches[key] = (name, props, value, own)
            previous = key
        if previous is None:
            return False
        top = parents.get(previous)  # the chain must reach its frame's root: the tree's root, or under an iframe
        return top is None or nodes[top].frame_id != nodes[previous].frame_id

    def apply(self, root: AXNode) -> AXNode | None:
        """The new tree: every node on a path from the root to a changed node is a copy; the rest is shared."""
        index = self.index
        changed = set(self.patches) | set(self.subtrees)
        if not changed:
            return root
        dirty: set[NodeKey] = set()
        for key in changed:
            walk: NodeKey | None = key
            while walk is not None and walk not in dirty:
                dirty.add(walk)
                walk = index.parents.get(walk)
        root_key = TreeIndex.key(root)
        if root_key is None or root_key not in dirty:
            return None

        def copy(node: AXNode, key: NodeKey) -> AXNode:
            patch = self.patches.get(key)
            if key in self.subtrees:
                index.drop(node)
                children = self.subtrees[key]
            else:
                children = [
                    copy(child, child_key) if (child_key := TreeIndex.key(child)) in dirty else child
                    for child in node.children
                ]
            new = replace(node, children=children)
            if patch is not None:
                new.name, new.properties, new.value, new.own_name = patch
            index.nodes[key] = new
            if new.properties.get("focused"):
                index.focused.add(key)
            else:
                index.focused.discard(key)
            if key in self.subtrees:
                for child in children:
                    if not index.add(child, key):
                        raise _Unindexable
            return new

        try:
            return copy(root, root_key)
        except _Unindexable:
            return None


class _Unindexable(Exception):
    """A key appeared twice in the tree: its index cannot be kept."""
