"""The accessibility tree of a whole tab, across frames, with viewport boxes: the base of read_page,
find and the MCP snapshot.

Per frame, `Accessibility.getFullAXTree` (every frame's call is in flight together); child
frames are stitched under their iframe node (`DOM.getFrameOwner`), and one layout snapshot per
frame session gives each node's box in top-level viewport pixels, so surfaces can filter to
what is visible. This is the full capture; surfaces read the tree through snapshot/ax_capturer.py, which
serves the last one while the page is unchanged and builds on it after typing and focus.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from ..cdp.connection import CDPSession, gc_paused
from ..core.refs import ax_name, ax_role
from .capture import DocFacts, ElementBox, element_boxes
from .probes import ChangeProbes
from .roles import CONTROL_ROLES, INTERACTIVE_AX_ROLES, INTERACTIVE_ROLES
from .snapshot_doc import EXTENDED_STYLES, SNAPSHOT_STYLES

if TYPE_CHECKING:
    from ..core.tab import Tab

# Roles that only wrap content: skipped in outlines (their children are kept).
STRUCTURAL_ROLES = frozenset({"generic", "none", "presentation", "InlineTextBox", "LineBreak", "StaticText", ""})


@dataclass
class AXNode:
    """One accessibility node, joined with its DOM node's box."""

    role: str
    name: str
    properties: dict[str, Any]
    value: str | None
    backend_node_id: int | None
    session: CDPSession
    frame_id: str
    box: tuple[float, float, float, float] | None = None  # viewport CSS px
    visible: bool = False
    children: list[AXNode] = field(default_factory=list)
    tag: str = ""
    attributes: dict[str, str] = field(default_factory=dict)
    reason: str | None = None  # extended mode: why this node is an interactive target (snapshot/extended.py)
    # Chromium's own name for it when `name` is one it was handed: by its library's hidden original control
    # (snapshot/handover.py) or by its web component's host (name_from_hosts)
    own_name: str | None = None

    @property
    def interactive(self) -> bool:
        return self.role in INTERACTIVE_AX_ROLES or bool(self.properties.get("focusable") and self.role not in ("RootWebArea", "WebArea", "Iframe"))

    @property
    def identity_name(self) -> str:
        """The name the identity check reads of it (core/identity: Chromium's), which a ref keeps."""
        return self.name if self.own_name is None else self.own_name

    def walk(self, depth: int = 0) -> Iterator[tuple[AXNode, int]]:
        """(node, depth) pairs in tree order."""
        yield self, depth
        for child in self.children:
            yield from child.walk(depth + 1)


@dataclass
class AXTreeCapture:
    """One full capture of a tab's accessibility tree, with what building the next one on it needs
    (snapshot/ax_capturer.py): the version key the change probe read before it, and the snapshot's facts."""

    root: AXNode | None
    key: tuple[Any, ...]
    facts: DocFacts


async def full_ax_tree(tab: Tab, probes: ChangeProbes, *, extended: bool = False) -> AXTreeCapture:
    """The tab's accessibility tree across all frames, captured in full (one burst: the change probe first, then
    per frame `Accessibility.getFullAXTree` and one `DOMSnapshot` per frame session for the boxes). With
    `extended`, the nodes of the extended interactive set carry their reason (AXNode.reason), and such nodes
    the accessibility tree ignores (a bare div with a click listener) are kept."""
    tab.check_open()
    missing = [fid for fid, _s in probes.probe_frames() if probes.worlds.get(fid) is None]
    if missing:  # a new document: its probe must be in place first (usually installed already at commit)
        await asyncio.gather(*[probes.worlds.ensure(fid) for fid in missing], return_exceptions=True)
    sent = probes.send_probes()  # read before the tree: a later change can only cause a miss
    frames = [(fid, f) for fid, f in tab.frames.items() if not f.session.closed]
    sessions: dict[str, CDPSession] = {tab.main_frame_id: tab.session, **tab.frame_sessions}
    ax_futures = [f.session.send("Accessibility.getFullAXTree", {"frameId": fid}) for fid, f in frames]
    styles = EXTENDED_STYLES if extended else SNAPSHOT_STYLES  # the state's styles: one answer on opacity
    snap_params = {"computedStyles": styles, "includePaintOrder": False, "includeDOMRects": False}
    snap_futures = {fid: s.send("DOMSnapshot.captureSnapshot", snap_params) for fid, s in sessions.items()}
    metrics_future = tab.session.send("Page.getLayoutMetrics")
    owner_futures = {
        fid: (f.session.parent or tab.session).send("DOM.getFrameOwner", {"frameId": fid})
        if fid in tab.frame_sessions
        else f.session.send("DOM.getFrameOwner", {"frameId": fid})
        for fid, f in frames
        if f.parent_id is not None
    }
    facts = DocFacts()
    with gc_paused():  # ~100k small lists and nodes decoded and built: no cyclic collection meanwhile
        root = await _join(tab, frames, ax_futures, snap_futures, metrics_future, owner_futures, extended, facts)
    return AXTreeCapture(root, await probes.read_probes(sent), facts)


