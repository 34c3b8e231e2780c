"""Fuzzing every surface with malformed and hostile input (issue 14, Build 3): the one copy of the
generators and checks, used by tests/stress/test_fuzz.py (a few hundred inputs) and by
benchmarks/reliability.py (thousands).

    result = await fuzz_surface("mcp", browser, None, count=1000, seed=1)

Surfaces: "index" (ElementIndex.of(tab).act), "toolset" (BrowserToolset.call, every member),
"mcp" (BrowserTools.call, every tool) and "http" (POST /action with raw bodies). Inputs come from
hypothesis strategies built from each surface's own input schema: one valid-looking input per
name, then a field replaced by a hostile value (wrong type, huge or deeply nested, non-finite
number, unicode with lone surrogates, RTL and zero-width marks, odd URLs and schemes, paths with
`..` and symlinks), a required field dropped, an extra field added, or no object at all.

Examples are collected with `hypothesis.given` on a plain synchronous function that appends each
one to a list (generate phase only, no example database, `hypothesis.seed(seed)`), so the same seed
gives the same inputs and the async loop then plays them against the real browser: hypothesis'
own runner cannot await inside the suite's one session event loop.

Checks per input: no uncaught exception; the surface's error shape (index: one of the five codes,
never INTERNAL_BROWSER_ERROR for bad input; toolset: an is_error "Error: ..." text that is not the
fixed text of an unexpected exception; MCP: status error with an error_type from ERROR_TYPES, never
internal_error; HTTP: 400 with the protocol's state for a refusal, never 500); after any error the
page is as it was (URL, a hash of document.documentElement.outerHTML and the form's values); the call
ends within the surface's deadline (HANG_SECONDS; for MCP the fuzzed server's operation deadline,
MCP_DEADLINE, so a valid wait for absent text ends soon); no file is written outside the output folder
(or, for MCP's persistent profiles, the profile folder: a fuzzed profile_dir that is accepted makes its
profile there, inside the run's temporary folder, removed with it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import xxhash
from aiohttp import ClientSession, ClientTimeout, web
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cdp_engine.index.element_index import ElementIndex  # noqa: E402
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager  # noqa: E402
from cdp_engine.mcp_server.envelope import ERROR_TYPES  # noqa: E402
from cdp_engine.service import SERVICE, create_app  # noqa: E402
from cdp_engine.toolset import BrowserToolset, ToolsetConfig  # noqa: E402
from cdp_engine.toolset.inputs import MEMBER_NAMES  # noqa: E402
from cdp_engine.util import schema  # noqa: E402

SURFACES = ("index", "toolset", "mcp", "http")
INDEX_CODES = frozenset(
    {
        "ACTION_VALIDATION_FAILED",
        "INVALID_ELEMENT_INDEX",
        "ELEMENT_NOT_INTERACTIVE",
        "NAVIGATION_FAILED",
        "INTERNAL_BROWSER_ERROR",
    }
)
HANG_SECONDS = 20.0  # a generous bound per call: refusals take milliseconds, valid navigations < 1 s
DEADLINE_SLACK = 2.0
FIRST_FAILURES = 10
TOKEN = "fuzz-token-0123456789abcdef"
INSTANCE = "fz"
PROFILE_INSTANCE = "fzp"  # browser_create_instance with a fuzzed profile_dir

FORM_PAGE = """<!doctype html><html><head><meta charset=utf-8><title>fuzz form</title></head><body>
<form id="f" onsubmit="return false">
  <label>Name <input id="name" name="name" value="Ada"></label>
  <label>Bio <textarea id="bio" name="bio">hello</textarea></label>
  <label><input id="ok" type="checkbox" name="ok" checked> OK</label>
  <select id="pick" name="pick"><option value="a">A</option><option value="b" selected>B</option>
    <optgroup label="g"><option value="c">C</option></optgroup></select>
  <input id="file" type="file" name="file">
  <button id="go" type="button" onclick="document.getElementById('out').textContent = 'clicked'">Go</button>
