"""The state built on the last one: when the change probe places every change since a capture, the next
state is built from that capture's decoded snapshots instead of a new DOMSnapshot (docs/incremental.md).

Why its own module: the full capture (snapshot/capturer.py) is one burst and one walk; this is the other way
to the same bytes, and the reasons it may be taken (what the probe must say, which boxes must not have
moved) are the part a reader has to check. The differential test (tests/stress/test_differential_state.py) holds it
to a full capture, byte for byte.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from bisect import bisect_left
from dataclasses import dataclass
from math import ceil, floor, inf
from typing import TYPE_CHECKING, Any

import orjson

from ..core.scripts import retrieve_quietly
from ..errors import CDPEngineError
from .capture import Capture, CaptureSource, StateBuilder, settled_roles, state_hash
from .probes import ChangeProbes, TypedField
from .snapshot_doc import SnapshotDoc

if TYPE_CHECKING:
    from ..core.tab import Tab
    from ..core.worlds import Worlds


STANDS = "stands"  # build_on's answer when the last state is still the state


async def build_on(
    tab: Tab, probes: ChangeProbes, worlds: Worlds, last: Capture, key: tuple[Any, ...]
) -> Capture | str | None:
    """The state built on `last` when the probe places every change since it (docs/incremental.md), without
    a screenshot; STANDS when `last`'s state is still the state; None when a full capture must follow.

    The same frames and documents, each frame's scroll offsets and sizes unchanged, and per frame whose counter
    moved, probes.changes_since() answers: typed text fields whose box did not move get their new value and the
    same walk runs over the same snapshots (a full capture would read the same data: only those values differ);
    focus, hover and changes inside hidden subtrees change nothing a walk reads, so with only those the state
    stands."""
    source = last.source
    if source is None or source.shadow:
        return None
    asks = ChangeProbes.moved_counts(key, last.base_key)
    if asks is None:
        return None
    if not asks:  # invalidated by an action that scrolled nothing, and nothing heard since
        return STANDS
    main = tab.main_frame_id
    placeable = last.interactive == "strict" and source.trunc >= 0  # structural changes may be placed
    answers = await asyncio.gather(
        *[probes.changes_since(fid, loader, v, reach=placeable and fid == main) for fid, loader, v in asks]
    )
    patches: list[tuple[SnapshotDoc, int, str]] = []
    structural = 0
    for (fid, loader, v), changes in zip(asks, answers, strict=True):
        if changes is not None and changes.structural < 0:  # insertions or attribute changes: judged on the reach
            reach = await state_reach(tab, worlds, last)
            changes = None if reach is None else await probes.changes_since(fid, loader, v, reach=reach)
        if changes is None:
            return None
        structural += changes.structural
        for typed in changes.fields:
            found = typed_node(source, fid, changes.total, typed)
            if found is None:
                return None
            patches.append((*found, typed.value))
    url = tab.url
    if structural and patches:
        return None
    if not patches:  # only focus, hover, hidden subtrees or changes beyond the state's reach
        if url != last.state["url"]:
            return None
        if structural:
            source.stale = True
            last.tree = None  # node paths follow the page's children, which the snapshots no longer mirror
        return STANDS
    if source.stale:  # the snapshots no longer mirror the page beyond the state's reach: the walk may go there
        return None
    t_build = time.perf_counter()
    for doc, node, value in patches:
        strings = doc.texts
        if value:
            strings.extend((value, ""))  # the table keeps ending with "": index -1 reads it
        doc.input_value[node] = len(strings) - 2 if value else -1
    builder = StateBuilder(tab, worlds, last.viewport, source.docs, source.oopif_owner, last.content)
    builder.clip = dict(source.clip)  # the geometry is the one the last capture placed and verified
    builder.walk()
    roles = builder.request_roles(source.roles)
    page_content = builder.page_content()
    hashed = state_hash(url, page_content)
    await builder.apply_roles(roles)
    element_index = {str(el.index): el.descriptor for el in builder.elements}
    state = {"url": url, "page_content": page_content, "element_index": element_index, "screenshot": "",
             "state_hash": hashed}  # fmt: skip
    timings = {
        "incremental": 1.0,
        "typed": float(len(patches)),
        "build_ms": (time.perf_counter() - t_build) * 1000,
        "elements": float(len(element_index)),
    }
    elements = {el.index: el for el in builder.elements}
    source = CaptureSource(
        source.docs, source.oopif_owner, source.clip, {**source.roles, **settled_roles(builder.elements)}, False,
        source.snapshot_ms, source.fields, source.key, main_truncation(builder, source.docs.get(main)),
    )  # fmt: skip
    return Capture(
        state, elements, key, last.viewport, timings, None, None, last.content, last.interactive, None, last.title,
        last.tree, key, source,
    )  # fmt: skip


def typed_node(source: CaptureSource, frame_id: str, count: int, field: TypedField) -> tuple[SnapshotDoc, int] | None:
    """The snapshot node of a typed text field: the `field.place`-th of the frame document's inputs and textareas in
    tree order (outside shadow trees, as the page's querySelectorAll counts them), when the document holds `count` of
    them, the tag agrees and the box is exactly where the snapshot has it (typing that scrolled the field into view
    moved boxes, so the walk's geometry would be stale). None otherwise."""
    for docs in source.docs.values():
        for doc in docs:
            if doc.frame_id != frame_id:
                continue
            fields = source.fields.get(id(doc))
            if fields is None:
                fields = source.fields[id(doc)] = doc.text_fields()
            if len(fields) != count or not 0 <= field.place < count:
                return None
            node = fields[field.place]
            rect = doc.rects.get(node)
            if doc.names[node] != field.tag or rect is None or tuple(rect) != field.box:
                return None
            return doc, node
    return None


REACH_GROUP = "cdp-engine-reach"
REACH_IDS = itertools.count(1)  # each Reach its own: the probe keeps what it found for one (its band's elements)
STAND_IN_TAGS = frozenset({"input", "textarea", "select"})


@dataclass(frozen=True)
class Reach:
    """What the state shows of the main document, as the probe's since() judges structural changes against it
    (probe_reach's beyondReach): the node where page_content stopped (a remote object in the engine's world) and the
    elements in the viewport's band then (docs/incremental.md)."""

    trunc: str  # the remote object id of the node where page_content stopped collecting
    args: dict[str, Any]  # id, snap, count, top, bottom, ranks, rects, cands (sent once: the probe keeps them)


def main_truncation(builder: StateBuilder, main_docs: list[SnapshotDoc] | None) -> int:
    """The main document's node where the walk stopped collecting page_content; -1 when it collected everything
    or stopped elsewhere (in a frame, at a closing tag)."""
    where, node = builder.truncated_at
    if not main_docs or node < 0 or where != id(main_docs[0]):
        return -1
    return node


async def state_reach(tab: Tab, worlds: Worlds, last: Capture) -> Reach | None:
    """The last state's reach in the main document, described once per snapshot: None when it cannot be (the
    node where page_content stopped is not the page's own, a pseudo-element box lies outside its element's rows,
    a tiny field stands in the band: the state build places those by other boxes)."""
    source = last.source
    if source is None:
        return None
    if source.reach is None:
        source.reach = await _describe_reach(tab, worlds, last, source) or False
    return source.reach or None


async def _describe_reach(tab: Tab, worlds: Worlds, last: Capture, source: CaptureSource) -> Reach | None:
    docs = source.docs.get(tab.main_frame_id)
    loader = tab.frames[tab.main_frame_id].loader_id if tab.main_frame_id in tab.frames else ""
    snap = ChangeProbes.count_in(source.key, tab.main_frame_id, loader)
    if not docs or source.trunc < 0 or snap is None:
        return None
    doc = docs[0]
    trunc = source.trunc
    if trunc in doc.pseudo or trunc in doc.shadow:
        return None
    types, shadow, pseudo, rects, parent = doc.types, doc.shadow, doc.pseudo, doc.rects, doc.parent
    for node in pseudo:  # a pseudo-element is placed by its element: it must stay within its rows
        r, host = rects.get(node), rects.get(parent[node])
        if r is not None and (host is None or r[1] < host[1] or r[1] + r[3] > host[1] + host[3]):
            return None
    elements = [i for i, t in enumerate(types) if t == 1]
    if shadow or pseudo:
        elements = [i for i in elements if i not in shadow and i not in pseudo]
    oy = doc.offset[1]
    cy, ch = source.clip.get(id(doc), (0.0, 0.0, last.viewport[0], last.viewport[1]))[1::2]
    top, bottom = cy - oy, cy + ch - oy  # the viewport's rows in page coordinates (StateBuilder._in_view)
    low, high = top - 1, bottom + 1
    node_index = doc.node_index
    hits = {node_index[li] for li, r in enumerate(doc.bounds) if r[1] < high and r[1] + r[3] > low}
    band = sorted(n for n in hits if types[n] == 1 and n not in shadow and n not in pseudo)
    for n in band:
        r = rects[n]
        if (doc.names[n] in STAND_IN_TAGS or n in doc.flagged) and (r[2] <= 2 or r[3] <= 2):
            return None
    ranks = [bisect_left(elements, n) for n in band]
    ctx = worlds.get(tab.main_frame_id, loader)
    if ctx is None:
        return None
    try:
        resolved = await doc.session.send(
            "DOM.resolveNode",
            {"backendNodeId": doc.backend[trunc], "executionContextId": ctx, "objectGroup": REACH_GROUP},
        )
        object_id = resolved["object"]["objectId"]
    except (CDPEngineError, KeyError, TypeError):
        return None
    args = {
        "id": next(REACH_IDS), "snap": snap, "count": len(elements), "top": top, "bottom": bottom,
        "ranks": ranks, "rects": [list(rects[n]) for n in band],
        # Text: one value for CDP to pass on, parsed once in the page.
        "cands": orjson.dumps(whole_subtrees(doc, elements, band)).decode(),
    }  # fmt: skip
    return Reach(object_id, args)


WHOLE_AT_LEAST = 2  # a subtree of fewer elements costs as much to judge by its box as to read


def whole_subtrees(doc: SnapshotDoc, elements: list[int], band: list[int]) -> list[float]:
    """The subtrees the probe may judge by one box (beyondReach's pruning, docs/incremental.md): the element
    children of the band's ancestors that hold no band element, each as its rank among `elements`, how many
    elements it holds, its box then (y, width, height; height -1 when no box lies anywhere in it) and how far
    every layout box in it reached then (top, bottom, rounded outwards), flat, in tree order. Empty when the
    snapshot's layout boxes are not in tree order (each subtree's boxes are read as one run of them)."""
    layout = doc.node_index
    if layout != sorted(layout):
        return []
    parent, types, end, rects, shadow, pseudo = doc.parent, doc.types, doc.end, doc.rects, doc.shadow, doc.pseudo
    spine: set[int] = set()
    for n in band:
        up = parent[n]
        while up >= 0 and up not in spine:
            spine.add(up)
            up = parent[up]
    held = spine.union(band)
    placed = [0] * (len(parent) + 1)  # placed[i]: how many of `elements` come before node i
    for e in elements:
        placed[e + 1] = 1
    placed = list(itertools.accumulate(placed))
    # An all-zero box is no box (collapsed white space; the probe's band test skips those too).
    tops = [r[1] if r[0] or r[1] or r[2] or r[3] else inf for r in doc.bounds]
    bottoms = [r[1] + r[3] if r[0] or r[1] or r[2] or r[3] else -inf for r in doc.bounds]
    kids: list[int] = []  # the spine's children (each next sibling is where the one before it ends)
    for s in spine:
        child, stop = s + 1, end[s]
        while child < stop:
            kids.append(child)
            child = end[child]
    kids = sorted(c for c in kids if types[c] == 1 and c not in held and c not in shadow and c not in pseudo)
    # Per child, at C speed where it can be: its place, how many elements it holds, its run of layout boxes.
    ends = [end[c] for c in kids]
    ranks = [placed[c] for c in kids]
    inners = [placed[e] - r - 1 for e, r in zip(ends, ranks, strict=True)]
    runs = [(bisect_left(layout, c), bisect_left(layout, e)) for c, e in zip(kids, ends, strict=True)]
    out: list[float] = []
    for c, rank, inner, (lo, hi) in zip(kids, ranks, inners, runs, strict=True):
        if lo == hi:
            if inner:
                out += (rank, inner, 0, 0, -1, 0, 0)
            continue
        box = rects.get(c)
        if box is None or inner < WHOLE_AT_LEAST:
            continue
        top = min(tops[lo:hi])
        if top == inf:  # boxes, all empty: white space whose collapsing the text around may change
            continue
        out += (rank, inner, box[1], box[2], box[3], floor(top), ceil(max(bottoms[lo:hi])))
    return out


def release_reach(tab: Tab, source: CaptureSource | None) -> None:
    """Let go of the remote node a dropped capture's reach held (fire and forget)."""
    if source is not None and source.reach and not tab.session.closed:
        tab.session.send("Runtime.releaseObject", {"objectId": source.reach.trunc}).add_done_callback(
            retrieve_quietly
        )
