"""The name a library's hidden original control hands to the control a person uses in its place.

Choices.js and Select2 keep the page's `<select>` (the one its `<label>` names) hidden and draw their own
combobox: inside the combobox (Choices), or right after the select (Select2). Chromium names the hidden select
"Topic" and leaves the drawn combobox unnamed (Choices) or named by its shown value (Select2, "Pick a country"),
so an agent that reads names finds no control "Topic", while a person reads the label beside the box. The
accessibility views (read_page, find, the MCP snapshot) name the drawn control by the original's label instead;
a name the drawn control took from its shown value moves to its value. Nothing else is renamed: the receiver
must be the nearest control around the original (within ANCESTORS) or the first in the next sibling
(within SIBLINGS), offered, with no aria-label and no aria-labelledby outside itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .roles import FIELD_TAGS
from .snapshot_doc import SnapshotDoc

RECEIVER_ROLES = frozenset({"combobox", "listbox", "button"})
ANCESTORS = 4
SIBLINGS = 2


def _receives(doc: SnapshotDoc, node: int) -> bool:
    """Whether an element is a control drawn in an original's place: a combobox-like role, or in the tab order
    with no role of its own (a wrapper a library made focusable)."""
    attrs = doc.attributes(node)
    role = (attrs.get("role") or "").strip().lower()
    if role in RECEIVER_ROLES:
        return True
    tabindex = attrs.get("tabindex", "").strip()
    return not role and tabindex.isdigit()


def _named_by_itself(doc: SnapshotDoc, node: int, ids: dict[str, int]) -> bool:
    """Whether the receiver has no name of its own from outside: no aria-label, and every aria-labelledby id
    names an element inside it (Select2 labels its box by its own shown value)."""
    attrs = doc.attributes(node)
    if attrs.get("aria-label", "").strip():
        return False
    for ref in attrs.get("aria-labelledby", "").split():
        at = ids.get(ref)
        if at is None or not node < at < doc.end[node]:
            return False
    return True


def _receiver(doc: SnapshotDoc, original: int, offered: Callable[[int], bool], ids: dict[str, int]) -> int:
    """The control drawn in place of `original`, or -1."""
    p = doc.parent[original]
    for _ in range(ANCESTORS):
        if p < 0:
            break
        if doc.types[p] == 1 and _receives(doc, p):
            return p if offered(p) and _named_by_itself(doc, p, ids) else -1
        p = doc.parent[p]
    parent, sibling, seen = doc.parent[original], doc.end[original], 0
    while sibling < doc.nodes_len and doc.parent[sibling] == parent and seen < SIBLINGS:
        if doc.types[sibling] == 1:
            seen += 1
            for j in range(sibling, doc.end[sibling]):
                if doc.types[j] == 1 and _receives(doc, j):
                    return j if offered(j) and _named_by_itself(doc, j, ids) else -1
        sibling = doc.end[sibling]
    return -1


def handed_names(
    doc: SnapshotDoc,
    sid: str,
    hidden: list[int],
    boxes: Mapping[tuple[str, int], tuple[Any, ...]],  # capture.ElementBox
    text: Callable[[SnapshotDoc, int], str],
) -> dict[int, str]:
    """Receiver node -> the name its hidden original hands it, for the originals in `hidden` (the document's
    elements not offered; `boxes` says what is, keyed by (`sid`, backend node id)). `text` reads an element's
    rendered text (a label's)."""
    originals = [i for i in hidden if doc.names[i] in FIELD_TAGS]
    if not originals:
        return {}

    def offered(node: int) -> bool:
        box = boxes.get((sid, doc.backend[node]))
        return box is not None and bool(box[1]) and bool(box[4])

    # Ids and labels of the elements drawn, from the attributes element_boxes decoded already.
    ids: dict[str, int] = {}
    label_for: dict[str, int] = {}
    for i in doc.rects:
        box = boxes.get((sid, doc.backend[i])) if doc.types[i] == 1 else None
        if box is None:
            continue
        name, attrs = box[2], box[3]
        if "id" in attrs:
            ids.setdefault(attrs["id"], i)
        if name == "label" and attrs.get("for"):
            label_for.setdefault(attrs["for"], i)
    out: dict[int, str] = {}
    for original in originals:
        attrs = doc.attributes(original)
        name = attrs.get("aria-label", "").strip()
        if not name and attrs.get("id") in label_for:
            name = text(doc, label_for[attrs["id"]])
        if not name:
            p = doc.parent[original]
            while p >= 0 and not (doc.types[p] == 1 and doc.names[p] == "label"):
                p = doc.parent[p]
            name = text(doc, p) if p >= 0 else ""
        name = " ".join(name.split())
        if name:
            receiver = _receiver(doc, original, offered, ids)
            if receiver >= 0:
                out.setdefault(receiver, name)
    return out