</form>
<a id="link" href="#frag">link</a>
<p id="out">idle</p>
</body></html>"""

_FORM_VALUES = """JSON.stringify(Array.from(document.querySelectorAll('input,textarea,select'), e =>
  [e.id, e.type === 'checkbox' ? e.checked : e.type === 'file' ? e.files.length : e.value]))"""

# ----- hostile values --------------------------------------------------------------------------------

SPECIAL_TEXT = [
    "", " ", "\x00", "a\x00b", "\n\r\t", "\u202eevil\u202c", "\u200f\u05e9\u05dc\u05d5\u05dd", "\u200b\u200c\u200d\ufeff",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "\U0001f600\U0001f4a9", "e\u0301\u0301\u0301", "\ufffd", "\uffff",
    "\ud800", "a\udfffb", "\udbff\udc00\ud800", "null", "undefined", "NaN", "[]", "{}", "0", "-1", "1e999",
    "<script>alert(1)</script>", "'\"`;--", "${7*7}", "%s%n%x", "../../../../etc/passwd", "ref_1", "e1",
    "Control+Alt+Delete", "Meta+Shift+", "+", "Enter+Enter", "\\", "//", "#", "?",
]  # fmt: skip
ODD_URLS = [
    "javascript:alert(1)", "JaVaScRiPt:document.body.remove()", "  javascript:void(0)", "chrome://settings",
    "chrome://crash", "chrome://kill", "chrome://gpuhang", "file:///etc/passwd", "file:///", "data:text/html,<b>x</b>",
    "data:,", "about:config", "about:blank#blocked", "about:srcdoc", "view-source:http://127.0.0.1:1/",
    "chrome-error://chromewebdata/", "devtools://devtools/bundled/inspector.html", "blob:http://127.0.0.1/x",
    "filesystem:http://127.0.0.1/temporary/x", "ws://127.0.0.1:1/", "ftp://127.0.0.1/", "mailto:a@b", "tel:1",
    "intent://x#Intent;end", "http://[::1", "http://[::1]]/", "http://[:::]/", "http://[fe80::1%25eth0]/",
    "http://[1:2:3:4:5:6:7:8:9]/", "http://[::ffff:256.1.1.1]/", "http://256.256.256.256/", "http://1.2.3.4.5/",
    "http://0x100.0.0.1/", "http://127.0.0.1:99999/", "http://127.0.0.1:-1/", "http://127.0.0.1:1/",
    "http://a%00b/", "http://%zz/", "http://\u202e.com/", "http://\u200b/", "http:", "http://", "//127.0.0.1:1",
    "", " ", "relative/path", "?q", "#x", "http://x/" + "a" * 3000, "http://x/" + "a" * 2_200_000,
    "http://" + "a" * 300 + "/", "https://user:pass@127.0.0.1:1/", "http://127.0.0.1:1/\udcff",
]  # fmt: skip
NUMBERS: list[Any] = [
    math.nan, math.inf, -math.inf, -0.0, 0, -1, 1, 0.5, 1e308, -1e308, 5e-324, 2**31, 2**53, 2**53 + 1, 2**63,
    2**64 + 1, -(2**64) - 1, 10**400, True, False, "1", "NaN", None,
]  # fmt: skip
# Durations and timeouts: only values no surface accepts or that end at once, so a run stays short.
SHORT_NUMBERS: list[Any] = [math.nan, math.inf, -math.inf, -1, 0, 31, 1e308, 2**64 + 1, "1", None, True, [0.1]]
SLOW_KEYS = frozenset({"duration", "timeout", "delay", "wait_ms", "timeout_ms"})
# MCP browser_wait_for caps `time` at 30 s instead of refusing more: only values refused or ending at once.
TIME_NUMBERS: list[Any] = [math.nan, math.inf, -math.inf, -1, -1e308, 0, 0.01, "1", None, True, [0.1]]
MCP_DEADLINE = 8.0  # the fuzzed MCP server's operation deadline: a valid wait for absent text ends there


def deep_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def deep_dict(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def weighted(strategies: list[st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of the strategies, each entry as likely as the next, so a strategy listed three times is drawn
    three times as often. st.one_of cannot weigh: it keeps one copy of a strategy listed several times."""
    return st.sampled_from(strategies).flatmap(lambda strategy: strategy)


@cache
def text_values() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(SPECIAL_TEXT),
        st.text(max_size=30),
        st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3),
        st.text(alphabet=st.sampled_from("\u200b\u200e\u200f\u202a\u202e\u2066\ufeff\u05d0\u0627a/.%"), max_size=12),
        st.integers(5_000, 300_000).map(lambda n: "x" * n),
    )


