"""The state built on the last one: when the change probe places every change since a capture, the next
state is built from that capture's decoded snapshots instead of a new DOMSnapshot (docs/incremental.md).

Why its own module: the full capture (snapshot/capturer.py) is one burst and one walk; this is the other way
to the same bytes, and the reasons it may be taken (what the probe must say, which boxes must not have
moved) are the part a reader has to check. The differential test (tests/stress/test_differential_state.py) holds it
to a full capture, byte for byte.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

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
    answers = await asyncio.gather(*[probes.changes_since(fid, loader, v) for fid, loader, v in asks])
    patches: list[tuple[SnapshotDoc, int, str]] = []
    for (fid, _loader, _v), changes in zip(asks, answers, strict=True):
        if changes is None:
            return None
        for typed in changes.fields:
            found = typed_node(source, fid, changes.total, typed)
            if found is None:
                return None
            patches.append((*found, typed.value))
    url = tab.url
    if not patches:  # only focus, hover or hidden subtrees changed
        return STANDS if url == last.state["url"] else None
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
        source.snapshot_ms, source.fields,
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
