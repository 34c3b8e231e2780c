"""Fast validator for the protocol's JSON Schemas: a compiler from the draft 2020-12 subset they use.

Why: the engine validates every incoming action. A general validator spends tens of microseconds
per call; compiling each schema once into nested closures brings it to about a microsecond, and
lets the error messages say what is wrong in the protocol's own words.

Validity follows draft 2020-12 exactly (the tests check it against the ``jsonschema`` package):
``integer`` excludes booleans and includes integral floats such as ``1.0``; ``pattern`` is an
unanchored search. Only error *messages* are simplified: when a value has the wrong type, nothing
else is reported about it. A schema using a keyword outside the subset raises ``SchemaError``.

Size: one self-contained JSON Schema compiler (the draft 2020-12 subset the protocol and the tool schemas use)
with its failure kinds and wording.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

__all__ = [
    "FAILURE_KINDS",
    "MAX_SENDABLE_DEPTH",
    "Failure",
    "SchemaError",
    "Unsendable",
    "Validator",
    "failures",
    "is_valid",
    "raw_schemas",
    "schema_names",
    "schemas_dir",
    "tool_schema",
    "unsendable",
    "validate",
    "validator",
]


class SchemaError(Exception):
    """A schema is missing, malformed, or uses a keyword this compiler does not implement."""


class _Err:
    """One failure; paths are built innermost-first as it bubbles up, so valid input allocates nothing."""

    __slots__ = ("expected", "got", "kind", "label", "path", "schema", "text")

    def __init__(
        self,
        text: str | None = None,
        expected: str | None = None,
        got: Any = None,
        kind: str = "value",
        schema: Any = None,
    ) -> None:
        self.text = text  # object-level failure ("missing required field 'x'"), or None
        self.expected = expected  # value-level failure: what the value must be
        self.got = got
        self.kind = kind  # see Failure.kind; "value" is refined from the schema when a Failure is made
        self.schema = schema  # the (sub)schema that failed, for Failure
        self.path: list[str | int] = []
        self.label: str | None = None  # discriminator value of the branch that failed, e.g. "input_text"


# A compiled check returns None when the instance is valid, else a non-empty list of failures.
_Check = Callable[[Any], "list[_Err] | None"]
_Pred = Callable[[Any], bool]

_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$defs", "title", "description", "examples", "default", "deprecated"}
)
_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "items",
        "minItems",
        "maxItems",
        "oneOf",
        "anyOf",
        "allOf",
        "$ref",
    }
)
_SCALAR_KEYWORDS = frozenset(
    {
        "enum",
        "const",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    }
)
# Types whose check is a plain isinstance (integer and number must exclude bool, so they are not here).
_BARE_TYPES: dict[str, type] = {
    "string": str,
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def _is_integer(v: Any) -> bool:
    t = type(v)
    if t is int:
        return True
    if t is bool:
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


def _is_number(v: Any) -> bool:
    # NaN and the infinities are not JSON numbers (JSON cannot write them): never valid as a number.
    return isinstance(v, (int, float)) and not isinstance(v, bool) and (type(v) is int or math.isfinite(v))


# Numeric bound keywords and their comparison (value op bound).
_BOUNDS: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (
    ("minimum", operator.ge),
    ("maximum", operator.le),
    ("exclusiveMinimum", operator.gt),
    ("exclusiveMaximum", operator.lt),
)


def _bound(op: Callable[[Any, Any], bool], bound: Any) -> _Pred:
    """A numeric bound: only numbers are held to it (the type keyword judges the rest)."""
    return lambda v: not _is_number(v) or op(v, bound)


def _length(op: Callable[[int, int], bool], n: int) -> _Pred:
    """A string length bound: only strings are held to it."""
    return lambda v: not isinstance(v, str) or op(len(v), n)


_TYPE_PRED: dict[str, _Pred] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}
_TYPE_DESC = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
    "object": "an object",
    "array": "an array",
}


def _json_eq(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_eq(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_eq(x, y) for x, y in zip(a, b, strict=True))
    return (type(a) is type(b) and a == b) or (_is_number(a) and _is_number(b) and a == b)


_SHOW_DEPTH = 16  # deeper values are shown by their opening brackets: rendering them would recurse without bound


def _nested_deeper(v: Any, depth: int) -> bool:
    """Whether a list/dict value nests deeper than `depth`, found without recursion."""
    stack = [(v, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (dict, list, tuple)):
            if d >= depth:
                return True
            stack.extend((y, d + 1) for y in (x.values() if isinstance(x, dict) else x))
    return False


def _show(v: Any, limit: int = 60) -> str:
    """Short rendering of a value for messages: 'text', 1.5, true, null, [1, 2]."""
    if isinstance(v, str):
        s = repr(v)
        return s if len(s) <= limit else s[: limit - 4] + "...'"
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 64:
        s = str(v) if v.bit_length() < 10_000 else f"an integer of {v.bit_length()} bits"
    elif isinstance(v, (dict, list, tuple)) and _nested_deeper(v, _SHOW_DEPTH):
        s = ""
        while isinstance(v, (dict, list, tuple)) and len(s) < limit and v:
            s += "{" if isinstance(v, dict) else "["
            v = next(iter(v.values())) if isinstance(v, dict) else v[0]
        s += "..."
    else:
        try:
            s = json.dumps(v, ensure_ascii=False, default=repr, separators=(", ", ": "))
        except (TypeError, ValueError):
            s = repr(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _pointer(path: Iterable[str | int]) -> str:
    return "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _render(err: _Err, root: str) -> str:
    prefix = err.label or root
    where = _pointer(reversed(err.path))
    if err.text is not None:
        return f"{prefix}: {err.text} at {where}" if where else f"{prefix}: {err.text}"
    got = _show(err.got)
    if where:
        return f"{prefix}: {where} must be {err.expected}, got {got}"
    return f"{prefix}: expected {err.expected}, got {got}"


def _bubble(errs: list[_Err], key: str | int) -> list[_Err]:
    for e in errs:
        e.path.append(key)
    return errs


def _all(preds: list[_Pred]) -> _Pred | None:
    if not preds:
        return None
    if len(preds) == 1:
        return preds[0]
    if len(preds) == 2:
        a, b = preds
        return lambda v: a(v) and b(v)
    return lambda v: all(p(v) for p in preds)


def _seq(checks: list[_Check]) -> _Check | None:
    """Run every check and concatenate failures (JSON Schema keywords all apply)."""
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]

    def check(v: Any) -> list[_Err] | None:
        errs: list[_Err] | None = None
        for c in checks:
            r = c(v)
            if r:
                errs = r if errs is None else errs + r
        return errs

    return check


class _Compiler:
    """Compiles schema documents (keyed by absolute $id) into checks, memoized per URI."""

    def __init__(self, documents: dict[str, Any], *, tool_input: bool = False) -> None:
        self.documents = documents
        self.tool_input = tool_input  # tool-input conventions: see Validator
        self.memo: dict[str, _Check | None] = {}
        self.pending: dict[str, list[_Check | None]] = {}

    # -- references -------------------------------------------------------------------------
    def ref(self, uri: str) -> _Check | None:
        if uri in self.memo:
            return self.memo[uri]
        if uri in self.pending:  # recursive reference: bind late
            cell = self.pending[uri]
            return lambda v: cell[0](v) if cell[0] is not None else None
        self.pending[uri] = cell = []
        check = self.compile(self.resolve(uri), urldefrag(uri)[0])
        cell.append(check)
        del self.pending[uri]
        self.memo[uri] = check
        return check

    def resolve(self, uri: str) -> Any:
        doc_uri, fragment = urldefrag(uri)
        if doc_uri not in self.documents:
            raise SchemaError(f"unresolvable $ref {uri!r}")
        node = self.documents[doc_uri]
        if fragment and not fragment.startswith("/"):
            raise SchemaError(f"$anchor references are not supported: {uri!r}")
        for part in fragment.split("/")[1:] if fragment else ():
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(part)] if isinstance(node, list) else node[part]
            except (KeyError, IndexError, ValueError) as exc:
                raise SchemaError(f"$ref {uri!r} points nowhere") from exc
        return node

    def target(self, schema: Any, base: str) -> tuple[Any, str]:
        """The schema (and its base URI) a subschema stands for when it is a bare $ref."""
        while isinstance(schema, dict) and set(schema) - _ANNOTATIONS == {"$ref"}:
            uri = urljoin(base, schema["$ref"])
            base, schema = urldefrag(uri)[0], self.resolve(uri)
        return schema, base

    # -- schemas ----------------------------------------------------------------------------
    def compile(self, schema: Any, base: str) -> _Check | None:
        """Compile one (sub)schema; None means it accepts everything."""
        if schema is True:
            return None
        if schema is False:
            return lambda v: [_Err("no value is allowed here", kind="not_allowed", got=v)]
        if not isinstance(schema, dict):
            raise SchemaError(f"a schema must be an object or boolean, got {_show(schema)}")
        unknown = set(schema) - _KEYWORDS - _ANNOTATIONS
        if unknown:
            raise SchemaError(f"unsupported keyword(s) {sorted(unknown)} in schema under {base}")
        if "$id" in schema:
            base = urljoin(base, schema["$id"])

        dispatch = self._dispatch(schema["oneOf"], base) if "oneOf" in schema else None
        if dispatch is not None and dispatch[1] in schema.get("required", ()):
            # The dispatch reports a missing discriminator itself; do not check it twice.
            schema = {**schema, "required": [k for k in schema["required"] if k != dispatch[1]]}

        head = self._scalar(schema)
        bare = head[2] if head is not None else None
        rest: list[_Check] = []
        obj = self._object(schema, base)
        if obj is not None:
            rest.append(obj if bare is dict else lambda v: obj(v) if isinstance(v, dict) else None)
        arr = self._array(schema, base)
        if arr is not None:
            rest.append(arr if bare is list else lambda v: arr(v) if isinstance(v, list) else None)
        if "$ref" in schema:
            r = self.ref(urljoin(base, schema["$ref"]))
            if r is not None:
                rest.append(r)
        for key in ("allOf", "anyOf"):
            if key in schema:
                rest.append(self._combinator(key, schema, base))
        if "oneOf" in schema:
            rest.append(dispatch[0] if dispatch is not None else self._combinator("oneOf", schema, base))
        tail = _seq(rest)
        if head is None:
            return tail
        pred, desc, _ = head

        def fail(v: Any) -> list[_Err]:
            return [_Err(expected=desc, got=v, schema=schema)]

        if isinstance(bare, (type, tuple)):  # only "type", and plain: one isinstance, no predicate call
            if tail is None:
                return lambda v: None if isinstance(v, bare) else fail(v)
            return lambda v: tail(v) if isinstance(v, bare) else fail(v)
        if bare == "int_min" and tail is None:
            lo = schema["minimum"]
            return lambda v: None if (type(v) is int and v >= lo) or pred(v) else fail(v)
        if tail is None:
            return lambda v: None if pred(v) else fail(v)
        return lambda v: tail(v) if pred(v) else fail(v)

    def _scalar(
        self, schema: dict[str, Any]
    ) -> tuple[_Pred, str, type | tuple[type, ...] | str | None] | None:
        """Fold type, enum, const, pattern and bounds into one predicate and one description."""
        types = schema.get("type")
        types = [types] if isinstance(types, str) else list(types or ())
        for t in types:
            if t not in _TYPE_PRED:
                raise SchemaError(f"unknown type {t!r}")
        preds: list[_Pred] = []
        lo = schema.get("minimum")
        if (
            types == ["integer"]
            and lo is not None
            and not set(schema) & {"maximum", "exclusiveMinimum", "exclusiveMaximum"}
        ):
            # The hot case (element_index, option_index, pixels): one closure, no nested calls.
            def int_min(v: Any) -> bool:
                return (type(v) is int or _is_integer(v)) and v >= lo

            preds.append(int_min)
        else:
            if types:
                tp = [_TYPE_PRED[t] for t in types]
                if len(tp) == 1:
                    preds.append(tp[0])
                else:

                    def any_type(v: Any) -> bool:
                        for p in tp:
                            if p(v):
                                return True
                        return False

                    preds.append(any_type)
            for key, op in _BOUNDS:
                if key in schema:
                    preds.append(_bound(op, schema[key]))
        if "minLength" in schema:
            preds.append(_length(operator.ge, schema["minLength"]))
        if "maxLength" in schema:
            preds.append(_length(operator.le, schema["maxLength"]))
        if "pattern" in schema:
            search = re.compile(schema["pattern"]).search
            preds.append(lambda v: not isinstance(v, str) or search(v) is not None)
        if "enum" in schema:
            values = list(schema["enum"])
            if all(isinstance(e, str) for e in values):
                strings = frozenset(values)
                preds.append(lambda v: isinstance(v, str) and v in strings)
            else:
                preds.append(lambda v: any(_json_eq(v, e) for e in values))
        if "const" in schema:
            c = schema["const"]
            preds.append(
                (lambda v: isinstance(v, str) and v == c)
                if isinstance(c, str)
                else (lambda v: _json_eq(v, c))
            )
        pred = _all(preds)
        if pred is None:
            return None
        bare: type | tuple[type, ...] | str | None = None
        if types and all(t in _BARE_TYPES for t in types) and not set(schema) & _SCALAR_KEYWORDS:
            bare = _BARE_TYPES[types[0]] if len(types) == 1 else tuple(_BARE_TYPES[t] for t in types)
        elif types == ["integer"] and set(schema) & _SCALAR_KEYWORDS == {"minimum"}:
            bare = "int_min"
        return pred, _describe(schema, types), bare

    def _object(self, schema: dict[str, Any], base: str) -> _Check | None:
        if not set(schema) & {"properties", "required", "additionalProperties", "patternProperties"}:
            return None
        props = schema.get("properties", {})
        checks = {k: c for k, s in props.items() if (c := self.compile(s, base)) is not None}
        required = tuple(schema.get("required", ()))
        patterns = [
            (re.compile(p), self.compile(s, base)) for p, s in schema.get("patternProperties", {}).items()
        ]
        addl_schema = schema.get("additionalProperties", True)
        closed = addl_schema is False
        addl = None if closed else self.compile(addl_schema, base)
        allowed = frozenset(props)
        if not (required or checks or patterns or closed or addl is not None):
            return None
        hint = f" (keys must match {' or '.join(p.pattern for p, _ in patterns)})" if patterns else ""

        if not patterns and addl is None and self.tool_input:
            # Tool inputs: null means omitted; unexpected fields first, then each field in schema order.
            order = tuple(props) + tuple(k for k in required if k not in props)
            must = frozenset(required)

            def fields(d: dict[str, Any]) -> list[_Err] | None:
                errs: list[_Err] = []
                if closed and not allowed.issuperset(d):
                    errs.extend(
                        _Err(f"unexpected field {_show(k)}", kind="unexpected", got=k) for k in d if k not in allowed
                    )
                for k in order:
                    v = d.get(k)
                    if v is None:
                        if k in must:
                            errs.append(_Err(f"missing required field '{k}'", kind="missing", got=k))
                        continue
                    c = checks.get(k)
                    if c is not None and (r := c(v)):
                        errs += _bubble(r, k)
                return errs or None

            return fields

        if not patterns and addl is None:
            # Fixed-shape objects (actions, descriptors): the common case, kept branch-light.
            def fixed(d: dict[str, Any]) -> list[_Err] | None:
                errs: list[_Err] | None = None
                for k in required:
                    if k not in d:
                        errs = errs or []
                        errs.append(_Err(f"missing required field '{k}'", kind="missing", got=k))
                if closed and not allowed.issuperset(d):
                    errs = errs or []
                    errs.extend(
                        _Err(f"unexpected field {_show(k)}", kind="unexpected", got=k) for k in d if k not in allowed
                    )
                for k, c in checks.items():
                    if k in d:
                        r = c(d[k])
                        if r:
                            errs = _bubble(r, k) if errs is None else errs + _bubble(r, k)
                return errs

            return fixed

        def general(d: dict[str, Any]) -> list[_Err] | None:
            errs: list[_Err] = [
                _Err(f"missing required field '{k}'", kind="missing", got=k) for k in required if k not in d
            ]
            for k, v in d.items():
                matched = k in allowed
                c = checks.get(k)
                if c is not None and (r := c(v)):
                    errs += _bubble(r, k)
                for rx, pc in patterns:
                    if rx.search(k):
                        matched = True
                        if pc is not None and (r := pc(v)):
                            errs += _bubble(r, k)
                if not matched:
                    if closed:
                        errs.append(
                            _Err(f"unexpected {'key' if hint else 'field'} {_show(k)}{hint}", kind="unexpected", got=k)
                        )
                    elif addl is not None and (r := addl(v)):
                        errs += _bubble(r, k)
            return errs or None

        return general

    def _array(self, schema: dict[str, Any], base: str) -> _Check | None:
        if not set(schema) & {"items", "minItems", "maxItems"}:
            return None
        item = self.compile(schema.get("items", True), base)
        lo, hi = schema.get("minItems", 0), schema.get("maxItems")

        def check(a: list[Any]) -> list[_Err] | None:
            errs: list[_Err] = []
            if len(a) < lo:
                errs.append(_Err(f"needs at least {lo} item(s), has {len(a)}", kind="count", got=a, schema=schema))
            if hi is not None and len(a) > hi:
                errs.append(_Err(f"allows at most {hi} item(s), has {len(a)}", kind="count", got=a, schema=schema))
            if item is not None:
                for i, v in enumerate(a):
                    if r := item(v):
                        errs += _bubble(r, i)
            return errs or None

        return check

    def _combinator(self, key: str, schema: dict[str, Any], base: str) -> _Check:
        subs = schema[key]
        if not isinstance(subs, list) or not subs:
            raise SchemaError(f"{key} must be a non-empty array")
        branches = [self.compile(s, base) for s in subs]
        if key == "allOf":
            return _seq([b for b in branches if b is not None]) or (lambda v: None)
        n = len(branches)

        def combine(v: Any) -> list[_Err] | None:
            failures = [r for b in branches if b is not None and (r := b(v))]
            ok = n - len(failures)
            if (key == "anyOf" and ok >= 1) or (key == "oneOf" and ok == 1):
                return None
            if ok == 0:
                best = min(failures, key=len)  # the closest alternative explains best
                return [_Err(f"matches none of the {n} alternatives", kind="alternatives", got=v, schema=schema), *best]
            return [
                _Err(
                    f"matches {ok} of the {n} alternatives; exactly one is required",
                    kind="alternatives",
                    got=v,
                    schema=schema,
                )
            ]

        return combine

    def _dispatch(self, subs: list[Any], base: str) -> tuple[_Check, str] | None:
        """oneOf over objects told apart by a required string ``const`` property: one dict lookup.

        Equivalent to oneOf because the constants are distinct, so at most one branch can match.
        Returns the check and the discriminator property, or None when the shape does not fit.
        """
        targets = [self.target(s, base) for s in subs]
        if not all(isinstance(t, dict) and t.get("type") == "object" for t, _ in targets):
            return None
        common = set.intersection(*(set(t.get("required", ())) for t, _ in targets))
        for prop in sorted(common):
            consts = [t.get("properties", {}).get(prop) for t, _ in targets]
            if not all(isinstance(c, dict) and isinstance(c.get("const"), str) for c in consts):
                continue
            names = [c["const"] for c in consts]
            if len(set(names)) != len(names):
                continue
            table: dict[str, _Check | None] = {}
            for name, (t, t_base) in zip(names, targets, strict=True):
                # After the lookup the discriminator is known present and equal: only allow it.
                branch = {**t, "required": [k for k in t["required"] if k != prop]}
                branch["properties"] = {**t["properties"], prop: True}
                table[name] = self.compile(branch, t_base)
            expected = ", ".join(names)
            disc = {"enum": names, "field": prop}  # for Failure: the discriminator and its allowed values

            def dispatch(
                d: Any,
                prop: str = prop,
                table: dict[str, _Check | None] = table,
                expected: str = expected,
                disc: dict[str, Any] = disc,
            ) -> list[_Err] | None:
                if not isinstance(d, dict):
                    return [_Err(expected="an object", got=d, kind="type", schema={"type": "object"})]
                try:
                    c = table[d[prop]]
                except KeyError:
                    if prop not in d:
                        return [
                            _Err(f"missing required field '{prop}'", kind="discriminator", schema=disc)
                        ]
                    return [
                        _Err(
                            f"unknown {prop} {_show(d[prop])}; expected one of {expected}",
                            kind="discriminator",
                            got=d[prop],
                            schema=disc,
                        )
                    ]
                except TypeError:  # unhashable discriminator value
                    return [
                        _Err(
                            f"unknown {prop} {_show(d[prop])}; expected one of {expected}",
                            kind="discriminator",
                            got=d[prop],
                            schema=disc,
                        )
                    ]
                r = c(d) if c is not None else None
                if r:
                    tag = d[prop]
                    for e in r:
                        if e.label is None:
                            e.label = tag
                return r

            return dispatch, prop
        return None


def _describe(schema: dict[str, Any], types: list[str]) -> str:
    if "const" in schema:
        return f"exactly {_show(schema['const'])}"
    if "enum" in schema:
        return "one of " + ", ".join(_show(e) for e in schema["enum"])
    parts = [" or ".join(_TYPE_DESC[t] for t in types) if types else "a value"]
    for key, op in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
    ):
        if key in schema:
            parts.append(f"{op} {schema[key]}")
    if "minLength" in schema:
        parts.append(f"of length >= {schema['minLength']}")
    if "maxLength" in schema:
        parts.append(f"of length <= {schema['maxLength']}")
    if "pattern" in schema:
        parts.append(f"matching {schema['pattern']}")
    return " ".join(parts)


# -- loading ------------------------------------------------------------------------------------


def schemas_dir() -> Path:
    """Where the schema files live: the installed ``cdp_engine.protocol`` package, else the repo's protocol/."""
    try:
        located = resources.files("cdp_engine.protocol").joinpath("schemas")
        if located.is_dir():
            return Path(str(located))
    except (ImportError, TypeError, FileNotFoundError, NotADirectoryError):
        pass
    fallback = Path(__file__).resolve().parent.parent / "protocol" / "schemas"
    if not fallback.is_dir():
        raise SchemaError(f"protocol schemas not found (looked in cdp_engine.protocol and {fallback})")
    return fallback