@cache
def path_values(root: Path) -> st.SearchStrategy[str]:
    up, out, profiles = root / "uploads", root / "out", root / "profiles"
    fixed = [
        "../escape-profile", str(profiles / "link-out" / "escape-profile"), str(profiles), "profile-a",
        "../../../../etc/passwd", "..", ".", "/", "/etc/passwd", "/etc/shadow", "/proc/self/environ", "/dev/zero",
        "/dev/stdin", "~/.ssh/id_rsa", "C:\\Windows\\win.ini", "\\\\server\\share\\x", "file:///etc/passwd", "",
        "a\x00b", "\ud800.png", str(up / "link"), str(up / "dirlink" / "etc" / "passwd"), str(up / ".." / "secret.txt"),
        str(up / "missing.txt"), str(up) + "/", str(root / "secret.txt"), str(out / ".." / "escape.png"),
        "../escape.pdf", "sub/../../escape2.png", str(out / "link-out" / "escape3.png"), "x" * 5000,
        "/" + "a/" * 2000, "out.png", "sub/dir/out.pdf",
    ]  # fmt: skip
    return st.one_of(st.sampled_from(fixed), text_values())


@cache
def leaf_values() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.sampled_from(NUMBERS),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        text_values(),
        st.sampled_from(ODD_URLS),
    )


@cache
def any_values() -> st.SearchStrategy[Any]:
    nested = st.recursive(
        leaf_values(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text_values(), inner, max_size=4),
        max_leaves=8,
    )
    deep = st.one_of(st.integers(50, 20_000).map(deep_list), st.integers(50, 20_000).map(deep_dict))
    huge = st.one_of(
        st.integers(10_000, 100_000).map(lambda n: list(range(n))),
        st.integers(1_000, 20_000).map(lambda n: {f"k{i}": i for i in range(n)}),
    )
    return weighted([nested, nested, nested, deep, huge])


def typed_values(key: str, prop: dict[str, Any], root: Path) -> st.SearchStrategy[Any]:
    """A hostile value for one field: mostly of about the right kind, sometimes anything."""
    kind = prop.get("type")
    return _typed_values(key, kind if isinstance(kind, str) else None, root)


@cache  # strategies are built once: hypothesis validates each new one, which is slow
def _typed_values(key: str, kind: str | None, root: Path) -> st.SearchStrategy[Any]:
    if key in SLOW_KEYS:
        return st.sampled_from(SHORT_NUMBERS)
    if key == "time":
        return st.sampled_from(TIME_NUMBERS)
    low = key.lower()
    pools: list[st.SearchStrategy[Any]] = [any_values()]
    if "url" in low or low in ("origin", "urls"):
        pools += [st.sampled_from(ODD_URLS)] * 3
    if "path" in low or low in ("filename", "file_path", "profile_dir", "paths"):
        pools += [path_values(root)] * 3
    if kind == "array" and ("path" in low or low == "urls"):
        inner = path_values(root) if "path" in low else st.sampled_from(ODD_URLS)
        pools += [st.lists(inner, min_size=1, max_size=3)] * 3
    if kind in ("number", "integer"):
        pools += [st.sampled_from(NUMBERS), st.floats(allow_nan=True, allow_infinity=True)] * 2
    if kind == "string" or kind is None:
        pools += [text_values()] * 2
    return weighted(pools)


# ----- inputs from a schema -----------------------------------------------------------------------


