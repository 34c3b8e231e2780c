"""browser_snapshot's `changes` mode: what changed in the YAML snapshot since this page's previous one.

Format (docs/mcp.md "What changed since the last snapshot"): a `changes` text with up to three sections
in the snapshot's own line grammar, and ALWAYS a `refs` text listing every current ref, one
`- role "name" [attrs] [ref=eN]` line each, so a client that collects `[ref=eN]` from a result never
loses an unchanged element (the fault that made playwright-mcp withdraw its incremental snapshots,
whose unchanged elements appeared as bare `- ref=eN [unchanged]` lines). Refs are matched by number:
a ref names one node while its document lives and its role and name hold (core/refs.py), so an
element whose role or name changed shows as removed plus added, with its new ref.

    - changed:                         an element whose line (state, value, text, /url) changed
      - checkbox "Agree" [checked] [ref=e7]
        - was: checkbox "Agree" [ref=e7]
    - added:                           new elements (with their subtree) and text, by parent
      - in list [ref=e10]:
        - listitem [ref=e14]: Third
    - removed:                         gone elements (the top of each gone subtree) and text, by parent;
      - in page:                       a gone ref is written [gone=eN], never [ref=eN]
        - button "Delete" [gone=e9]

Nothing changed: `changes` is exactly "no changes". After a navigation (a new document in the frame),
for another frame than the previous snapshot, or with no previous snapshot, the result is the full
snapshot with `mode: "full"` and the reason.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field
from typing import Any

from .instances import Page

REF = re.compile(r" \[ref=(e\d+)\]")
# An element line's head: role, name, state attributes and ref (what follows, [cursor=pointer] and the
# inline text, is left out of the refs listing).
HEAD = re.compile(r"^(.*? \[ref=e\d+\])")
NO_CHANGES = "no changes"
PAGE = "page"  # the parent key of top-level lines


@dataclass
class Line:
    """One snapshot line: its depth, its text without indent and '- ', its ref, its parent's ref."""

    depth: int
    text: str
    ref: str | None
    parent: str  # the nearest enclosing ref, or PAGE
    start: int  # line number in its snapshot
    end: int = 0  # one past the last line of its subtree


@dataclass
class Parsed:
    """A snapshot as lines, with each ref's line and the signature its changes are judged by."""

    lines: list[Line]
    by_ref: dict[str, Line] = field(default_factory=dict)

    @classmethod
    def of(cls, text: str) -> Parsed:
        lines: list[Line] = []
        stack: list[Line] = []
        for number, raw in enumerate(text.splitlines()):
            stripped = raw.lstrip(" ")
            depth = (len(raw) - len(stripped)) // 2
            while stack and stack[-1].depth >= depth:
                stack.pop().end = number
            content = stripped[2:] if stripped.startswith("- ") else stripped
            match = REF.search(content)
            parent = next((ln.ref for ln in reversed(stack) if ln.ref is not None), PAGE)
            line = Line(depth, content, match.group(1) if match else None, parent, number)
            lines.append(line)
            stack.append(line)
        for line in stack:
            line.end = len(lines)
        parsed = cls(lines)
        parsed.by_ref = {ln.ref: ln for ln in lines if ln.ref is not None}
        return parsed

    def props(self, line: Line) -> list[str]:
        """The element's own property lines (`- /url: …`, `- /placeholder: …`)."""
        # The writer puts them first among the children, after at most one inline text line.
        head = self.lines[line.start + 1 : min(line.end, line.start + 4)]
        return [ln.text for ln in head if ln.depth == line.depth + 1 and ln.text[:1] == "/"]

    def signature(self, line: Line) -> tuple[str, ...]:
        """What an element's change is judged by: its line (the ':' that only opens its children aside)
        and its property lines; children are judged on their own."""
        return (line.text.removesuffix(":"), *self.props(line))

    def block(self, line: Line, depth: int, gone: frozenset[str] = frozenset()) -> list[str]:
        """The line and its subtree, re-indented to start at `depth`; refs in `gone` written as [gone=eN] (a
        ref of the subtree that lives on elsewhere, an element moved out before its container went, stays)."""
        out = []
        for ln in self.lines[line.start : line.end]:
            text = REF.sub(lambda m: f" [gone={m.group(1)}]" if m.group(1) in gone else m.group(0), ln.text)
            out.append("  " * (depth + ln.depth - line.depth) + "- " + text)
        return out

    def loose(self) -> dict[str, list[str]]:
        """Lines without a ref (text, and elements the registry could not name) by parent ref, property
        lines excluded (they belong to their element's signature)."""
        out: dict[str, list[str]] = {}
        for ln in self.lines:
            if ln.ref is None and ln.text[:1] != "/":
                out.setdefault(ln.parent, []).append(ln.text)
        return out