async def _join(
    tab: Tab,
    frames: list[tuple[str, Any]],
    ax_futures: list[Any],
    snap_futures: dict[str, Any],
    metrics_future: Any,
    owner_futures: dict[str, Any],
    extended: bool,
    facts: DocFacts,
) -> AXNode | None:
    """The answers of full_ax_tree's burst, joined into one tree."""
    sessions: dict[str, CDPSession] = {tab.main_frame_id: tab.session, **tab.frame_sessions}
    ax_results = await asyncio.gather(*ax_futures, return_exceptions=True)
    snap_results = dict(zip(snap_futures, await asyncio.gather(*snap_futures.values(), return_exceptions=True), strict=True))
    owners = dict(zip(owner_futures, await asyncio.gather(*owner_futures.values(), return_exceptions=True), strict=True))
    metrics = await metrics_future
    vp = metrics["cssVisualViewport"]
    viewport = (vp["clientWidth"], vp["clientHeight"], vp["pageX"], vp["pageY"])

    # Boxes: the state capture's own frame placement.
    snapshots = {fid: (sessions[fid], r) for fid, r in snap_results.items() if not isinstance(r, BaseException)}
    oopif_owner = {
        ((tab.frame_sessions[fid].parent or tab.session).id or "", owner["backendNodeId"]): fid
        for fid, owner in owners.items()
        if fid in tab.frame_sessions and not isinstance(owner, BaseException)
    }
    reasons: dict[tuple[str, int], str] | None = {} if extended else None
    boxes = await element_boxes(tab, snapshots, viewport, oopif_owner, reasons, facts)

    roots: dict[str, AXNode] = {}
    owner_nodes: dict[tuple[str, int], AXNode] = {}
    for (fid, frame), result in zip(frames, ax_results, strict=True):
        if isinstance(result, BaseException):
            continue
        nodes = result.get("nodes", [])
        root_raw = next((n for n in nodes if not n.get("parentId")), None)
        if root_raw is None:
            continue
        maker = NodeMaker(
            frame.session, fid, boxes, owner_nodes, reasons or {}, extended=reasons is not None,
            handed_names=facts.handed_names,
        )  # fmt: skip
        root = maker.make(root_raw)
        maker.grow(root_raw, root, {n["nodeId"]: n for n in nodes})
        propagate_visibility(root, True)
        if facts.shadow:
            name_from_hosts(root)
        roots[fid] = root
    # Stitch each child frame's tree under its iframe node.
    for fid, owner in owners.items():
        if isinstance(owner, BaseException) or fid not in roots:
            continue
        child = tab.frames.get(fid)
        if child is None or child.parent_id is None:
            continue
        parent_frame = tab.frames.get(child.parent_id)
        parent_session = parent_frame.session if parent_frame else tab.session
        host = owner_nodes.get((parent_session.id or "", owner["backendNodeId"]))
        if host is not None:
            host.children.append(roots[fid])
    return roots.get(tab.main_frame_id)


def tree_bytes(root: AXNode | None) -> bytes:
    """Every node of a tree in tree order with its depth, as canonical JSON: what a surface may read of it. Two
    trees a surface cannot tell apart have the same bytes (the differential test and the benchmarks compare them)."""
    if root is None:
        return b"null"
    return orjson.dumps([
        [depth, node.role, node.name, node.properties, node.value, node.backend_node_id, node.session.id,
         node.frame_id, node.box, node.visible, node.tag, node.attributes, node.reason, node.own_name]
        for node, depth in root.walk()
    ], option=orjson.OPT_SORT_KEYS)  # fmt: skip


def ax_fields(raw: dict[str, Any], handed_name: str | None = None) -> tuple[str, str, dict[str, Any], str | None]:
    """An Accessibility node's role, name, properties and value as AXNode keeps them. With `handed_name` (the
    name a hidden original control hands the control drawn in its place), that is the name, and a name Chromium
    gave from the control's shown value is its value."""
    props = {p["name"]: p.get("value", {}).get("value") for p in raw.get("properties", [])}
    raw_value = (raw.get("value") or {}).get("value")
    name, value = ax_name(raw), None if raw_value is None else str(raw_value)
    if handed_name is not None:
        name, value = handed_name, value if value is not None else (name or None)
    return ax_role(raw), name, props, value


