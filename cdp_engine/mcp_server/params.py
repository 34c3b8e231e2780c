"""Tool input schemas derived from the tool functions' type hints, validated by the core's one validator.

One source of truth: the Python signature. The schema is what `tools/list` advertises (and is
published as protocol/schemas/tools/mcp-tools.json); util.schema checks arguments against it and
MESSAGES puts its failures in MCP's words, so any mismatch is `invalid_params` before the tool runs,
naming the argument (the SDK is not relied on to validate).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

from ..util.schema import MAX_SENDABLE_DEPTH, Failure, Validator, unsendable
from .envelope import ToolError

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
COORDINATE_LIMIT = 1_000_000_000  # CSS px; Chromium stops answering input at absurd ones (1e300)




@dataclass(frozen=True)
class Bounds:
    """Type-hint metadata: the argument's inclusive minimum and maximum, added to its schema."""

    minimum: float
    maximum: float


# A CSS-pixel coordinate or distance argument: a finite number within ±COORDINATE_LIMIT.
Coordinate = Annotated[float, Bounds(-COORDINATE_LIMIT, COORDINATE_LIMIT)]



def type_schema(hint: Any) -> dict[str, Any]:
    """JSON Schema of a type hint (the subset tool signatures use)."""
    if hint is Any:
        return {}
    if hint in _JSON_TYPES:
        return {"type": _JSON_TYPES[hint]}
    origin = get_origin(hint)
    if origin is Annotated:
        schema = type_schema(get_args(hint)[0])
        for meta in hint.__metadata__:
            if isinstance(meta, Bounds):
                schema = {**schema, "minimum": meta.minimum, "maximum": meta.maximum}
        return schema
    if origin is Literal:
        values = list(get_args(hint))
        kind = _JSON_TYPES.get(type(values[0]), "string")
        return {"type": kind, "enum": values}
    if origin in (typing.Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        if len(options) == 1:
            return type_schema(options[0])
        if set(options) == {int, float}:
            return {"type": "number"}
        return {"anyOf": [type_schema(a) for a in options]}
    if origin in (list, tuple):
        args = get_args(hint)
        return {"type": "array", "items": type_schema(args[0]) if args else {}}
    if origin is dict or hint is dict:
        return {"type": "object"}
    if isinstance(hint, type) and hasattr(hint, "json_schema"):
        return hint.json_schema()  # type: ignore[no-any-return]
    raise TypeError(f"no JSON Schema for {hint!r}")


def signature_schema(
    func: Callable[..., Any],
    descriptions: dict[str, str],
    skip: int = 1,
    prepend: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The object schema of a function's parameters after the first `skip` (the context)."""
    hints = typing.get_type_hints(func, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, schema in (prepend or {}).items():
        properties[name] = schema
        required.append(name)
    params = list(inspect.signature(func).parameters.values())[skip:]
    for p in params:
        schema = type_schema(hints[p.name])
        if p.name in descriptions:
            schema = {**schema, "description": descriptions[p.name]}
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        elif p.default is not None:
            schema = {**schema, "default": p.default}
        properties[p.name] = schema
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


# MCP's words for each schema failure kind (util.schema validates; {where} is the argument's path).
MESSAGES: dict[str, str] = {
    "unexpected": "unexpected argument '{where}'",
    "missing": "missing required argument '{where}'",
    "type": "'{where}' must be {article} {type}, not {got_type}",
    "non_finite": "'{where}' must be a finite number",
    "enum": "'{where}' must be one of {options}",
    "range": "'{where}' must be {bound}",
    "alternatives": "'{where}' has the wrong type",
}
DEFAULT_MESSAGE = "'{where}' is not valid"
# MCP reports one problem: an unknown argument first, then a missing one, then the rest in argument order.
_RANK = {"unexpected": 0, "missing": 1}

_validators: dict[int, tuple[dict[str, Any], Validator]] = {}


def _validator(schema: dict[str, Any]) -> Validator:
    cached = _validators.get(id(schema))
    if cached is None or cached[0] is not schema:
        cached = _validators[id(schema)] = (schema, Validator(schema, tool_input=True))
    return cached[1]


def _where(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))


def _bound(f: Failure) -> str:
    if "minimum" in f.schema and f.got < f.schema["minimum"]:
        return f"at least {f.schema['minimum']}"
    if "maximum" in f.schema:
        return f"at most {f.schema['maximum']}"
    return "in range"


def message(f: Failure) -> str:
    """One failure in MCP's words."""
    declared = f.schema.get("type")
    kind = declared if isinstance(declared, str) else "value"
    return MESSAGES.get(f.kind, DEFAULT_MESSAGE).format(
        where=_where(f.path),
        article="an" if kind[0] in "aeiou" else "a",
        type=kind,
        got_type=type(f.got).__name__,
        options=", ".join(map(repr, f.schema.get("enum", ()))),
        bound=_bound(f) if f.kind == "range" else "",
    )


def problem(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """The one problem MCP reports for these arguments, None when they fit the schema."""
    found = _validator(schema).failures(arguments)
    if not found:
        return None
    order: dict[str | int, int] = {k: i for i, k in enumerate(arguments)}
    required: dict[str | int, int] = {k: i for i, k in enumerate(schema.get("required", ()))}

    def rank(f: Failure) -> tuple[int, int]:
        top = _RANK.get(f.kind, 2) if len(f.path) == 1 else 2
        if top == 1:
            return top, required.get(f.path[0], 0)
        return top, order.get(f.path[0], len(order)) if f.path else -1

    first = min(found, key=rank)
    return message(first)


def validate(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments without explicit nulls (integral floats of integer arguments as ints), or invalid_params."""
    found = problem(arguments, schema) or _unsendable(arguments)
    if found:
        raise ToolError("invalid_params", f"Invalid arguments: {found}.")
    props = schema.get("properties", {})
    return {
        k: int(v) if type(v) is float and props.get(k, {}).get("type") == "integer" else v
        for k, v in arguments.items()
        if v is not None
    }


def _unsendable(arguments: dict[str, Any]) -> str | None:
    """What util.schema.unsendable found, in MCP's words (naming the argument)."""
    found = unsendable(arguments)
    if found is None:
        return None
    where = ".".join(found.path) or "arguments"
    if found.kind == "depth":
        return f"'{where}' is nested more than {MAX_SENDABLE_DEPTH} levels deep"
    return f"'{where}' must be valid Unicode text (it has a lone surrogate)"