def refs_listing(parsed: Parsed) -> str:
    """Every ref of the snapshot, one line each in document order: `- <role "name" [attrs] [ref=eN]>`."""
    out = []
    for ln in parsed.lines:
        if ln.ref is not None:
            match = HEAD.match(ln.text)
            out.append("- " + (match.group(1) if match else ln.text))
    return "\n".join(out)


def _multiset_minus(a: list[str], b: list[str]) -> list[str]:
    """The items of `a` not matched one for one in `b`, in `a`'s order."""
    left: dict[str, int] = {}
    for item in b:
        left[item] = left.get(item, 0) + 1
    out = []
    for item in a:
        if left.get(item, 0):
            left[item] -= 1
        else:
            out.append(item)
    return out


def diff(before: Parsed, after: Parsed) -> str:
    """The `changes` text for two snapshots of one document (format: the module docstring)."""
    changed: list[str] = []
    added: dict[str, list[str]] = {}
    removed: dict[str, list[str]] = {}
    for ln in after.lines:
        if ln.ref is None:
            continue
        old = before.by_ref.get(ln.ref)
        if old is None:
            if ln.parent == PAGE or ln.parent in before.by_ref:  # the top of a new subtree
                added.setdefault(ln.parent, []).extend(after.block(ln, 2))
        elif before.signature(old) != after.signature(ln):
            changed.append(f"  - {ln.text.removesuffix(':')}")
            changed.extend(f"    - {prop}" for prop in after.props(ln))
            changed.append(f"    - was: {old.text.removesuffix(':')}")
            changed.extend(f"      - {prop}" for prop in before.props(old))
    gone = frozenset(before.by_ref.keys() - after.by_ref.keys())
    for ln in before.lines:
        if ln.ref in gone and (ln.parent == PAGE or ln.parent in after.by_ref):
            removed.setdefault(ln.parent, []).extend(before.block(ln, 2, gone))
    old_loose, new_loose = before.loose(), after.loose()
    for parent in {*old_loose, *new_loose}:
        if parent != PAGE and (parent not in before.by_ref or parent not in after.by_ref):
            continue  # inside an added or removed subtree: shown with it
        old_items, new_items = old_loose.get(parent, []), new_loose.get(parent, [])
        added.setdefault(parent, []).extend(f"    - {t}" for t in _multiset_minus(new_items, old_items))
        removed.setdefault(parent, []).extend(f"    - {t}" for t in _multiset_minus(old_items, new_items))
    out: list[str] = []
    if changed:
        out += ["- changed:", *changed]
    for title, groups, where in (("added", added, after), ("removed", removed, after)):
        order = [PAGE, *(ln.ref for ln in where.lines if ln.ref is not None)]
        parts = [(parent, groups[parent]) for parent in order if groups.get(parent)]
        if parts:
            out.append(f"- {title}:")
            for parent, items in parts:
                head = HEAD.match(where.by_ref[parent].text) if parent != PAGE else None
                out.append(f"  - in {head.group(1) if head else PAGE}:")
                out.extend(items)
    return "\n".join(out) or NO_CHANGES


@dataclass
class Previous:
    """The last snapshot taken of a page: which frame, which document, and its text (parsed only when a
    `changes` call compares with it, so a plain snapshot pays nothing for being a baseline)."""

    frame: str
    document: str
    text: str


_PREVIOUS: weakref.WeakKeyDictionary[Page, Previous] = weakref.WeakKeyDictionary()


def observe(page: Page, cdp_frame: str, text: str | None, *, changes: bool) -> dict[str, Any]:
    """Record a full snapshot (refs included) as the page's latest; with `changes`, the result fields
    that replace `snapshot`: the diff and every current ref, or the full snapshot and why. `text` None:
    a snapshot without refs (selector mode), which is no baseline (the next changes call is full)."""
    frame = page.tab.frames.get(cdp_frame)
    document = frame.loader_id if frame else ""
    if text is None:
        _PREVIOUS.pop(page, None)
        return {}
    previous = _PREVIOUS.get(page)
    _PREVIOUS[page] = Previous(cdp_frame, document, text)
    if not changes:
        return {"snapshot": text}
    if previous is None:
        return {"mode": "full", "reason": "no previous snapshot", "snapshot": text}
    if previous.frame != cdp_frame:
        return {"mode": "full", "reason": "previous snapshot was of another frame", "snapshot": text}
    if previous.document != document:
        return {"mode": "full", "reason": "navigated", "snapshot": text}
    parsed = Parsed.of(text)
    return {"mode": "changes", "changes": diff(Parsed.of(previous.text), parsed), "refs": refs_listing(parsed)}
