"""Issue 14, Build 3: property-based fuzzing of every surface against the real browser.

The generators and checks live in one copy, tests/stress/fuzz_inputs.py, so this CI run and
benchmarks/reliability.py's thousands of inputs try the same things. hypothesis
builds the inputs from each surface's own input schema (a hostile field, a dropped or an extra field,
no object at all, raw bodies). It cannot drive the async calls itself (the suite runs one session
event loop with one shared Chromium, and hypothesis' runner would have to await inside it), so
`generate` runs `@given` over a plain synchronous function that only appends each example to a list:
generate phase only, no example database, a fixed `hypothesis.seed`, so every run gets the same
inputs; the async tests then play them one by one. The hypothesis pytest plugin stays disabled
(pyproject addopts `-p no:hypothesispytest`); the library works without it.

Per input: no uncaught exception, the surface's error shape (index: the five codes; toolset: an
"Error: ..." text; MCP: an envelope error_type from ERROR_TYPES, never internal_error; HTTP: 400 or
413 with JSON, never 500), the page unchanged after every refusal (URL, outerHTML hash, form values),
an answer within the deadline, nothing written outside the output folder (and MCP's profile folder).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import fuzz_inputs as fuzz
import orjson
import pytest

import cdp_engine
from cdp_engine.core.policies import Policies, PolicyError
from cdp_engine.index.actions import ActionValidationError, parse_action
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.toolset import BrowserToolset

pytestmark = pytest.mark.slow  # fuzzes every surface: .ci/run runs it (`pytest -m slow`)

ROOT = Path(__file__).resolve().parents[2]



# A few hundred inputs per surface: the whole file stays well under a minute.
CI_COUNT = {"index": 300, "toolset": 300, "mcp": 300, "http": 300}
SEED = 14
FAILURE_KEYS = ("uncaught", "http_500", "wrong_codes", "page_changes", "hangs")


def _walk(value: Any, depth: int = 0) -> Any:
    """Every scalar of a generated value (bounded: deep values are deep on purpose)."""
    if depth > 40:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _walk(v, depth + 1)
    elif isinstance(value, list):
        for v in value[:50]:
            yield from _walk(v, depth + 1)
    else:
        yield value


def test_the_generators_are_seeded_and_hostile(tmp_path: Path) -> None:
    """The same seed gives the same inputs, and they hold what the issue asks to try."""
    url = "http://127.0.0.1:9/form"
    first = fuzz.inputs("toolset", url, tmp_path, 300, 3)
    assert len(first) == 300
    again = fuzz.inputs("toolset", url, tmp_path, 300, 3)
    assert [fuzz._short(x, 5000) for x in first] == [fuzz._short(x, 5000) for x in again]  # deep ones by type
    assert len({name for name, _ in first} & set(fuzz.MEMBER_NAMES)) >= 25
    mcp_inputs = fuzz.inputs("mcp", url, tmp_path, 600, 3)
    # Mostly real tools: one_of weighs nothing (it keeps one copy of a repeated strategy), so odd names were half.
    tools = {t["name"] for t in BrowserTools(InstanceManager(Config())).list_tools()}
    assert sum(name not in tools for name, _ in mcp_inputs) < 600 * 0.2
    scalars = [s for _, value in mcp_inputs for s in _walk(value)]
    strings = [s for s in scalars if isinstance(s, str)]
    assert any(isinstance(s, float) and math.isnan(s) for s in scalars)
    assert any(isinstance(s, float) and math.isinf(s) for s in scalars)
    assert any(not s.encode("utf-8", "surrogatepass").decode("utf-8", "ignore") == s for s in strings)
    assert any(s.startswith(("javascript:", "JaVaScRiPt:")) for s in strings)
    assert any(s.startswith(("chrome:", "file:", "view-source:", "about:config")) for s in strings)
    assert any(".." in s for s in strings)
    assert any("\u202e" in s or "\u200b" in s for s in strings)
    assert any(len(s) >= 5000 for s in strings)
    profiles = [v["profile_dir"] for name, v in mcp_inputs
                if name == "browser_create_instance" and isinstance(v, dict) and "profile_dir" in v]  # fmt: skip
    assert len(profiles) >= 10 and any(isinstance(p, str) and ".." in p for p in profiles), profiles
    bodies = [b for _, b in fuzz.inputs("http", url, tmp_path, 200, 3)]
    assert all(isinstance(b, bytes) for b in bodies) and any(b.startswith(b"[[[[") for b in bodies)


@pytest.mark.parametrize("surface", fuzz.SURFACES)
async def test_fuzz_surface(browser: cdp_engine.Browser, site: Any, surface: str) -> None:
    url = site.add(f"/fuzz/{surface}", fuzz.FORM_PAGE)
    result = await fuzz.fuzz_surface(surface, browser, url, CI_COUNT[surface], SEED)
    assert result["inputs"] == CI_COUNT[surface]
    failures = {k: result[k] for k in FAILURE_KEYS if result[k]}
    assert not failures, (failures, result["first_failures"])
    assert result["slowest_ms"] < fuzz.HANG_SECONDS * 1000


# ----- what the fuzz found (regressions) ----------------------------------------------------------


def test_the_navigation_policy_refuses_a_lone_surrogate() -> None:
    """Was UnicodeEncodeError from urllib's unquote_to_bytes (the toolset said "navigate failed")."""
    for url in ("http://\ud8d6/", "https://example.com/\udfff", "view-source:http://\ud800/"):
        with pytest.raises(PolicyError, match="lone surrogate") as info:
            Policies.for_service().navigation.check(url)
        assert info.value.rule == "navigation.url"


