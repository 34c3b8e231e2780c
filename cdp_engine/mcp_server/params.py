"""Tool input schemas derived from the tool functions' type hints, and a validator for them.

One source of truth: the Python signature. The schema is what `tools/list` advertises; the
validator turns any mismatch into `invalid_params` before the tool runs, with a message
that names the argument (the SDK is not relied on to validate).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, get_args, get_origin

from .envelope import ToolError

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def type_schema(hint: Any) -> dict[str, Any]:
    """JSON Schema of a type hint (the subset tool signatures use)."""
    if hint is Any:
        return {}
    if hint in _JSON_TYPES:
        return {"type": _JSON_TYPES[hint]}
    origin = get_origin(hint)
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
    hints = typing.get_type_hints(func)
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


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "null":
        return value is None
    return True


def check(value: Any, schema: dict[str, Any], path: str) -> str | None:
    """None when value fits schema, else a message naming the first mismatch."""
    if "anyOf" in schema:
        if any(check(value, s, path) is None for s in schema["anyOf"]):
            return None
        return f"'{path}' has the wrong type"
    kind = schema.get("type")
    if kind is not None and not _type_ok(value, kind):
        return f"'{path}' must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"'{path}' must be one of {', '.join(map(repr, schema['enum']))}"
    if kind in ("integer", "number"):
        if "minimum" in schema and value < schema["minimum"]:
            return f"'{path}' must be at least {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"'{path}' must be at most {schema['maximum']}"
    if kind == "array" and "items" in schema:
        for i, item in enumerate(value):
            problem = check(item, schema["items"], f"{path}[{i}]")
            if problem:
                return problem
    if kind == "object" and "properties" in schema:
        return check_object(value, schema, path)
    return None


def check_object(value: dict[str, Any], schema: dict[str, Any], path: str = "") -> str | None:
    props: dict[str, Any] = schema.get("properties", {})
    prefix = f"{path}." if path else ""
    if schema.get("additionalProperties") is False:
        for key in value:
            if key not in props:
                return f"unexpected argument '{prefix}{key}'"
    for key in schema.get("required", []):
        if key not in value or value[key] is None:
            return f"missing required argument '{prefix}{key}'"
    for key, item in value.items():
        if item is None and key not in schema.get("required", []):
            continue  # an explicit null means "omitted"
        problem = check(item, props.get(key, {}), prefix + key)
        if problem:
            return problem
    return None


def validate(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The arguments without explicit nulls, or invalid_params."""
    problem = check_object(arguments, schema)
    if problem:
        raise ToolError("invalid_params", f"Invalid arguments: {problem}.")
    return {k: v for k, v in arguments.items() if v is not None}