class NodeMaker:
    """Builds AXNodes of one frame's Accessibility nodes, joined with their DOM nodes' boxes."""

    def __init__(
        self,
        session: CDPSession,
        frame_id: str,
        boxes: dict[tuple[str, int], ElementBox],
        owner_nodes: dict[tuple[str, int], AXNode],
        reasons: dict[tuple[str, int], str],
        *,
        extended: bool = False,
        handed_names: dict[tuple[str, int], str] | None = None,
    ) -> None:
        self.session, self.frame_id, self.sid = session, frame_id, session.id or ""
        self.boxes, self.owner_nodes, self.reasons = boxes, owner_nodes, reasons
        self.extended = extended
        self.handed_names = handed_names or {}

    def make(self, raw: dict[str, Any]) -> AXNode:
        backend = raw.get("backendDOMNodeId")
        handed = self.handed_names.get((self.sid, backend)) if backend is not None and self.handed_names else None
        role, name, props, value = ax_fields(raw, handed)
        node = AXNode(role, name, props, value, backend, self.session, self.frame_id)
        if handed is not None:
            node.own_name = ax_name(raw)
        if backend is not None:
            key = (self.sid, backend)
            info = self.boxes.get(key)
            if info is not None:
                node.box, node.visible, node.tag, node.attributes, _offered = info
            if node.role == "Iframe" or node.tag in ("iframe", "frame"):
                self.owner_nodes[key] = node
            node.reason = self.reasons.get(key)
            if node.reason is None and self.extended and node.role in ("generic", "none") and node.attributes:
                # A role the element index takes from the attribute (snapshot/roles.py) that Chromium drops in its
                # context (role=option rows with no listbox): the same element is a target in every view.
                token = str(node.attributes.get("role") or "").strip().lower().split(" ")[0]
                if token in INTERACTIVE_ROLES:
                    node.reason = "role"
        return node

    def grow(self, raw: dict[str, Any], node: AXNode, by_id: dict[str, dict[str, Any]]) -> None:
        """Give `node` (made of `raw`) its subtree of the nodes in `by_id`: ignored nodes are transparent (their
        children are adopted, in order), and a control of no size that stands for nothing is left out with its
        options, unless an option is drawn itself."""
        stack = [(raw, node)]
        while stack:
            raw, node = stack.pop()
            for child_raw, child in self._children(raw, by_id):
                node.children.append(child)
                stack.append((child_raw, child))

    def _children(self, raw: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> list[tuple[dict[str, Any], AXNode]]:
        """The nodes `raw`'s node shows as its children, in tree order, with the nodes they are made of."""
        sid, boxes, reasons = self.sid, self.boxes, self.reasons
        out: list[tuple[dict[str, Any], AXNode]] = []
        pending = [(child_id, False) for child_id in reversed(raw.get("childIds", []))]
        while pending:
            child_id, dropped = pending.pop()
            child_raw = by_id.get(child_id)
            if child_raw is None:
                continue
            if child_raw.get("ignored") and (sid, child_raw.get("backendDOMNodeId")) not in reasons:
                pending.extend((grand, dropped) for grand in reversed(child_raw.get("childIds", [])))
                continue
            child = self.make(child_raw)
            info = boxes.get((sid, child.backend_node_id)) if child.backend_node_id is not None else None
            # A control of no size that stands for nothing is not offered, nor are its options unless they are
            # drawn themselves (Material Web's menu host keeps no box; its options, slotted into a popover, have
            # theirs): a hidden <select>'s options have no box at all.
            if (dropped and (info is None or not info[1])) or (
                child.role in CONTROL_ROLES and info is not None and not info[4]
            ):
                pending.extend((grand, True) for grand in reversed(child_raw.get("childIds", [])))
                continue
            out.append((child_raw, child))
        return out


def name_from_hosts(root: AXNode) -> None:
    """A web component's one control takes its host's name when it has none: md-checkbox inside a <label> is
    named by the label, its shadow root's <input> by nothing, and a person reads the label as the box's. Only a
    host with exactly one control inside (another named host's controls are that host's); the control keeps
    Chromium's own name for the identity check (AXNode.own_name)."""
    for host, _depth in root.walk():
        if "-" not in host.tag or not host.name:
            continue
        controls: list[AXNode] = []
        pending = list(host.children)
        while pending and len(controls) < 2:
            node = pending.pop()
            if node.role in CONTROL_ROLES:
                controls.append(node)
            elif not ("-" in node.tag and node.name):
                pending.extend(node.children)
        if len(controls) == 1 and not controls[0].name and controls[0].own_name is None:
            control = controls[0]
            control.own_name, control.name = control.name, host.name


def propagate_visibility(node: AXNode, parent_visible: bool) -> bool:
    """Nodes without a box of their own (text, wrappers) are visible when a child or their parent is; whether
    `node` or anything under it is."""
    any_child = False
    for child in node.children:
        any_child = propagate_visibility(child, node.visible if node.box is not None else parent_visible) or any_child
    if node.box is None:
        node.visible = any_child or (parent_visible and not node.children)
    return node.visible or any_child
