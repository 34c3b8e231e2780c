"""Protocol contracts without a browser: schemas, conformance vectors, the fast validator, agent helpers.

Every vector must give its expected outcome through cdp_engine.schema and through the reference
``jsonschema`` implementation, so the fast validator can never drift from the published schemas.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import timeit
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from cdp_engine.index.actions import (
    ACTION_NAMES,
    ActionValidationError,
    IdempotencyGuard,
    canonical_action,
    find_element,
    parse_action,
    validate_action,
)
from cdp_engine.util import schema

VECTORS = schema.schemas_dir().parent / "vectors"
ACTION_VECTORS: list[dict[str, Any]] = json.loads((VECTORS / "actions.json").read_text(encoding="utf-8"))
STATE_VECTORS: list[dict[str, Any]] = json.loads((VECTORS / "states.json").read_text(encoding="utf-8"))
ID_BASE = "https://cdp-engine.dev/protocol/"


def _reference() -> dict[str, Draft202012Validator]:
    raw = schema.raw_schemas()
    registry = Registry().with_resources((doc["$id"], Resource.from_contents(doc)) for doc in raw.values())
    return {name: Draft202012Validator(doc, registry=registry) for name, doc in raw.items()}


REFERENCE = _reference()


def _ids(vectors: list[dict[str, Any]]) -> list[str]:
    return [v["name"] for v in vectors]


# -- the schema files ---------------------------------------------------------------------------


def test_schema_files_are_draft_2020_12_with_ids() -> None:
    raw = schema.raw_schemas()
    assert set(raw) == {"action", "element-descriptor", "error", "state"}
    for name, doc in raw.items():
        Draft202012Validator.check_schema(doc)
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert doc["$id"] == f"{ID_BASE}{name}.json"
    assert sorted(schema.schema_names()) == sorted(raw)


def test_cross_file_refs_use_ids() -> None:
    text = json.dumps(schema.raw_schemas()["state"])
    assert f'"$ref": "{ID_BASE}element-descriptor.json"' in text
    assert f'"$ref": "{ID_BASE}error.json"' in text


def test_action_schema_covers_the_seven_actions() -> None:
    action = schema.raw_schemas()["action"]
    consts = [
        action["$defs"][ref["$ref"].rsplit("/", 1)[1]]["properties"]["action"]["const"]
        for ref in action["oneOf"]
    ]
    assert tuple(consts) == ACTION_NAMES


def test_error_codes_are_the_five_of_the_protocol() -> None:
    assert schema.raw_schemas()["error"]["properties"]["code"]["enum"] == [
        "INVALID_ELEMENT_INDEX",
        "ELEMENT_NOT_INTERACTIVE",
        "ACTION_VALIDATION_FAILED",
        "NAVIGATION_FAILED",
        "INTERNAL_BROWSER_ERROR",
    ]


def test_schema_names_accept_stem_file_and_id() -> None:
    ok = {"action": "finish_task", "message": "done"}
    for name in ("action", "action.json", f"{ID_BASE}action.json"):
        assert schema.is_valid(name, ok)
        assert schema.validate(name, {}) == ["action: missing required field 'action'"]
    with pytest.raises(KeyError, match="unknown schema"):
        schema.validate("nope", {})


# -- conformance vectors ------------------------------------------------------------------------


def test_vector_files_have_enough_cases() -> None:
    assert len(ACTION_VECTORS) >= 40
    assert len(STATE_VECTORS) >= 10
    assert {v["valid"] for v in ACTION_VECTORS} == {True, False}
    assert {v["valid"] for v in STATE_VECTORS} == {True, False}
    for v in ACTION_VECTORS:
        assert ("action" in v) != ("raw" in v), v["name"]
        assert v["error_code"] == (None if v["valid"] else "ACTION_VALIDATION_FAILED"), v["name"]
    covered = {v["action"]["action"] for v in ACTION_VECTORS if v["valid"] and "action" in v}
    assert covered == set(ACTION_NAMES)


@pytest.mark.parametrize("vector", ACTION_VECTORS, ids=_ids(ACTION_VECTORS))
def test_action_vector(vector: dict[str, Any]) -> None:
    expected = vector["valid"]
    if "raw" in vector:
        try:
            decoded = orjson.loads(vector["raw"])
        except orjson.JSONDecodeError:
            assert not expected, "raw text that is not JSON can never be valid"
            decoded = None
        else:
            assert schema.is_valid("action", decoded) is expected
            assert REFERENCE["action"].is_valid(decoded) is expected
        source: Any = vector["raw"]
    else:
        action = vector["action"]
        assert schema.is_valid("action", action) is expected
        assert (schema.validate("action", action) == []) is expected
        assert REFERENCE["action"].is_valid(action) is expected, "jsonschema disagrees"
        source = action
        # The wire form must behave the same as the decoded form.
        assert _parses(orjson.dumps(action)) is expected
    assert _parses(source) is expected
    if not expected:
        with pytest.raises(ActionValidationError) as info:
            parse_action(source)
        assert info.value.code == vector["error_code"]
        assert info.value.message and info.value.errors


def _parses(source: Any) -> bool:
    try:
        parse_action(source)
    except ActionValidationError:
        return False
    return True


@pytest.mark.parametrize("vector", STATE_VECTORS, ids=_ids(STATE_VECTORS))
def test_state_vector(vector: dict[str, Any]) -> None:
    state, expected = vector["state"], vector["valid"]
    assert schema.is_valid("state", state) is expected
    errors = schema.validate("state", state)
    assert (errors == []) is expected
    assert all(e.startswith("state: ") for e in errors)
    assert REFERENCE["state"].is_valid(state) is expected, "jsonschema disagrees"


def test_mutations_agree_with_jsonschema() -> None:
    """Random single-field mutations of valid vectors: the fast validator and jsonschema must agree."""
    rng = random.Random(20251130)
    replacements = [None, True, False, 0, 1, -1, 2.0, 2.5, "", "x", "down", "1", [], {}, [1], {"a": 1}]
    cases = [("action", v["action"]) for v in ACTION_VECTORS if v["valid"] and "action" in v]
    cases += [("state", v["state"]) for v in STATE_VECTORS if v["valid"]]
    checked = 0
    for name, valid in cases:
        for _ in range(40):
            inst = copy.deepcopy(valid)
            _mutate(inst, rng, replacements)
            fast, ref = schema.is_valid(name, inst), REFERENCE[name].is_valid(inst)
            assert fast is ref, (name, inst, schema.validate(name, inst))
            assert (schema.validate(name, inst) == []) is fast
            checked += 1
    assert checked > 1000


def _mutate(inst: Any, rng: random.Random, replacements: list[Any]) -> None:
    """Replace, delete or add one value somewhere inside ``inst`` (a dict)."""
    node = inst
    while True:
        keys = list(node)
        key = rng.choice(keys) if keys else None
        if key is not None and isinstance(node[key], dict) and node[key] and rng.random() < 0.6:
            node = node[key]
            continue
        break
    roll = rng.random()
    if key is None or roll < 0.15:
        node[rng.choice(["extra", "0", "01", "5", "checked", "pixels"])] = rng.choice(replacements)
    elif roll < 0.3:
        del node[key]
    else:
        node[key] = copy.deepcopy(rng.choice(replacements))


# -- the seed's examples ------------------------------------------------------------------------

SEED_EXAMPLE_1 = {
    "url": "https://example.com/login",
    "page_content": "<html>...<h1>Login</h1><input name='email' type='email'><input name='password' type='password'><button>Sign In</button>...</html>",
    "element_index": {
        "1": {
            "tag": "input",
            "role": "textbox",
            "aria-label": "Email Address",
            "text_content": None,
            "attributes": {
                "name": "email",
                "value": "",
                "placeholder": "Enter your email",
                "type": "email",
                "href": None,
                "checked": None,
            },
        },
        "2": {
            "tag": "input",
            "role": "textbox",
            "aria-label": "Password",
            "text_content": None,
            "attributes": {
                "name": "password",
                "value": "",
                "placeholder": "Enter your password",
                "type": "password",
                "href": None,
                "checked": None,
            },
        },
        "3": {
            "tag": "button",
            "role": "button",
            "aria-label": None,
            "text_content": "Sign In",
            "attributes": {
                "name": None,
                "value": None,
                "placeholder": None,
                "type": "submit",
                "href": None,
                "checked": None,
            },
        },
    },
    "screenshot": "iVBORw0KGgoAAAANSUhEUg...",
    "state_hash": "a1b2c3d4...",
}


def _example_1() -> dict[str, Any]:
    state = copy.deepcopy(SEED_EXAMPLE_1)
    state["state_hash"] = hashlib.sha256((state["url"] + state["page_content"]).encode()).hexdigest()
    return state


def test_seed_example_1_state_validates() -> None:
    state = _example_1()
    assert schema.validate("state", state) == []
    assert REFERENCE["state"].is_valid(state)
    # As printed, its placeholder hash is not a SHA-256 hex digest.
    assert schema.validate("state", SEED_EXAMPLE_1) == [
        "state: state_hash must be a string of length <= 64 matching ^[0-9a-f]{64}$, got 'a1b2c3d4...'"
    ]


def test_seed_example_2_action_and_example_3_error_validate() -> None:
    action = {"action": "input_text", "element_index": 1, "text": "testuser@clawpedia.io", "overwrite": True}
    assert parse_action(json.dumps(action)) == action
    error_state = {
        **_example_1(),
        "error": {
            "code": "INVALID_ELEMENT_INDEX",
            "message": "Element with index 99 not found in the current element index.",
            "failed_action": {"action": "click_element", "element_index": 99},
        },
    }
    assert schema.validate("state", error_state) == []
    assert schema.validate("error", error_state["error"]) == []
    assert schema.validate("element-descriptor", error_state["element_index"]["3"]) == []


# -- error messages -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"action": "input_text", "element_index": 1}, "input_text: missing required field 'text'"),
        ({"action": "click_element", "element_index": 4, "foo": 1}, "click_element: unexpected field 'foo'"),
        (
            {"action": "click_element", "element_index": 0},
            "click_element: element_index must be an integer >= 1, got 0",
        ),
        (
            {"action": "click_element", "element_index": True},
            "click_element: element_index must be an integer >= 1, got true",
        ),
        (
            {"action": "click_element", "element_index": 1.5},
            "click_element: element_index must be an integer >= 1, got 1.5",
        ),
        (
            {"action": "select_option", "element_index": 2, "option_index": "3"},
            "select_option: option_index must be an integer >= 1, got '3'",
        ),
        (
            {"action": "jump"},
            "action: unknown action 'jump'; expected one of "
            "click_element, input_text, select_option, scroll, navigate, finish_task, fail_task",
        ),
        ({"element_index": 4}, "action: missing required field 'action'"),
        ([1, 2], "action: expected an object, got [1, 2]"),
        (None, "action: expected an object, got null"),
        (
            {"action": "scroll", "direction": "sideways"},
            "scroll: direction must be one of 'up', 'down', 'left', 'right', got 'sideways'",
        ),
        (
            {"action": "scroll", "direction": "down", "pixels": 0},
            "scroll: pixels must be an integer >= 1, got 0",
        ),
        (
            {"action": "input_text", "element_index": 1, "text": "x", "overwrite": 1},
            "input_text: overwrite must be a boolean, got 1",
        ),
        ({"action": "navigate", "url": None}, "navigate: url must be a string, got null"),
    ],
)
def test_action_error_message(action: Any, message: str) -> None:
    assert schema.validate("action", action) == [message]
    with pytest.raises(ActionValidationError) as info:
        validate_action(action)
    assert str(info.value) == message
    assert info.value.failed_action is action


def test_every_problem_is_reported() -> None:
    errors = schema.validate("action", {"action": "input_text", "element_index": 0, "extra": 1})
    assert errors == [
        "input_text: missing required field 'text'",
        "input_text: unexpected field 'extra'",
        "input_text: element_index must be an integer >= 1, got 0",
    ]


def test_state_error_messages_carry_a_path() -> None:
    state = _example_1()
    state["element_index"]["0"] = state["element_index"].pop("3")
    state["element_index"]["1"]["attributes"]["checked"] = "true"
    del state["element_index"]["2"]["attributes"]["href"]
    state["error"] = {"code": "TIMEOUT", "message": "x", "failed_action": None}
    assert sorted(schema.validate("state", state)) == sorted(
        [
            "state: unexpected key '0' (keys must match ^[1-9][0-9]*$) at element_index",
            "state: element_index/1/attributes/checked must be a boolean or null, got 'true'",
            "state: missing required field 'href' at element_index/2/attributes",
            "state: error/code must be one of 'INVALID_ELEMENT_INDEX', 'ELEMENT_NOT_INTERACTIVE', "
            "'ACTION_VALIDATION_FAILED', 'NAVIGATION_FAILED', 'INTERNAL_BROWSER_ERROR', got 'TIMEOUT'",
        ]
    )


# -- parse_action -------------------------------------------------------------------------------


def test_parse_action_accepts_text_bytes_and_dicts() -> None:
    action = {"action": "click_element", "element_index": 4}
    assert parse_action('{"action": "click_element", "element_index": 4}') == action
    assert parse_action(b'{"action": "click_element", "element_index": 4}') == action
    assert parse_action(bytearray(b'{"element_index": 4, "action": "click_element"}')) == action
    assert parse_action(action) is action


def test_parse_action_turns_integral_floats_into_ints() -> None:
    parsed = parse_action('{"action": "select_option", "element_index": 2.0, "option_index": 3e0}')
    assert parsed == {"action": "select_option", "element_index": 2, "option_index": 3}
    assert type(parsed["element_index"]) is int and type(parsed["option_index"]) is int
    original = {"action": "scroll", "direction": "down", "pixels": 400.0}
    assert type(parse_action(original)["pixels"]) is int
    assert type(original["pixels"]) is float, "the caller's dict is not modified"


def test_parse_action_not_json() -> None:
    with pytest.raises(ActionValidationError, match="action is not valid JSON") as info:
        parse_action("click element 4")
    assert isinstance(info.value, ValueError)
    assert info.value.code == "ACTION_VALIDATION_FAILED"
    error = info.value.to_error()
    assert error["failed_action"] == "click element 4"
    assert schema.validate("error", error) == []
    with pytest.raises(ActionValidationError) as info:
        parse_action(b"\xff\xfe{")
    assert isinstance(info.value.failed_action, str)


def test_parse_action_schema_error_becomes_a_valid_error_object() -> None:
    with pytest.raises(ActionValidationError) as info:
        parse_action('{"action": "click_element", "element_index": 0, "foo": 1}')
    error = info.value.to_error()
    assert error["failed_action"] == {"action": "click_element", "element_index": 0, "foo": 1}
    assert error["message"] == "; ".join(info.value.errors)
    assert len(info.value.errors) == 2
    assert schema.validate("error", error) == []


# -- IdempotencyGuard ---------------------------------------------------------------------------


def test_guard_refuses_the_same_action_on_the_same_state() -> None:
    guard = IdempotencyGuard()
    h1, h2 = "a" * 64, "b" * 64
    click = {"action": "click_element", "element_index": 3}
    assert guard.check(h1, click) and not guard.seen(h1, click)
    guard.record(h1, click)
    assert not guard.check(h1, click) and guard.seen(h1, click)
    # Same action in another key order, as text, or with 3.0: still the same action.
    assert not guard.check(h1, {"element_index": 3, "action": "click_element"})
    assert not guard.check(h1, '{"element_index":3,"action":"click_element"}')
    assert not guard.check(h1, {"action": "click_element", "element_index": 3.0})
    # A changed state, or a different action, is allowed.
    assert guard.check(h2, click)
    assert guard.check(h1, {"action": "click_element", "element_index": 2})
    assert guard.check(h1, {"action": "scroll", "direction": "down"})
    assert len(guard) == 1
    guard.clear()
    assert guard.check(h1, click) and len(guard) == 0


def test_canonical_action_sorts_keys() -> None:
    assert canonical_action({"b": 1, "action": "x", "a": [2, {"z": 1, "y": 2}]}) == (
        b'{"a":[2,{"y":2,"z":1}],"action":"x","b":1}'
    )


# -- find_element -------------------------------------------------------------------------------


def test_find_element_by_label_text_and_placeholder() -> None:
    state = _example_1()
    index = state["element_index"]
    assert find_element(index, aria_label="email") == [1]
    assert find_element(index, aria_label="EMAIL ADDRESS") == [1]
    assert find_element(index, text="sign in") == [3]
    assert find_element(index, text="  Sign   In ") == [3]
    assert find_element(index, placeholder="enter your") == [1, 2]
    assert find_element(index, placeholder="enter your", aria_label="pass") == [2]
    assert find_element(state, text="sign") == [3], "a whole state is accepted"
    assert find_element(index, aria_label="Sign In") == [], "null fields never match"
    assert find_element(index, text="nothing like it") == []


def test_find_element_exact() -> None:
    index = _example_1()["element_index"]
    assert find_element(index, aria_label="Email", exact=True) == []
    assert find_element(index, aria_label="email address", exact=True) == []
    assert find_element(index, aria_label="Email Address", exact=True) == [1]


def test_find_element_orders_numerically_and_needs_a_criterion() -> None:
    button = _example_1()["element_index"]["3"]
    index = {"10": button, "9": button, "2": button}
    assert find_element(index, text="sign") == [2, 9, 10]
    with pytest.raises(ValueError, match="at least one"):
        find_element(index)


# -- compiler behaviour -------------------------------------------------------------------------


def test_unsupported_keyword_is_refused() -> None:
    with pytest.raises(schema.SchemaError, match="unsupported keyword"):
        schema.Validator({"type": "string", "format": "uri"})


def test_generic_one_of_without_discriminator() -> None:
    check = schema.Validator({"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]})
    assert check.is_valid(3)
    assert not check.is_valid(2.5)  # matches neither
    assert not check.is_valid(12)  # matches both


def test_schemas_are_found_next_to_the_package() -> None:
    found = schema.schemas_dir()
    assert (found / "action.json").is_file()
    repo = Path(schema.__file__).resolve().parent.parent / "protocol" / "schemas"
    assert found.resolve() == repo.resolve() or found.name == "schemas"


def test_validating_an_action_costs_microseconds() -> None:
    action = {"action": "input_text", "element_index": 12, "text": "user@example.com", "overwrite": True}
    n = 20_000
    per_call = min(timeit.repeat(lambda: schema.is_valid("action", action), number=n, repeat=3)) / n
    assert per_call < 50e-6, f"{per_call * 1e6:.1f} us per action"  # ~1 us in practice; loose for slow CI