def test_the_file_policy_refuses_a_lone_surrogate(tmp_path: Path) -> None:
    """Was UnicodeEncodeError from the path's resolution: MCP browser_pdf_save said internal_error."""
    files = Policies.for_mcp(output_dir=str(tmp_path), upload_roots=[str(tmp_path)]).files
    for check in (files.output_path, files.upload_path):
        with pytest.raises(PolicyError, match="lone surrogate") as info:
            check("\udda6\ud85d.pdf")
        assert info.value.rule == "files.invalid_path"


@pytest.mark.parametrize(
    "raw",
    [
        {"action": "scroll", "direction": "down", "pixels": {"\ud800": None}},
        {"action": "navigate", "url": [{"\ud8fc": 1}, "x"]},
        {"action": "click_element", "element_index": 1, "\udfff": 1},
    ],
    ids=["nested-key", "key-in-list", "top-key"],
)
async def test_a_lone_surrogate_in_a_key_leaves_the_error_state_serialisable(
    tab: cdp_engine.Tab, site: Any, raw: Any
) -> None:
    """failed_action kept a dict key with a lone surrogate, so the error state could not be written."""
    with pytest.raises(ActionValidationError) as info:
        parse_action(raw)
    orjson.dumps(info.value.to_error())
    await tab.goto(site.add("/fuzz/surrogate-keys", fuzz.FORM_PAGE))
    state = await tab.act(raw, screenshot=False)
    assert state["error"]["code"] == "ACTION_VALIDATION_FAILED"
    orjson.dumps(state)


async def test_toolset_refuses_lone_surrogates_with_an_error_text(
    browser: cdp_engine.Browser, context: cdp_engine.BrowserContext, site: Any
) -> None:
    ts = await BrowserToolset(browser, context=context).start()
    try:
        await context.tabs[0].goto(site.add("/fuzz/surrogates", fuzz.FORM_PAGE))
        cases = [
            ("\ud800", {}, "Error: unknown browser toolset member"),  # was a block no JSON can hold
            ("navigate", {"url": "http://\ud8d6/"}, "Error: "),  # was "navigate failed (UnicodeEncodeError)"
            ("type", {"text": "a\ud800"}, "Error: invalid input for type: text must be valid Unicode"),  # was TypeError
        ]
        for name, value, start in cases:
            content, is_error = await ts.call(name, value)
            orjson.dumps(content)
            assert is_error and content[0]["text"].startswith(start), content
            assert "failed (" not in content[0]["text"], content
        assert await context.tabs[0].evaluate("document.getElementById('name').value") == "Ada"
    finally:
        await ts.close()


async def test_mcp_answers_a_lone_surrogate_in_a_name(browser: cdp_engine.Browser) -> None:
    """Was a TypeError out of BrowserTools.call_raw (the envelope echoed the name and orjson refused it),
    or internal_error where a bad string reached Chromium."""
    manager = InstanceManager(Config(), browser=browser)
    try:
        tools = BrowserTools(manager)
        for name, args, kind in (
            ("\ud800", {}, "invalid_params"),
            ("browser_destroy_instance", {"name": "\ud88c"}, "invalid_params"),  # the envelope echoes it
            ("browser_create_instance", {"name": "t"}, None),
            ("browser_pdf_save", {"instance": "t", "file_path": "\udda6\ud85d.pdf"}, "invalid_params"),
            # These reached the CDP send (internal_error, TypeError): refused as arguments now.
            ("browser_verify_text_visible", {"instance": "t", "text": "\ud81d"}, "invalid_params"),
            ("browser_wait_for", {"instance": "t", "text_gone": "\ud824"}, "invalid_params"),
            ("browser_evaluate", {"instance": "t", "expression": "\ud8d3"}, "invalid_params"),
            ("browser_set_local_storage", {"instance": "t", "origin": "http://x", "items": {"\ud800": "v"}}, "invalid_params"),
            # An origin Chromium cannot parse was internal_error ("Could not open ...: net::ERR_INVALID_URL").
            ("browser_set_local_storage", {"instance": "t", "origin": "http://[fe80::1%25eth0]/", "items": {}}, "invalid_params"),
        ):
            if kind is None:
                assert (await tools.call(name, args))["status"] == "success"
                continue
            envelope, raw = await tools.call_raw(name, args)
            assert envelope["status"] == "error" and envelope["error_type"] == kind, envelope
            assert orjson.loads(raw)["error_type"] == kind
    finally:
        await manager.close()
