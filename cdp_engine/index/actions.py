"""Action helpers for both sides of the protocol: parse and validate, refuse repeats, find elements.

Why: the protocol's compliance checklist asks an agent to validate every action before sending it,
never to repeat an action on an unchanged state_hash, and to look elements up by their label in the
current element_index rather than by a remembered number; the engine parses incoming actions with
the same code so both sides agree on what is valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ..util import schema

__all__ = [
    "ACTION_NAMES",
    "MAX_ACTION_INT",
    "ActionValidationError",
    "IdempotencyGuard",
    "canonical_action",
    "find_element",
    "json_safe",
    "parse_action",
    "validate_action",
]

ACTION_NAMES = (
    "click_element",
    "input_text",
    "select_option",
    "scroll",
    "navigate",
    "finish_task",
    "fail_task",
)
# Fields the schema types as integers; JSON Schema also accepts integral floats such as 4.0 there.
_INT_FIELDS = ("element_index", "option_index", "pixels")
_INDEX_FIELDS = ("element_index", "option_index")
# The largest index an action may carry: the largest integer every JSON reader (JavaScript's included)
# holds exactly. orjson reads a longer integer as a float (18446744073709551617 -> 1.8e19), so the bound
# refuses it instead of acting on a rounded number; larger pixels are clamped to it.
MAX_ACTION_INT = 2**53 - 1
# failed_action: the deepest nesting kept as received (orjson writes at most 254 levels).
FAILED_ACTION_DEPTH = 32
_INT64 = range(-(2**63), 2**64)  # what orjson writes as a number


class ActionValidationError(ValueError):
    """The action is not JSON or does not conform to the Action Schema (error code ACTION_VALIDATION_FAILED)."""

    code = "ACTION_VALIDATION_FAILED"

    def __init__(self, message: str, *, errors: list[str] | None = None, failed_action: Any = None) -> None:
        message = json_safe(message)  # a schema message may quote a value holding a lone surrogate
        super().__init__(message)
        self.message = message
        self.errors = list(errors) if errors else [message]
        # The action as received (decoded JSON, or the raw text when it was not JSON), for error.failed_action;
        # always JSON-serialisable (see json_safe).
        self.failed_action = json_safe(failed_action)

    def to_error(self) -> dict[str, Any]:
        """The state's ``error`` object for this failure."""
        return {"code": self.code, "message": self.message, "failed_action": self.failed_action}


def json_safe(value: Any) -> Any:
    """`value` unchanged when orjson writes it; otherwise a copy it can write, so an error's
    failed_action never breaks the state it is in: integers beyond 64 bits become their decimal
    text, non-string keys their str(), containers nested deeper than FAILED_ACTION_DEPTH the text
    "…", strings with lone surrogates have them replaced, and other objects become their repr()."""
    try:
        # Written where it will sit (state -> error -> failed_action, inside a response envelope): orjson's
        # nesting limit counts those levels too.
        orjson.dumps({"envelope": {"state": {"error": {"failed_action": value}}}})
    except (orjson.JSONEncodeError, TypeError):
        return _safe(value, FAILED_ACTION_DEPTH)
    return value


def _safe(v: Any, depth: int) -> Any:
    if v is None or isinstance(v, (bool, float)):
        return v
    if isinstance(v, int):
        return int(v) if v in _INT64 else _int_text(v)
    if isinstance(v, str):
        return v.encode("utf-8", "replace").decode("utf-8") if not schema.encodes(v) else v
    if isinstance(v, (dict, list, tuple)):
        if depth <= 0:
            return "…"
        if isinstance(v, dict):
            return {(_safe(k, 0) if isinstance(k, str) else str(_safe(k, 0))): _safe(x, depth - 1) for k, x in v.items()}
        return [_safe(x, depth - 1) for x in v]
    text = repr(v)
    return text if len(text) <= 200 else text[:199] + "…"


def _int_text(n: int) -> str:
    try:
        return str(n)
    except ValueError:  # more digits than Python converts (sys.int_info.default_max_str_digits)
        return f"an integer of {n.bit_length()} bits"


def _in_range(action: dict[str, Any]) -> None:
    """Refuse indices no JSON reader holds exactly (see MAX_ACTION_INT), with the field's name: no
    element has such an index, and the number an agent meant is lost (pixels are clamped instead)."""
    # Only called on a valid action: its indices, when present, are numbers >= 1.
    if action.get("element_index", 1) <= MAX_ACTION_INT and action.get("option_index", 1) <= MAX_ACTION_INT:
        return
    for key in _INDEX_FIELDS:
        v = action.get(key, 1)
        if v > MAX_ACTION_INT:
            got = repr(v) if isinstance(v, float) else _int_text(v)  # a float: what orjson read from the text
            message = f"{action['action']}: {key} must be at most {MAX_ACTION_INT} in size, got {got}"
            raise ActionValidationError(message, failed_action=action)


def validate_action(action: Any) -> None:
    """Raise ActionValidationError unless ``action`` (already decoded) conforms to the Action Schema."""
    if schema.is_valid("action", action):
        _in_range(action)
        return
    errors = schema.validate("action", action)
    raise ActionValidationError("; ".join(errors), errors=errors, failed_action=action)


