"""Member names, defaults and exact input validation for `browser_toolset_20260801`.

Neither the API nor the SDK enforces the ranges it states to Claude, so every input is checked
against the member's schema (protocol/schemas/tools/browser-toolset.json, by util.schema): types
(a bool is never an int, NaN is not a number), required fields, ranges and no unknown fields.
Problems are listed together so the model can fix them in one round trip; values are never echoed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..util import schema

TOOLSET_TYPE = "browser_toolset_20260801"
TOOLSET_NAME = "browser"
HALT_TEXT = "Not executed: an earlier action in this turn failed."

# In the SDK's order (BROWSER_MEMBER_NAMES).
MEMBER_NAMES: tuple[str, ...] = (
    "navigate", "list_tabs", "new_tab", "switch_tab", "close_tab", "read_page", "get_page_text",
    "read_console", "read_network", "find", "form_input", "file_upload", "scroll_to", "screenshot",
    "zoom", "left_click", "right_click", "middle_click", "double_click", "triple_click", "hover",
    "left_click_drag", "left_mouse_down", "left_mouse_up", "mouse_move", "scroll", "type", "key",
    "hold_key", "wait", "javascript_exec",
)  # fmt: skip
DEFAULT_DISABLED: frozenset[str] = frozenset(
    {"javascript_exec", "file_upload", "read_console", "read_network"}
)
TAB_MEMBERS: frozenset[str] = frozenset({"new_tab", "list_tabs", "switch_tab", "close_tab"})

# The SDK's fixed acknowledgments for pure actions ({field} from the input, {ref} from target.ref).
ACKS: dict[str, str] = {
    "left_click": "Clicked.",
    "right_click": "Right-clicked.",
    "middle_click": "Middle-clicked.",
    "double_click": "Double-clicked.",
    "triple_click": "Triple-clicked.",
    "hover": "Hovered.",
    "left_click_drag": "Dragged.",
    "left_mouse_down": "Mouse button pressed.",
    "left_mouse_up": "Mouse button released.",
    "mouse_move": "Moved the mouse.",
    "scroll": "Scrolled {scroll_direction}.",
    "scroll_to": "Scrolled to {ref}.",
    "type": "Typed.",
    "key": "Pressed {text}.",
    "hold_key": "Held {text} for {duration}s.",
    "form_input": "Set the value of {ref}.",
    "wait": "Waited {duration}s.",
    "file_upload": "Uploaded.",
}


class InputError(ValueError):
    """The input does not match the member's schema; the message is safe to show the model."""


# The member schemas are data: protocol/schemas/tools/browser-toolset.json (members/<name>), checked by
# util.schema; the texts below are this surface's words for each failure kind ({where}: dotted path).
MESSAGES: dict[str, str] = {
    "unexpected": "{where} is not a field of this member",
    "missing": "{where} is required",
    "type": "{where} must be {type}",
    "non_finite": "{where} must be {type}",  # NaN and the infinities are not numbers
    "enum": "{where} must be one of {options}",
    "discriminator": "{where} must be {alternatives}",
    "range": "{where} must be {range}",
    "length": "{where} must not be empty",
}
DEFAULT_MESSAGE = "{where} is not valid"
TYPE_WORDS = {"string": "a string", "integer": "an integer", "number": "a number", "object": "an object"}
# Fields with one text for whatever is wrong inside them (their own missing/unexpected aside).
COMPOSITE: dict[tuple[str, str], str] = {
    ("zoom", "region"): "{where} must be a list of four integers [x0, y0, x1, y1]",
    ("file_upload", "paths"): "{where} must be a list of non-empty strings",
    ("file_upload", "document_ids"): "{where} must be a list of non-empty strings",
    ("form_input", "value"): "{where} must be a string, a number or a boolean",
}

_SCHEMAS = schema.tool_schema("browser-toolset")
assert set(_SCHEMAS["members"]) == set(MEMBER_NAMES)
_VALIDATORS: dict[str, schema.Validator] = {}


def _validator(name: str) -> schema.Validator:
    v = _VALIDATORS.get(name)
    if v is None:
        v = _VALIDATORS[name] = schema.Validator(_SCHEMAS, pointer=f"/members/{name}", tool_input=True, name=name)
    return v


def _shown(key: Any) -> str:
    """A field name as the model may see it (never an arbitrary value)."""
    return key if isinstance(key, str) and len(key) <= 40 and key.isprintable() else "…"


def _range(lo: float | None, hi: float | None) -> str:
    def fmt(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else str(v)

    if hi is None:
        return f"at least {fmt(lo or 0)}"
    if lo is None:
        return f"at most {fmt(hi)}"
    return f"between {fmt(lo)} and {fmt(hi)}"


def problem_text(member: str, f: schema.Failure) -> str:
    """One schema failure in this surface's words."""
    where = ".".join(_shown(p) for p in f.path if not isinstance(p, int))
    own = len(f.path) == 1 and f.kind in ("missing", "unexpected")
    composite = COMPOSITE.get((member, str(f.path[0]))) if f.path and not own else None
    if composite is not None:
        return composite.format(where=_shown(f.path[0]))
    kind = f.schema.get("type")
    return MESSAGES.get(f.kind, DEFAULT_MESSAGE).format(
        where=where,
        type=TYPE_WORDS.get(kind, "valid") if isinstance(kind, str) else "valid",
        options=", ".join(repr(o) for o in f.schema.get("enum", ())),
        alternatives=" or ".join(repr(o) for o in f.schema.get("enum", ())),
        range=_range(f.schema.get("minimum"), f.schema.get("maximum")),
    )


def validate(name: str, raw: Any) -> dict[str, Any]:
    """The input as a plain dict with `None` optionals dropped; InputError listing every problem."""
    if not isinstance(raw, Mapping):
        raise InputError(f"Error: invalid input for {name}: the input must be an object.")
    raw = dict(raw)
    validator = _validator(name)
    problems = list(dict.fromkeys(problem_text(name, f) for f in validator.failures(raw)))
    if not problems:
        # The rules no schema states (they are in the schema file's description).
        region = raw.get("region")
        if name == "zoom" and not (region[0] < region[2] and region[1] < region[3]):
            problems.append("region must have x0 < x1 and y0 < y1")
        if name == "file_upload" and not (raw.get("paths") or raw.get("document_ids")):
            problems.append("give at least one of paths or document_ids")
        bad = schema.unsendable(raw)  # what no browser command can carry (a Python str can hold a lone surrogate)
        if bad is not None:
            where = ".".join(_shown(k) for k in bad.path) or "the input"
            if bad.kind == "depth":
                problems.append(f"{where} is nested more than {schema.MAX_SENDABLE_DEPTH} levels deep")
            else:
                problems.append(f"{where} must be valid Unicode text (it has a lone surrogate)")
    if problems:
        raise InputError(f"Error: invalid input for {name}: {'; '.join(problems)}.")
    return {k: v for k, v in validator.integers(raw).items() if v is not None}


_PLACEHOLDER = re.compile(r"\{(scroll_direction|text|duration|ref)\}")


def ack(name: str, params: Mapping[str, Any]) -> str:
    """The fixed acknowledgment of a pure action, filled in one pass like the SDK's."""
    template = ACKS[name]
    values = {
        "scroll_direction": str(params.get("scroll_direction", "")),
        "text": " ".join(str(params.get("text", "")).split()) or str(params.get("text", "")),
        "duration": _duration(params.get("duration")),
        "ref": str((params.get("target") or {}).get("ref", "")),
    }
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def _duration(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)