def _deref(s: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in s:
        node: Any = root
        for part in s["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        s = node
    return s


def base_value(s: dict[str, Any], root: dict[str, Any], key: str, bases: dict[str, Any]) -> Any:
    """A plausible valid value for schema `s` (so a single hostile field is what gets refused)."""
    s = _deref(s, root)
    if key in bases:
        return bases[key]
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return s["enum"][0]
    for alt in ("oneOf", "anyOf"):
        if alt in s:
            return base_value(s[alt][0], root, key, bases)
    kind = s.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        return {k: base_value(p, root, k, bases) for k, p in s.get("properties", {}).items() if k in s.get("required", ())}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return max(1, s.get("minimum", 1))
    return "x"


def props_of(s: dict[str, Any], root: dict[str, Any]) -> dict[str, dict[str, Any]]:
    s = _deref(s, root)
    return {k: _deref(p, root) for k, p in s.get("properties", {}).items()}


@st.composite
def object_inputs(draw: Any, specs: dict[str, tuple[dict[str, Any], dict[str, Any]]], bases: dict[str, Any], root: Path, name_key: str | None) -> tuple[str, Any]:
    """(name, input): a valid-looking input for a random name with one or two hostile changes."""
    name = draw(st.sampled_from(sorted(specs)))
    s, doc = specs[name]
    value = base_value(s, doc, "", bases)
    props = props_of(s, doc)
    if name_key is not None:
        props.pop(name_key, None)  # the index's "action" names the alternative: kept, or changed below
    required = [k for k in _deref(s, doc).get("required", ()) if k != name_key]
    how = draw(st.sampled_from(["field", "field", "field", "field", "two", "drop", "extra", "top", "name"]))
    if how == "top":
        return name, draw(any_values())
    if how == "name" and name_key is not None:
        value[name_key] = draw(st.one_of(text_values(), st.sampled_from(NUMBERS)))
        return name, value
    if how == "drop" and required:
        del value[draw(st.sampled_from(required))]
        return name, value
    if how == "extra" or not props:
        value[draw(text_values())] = draw(any_values())
        return name, value
    for _ in range(2 if how == "two" else 1):
        key = draw(st.sampled_from(sorted(props)))
        value[key] = draw(typed_values(key, props[key], root))
    return name, value


def generate(strategy: st.SearchStrategy[Any], count: int, seed: int) -> list[Any]:
    """`count` examples of `strategy`, the same ones for the same seed (see the module docstring)."""
    out: list[Any] = []
    attempt = 0
    while len(out) < count and attempt < 5:

        @settings(
            max_examples=count - len(out),
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @hypothesis_seed(seed * 7919 + attempt)
        @given(strategy)
        def collect(example: Any) -> None:
            out.append(example)

        collect()
        attempt += 1
    return out[:count]


def tool_specs(surface: str, page_url: str) -> tuple[dict[str, tuple[dict[str, Any], dict[str, Any]]], dict[str, Any], str | None]:
    """(schema per name, base values by field name, the field naming the alternative) of a surface."""
    bases: dict[str, Any] = {"url": page_url, "instance": INSTANCE, "ref": "e1", "text": "hi", "tab_id": "1"}
    if surface in ("index", "http"):
        doc = schema.raw_schemas()["action"]
        specs = {n: (doc["$defs"][n], doc) for n in ("click_element", "input_text", "select_option", "scroll",
                                                      "navigate", "finish_task", "fail_task")}  # fmt: skip
        bases.update({"element_index": 1, "option_index": 1, "message": "done", "direction": "down"})
        return specs, bases, "action"
    if surface == "toolset":
        doc = schema.tool_schema("browser-toolset")
        return {n: (doc["members"][n], doc) for n in MEMBER_NAMES}, bases, None
    tools = BrowserTools(InstanceManager(Config()))
    specs = {t["name"]: (t["inputSchema"], t["inputSchema"]) for t in tools.list_tools()}
    bases.update({"name": "fz2", "expression": "1", "code": "return 1", "action": "list", "key": "a"})
    return specs, bases, None


def inputs(surface: str, page_url: str, root: Path, count: int, seed: int) -> list[tuple[str, Any]]:
    """The surface's generated (name, input) pairs; for HTTP the input is the raw request body."""
    specs, bases, name_key = tool_specs(surface, page_url)
    objects = object_inputs(specs, bases, root, name_key)
    if surface == "index":
        strategy = weighted([objects, objects, objects, raw_bodies(objects).map(lambda b: ("raw", b))])
        return [(n, v) for n, v in generate(strategy, count, seed)]
    if surface == "http":
        return [("raw", b) for b in generate(raw_bodies(objects), count, seed)]
    names = st.one_of(st.sampled_from(["", "unknown", "navigate ", "__class__", "\ud800"]), text_values())
    odd_name = st.tuples(names, st.just({}))
    choices = [*[objects] * 15, odd_name]
    if surface == "mcp":  # profile_dir is one field of sixteen of one tool of many: drawn on its own too
        profile = st.fixed_dictionaries({"name": st.just(PROFILE_INSTANCE), "profile_dir": path_values(root)})
        choices += [st.tuples(st.just("browser_create_instance"), profile)] * 2
        # A folder that climbs out of the profile root: drawn on its own, so that it does not depend on how the
        # installed Hypothesis happens to draw from the paths above (40 draws of them held none with one version).
        climbs = ["../escape-profile", "..", "../../../../etc/passwd", "sub/../../escape-profile"]
        escape = st.fixed_dictionaries({"name": st.just(PROFILE_INSTANCE), "profile_dir": st.sampled_from(climbs)})
        choices += [st.tuples(st.just("browser_create_instance"), escape)]
        # So is a navigation's URL: the hostile schemes must not depend on how many tools the server lists.
        odd_url = st.fixed_dictionaries({"instance": st.just("fz2"), "url": st.sampled_from(ODD_URLS)})
        choices += [st.tuples(st.just("browser_navigate"), odd_url)]
        # And numbers that are no JSON numbers: how often the pools above yield them depends on the installed
        # Hypothesis and on the constants it collects from every local module loaded so far (a clean-clone CI
        # run with the tests in folders drew no infinity in 600 inputs).
        odd_number = st.sampled_from([math.nan, math.inf, -math.inf])
        odd_xy = st.fixed_dictionaries({"instance": st.just("fz2"), "x": odd_number, "y": odd_number})
        choices += [st.tuples(st.just("browser_mouse_move_xy"), odd_xy)]
    return generate(weighted(choices), count, seed)


def raw_bodies(objects: st.SearchStrategy[tuple[str, Any]]) -> st.SearchStrategy[bytes]:
    """Request bodies: generated actions as JSON text (NaN and lone-surrogate escapes kept), or raw junk."""

    def dumps(pair: tuple[str, Any]) -> bytes:
        try:
            return json.dumps(pair[1], allow_nan=True).encode()
        except (RecursionError, ValueError, TypeError):
            return b"[" * 5000 + b"]" * 5000

    junk = st.one_of(
        st.sampled_from(
            [
                b"", b" ", b"null", b"[]", b"{}", b"{", b'{"action":', b'{"action": "click_element"', b"\xff\xfe\x00",
                b"\xef\xbb\xbf{}", b'{"action": "navigate", "url": "\xff"}', b"[" * 5000 + b"]" * 5000,
                b'{"a":' * 50_000, b'{"action": "click_element", "element_index": 18446744073709551617}',
                b'{"action": "click_element", "element_index": 1e999}', b'{"action": "scroll", "direction": "down", '
                b'"pixels": NaN}', b'{"action": "input_text", "element_index": 1, "text": "\\ud800"}',
                b'{"action": "finish_task", "action": "fail_task"}', b'{"action": "navigate", "url": "javascript:1"}',
                b"1" * 100_000, b'"' + b"a" * 900_000 + b'"',
            ]
        ),
        st.binary(max_size=64),
        text_values().map(lambda t: t.encode("utf-8", "surrogatepass")),
    )  # fmt: skip
    return weighted([objects.map(dumps)] * 3 + [junk])


# ----- the surfaces -------------------------------------------------------------------------------


class Verdict:
    """What one call did: an error (a refusal or failure) or not, and what was wrong with it."""

    def __init__(
        self, error: bool, wrong: str | None = None, uncaught: str | None = None, http_500: bool = False,
        nav_failure: bool = False,
    ) -> None:
        self.error = error
        # A navigation the browser attempted and that failed (net::ERR_…, a timeout): the toolset and MCP
        # report it as a browser would, leaving the tab on Chromium's error page; no refusal, so the
        # page-unchanged check does not apply (the index protocol restores the page: checked there).
        self.nav_failure = nav_failure
        self.wrong = wrong
        self.uncaught = uncaught
        self.http_500 = http_500


async def fingerprint(tabs: list[Any]) -> Any:
    """URL, DOM hash and form values of every tab (the surface's pages)."""
    out = []
    for tab in tabs:
        html, values = await tab.evaluate(f"[document.documentElement?.outerHTML ?? '', {_FORM_VALUES}]")
        out.append((tab.url, xxhash.xxh64_hexdigest(html.encode("utf-8", "surrogatepass")), values))
    return out


class Surface:
    name = ""
    deadline = HANG_SECONDS  # the surface's own bound for one call, checked with a little slack

    def __init__(self, browser: Any, page_url: str, root: Path) -> None:
        self.browser, self.page_url, self.root = browser, page_url, root

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    def tabs(self) -> list[Any]:
        raise NotImplementedError

    async def call(self, name: str, value: Any) -> Verdict:
        raise NotImplementedError

    async def reset(self) -> None:
        """Back to the pristine page after an input that was accepted and changed something."""
        await self.stop()
        await self.start()


class IndexSurface(Surface):
    name = "index"

    async def start(self) -> None:
        self.context = await self.browser.new_context()
        self.tab = await self.context.new_tab(self.page_url)
        await ElementIndex.of(self.tab).state(screenshot=False)

    async def stop(self) -> None:
        await self.context.close()

    def tabs(self) -> list[Any]:
        return [self.tab]

    async def call(self, name: str, value: Any) -> Verdict:
        state = await ElementIndex.of(self.tab).act(value, screenshot=False)
        return check_state(state)


def check_state(state: Any) -> Verdict:
    if not isinstance(state, dict):
        return Verdict(True, wrong=f"not a state: {type(state).__name__}")
    try:
        orjson.dumps(state)
    except (orjson.JSONEncodeError, TypeError) as exc:
        return Verdict(True, wrong=f"state not serialisable: {exc}")
    problems = schema.validate("state", state)
    if problems:
        return Verdict(True, wrong=f"state off schema: {problems[:2]}")
    error = state.get("error")
    if error is None:
        return Verdict(False)
    code = error.get("code")
    if code not in INDEX_CODES:
        return Verdict(True, wrong=f"unknown code {code!r}")
    if code == "INTERNAL_BROWSER_ERROR":
        return Verdict(True, wrong=f"INTERNAL_BROWSER_ERROR for bad input: {error.get('message', '')[:200]}")
    return Verdict(True)


class ToolsetSurface(Surface):
    name = "toolset"

    async def start(self) -> None:
        self.context = await self.browser.new_context()
        config = ToolsetConfig(configs={"file_upload": {"enabled": True}}, upload_roots=[str(self.root / "uploads")])
        self.toolset = await BrowserToolset(self.browser, context=self.context, config=config).start()
        await self.context.tabs[0].goto(self.page_url)

    async def stop(self) -> None:
        await self.toolset.close()
        await self.context.close()

    def tabs(self) -> list[Any]:
        return list(self.context.tabs)

    async def call(self, name: str, value: Any) -> Verdict:
        content, is_error = await self.toolset.call(name, value)
        if not isinstance(content, list) or not content:
            return Verdict(bool(is_error), wrong="empty content")
        orjson.dumps(content)
        if not is_error:
            return Verdict(False)
        text = content[0].get("text", "")
        if not text.startswith("Error: "):
            return Verdict(True, wrong=f"error text {text[:100]!r}")
        if text.startswith(f"Error: {name} failed ("):  # the fixed text of an unexpected exception
            return Verdict(True, uncaught=text[:200])
        nav = name == "navigate" and text.startswith("Error: Navigation to ") and ("failed (net" in text or "timed out" in text)
        return Verdict(True, nav_failure=nav)


class MCPSurface(Surface):
    name = "mcp"
    deadline = MCP_DEADLINE

    async def start(self) -> None:
        config = Config(
            output_dir=str(self.root / "out"),
            upload_roots=(str(self.root / "uploads"),),
            profile_root=str(self.root / "profiles"),  # an accepted fuzzed profile_dir is made here, never elsewhere
            operation_timeout=MCP_DEADLINE,
        )
        self.manager = InstanceManager(config, browser=self.browser)
        self.tools = BrowserTools(self.manager)
        for tool, args in (("browser_create_instance", {"name": INSTANCE}),
                           ("browser_navigate", {"instance": INSTANCE, "url": self.page_url})):  # fmt: skip
            envelope = await self.tools.call(tool, args)
            if envelope["status"] != "success":
                raise RuntimeError(f"{tool}: {envelope}")

    async def stop(self) -> None:
        await self.manager.close()

    def tabs(self) -> list[Any]:
        instance = self.manager.get(INSTANCE)
        return [page.tab for page in instance.pages] if instance is not None else []

    async def call(self, name: str, value: Any) -> Verdict:
        # call_raw: the JSON bytes the server sends (a lone surrogate echoed back is written as U+FFFD).
        _, raw = await self.tools.call_raw(name, value if isinstance(value, dict) else {"value": value})
        envelope = orjson.loads(raw)
        if envelope.get("status") == "success":
            if name == "browser_create_instance" and isinstance(value, dict) and value.get("name") != INSTANCE:
                return await self._created(envelope["data"])
            return Verdict(False)
        kind = envelope.get("error_type")
        if envelope.get("status") != "error" or kind not in ERROR_TYPES:
            return Verdict(True, wrong=f"envelope {str(envelope)[:200]}")
        if kind == "internal_error":
            return Verdict(True, wrong=f"internal_error: {envelope.get('message', '')[:200]}")
        return Verdict(True, nav_failure=kind in ("navigation_failed", "navigation_timeout"))

    async def _created(self, summary: dict[str, Any]) -> Verdict:
        """An accepted create: its profile must be inside the profile folder; destroyed again so the run
        keeps its instance slots and its name (the profile stays, in the run's temporary folder)."""
        await self.tools.call("browser_destroy_instance", {"name": summary["name"]})
        profile = summary.get("profile_dir")
        if profile is not None and not Path(profile).is_relative_to(self.root.resolve() / "profiles"):
            return Verdict(False, wrong=f"a profile made outside the profile folder: {profile!r}")
        return Verdict(False)


class HTTPSurface(Surface):
    name = "http"

    async def start(self) -> None:
        self.app = create_app(self.browser, token=TOKEN, start_url=self.page_url)
        self.runner = web.AppRunner(self.app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.base = f"http://127.0.0.1:{self.runner.addresses[0][1]}"
        self.http = ClientSession(timeout=ClientTimeout(total=HANG_SECONDS * 2))

    async def stop(self) -> None:
        await self.http.close()
        await self.runner.cleanup()

    def tabs(self) -> list[Any]:
        tab = self.app[SERVICE].tab_
        return [tab] if tab is not None else []

    async def call(self, name: str, value: Any) -> Verdict:
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        async with self.http.post(self.base + "/action?screenshot=0", data=value, headers=headers) as resp:
            status, body = resp.status, await resp.read()
        if status >= 500:
            return Verdict(True, http_500=True, wrong=f"HTTP {status}: {body[:200]!r}")
        if status == 413:  # a body over the service's bound: refused before it is read as an action
            return Verdict(True) if b"error" in body else Verdict(True, wrong="413 without a JSON error")
        if status not in (200, 400):
            return Verdict(True, wrong=f"HTTP {status}: {body[:200]!r}")
        verdict = check_state(orjson.loads(body))
        if status == 400 and not (verdict.error and verdict.wrong is None):
            return Verdict(True, wrong=verdict.wrong or "400 without an error")
        return verdict


SURFACE_CLASSES: dict[str, type[Surface]] = {
    "index": IndexSurface, "toolset": ToolsetSurface, "mcp": MCPSurface, "http": HTTPSurface,
}  # fmt: skip


# ----- the run ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def serve_form() -> AsyncIterator[str]:
    """FORM_PAGE on a loopback port of its own, for a run given no site."""
    app = web.Application()
    app.router.add_get("/{tail:.*}", lambda _: web.Response(text=FORM_PAGE, content_type="text/html"))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/fuzz-form"
    finally:
        await runner.cleanup()


def make_root() -> Path:
    """A temporary folder: uploads/ (a file, a symlink to /etc/passwd and one to /), out/ and profiles/
    (each with a link out)."""
    root = Path(tempfile.mkdtemp(prefix="cdp-engine-fuzz-"))
    (root / "uploads").mkdir()
    (root / "out").mkdir()
    (root / "profiles").mkdir()
    (root / "uploads" / "a.txt").write_text("upload me")
    (root / "secret.txt").write_text("outside the upload folder")
    os.symlink("/etc/passwd", root / "uploads" / "link")
    os.symlink("/", root / "uploads" / "dirlink")
    os.symlink(str(root), root / "out" / "link-out")
    os.symlink(str(root), root / "profiles" / "link-out")
    return root


def _outside_files(root: Path) -> set[str]:
    """Files and folders in the run's folder that no call should make: everything but what is inside out/
    and profiles/ (an accepted profile_dir's profile)."""
    found = set()
    for folder, dirs, names in os.walk(root):  # never follows the symlinks (one of them points at /)
        for name in names + dirs:
            path = Path(folder, name)
            allowed = path.is_relative_to(root / "out") or path.is_relative_to(root / "profiles")
            if not path.is_symlink() and not allowed:
                found.add(str(path.relative_to(root)))
    return found


async def fuzz_surface(name: str, browser: Any, site_url: str | None, count: int, seed: int) -> dict[str, Any]:
    """Play `count` generated inputs against one surface of `browser`; the figures of the run.

    `site_url` is a page serving FORM_PAGE (None: the run serves one itself). An input that is
    accepted and changes the page is no failure; the surface is then reset to the form page."""
    if name not in SURFACE_CLASSES:
        raise ValueError(f"unknown surface {name!r}; one of {SURFACES}")
    async with contextlib.AsyncExitStack() as stack:
        if site_url is None:
            site_url = await stack.enter_async_context(serve_form())
        root = make_root()
        stack.callback(shutil.rmtree, root, True)
        return await _run(SURFACE_CLASSES[name](browser, site_url, root), count, seed)
    raise AssertionError("unreachable")


def _short(value: Any, limit: int = 300) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


async def _run(surface: Surface, count: int, seed: int) -> dict[str, Any]:
    result: dict[str, Any] = {
        "surface": surface.name, "inputs": 0, "uncaught": 0, "http_500": 0, "wrong_codes": 0, "page_changes": 0,
        "hangs": 0, "slowest_ms": 0.0, "accepted": 0, "nav_failures": 0, "resets": 0, "first_failures": [],
    }  # fmt: skip
    examples = inputs(surface.name, surface.page_url, surface.root, count, seed)
    before_files = _outside_files(surface.root)
    await surface.start()

    def fail(kind: str, name: str, value: Any, detail: str) -> None:
        result[kind] += 1
        if len(result["first_failures"]) < FIRST_FAILURES:
            result["first_failures"].append({"kind": kind, "name": name, "input": _short(value), "detail": detail})

    try:
        pristine = await fingerprint(surface.tabs())
        for name, value in examples:
            result["inputs"] += 1
            t0 = time.perf_counter()
            verdict: Verdict | None = None
            try:
                async with asyncio.timeout(surface.deadline * 2):
                    verdict = await surface.call(name, value)
            except TimeoutError:
                fail("hangs", name, value, f"no answer within {surface.deadline * 2:.0f} s")
            except Exception as exc:  # the figure this run counts
                fail("uncaught", name, value, f"{type(exc).__name__}: {str(exc)[:200]}")
            ms = (time.perf_counter() - t0) * 1000
            result["slowest_ms"] = max(result["slowest_ms"], round(ms, 1))
            if verdict is not None and ms > (surface.deadline + DEADLINE_SLACK) * 1000:
                fail("hangs", name, value, f"answered after {ms:.0f} ms")
            if verdict is not None:
                if verdict.http_500:
                    result["http_500"] += 1
                if verdict.uncaught:
                    fail("uncaught", name, value, verdict.uncaught)
                elif verdict.wrong:
                    fail("wrong_codes", name, value, verdict.wrong)
            try:
                now = await fingerprint(surface.tabs())
            except Exception as exc:  # a page the surface left unusable
                now = f"unreadable: {type(exc).__name__}: {exc}"
            if now != pristine:
                if verdict is not None and verdict.nav_failure:
                    result["nav_failures"] += 1
                elif verdict is None or verdict.error:
                    fail("page_changes", name, value, f"{_short(pristine, 200)} -> {_short(now, 200)}")
                else:
                    result["accepted"] += 1
                result["resets"] += 1
                await surface.reset()
                pristine = await fingerprint(surface.tabs())
            elif verdict is not None and not verdict.error:
                result["accepted"] += 1
    finally:
        await surface.stop()
    escaped = _outside_files(surface.root) - before_files
    if escaped:
        fail("wrong_codes", "files", sorted(escaped), "written outside the output folder")
    return result


async def fuzz_all(browser: Any, count: int, seed: int, surfaces: tuple[str, ...] = SURFACES) -> list[dict[str, Any]]:
    """fuzz_surface for each surface in turn, on one served form page."""
    async with serve_form() as url:
        return [await fuzz_surface(name, browser, url, count, seed) for name in surfaces]


async def _main(count: int, seed: int, surfaces: tuple[str, ...]) -> None:
    import cdp_engine

    async with cdp_engine.launch() as browser:
        for result in await fuzz_all(browser, count, seed, surfaces):
            print(json.dumps(result, indent=1), flush=True)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--surface", action="append", choices=SURFACES)
    args = parser.parse_args()
    asyncio.run(_main(args.count, args.seed, tuple(args.surface or SURFACES)))