_raw: dict[str, dict[str, Any]] = {}
_checks: dict[str, _Check | None] = {}
_ids: dict[str, str] = {}


def _load() -> None:
    if _raw:
        return
    raw: dict[str, dict[str, Any]] = {}
    for path in sorted(schemas_dir().glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or "$id" not in doc:
            raise SchemaError(f"{path.name} has no $id")
        raw[path.stem] = doc
    documents = {urldefrag(d["$id"])[0]: d for d in raw.values()}
    compiler = _Compiler(documents)
    checks = {name: compiler.ref(urldefrag(d["$id"])[0]) for name, d in raw.items()}
    ids = {}
    for name, doc in raw.items():
        for alias in (name, f"{name}.json", doc["$id"]):
            ids[alias] = name
    _ids.update(ids)
    _checks.update(checks)
    _raw.update(raw)  # last: a failed load leaves nothing half-initialised


def _name(schema_name: str) -> str:
    if not _raw:
        _load()
    try:
        return _ids[schema_name]
    except KeyError:
        raise KeyError(f"unknown schema {schema_name!r}; known: {', '.join(schema_names())}") from None


def schema_names() -> list[str]:
    """Names accepted by validate(): the schema file stems (action, element-descriptor, error, state)."""
    _load()
    return list(_raw)


def raw_schemas() -> dict[str, dict[str, Any]]:
    """The parsed schema documents by name (e.g. to build a jsonschema Registry or publish them)."""
    _load()
    return dict(_raw)


def validator(schema_name: str) -> Callable[[Any], bool]:
    """A bare ``is_valid`` for one schema, for hot loops that want to skip the name lookup."""
    check = _checks[_name(schema_name)]
    if check is None:
        return lambda instance: True
    return lambda instance: check(instance) is None


def is_valid(schema_name: str, instance: Any) -> bool:
    """True when ``instance`` conforms; accepts a file stem, ``<stem>.json`` or the schema's $id."""
    try:
        check = _checks[schema_name]
    except KeyError:
        check = _checks[_name(schema_name)]
    return check is None or check(instance) is None


def validate(schema_name: str, instance: Any) -> list[str]:
    """Human-readable failures such as ``input_text: missing required field 'text'``; [] when valid."""
    name = _name(schema_name)
    check = _checks[name]
    errs = check(instance) if check is not None else None
    # dict.fromkeys: a discriminator both required and dispatched on is reported once
    return list(dict.fromkeys(_render(e, name) for e in errs)) if errs else []


# -- structured failures: one validator, each surface's words ------------------------------------

FAILURE_KINDS = (
    "missing",  # a required field is absent (path ends with the field)
    "unexpected",  # a field the schema does not allow (path ends with the field)
    "type",  # the value has the wrong JSON type
    "non_finite",  # NaN or an infinity where a number is expected (not JSON numbers)
    "enum",  # not one of the allowed values (enum / const)
    "range",  # a number outside minimum / maximum / exclusive bounds
    "length",  # a string shorter or longer than allowed
    "pattern",  # a string not matching the pattern
    "count",  # an array with too few or too many items
    "alternatives",  # matches none (or several) of anyOf / oneOf
    "discriminator",  # a tagged union's tag is missing or unknown (path ends with the tag field)
    "not_allowed",  # the schema is `false`
)


@dataclass(frozen=True)
class Failure:
    """One schema failure, for a surface to put in its own words (see FAILURE_KINDS).

    `schema` is the failing subschema (its type, bounds, enum, …); `message` is the core's own text.
    """

    kind: str
    path: tuple[str | int, ...]
    got: Any
    schema: dict[str, Any]
    message: str


def _kind(schema: dict[str, Any], v: Any) -> str:
    """Which keyword a value failed (value failures are folded into one predicate when compiled)."""
    types = schema.get("type")
    types = [types] if isinstance(types, str) else list(types or ())
    if types and not any(_TYPE_PRED[t](v) for t in types):
        finite_expected = "number" in types or "integer" in types
        if finite_expected and isinstance(v, float) and not math.isfinite(v):
            return "non_finite"
        return "type"
    if "enum" in schema and not any(_json_eq(v, e) for e in schema["enum"]):
        return "enum"
    if "const" in schema and not _json_eq(v, schema["const"]):
        return "enum"
    if isinstance(v, str):
        if len(v) < schema.get("minLength", 0) or len(v) > schema.get("maxLength", len(v)):
            return "length"
        if "pattern" in schema:
            return "pattern"
    return "range"


def _failure(err: _Err, root: str) -> Failure:
    path = tuple(reversed(err.path))
    schema = err.schema if isinstance(err.schema, dict) else {}
    kind = err.kind
    if kind in ("missing", "unexpected"):
        path = (*path, err.got)
    elif kind == "discriminator":
        path = (*path, schema["field"])
    elif kind == "value":
        kind = _kind(schema, err.got)
    return Failure(kind, path, err.got, schema, _render(err, root))


class Validator:
    """A compiled schema with structured failures; the one way surfaces validate their parameters.

    `schema` is a schema document (it may $ref the protocol's schema files); `pointer` picks a
    subschema of it, e.g. ``"/members/navigate"``. With ``tool_input=True`` the tool-input conventions
    apply: an explicit null means the field is omitted, and failures come unexpected fields first,
    then field by field in the schema's order.
    """

    def __init__(
        self, schema: dict[str, Any], *, pointer: str = "", tool_input: bool = False, name: str = "input"
    ) -> None:
        _load()
        documents = {urldefrag(d["$id"])[0]: d for d in _raw.values()}
        base = urldefrag(schema.get("$id") or f"urn:cdp-engine:inline:{id(schema)}")[0]
        documents[base] = schema
        self.name = name
        self._compiler = _Compiler(documents, tool_input=tool_input)
        self._uri = f"{base}#{pointer}" if pointer else base
        self._check = self._compiler.ref(self._uri)

    def is_valid(self, instance: Any) -> bool:
        return self._check is None or self._check(instance) is None

    def failures(self, instance: Any) -> list[Failure]:
        """Every failure, in the order described above; [] when valid."""
        errs = self._check(instance) if self._check is not None else None
        return [_failure(e, self.name) for e in errs] if errs else []

    def messages(self, instance: Any) -> list[str]:
        """The core's own texts for the failures."""
        return list(dict.fromkeys(f.message for f in self.failures(instance)))

    def integers(self, instance: Any) -> Any:
        """A valid instance with integral floats (valid JSON integers, such as 2.0) as ints where the schema
        says integer, so surfaces can use them as counts and keys; other values are returned as they are."""
        compiler = self._compiler
        schema, base = compiler.target(compiler.resolve(self._uri), urldefrag(self._uri)[0])
        return self._ints(schema, base, instance)

    def _ints(self, schema: Any, base: str, v: Any) -> Any:
        schema, base = self._compiler.target(schema, base)
        if not isinstance(schema, dict):
            return v
        if type(v) is float and schema.get("type") == "integer":
            return int(v)
        for key in ("oneOf", "anyOf"):
            for alt in schema.get(key, ()):
                check = self._compiler.compile(alt, base)
                if check is None or check(v) is None:
                    return self._ints(alt, base, v)
        if isinstance(v, dict) and "properties" in schema:
            props = schema["properties"]
            return {k: self._ints(props[k], base, x) if k in props else x for k, x in v.items()}
        if isinstance(v, list) and "items" in schema:
            return [self._ints(schema["items"], base, x) for x in v]
        return v


def tool_schema(name: str) -> dict[str, Any]:
    """A surface's tool input schemas, from the protocol's schemas/tools/<name>.json (e.g. browser-toolset)."""
    path = schemas_dir() / "tools" / f"{name}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SchemaError(f"tool schema {name!r} not readable: {exc}") from None
    if not isinstance(doc, dict) or "$id" not in doc:
        raise SchemaError(f"tools/{name}.json has no $id")
    return doc


def failures(schema_name: str, instance: Any) -> list[Failure]:
    """Structured failures of an instance against one of the protocol's schema files; [] when valid."""
    name = _name(schema_name)
    check = _checks[name]
    errs = check(instance) if check is not None else None
    return [_failure(e, name) for e in errs] if errs else []


MAX_SENDABLE_DEPTH = 100  # deeper than any browser command carries (Chromium's JSON reader stops near 200)


@dataclass(frozen=True)
class Unsendable:
    """Where a value holds what no browser command can carry: `kind` "surrogate" (a string with a lone
    surrogate: a Python str or a JSON escape like \\ud800 can hold one, UTF-8 cannot) or "depth" (nested
    deeper than MAX_SENDABLE_DEPTH); `path` the keys down to it (list items keep their parent's name)."""

    kind: str
    path: tuple[str, ...]


def encodes(text: str) -> bool:
    """Whether `text` is valid UTF-8 text: False for a lone surrogate (from a JSON escape), which no JSON
    message and no file name can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unsendable(value: Any, max_depth: int = MAX_SENDABLE_DEPTH) -> Unsendable | None:
    """The first place in `value` (strings, dict keys and values, lists) no browser command can carry, or None.

    Checked after the schema, by every surface that passes values on to the browser; each maps the
    result to its own words. Iterative, so a hostile depth cannot exhaust the interpreter's stack."""
    stack: list[tuple[Any, tuple[str, ...], int]] = [(value, (), 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and not encodes(item):
                return Unsendable("surrogate", path)
            continue
        if isinstance(item, dict):
            children = [(v, (*path, str(k)), k) for k, v in item.items()]
        elif isinstance(item, list):
            children = [(v, path, None) for v in item]
        else:
            continue
        if children and depth >= max_depth:
            return Unsendable("depth", path)
        for child, child_path, key in reversed(children):  # reversed: visited in order
            stack.append((child, child_path, depth + 1))
            if isinstance(key, str):
                stack.append((key, child_path, depth + 1))
    return None
