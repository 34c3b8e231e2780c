"""What changed between two observations of a tab's element index state (docs/changes.md).

An opt-in extra beside the protocol's state object, never inside it: the state and its state_hash stay
exactly as the protocol defines them. The extra names the elements added, removed and changed since
the previous observation (matched by DOM identity: frame session, frame, document, backendNodeId;
indices are renumbered on every state, so they cannot be matched by number), the page_content lines
added and removed, and ALWAYS the complete compact list of the current indices, so nothing actionable
is ever left out (playwright-mcp's incremental snapshots were withdrawn because clients that parsed
refs out of a diff lost every unchanged element). After a navigation (a new main document) or with
no previous observation the extra says `mode: "full"`: read the state itself.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .capture import Capture
from .roles import INTERACTIVE_TAGS

# page_content marks an indexed element "[N]" right before its tag (capture.StateBuilder._element).
MARKER = re.compile(r"\[\d+\](?=<)")
LABEL_CHARS = 80
DESCRIPTOR_FIELDS = ("tag", "role", "aria-label", "text_content")
ATTRIBUTE_FIELDS = ("name", "value", "placeholder", "type", "href", "checked")
NO_CHANGES = "no changes"

Identity = tuple[str, str, str, int]  # (frame session id, frame id, document loader id, backendNodeId)


def clip(text: str, limit: int = LABEL_CHARS) -> str:
    """One line of at most `limit` characters (an ellipsis says it was cut)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_diff(old: Sequence[str], new: Sequence[str], key: Callable[[str], str] = lambda line: line) -> str:
    """The lines removed from `old` and added in `new` as hunks: an `@@ N` line (N: the 1-based line of
    `new` where the hunk starts), then `- old line` and `+ new line` lines; "" when nothing differs.
    Lines are compared through `key`; removed lines are shown as their key, added lines as they are."""
    old_keys, new_keys = [key(line) for line in old], [key(line) for line in new]
    # The common head and tail first: a step usually changes a few lines of a long page, and the matcher's
    # cost grows with the square of what it is given.
    head = 0
    while head < min(len(old_keys), len(new_keys)) and old_keys[head] == new_keys[head]:
        head += 1
    tail = 0
    while tail < min(len(old_keys), len(new_keys)) - head and old_keys[-1 - tail] == new_keys[-1 - tail]:
        tail += 1
    old_mid, new_mid = old_keys[head : len(old_keys) - tail], new_keys[head : len(new_keys) - tail]
    matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.append(f"@@ {head + j1 + 1}")
        out.extend(f"- {line}" for line in old_mid[i1:i2])
        out.extend(f"+ {line}" for line in new[head + j1 : head + j2])
    return "\n".join(out)


def describe(descriptor: dict[str, Any]) -> str:
    """A compact one-line form of an element descriptor: tag, type, role (when the tag does not imply
    one), its label (aria-label, text, placeholder or name), a form value, checked."""
    attrs = descriptor.get("attributes") or {}
    tag = str(descriptor.get("tag") or "")
    parts = [tag]
    if attrs.get("type"):
        parts.append(f"type={attrs['type']}")
    if descriptor.get("role") and tag not in INTERACTIVE_TAGS:
        parts.append(f"role={descriptor['role']}")
    for field_value in (descriptor.get("aria-label"), descriptor.get("text_content"), attrs.get("placeholder"),
                        attrs.get("name")):  # fmt: skip
        if field_value:
            parts.append(json.dumps(clip(str(field_value)), ensure_ascii=False))
            break
    value = attrs.get("value")
    if value and tag in ("input", "textarea", "select") and attrs.get("type") not in ("checkbox", "radio"):
        parts.append(f"value={json.dumps(clip(str(value)), ensure_ascii=False)}")
    if attrs.get("checked"):
        parts.append("checked")
    return " ".join(parts)


