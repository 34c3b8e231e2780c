"""Member names, defaults and exact input validation for `browser_toolset_20260801`.

Neither the API nor the SDK enforces the ranges it states to Claude, so every input is checked
here: types (a bool is never an int), required fields, ranges and no unknown fields. Problems
are listed together so the model can fix them in one round trip; values are never echoed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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


Check = Callable[[Any, str, list[str]], None]


@dataclass(frozen=True)
class Field:
    check: Check
    required: bool = False


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) and math.isfinite(v)


def string(value: Any, where: str, problems: list[str]) -> None:
    if not isinstance(value, str):
        problems.append(f"{where} must be a string")


def nonempty_string(value: Any, where: str, problems: list[str]) -> None:
    if not isinstance(value, str):
        problems.append(f"{where} must be a string")
    elif value == "":
        problems.append(f"{where} must not be empty")


def integer(lo: int | None = None, hi: int | None = None) -> Check:
    def check(value: Any, where: str, problems: list[str]) -> None:
        if not _is_int(value):
            problems.append(f"{where} must be an integer")
        elif (lo is not None and value < lo) or (hi is not None and value > hi):
            problems.append(f"{where} must be {_range(lo, hi)}")

    return check


def number(lo: float, hi: float) -> Check:
    def check(value: Any, where: str, problems: list[str]) -> None:
        if not _is_number(value):
            problems.append(f"{where} must be a number")
        elif not lo <= value <= hi:
            problems.append(f"{where} must be {_range(lo, hi)}")

    return check


def _range(lo: float | None, hi: float | None) -> str:
    def fmt(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else str(v)

    if hi is None:
        return f"at least {fmt(lo or 0)}"
    if lo is None:
        return f"at most {fmt(hi)}"
    return f"between {fmt(lo)} and {fmt(hi)}"


def choice(*options: str) -> Check:
    def check(value: Any, where: str, problems: list[str]) -> None:
        if value not in options:
            problems.append(f"{where} must be one of {', '.join(repr(o) for o in options)}")

    return check


def _object(value: Any, where: str, fields: Mapping[str, Field], problems: list[str]) -> None:
    if not isinstance(value, Mapping):
        problems.append(f"{where} must be an object")
        return
    _check_fields(value, fields, problems, prefix=f"{where}.")


COORDINATE_FIELDS = {
    "type": Field(choice("coordinate"), True),
    "x": Field(integer(), True),
    "y": Field(integer(), True),
}
REF_FIELDS = {"type": Field(choice("ref"), True), "ref": Field(nonempty_string, True)}


def target(*kinds: str) -> Check:
    """A target object: 'coordinate' and/or 'ref', told apart by `type`."""

    def check(value: Any, where: str, problems: list[str]) -> None:
        if not isinstance(value, Mapping):
            problems.append(f"{where} must be an object")
            return
        kind = value.get("type")
        if kind not in kinds:
            allowed = " or ".join(repr(k) for k in kinds)
            problems.append(f"{where}.type must be {allowed}")
            return
        _object(value, where, COORDINATE_FIELDS if kind == "coordinate" else REF_FIELDS, problems)

    return check


def region(value: Any, where: str, problems: list[str]) -> None:
    if not isinstance(value, list) or len(value) != 4 or not all(_is_int(v) for v in value):
        problems.append(f"{where} must be a list of four integers [x0, y0, x1, y1]")
    elif not (value[0] < value[2] and value[1] < value[3]):
        problems.append(f"{where} must have x0 < x1 and y0 < y1")


def string_list(value: Any, where: str, problems: list[str]) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.append(f"{where} must be a list of non-empty strings")


def form_value(value: Any, where: str, problems: list[str]) -> None:
    if not (isinstance(value, str | bool) or _is_number(value)):
        problems.append(f"{where} must be a string, a number or a boolean")


TAB = {"tab_id": Field(string)}
CLICK = {"target": Field(target("coordinate", "ref"), True), "modifiers": Field(string), **TAB}
POINT = {"target": Field(target("coordinate"), True), **TAB}
REF = {"target": Field(target("ref"), True), **TAB}

SCHEMAS: dict[str, dict[str, Field]] = {
    "navigate": {"url": Field(nonempty_string, True), **TAB},
    "list_tabs": {},
    "new_tab": {},
    "switch_tab": {"tab_id": Field(nonempty_string, True)},
    "close_tab": {"tab_id": Field(nonempty_string, True)},
    "read_page": {
        "filter": Field(choice("interactive", "all")),
        "depth": Field(integer(1)),
        "ref": Field(nonempty_string),
        **TAB,
    },
    "get_page_text": dict(TAB),
    "read_console": dict(TAB),
    "read_network": dict(TAB),
    "find": {"query": Field(nonempty_string, True), **TAB},
    "form_input": {**REF, "value": Field(form_value, True)},
    "file_upload": {**REF, "paths": Field(string_list), "document_ids": Field(string_list)},
    "scroll_to": dict(REF),
    "screenshot": dict(TAB),
    "zoom": {"region": Field(region, True), **TAB},
    "left_click": dict(CLICK),
    "right_click": dict(CLICK),
    "middle_click": dict(CLICK),
    "double_click": dict(CLICK),
    "triple_click": dict(CLICK),
    "hover": {"target": Field(target("coordinate", "ref"), True), **TAB},
    "left_click_drag": {
        "from": Field(target("coordinate"), True),
        "target": Field(target("coordinate"), True),
        **TAB,
    },
    "left_mouse_down": dict(POINT),
    "left_mouse_up": dict(POINT),
    "mouse_move": dict(POINT),
    "scroll": {
        **POINT,
        "scroll_direction": Field(choice("up", "down", "left", "right"), True),
        "scroll_amount": Field(integer(1, 10)),
    },
    "type": {"text": Field(string, True), **TAB},
    "key": {"text": Field(nonempty_string, True), "repeat": Field(integer(1, 100)), **TAB},
    "hold_key": {"text": Field(nonempty_string, True), "duration": Field(number(0, 30), True), **TAB},
    "wait": {"duration": Field(number(0, 30), True), **TAB},
    "javascript_exec": {"text": Field(nonempty_string, True), **TAB},
}
assert set(SCHEMAS) == set(MEMBER_NAMES)


def _check_fields(
    value: Mapping[str, Any], fields: Mapping[str, Field], problems: list[str], prefix: str = ""
) -> None:
    for key in value:
        if key not in fields:
            shown = key if isinstance(key, str) and len(key) <= 40 and key.isprintable() else "…"
            problems.append(f"{prefix}{shown} is not a field of this member")
    for name, spec in fields.items():
        present = name in value and value[name] is not None
        if not present:
            if spec.required:
                problems.append(f"{prefix}{name} is required")
            continue
        spec.check(value[name], f"{prefix}{name}", problems)


def validate(name: str, raw: Any) -> dict[str, Any]:
    """The input as a plain dict with `None` optionals dropped; InputError listing every problem."""
    if not isinstance(raw, Mapping):
        raise InputError(f"Error: invalid input for {name}: the input must be an object.")
    problems: list[str] = []
    _check_fields(raw, SCHEMAS[name], problems)
    if name == "file_upload" and not problems and not (raw.get("paths") or raw.get("document_ids")):
        problems.append("give at least one of paths or document_ids")
    if problems:
        raise InputError(f"Error: invalid input for {name}: {'; '.join(problems)}.")
    return {k: v for k, v in raw.items() if v is not None}


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
