"""The opt-in extended interactive set: targets outside the spec's strict list, found in the one-pass capture.

Strict mode indexes what the DOM Action and Element Index spec lists (a, button, input, textarea, select,
option, labels of controls, widget roles, contenteditable). Real pages put many targets elsewhere: a `<div>`
with a click handler, a `role="tab"` header, a `cursor: pointer` row, a `<summary>`. In extended mode
(`interactive="extended"`) the capture asks DOMSnapshot for one more computed style (`cursor`) and reads
the snapshot's `isClickable` flag (click, mousedown and mouseup listeners, Chromium's own notion), then
`find_extended` picks candidates per document with a reason code each:

- ``role``: an ARIA widget role the strict list leaves out (tab, treeitem, menuitemcheckbox, ...);
- ``expanded``: a control with `aria-expanded` or `aria-haspopup` (accordion headers, menu buttons);
- ``summary``: the `<summary>` of a `<details>`;
- ``editable``: `contenteditable="plaintext-only"` (the strict list has the other values);
- ``focusable``: `tabindex` >= 0 on an element with no semantics of its own;
- ``listener``: the element itself has a click, mousedown or mouseup listener;
- ``delegated``: an item of a list whose container holds the listener (the smallest meaningful target;
  see _delegate for what counts as a list);
- ``pointer``: where `cursor: pointer` starts (the element's parent has another cursor).

Never candidates: html, body (page-wide listeners), anything inside a strict interactive element, an
svg (an svg icon itself may be one) or under `aria-disabled="true"` / `disabled`. Nested candidates are de-duplicated: a candidate whose only content is
other interactive elements (a pointer wrapper around a button) is dropped; a listener, pointer or
delegated candidate holding three or more interactive elements is a container, not a target.

The reasons live on the capture's elements (`Element.reason`), outside the hashed state.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import compress
from typing import Protocol

from .roles import EXTENDED_ROLES, INTERACTIVE_ROLES, STRICT_TAGS


class _Doc(Protocol):
    """What detection reads of one decoded snapshot document (capture.SnapshotDoc): per-node lists in pre-order."""

    names: list[str]
    types: list[int]
    parent: list[int]
    end: list[int]
    attrs: list[list[int]]
    nodes_len: int
    rects: dict[int, list[float]]
    text_of: dict[int, str]
    pointer: set[int]
    clickable: set[int]
    marked: set[int]

    def attributes(self, i: int) -> dict[str, str]: ...


INTERACTIVE_MODES = ("strict", "extended")
# Widget roles the strict list (roles.INTERACTIVE_ROLES) leaves out.
NEVER = frozenset({"html", "body", "head", "script", "style", "noscript", "template", "iframe", "frame"})
NEVER_INSIDE = (NEVER - {"html", "body"}) | {"svg"}  # nothing under these is a candidate (an svg icon itself may be)
TAG_DECIDES = STRICT_TAGS | {"summary"}
# Attributes detection reads: an element with none of them needs no attribute decoding (capture.SnapshotDoc.marked).
DETECTION_ATTRS = ("role", "aria-expanded", "aria-haspopup", "contenteditable", "tabindex", "aria-disabled", "disabled")
WEAK = frozenset({"listener", "pointer", "delegated", "focusable"})  # reasons that a container can fake
LIST_TAGS = frozenset({"ul", "ol", "menu", "dl", "table", "tbody", "nav"})  # a listener here is delegation
CONTAINER_LIMIT = 3  # a weak candidate holding this many interactive elements is a container


def check_mode(mode: str) -> str:
    """The mode, or ValueError naming the two there are."""
    if mode not in INTERACTIVE_MODES:
        raise ValueError(f"interactive must be 'strict' or 'extended', not {mode!r}")
    return mode


def _role(attrs: dict[str, str]) -> str:
    role = attrs.get("role")
    return role.strip().lower().split(" ")[0] if role else ""


def find_extended(doc: _Doc) -> dict[int, str]:
    """Extended candidates of one snapshot document: node index -> reason code (see the module docstring).

    Only a few nodes are looked at: those with an attribute detection reads (doc.marked), the clickable
    ones, where cursor: pointer starts, and the nodes whose tag decides (strict tags, summary). Big pages
    (128k nodes) cost one scan of the tag list plus the candidates' ancestor walks."""
    names, types, parent, rects, marked = doc.names, doc.types, doc.parent, doc.rects, doc.marked
    pointer, clickable = doc.pointer, doc.clickable
    by_tag = list(compress(range(doc.nodes_len), map(TAG_DECIDES.__contains__, names)))  # at C speed
    blockers = {i for i in by_tag if names[i] in STRICT_TAGS}  # nothing inside these is a candidate
    strict = [i for i in blockers if i in rects]  # strict-like elements with a box (for de-duplication)
    info: dict[int, tuple[dict[str, str], str]] = {}
    for i in marked - blockers:
        attrs = doc.attributes(i)
        role = _role(attrs)
        if role in INTERACTIVE_ROLES or attrs.get("contenteditable") in ("true", ""):
            blockers.add(i)
            if i in rects:
                strict.append(i)
        elif attrs.get("aria-disabled", "").lower() == "true" or "disabled" in attrs:
            blockers.add(i)  # a disabled custom control
        else:
            info[i] = (attrs, role)
    plain: tuple[dict[str, str], str] = ({}, "")
    starts = {i for i in pointer if parent[i] not in pointer}
    for i in (clickable | starts | {i for i in by_tag if names[i] == "summary"}) - blockers - info.keys():
        if types[i] == 1:
            info[i] = plain
    found: dict[int, str] = {}
    for i, (attrs, role) in info.items():
        name = names[i]
        if i in blockers or i not in rects or name in NEVER:
            continue
        reason = None
        if role in EXTENDED_ROLES:
            reason = "role"
        elif "aria-expanded" in attrs or attrs.get("aria-haspopup", "false").lower() not in ("false", ""):
            reason = "expanded"
        elif name == "summary":
            reason = "summary"
        elif attrs.get("contenteditable") == "plaintext-only":
            reason = "editable"
        elif i in clickable:
            reason = "listener"
        elif i in pointer and parent[i] not in pointer:
            reason = "pointer"
        elif _tabbable(attrs) and role in ("", "generic", "presentation", "none"):
            reason = "focusable"
        if reason is None:
            continue
        p = parent[i]
        while p >= 0 and p not in blockers and names[p] not in NEVER_INSIDE:
            p = parent[p]
        if p < 0:
            found[i] = reason
    _delegate(doc, found)
    return _dedupe(doc, found, sorted(strict))