def field_changes(was: dict[str, Any], now: dict[str, Any]) -> dict[str, list[Any]]:
    """{field: [was, now]} for each descriptor field that differs (attributes as `attributes.<name>`)."""
    out: dict[str, list[Any]] = {}
    for name in DESCRIPTOR_FIELDS:
        if was.get(name) != now.get(name):
            out[name] = [was.get(name), now.get(name)]
    was_attrs, now_attrs = was.get("attributes") or {}, now.get("attributes") or {}
    for name in ATTRIBUTE_FIELDS:
        if was_attrs.get(name) != now_attrs.get(name):
            out[f"attributes.{name}"] = [was_attrs.get(name), now_attrs.get(name)]
    return out


@dataclass(frozen=True)
class Observation:
    """One state as returned to the caller, with what a later diff needs: the identity of each index."""

    state: dict[str, Any]
    document: str  # the main frame's loader id when the state was returned
    identities: dict[int, Identity]

    @classmethod
    def of(cls, state: dict[str, Any], capture: Capture | None, document: str) -> Observation:
        """The observation of a returned state; `capture` is the capture it came from (None: unknown, e.g.
        a state made before anything could be read: its elements cannot be matched later)."""
        identities: dict[int, Identity] = {}
        if capture is not None:
            for index, el in capture.elements.items():
                identities[index] = (el.session.id or "", el.frame_id, el.loader_id, el.backend_node_id)
        return cls(state, document, identities)

    def matchable(self) -> bool:
        """Whether every index of the state has a known identity."""
        return len(self.identities) == len(self.state.get("element_index") or {})


def index_changes(previous: Observation | None, current: Observation) -> dict[str, Any]:
    """The changes extra for `current` since `previous` (format: docs/changes.md)."""
    state = current.state
    index: dict[str, dict[str, Any]] = state.get("element_index") or {}
    indices = {key: describe(descriptor) for key, descriptor in index.items()}
    if previous is None or not previous.matchable() or not current.matchable():
        return {"mode": "full", "reason": "no previous observation", "indices": indices}
    if previous.document != current.document:
        return {"mode": "full", "reason": "navigated", "indices": indices}
    before: dict[str, dict[str, Any]] = previous.state.get("element_index") or {}
    old_by_id = {identity: i for i, identity in previous.identities.items()}
    added: dict[str, dict[str, Any]] = {}
    changed: dict[str, dict[str, Any]] = {}
    renumbered: dict[str, int] = {}
    matched: set[int] = set()
    for i, identity in sorted(current.identities.items()):
        was = old_by_id.get(identity)
        if was is None:
            added[str(i)] = index[str(i)]
            continue
        matched.add(was)
        fields = field_changes(before[str(was)], index[str(i)])
        if fields:
            changed[str(i)] = {"was_index": was, "fields": fields}
        elif was != i:
            renumbered[str(was)] = i
    gone = {i: before[str(i)] for i in sorted(previous.identities) if i not in matched}
    # A node replaced by an equal one (a re-render) is the same element to the caller: not added nor removed.
    for key, descriptor in list(added.items()):
        twin = next((i for i, old in gone.items() if old == descriptor), None)
        if twin is not None:
            del added[key], gone[twin]
            if twin != int(key):
                renumbered[str(twin)] = int(key)
    removed = [{"was_index": i, "element": describe(descriptor)} for i, descriptor in gone.items()]
    text = text_diff(
        previous.state.get("page_content", "").splitlines(),
        state.get("page_content", "").splitlines(),
        key=lambda line: MARKER.sub("", line),
    )
    counts = {"added": len(added), "removed": len(removed), "changed": len(changed)}
    text_lines = sum(1 for line in text.splitlines() if not line.startswith("@@"))
    summary = ", ".join(f"{n} {what}" for what, n in counts.items() if n)
    if text_lines:
        summary = ", ".join(filter(None, [summary, f"{text_lines} text lines"]))
    return {
        "mode": "diff",
        "since": previous.state.get("state_hash"),
        "summary": summary or NO_CHANGES,
        "added": added,
        "removed": removed,
        "changed": changed,
        "renumbered": renumbered,
        "text": text,
        "indices": indices,
    }
