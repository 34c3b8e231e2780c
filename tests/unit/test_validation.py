"""The one parameter validator (util.schema): structured failures that each surface puts in its own words.

The surfaces' texts are pinned in their own tests (test_element_index, test_toolset, test_mcp_tools);
here the failure kinds themselves, which their mapping tables are keyed by.
"""

from __future__ import annotations

from typing import Any

import pytest

from cdp_engine.util import schema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "x": {"type": "number"},
        "n": {"type": "integer", "minimum": 1, "maximum": 10},
        "s": {"type": "string", "minLength": 1, "pattern": "^a"},
        "e": {"enum": ["a", "b"]},
        "list": {"type": "array", "items": {"type": "integer"}, "minItems": 2},
        "any": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
        "target": {
            "oneOf": [
                {
                    "type": "object",
                    "properties": {"type": {"const": "point"}, "x": {"type": "integer"}},
                    "required": ["type", "x"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {"type": {"const": "ref"}, "ref": {"type": "string"}},
                    "required": ["type", "ref"],
                    "additionalProperties": False,
                },
            ]
        },
    },
    "required": ["x"],
    "additionalProperties": False,
}
TOOL = schema.Validator(SCHEMA, tool_input=True)
PLAIN = schema.Validator(SCHEMA)


@pytest.mark.parametrize(
    ("instance", "kind", "path"),
    [
        ({}, "missing", ("x",)),
        ({"x": 1, "zz": 1}, "unexpected", ("zz",)),
        ({"x": "1"}, "type", ("x",)),
        ({"x": True}, "type", ("x",)),
        ({"x": float("nan")}, "non_finite", ("x",)),
        ({"x": float("inf")}, "non_finite", ("x",)),
        ({"x": -float("inf")}, "non_finite", ("x",)),
        ({"x": 1, "n": float("nan")}, "non_finite", ("n",)),
        ({"x": 1, "n": 11}, "range", ("n",)),
        ({"x": 1, "n": 10**40}, "range", ("n",)),
        ({"x": 1, "n": 1.5}, "type", ("n",)),
        ({"x": 1, "s": ""}, "length", ("s",)),
        ({"x": 1, "s": "b"}, "pattern", ("s",)),
        ({"x": 1, "e": "c"}, "enum", ("e",)),
        ({"x": 1, "list": [1]}, "count", ("list",)),
        ({"x": 1, "list": [1, "2"]}, "type", ("list", 1)),
        ({"x": 1, "any": 3}, "alternatives", ("any",)),
        ({"x": 1, "target": {"type": "line"}}, "discriminator", ("target", "type")),
        ({"x": 1, "target": {"x": 1}}, "discriminator", ("target", "type")),
        ({"x": 1, "target": {"type": "point"}}, "missing", ("target", "x")),
        ({"x": 1, "target": {"type": "ref", "ref": "r", "x": 1}}, "unexpected", ("target", "x")),
        ({"x": 1, "target": []}, "type", ("target",)),
    ],
)
def test_failure_kinds(instance: dict[str, Any], kind: str, path: tuple[Any, ...]) -> None:
    for validator in (TOOL, PLAIN):
        found = validator.failures(instance)
        assert (found[0].kind, found[0].path) == (kind, path), found
        assert found[0].kind in schema.FAILURE_KINDS and found[0].message
        assert not validator.is_valid(instance)


def test_valid_and_huge_finite_numbers() -> None:
    for instance in ({"x": 1}, {"x": 1e308}, {"x": -(10**400)}, {"x": 0.5, "n": 10, "list": [1, 2.0]}):
        assert TOOL.failures(instance) == [] and TOOL.is_valid(instance)


def test_tool_input_conventions() -> None:
    """Tool inputs: null means omitted (required fields stay required); unexpected fields come first, then the
    fields in schema order; the plain validator keeps JSON Schema's null."""
    assert TOOL.is_valid({"x": 1, "n": None})
    assert [f.kind for f in TOOL.failures({"x": None})] == ["missing"]
    assert PLAIN.failures({"x": 1, "n": None})[0].kind == "type"
    found = TOOL.failures({"e": "c", "zz": 1, "n": 0})
    assert [(f.kind, f.path) for f in found] == [
        ("unexpected", ("zz",)),
        ("missing", ("x",)),
        ("range", ("n",)),
        ("enum", ("e",)),
    ]


def test_integers_turns_integral_floats_into_ints() -> None:
    out = TOOL.integers({"x": 2.0, "n": 3.0, "list": [1.0, 2], "target": {"type": "point", "x": 4.0}})
    assert out == {"x": 2.0, "n": 3, "list": [1, 2], "target": {"type": "point", "x": 4}}
    assert type(out["x"]) is float and type(out["n"]) is int and type(out["target"]["x"]) is int


def test_protocol_schemas_keep_their_messages_and_gain_kinds() -> None:
    """The index's Action Schema failures: the same texts as validate(), now with kinds."""
    action = {"action": "click_element", "element_index": float("nan")}
    (failure,) = schema.failures("action", action)
    assert failure.kind == "non_finite" and failure.path == ("element_index",)
    assert [failure.message] == schema.validate("action", action)
    assert not schema.is_valid("action", {"action": "scroll", "direction": "down", "pixels": float("inf")})


def test_unsendable_finds_lone_surrogates_and_hostile_depth_without_recursing() -> None:
    assert schema.unsendable({"a": ["ok", {"b": "fine é"}]}) is None
    assert schema.unsendable({"a": ["ok", {"b": "x\ud800"}]}) == schema.Unsendable("surrogate", ("a", "b"))
    assert schema.unsendable({"k\udfff": 1}) == schema.Unsendable("surrogate", ("k\udfff",))
    deep: Any = "x"
    for _ in range(100_000):  # far past Python's recursion limit
        deep = [deep]
    found = schema.unsendable({"items": deep})
    assert found is not None and found.kind == "depth" and found.path == ("items",)
    assert schema.unsendable([[["x"]]], max_depth=3) is None
    assert schema.unsendable([[[["x"]]]], max_depth=3) == schema.Unsendable("depth", ())