def _decode(raw: str | bytes | bytearray | memoryview) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        text = raw if isinstance(raw, str) else bytes(raw).decode("utf-8", "replace")
        raise ActionValidationError(f"action is not valid JSON: {exc}", failed_action=text) from None


def _int_fields(action: dict[str, Any]) -> dict[str, Any]:
    """Turn integral floats (valid JSON Schema integers) into ints so callers can use them as keys, and
    clamp a scroll's pixels to MAX_ACTION_INT (a scroll that far scrolls to the end all the same)."""
    pixels = action.get("pixels")
    if (
        type(action.get("element_index")) is float
        or type(action.get("option_index")) is float
        or type(pixels) is float
        or (type(pixels) is int and pixels > MAX_ACTION_INT)
    ):
        action = dict(action)
        for key in _INT_FIELDS:
            if type(action.get(key)) is float:
                action[key] = int(action[key])
        if type(action.get("pixels")) is int and action["pixels"] > MAX_ACTION_INT:
            action["pixels"] = MAX_ACTION_INT
    return action


_TEXT_FIELDS = ("text", "url", "message")


def _unicode(action: dict[str, Any]) -> None:
    """Refuse a string with a lone surrogate (a Python str can hold one, JSON text cannot): no
    browser command could carry it."""
    for key in _TEXT_FIELDS:
        v = action.get(key)
        if v is not None and not v.isascii() and not schema.encodes(v):
            message = f"{action['action']}: {key} must be valid Unicode text (it has a lone surrogate)"
            raise ActionValidationError(message, failed_action=action)


def parse_action(raw: str | bytes | bytearray | memoryview | dict[str, Any]) -> dict[str, Any]:
    """Decode (with orjson) and validate one action; raises ActionValidationError.

    A dict is validated as is and returned unchanged unless an index was sent as an integral float
    (``4.0``), in which case a copy with ints is returned. Indices beyond MAX_ACTION_INT are refused;
    pixels beyond it are clamped to it (in a copy); a dict's text with a lone surrogate is refused.
    """
    if isinstance(raw, (str, bytes, bytearray, memoryview)):
        action = _decode(raw)
        validate_action(action)
    else:
        action = raw
        validate_action(action)
        _unicode(action)
    return _int_fields(action)


def canonical_action(action: Any) -> bytes:
    """The action's identity for idempotency: sorted-key JSON, so key order and 4 vs 4.0 do not matter."""
    if isinstance(action, (str, bytes, bytearray, memoryview)):
        action = orjson.loads(action)
    if isinstance(action, dict):
        action = _int_fields(action)
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS)


class IdempotencyGuard:
    """Remembers the (state_hash, action) pairs already issued in a task and refuses to repeat one.

    Why: an action that leaves the page unchanged (a disabled button) would otherwise loop forever;
    the protocol requires choosing a different action or fail_task instead.
    """

    __slots__ = ("_pairs",)

    def __init__(self) -> None:
        self._pairs: set[tuple[str, bytes]] = set()

    def seen(self, state_hash: str, action: Any) -> bool:
        """True when this exact action was already recorded for this exact state."""
        return (state_hash, canonical_action(action)) in self._pairs

    def check(self, state_hash: str, action: Any) -> bool:
        """True when the action may be issued now (it was not recorded for this state)."""
        return (state_hash, canonical_action(action)) not in self._pairs

    def record(self, state_hash: str, action: Any) -> None:
        """Remember that ``action`` was issued on the state ``state_hash``."""
        self._pairs.add((state_hash, canonical_action(action)))

    def clear(self) -> None:
        """Forget everything, e.g. when a new task starts."""
        self._pairs.clear()

    def __len__(self) -> int:
        return len(self._pairs)


def _fold(s: str) -> str:
    return " ".join(s.split()).casefold()


def find_element(
    element_index: Mapping[str, Any],
    *,
    aria_label: str | None = None,
    text: str | None = None,
    placeholder: str | None = None,
    exact: bool = False,
) -> list[int]:
    """Indices (ascending) of the elements matching every given criterion.

    ``text`` matches text_content. By default a match is a case-insensitive, whitespace-collapsed
    substring; ``exact=True`` requires string equality. Null fields never match. A whole state
    object is accepted too (its element_index is used).
    """
    if isinstance(element_index.get("element_index"), Mapping):
        element_index = element_index["element_index"]
    wanted = [
        (field, value)
        for field, value in (("aria-label", aria_label), ("text_content", text), ("placeholder", placeholder))
        if value is not None
    ]
    if not wanted:
        raise ValueError("find_element needs at least one of aria_label, text, placeholder")
    if not exact:
        wanted = [(field, _fold(value)) for field, value in wanted]

    found: list[int] = []
    for key, desc in element_index.items():
        if not isinstance(desc, Mapping) or not (isinstance(key, str) and key.isascii() and key.isdigit()):
            continue
        attributes = desc.get("attributes")
        for field, value in wanted:
            if field == "placeholder":
                have = attributes.get("placeholder") if isinstance(attributes, Mapping) else None
            else:
                have = desc.get(field)
            if not isinstance(have, str) or not (have == value if exact else value in _fold(have)):
                break
        else:
            found.append(int(key))
    found.sort()
    return found