def _tabbable(attrs: dict[str, str]) -> bool:
    value = attrs.get("tabindex", "").strip()
    return value.lstrip("+").isdigit()


def _delegate(doc: _Doc, found: dict[int, str]) -> None:
    """A listener on a list of like items stands for its items ("delegated"): they become the targets. Like
    items are the element children (with a box and text each, the container having no text of its own) of a
    list tag (ul, ol, table, ...), or two or more children sharing tag and a class, or children all of one
    tag stacked one below the other. A row of unlike cells (an e-mail row) stays one target."""
    names, types, end, rects, text_of = doc.names, doc.types, doc.end, doc.rects, doc.text_of
    for node in [k for k, r in found.items() if r == "listener"]:
        kids: list[int] = []
        own_text = False
        j, stop = node + 1, end[node]
        while j < stop:
            if types[j] == 3 and text_of.get(j, "").strip():
                own_text = True
            elif types[j] == 1 and j in rects:
                kids.append(j)
            j = end[j]
        if own_text or len(kids) < 2:
            continue
        keys = [(names[k], doc.attributes(k).get("class", "").strip()) for k in kids]
        key = max(set(keys), key=keys.count)
        if names[node] in LIST_TAGS:
            items = [k for k, (tag, _cls) in zip(kids, keys, strict=True) if tag == key[0]]
        elif key[1] and keys.count(key) >= 2:
            items = [k for k, k_key in zip(kids, keys, strict=True) if k_key == key]
        elif len({tag for tag, _cls in keys}) == 1 and _stacked(rects, kids):
            items = kids
        else:
            continue
        items = [k for k in items if _has_text(doc, k)]
        if len(items) < 2:
            continue
        del found[node]
        for k in items:
            found.setdefault(k, "delegated")


def _stacked(rects: dict[int, list[float]], items: list[int]) -> bool:
    """The items lie one below the other (a list), not side by side (the cells of a row)."""
    spans = sorted((rects[k][1], rects[k][1] + rects[k][3]) for k in items)
    return all(spans[i][1] <= spans[i + 1][0] + 1 for i in range(len(spans) - 1))


def _has_text(doc: _Doc, node: int) -> bool:
    text_of = doc.text_of
    return any(text_of.get(j, "").strip() for j in range(node + 1, doc.end[node]))


def _dedupe(doc: _Doc, found: dict[int, str], strict: list[int]) -> dict[int, str]:
    """Drop wrappers: innermost first, a candidate whose content is only interactive elements, and a weak
    candidate (listener, pointer, delegated, focusable) that holds CONTAINER_LIMIT or more of them."""
    end, types, text_of = doc.end, doc.types, doc.text_of
    kept = dict(found)
    interactive = sorted(set(strict) | set(found))
    for node in sorted(found, reverse=True):
        stop = end[node]
        lo, hi = bisect_right(interactive, node), bisect_left(interactive, stop)
        outer: list[int] = []  # the topmost interactive elements inside (kept candidates and strict ones)
        last_end = -1
        for k in interactive[lo:hi]:
            if k < last_end or (k in found and k not in kept):
                continue
            outer.append(k)
            last_end = end[k]
        if not outer:
            continue
        if found[node] in WEAK and len(outer) >= CONTAINER_LIMIT:
            del kept[node]
            continue
        # Text of the candidate's own, outside the interactive elements it holds.
        own = False
        j = node + 1
        marks = iter(outer)
        nxt = next(marks, None)
        while j < stop:
            if nxt is not None and j == nxt:
                j = end[j]
                nxt = next(marks, None)
                continue
            if types[j] == 3 and any(c.isalnum() for c in text_of.get(j, "")):
                own = True  # words of its own (an icon glyph alone does not make a wrapper a target)
                break
            j += 1
        if not own:
            del kept[node]
    return kept
