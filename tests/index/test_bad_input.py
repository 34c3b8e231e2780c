"""Issue 14, bad input: malformed URLs, hostile action text and values, and form controls the index
must describe as the DOM does. Every refusal returns the previous state plus an error (or an HTTP
400), never an exception, an HTTP 500 or a changed page. Real Chromium, served pages.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
import pytest_asyncio
from aiohttp import ClientSession, web

import cdp_engine
from cdp_engine.core.policies import MAX_URL_CHARS, NavigationPolicy, Policies, PolicyError
from cdp_engine.errors import NavigationError
from cdp_engine.index.actions import ActionValidationError, parse_action
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.service import create_app
from cdp_engine.toolset import BrowserToolset, ToolsetConfig
from cdp_engine.util import schema

TOKEN = "bad-input-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
_n = itertools.count(1)

PAGE = """<!doctype html><title>bad input</title>
<button id="b" onclick="document.getElementById('out').textContent = 'clicked'">Press me</button>
<input id="t" value="kept"><p id="out">idle</p>"""

BAD_URLS = [
    "http://[::1",  # defect 1: urlsplit raises ValueError
    "http://256.256.256.256/",  # defect 2: Chromium refuses it as a protocol error
    "http://1.2.3.256/x",
    "http://a.1/",  # a host ending in a number must be an IPv4 address
    "http://1.2.3.4.5/",
    "http://a<b/",  # a forbidden host character
    "http://" + "a" * (3 * 1024 * 1024),  # defect 2: beyond Chromium's 2 MB URL limit
    "about:config",  # defect 6: lands on about:blank#blocked
    "about:settings",
    "about:srcdoc",  # only an iframe's; a tab gets net::ERR_INVALID_URL
]


def serve(site: Any, html: str = PAGE) -> str:
    return site.add(f"/bad/{next(_n)}", html)


def valid_state(state: dict[str, Any]) -> dict[str, Any]:
    errors = schema.validate("state", state)
    assert not errors, errors
    orjson.dumps(state)  # always serialisable, failed_action included
    return state


async def fingerprint(tab: cdp_engine.Tab) -> tuple[str, Any]:
    value = await tab.evaluate("[location.href, document.body.innerHTML, document.getElementById('t')?.value]")
    return tab.url, value


async def refused(tab: cdp_engine.Tab, action: Any, code: str = "ACTION_VALIDATION_FAILED") -> dict[str, Any]:
    """act() refuses the action with `code`, returns the previous state and leaves the page as it was."""
    before = await tab.state(screenshot=False)
    seen = await fingerprint(tab)
    after = valid_state(await tab.act(action, screenshot=False))
    assert after["error"]["code"] == code, after["error"]
    assert {k: v for k, v in after.items() if k != "error"} == before
    assert await fingerprint(tab) == seen
    return after["error"]


# ----- navigation policy (defects 1, 2, 6) ----------------------------------------------------------


@pytest.mark.parametrize("url", BAD_URLS, ids=lambda u: u[:30])
def test_the_navigation_policy_refuses_bad_urls(url: str) -> None:
    for policy in (Policies.for_index(), Policies.for_service(), Policies.for_mcp(output_dir="/tmp"), Policies()):
        with pytest.raises(PolicyError) as info:
            policy.navigation.check(url)
        assert info.value.rule in ("navigation.url", "navigation.length", "navigation.scheme", "navigation.about")
        assert len(str(info.value)) < 500  # says why without echoing a 3 MB URL


def test_the_navigation_policy_says_why() -> None:
    policy = NavigationPolicy(frozenset({"http", "https", "about"}))
    with pytest.raises(PolicyError, match="not a valid URL"):
        policy.check("http://[::1")
    with pytest.raises(PolicyError, match="not a valid IPv4 address"):
        policy.check("http://256.256.256.256/")
    with pytest.raises(PolicyError, match=f"longer than {MAX_URL_CHARS:,}"):
        policy.check("http://x/" + "a" * MAX_URL_CHARS)
    with pytest.raises(PolicyError, match="about:blank"):
        policy.check("about:config")
    for good in (
        "about:blank",
        "ABOUT:BLANK",
        "about:blank#x",
        "http://255.255.255.255/",
        "http://127.0.0.1:8080/",
        "http://[::1]/",
        "http://1.2.3/",  # a dotted host of three numbers is a valid (IPv4 shorthand) address
        "http://example.com/" + "a" * 1000,
        "http://999.example.com/",
    ):
        assert policy.check(good) == good


# Hosts Chromium refuses as invalid URLs (checked against Chromium 156 by hand), refused by the policy.
BAD_HOSTS = [
    "http://:80/", "http://@/", "http://a:b@/", "http://%zz/", "http://%00/", "http://a%2Fb/", "http://a%3Cb/",
    "http://\u00ad/", "http://\u200b/", "http://%ef%bc%85/", "http://1.2.3.4%2e5/", "http://0x100.1.1.1/",
    "http://08.1.1.1/", "http://1..2/", "http://4294967296/", "http://12345678901234567890/", "http://a.b.c.d.e.f.256/",
    "http://a|b/", "http://a^b/", "http://a>b/",
]  # fmt: skip
# Hosts Chromium accepts (it resolves or connects to them): the policy lets them through.
GOOD_HOSTS = [
    "http://0x.1/", "http://0x7f.1/", "http://4294967295/", "http://\uff10\uff58\uff43\uff10/", "http://%41.com/",
    "http://\u00e4.com/", "http://a..b/", "http://-a.com/", "http://xn--a.com/", "http://a\u3002b/", "http://a b/",
    "http://user:pw@example.com/", "http://[::1]:65535/", "http://localhost./", "https://x/%",
]  # fmt: skip


@pytest.mark.parametrize("url", BAD_HOSTS)
def test_the_navigation_policy_refuses_hosts_chromium_refuses(url: str) -> None:
    with pytest.raises(PolicyError) as info:
        Policies.for_service().navigation.check(url)
    assert info.value.rule == "navigation.url"


@pytest.mark.parametrize("url", GOOD_HOSTS)
def test_the_navigation_policy_allows_hosts_chromium_accepts(url: str) -> None:
    assert Policies.for_service().navigation.check(url) == url


async def test_goto_reports_an_unparsable_url_as_a_failed_navigation(tab: cdp_engine.Tab, site: Any) -> None:
    """Tab.goto applies no policy: a URL Chromium cannot parse is its net::ERR_INVALID_URL, not a ProtocolError."""
    page = serve(site)
    await tab.goto(page)
    for url in ("http://256.256.256.256/", "http://a%2Fb/"):
        with pytest.raises(NavigationError, match="ERR_INVALID_URL") as info:
            await tab.goto(url, timeout=5)
        assert info.value.error_text == "net::ERR_INVALID_URL"
        assert tab.url == page and await tab.evaluate("location.href") == page


@pytest.mark.parametrize("url", BAD_URLS, ids=lambda u: u[:30])
async def test_act_refuses_bad_urls(tab: cdp_engine.Tab, site: Any, url: str) -> None:
    await tab.goto(serve(site))
    error = await refused(tab, {"action": "navigate", "url": url})
    assert error["message"].startswith("navigate: ")
    assert len(error["message"]) < 500


@pytest.mark.parametrize("url", BAD_URLS, ids=lambda u: u[:30])
async def test_toolset_navigate_refuses_bad_urls(
    browser: cdp_engine.Browser, context: cdp_engine.BrowserContext, site: Any, url: str
) -> None:
    ts = await BrowserToolset(
        browser, context=context, config=ToolsetConfig(allowed_schemes=("http", "https", "about"))
    ).start()
    try:
        content, is_error = await ts.call("navigate", {"url": serve(site)})
        assert not is_error, content
        content, is_error = await ts.call("navigate", {"url": url})
        assert is_error, content
        message = content[0]["text"]
        assert message.startswith("Error: ") and "ProtocolError" not in message, message
        assert len(message) < 500
    finally:
        await ts.close()


@pytest.mark.parametrize("url", BAD_URLS, ids=lambda u: u[:30])
async def test_mcp_navigate_refuses_bad_urls(browser: cdp_engine.Browser, site: Any, url: str) -> None:
    manager = InstanceManager(Config(), browser=browser)
    try:
        tools = BrowserTools(manager)
        env = await tools.call("browser_create_instance", {"name": "t"})
        assert env["status"] == "success", env
        env = await tools.call("browser_navigate", {"instance": "t", "url": serve(site)})
        assert env["status"] == "success", env
        env = await tools.call("browser_navigate", {"instance": "t", "url": url})
        assert env["status"] == "error" and env["error_type"] == "invalid_params", env
        assert env["operation"]["outcome"] == "not_started", env
        assert len(env["message"]) < 500
    finally:
        await manager.close()


# ----- hostile action text and values (defects 3, 4) -------------------------------------------------

DEEP_LIST = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 50_000 + "1" + "}" * 50_000
HUGE_INT = 18446744073709551617  # 2**64 + 1: beyond what orjson writes


def deep_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return {"action": "navigate", "url": "http://x/", "extra": value}


def deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "raw",
    [
        DEEP_LIST,
        DEEP_OBJECT,
        DEEP_LIST.encode(),
        deep_dict(50_000),
        deep_list(50_000),
        {"action": "click_element", "element_index": deep_list(50_000)},
        {"action": "click_element", "element_index": HUGE_INT},
        {"action": "click_element", "element_index": -HUGE_INT},
        {"action": "select_option", "element_index": 1, "option_index": HUGE_INT},
        {"action": "click_element", "element_index": 1, HUGE_INT: 1},  # a key orjson cannot write
        '{"action": "click_element", "element_index": 18446744073709551617}',
    ],
    ids=(
        "deep-list-text deep-object-text deep-list-bytes deep-dict deep-list deep-index huge-index "
        "huge-negative-index huge-option int-key huge-index-text"
    ).split(),
)
def test_parse_action_refuses_hostile_values(raw: Any) -> None:
    with pytest.raises(ActionValidationError) as info:
        parse_action(raw)
    error = info.value.to_error()
    assert error["code"] == "ACTION_VALIDATION_FAILED"
    assert len(error["message"]) < 2000
    orjson.dumps(error)  # failed_action is always serialisable


def test_huge_pixels_are_clamped() -> None:
    for pixels in (10**400, 2**53, 1e300):
        action = parse_action({"action": "scroll", "direction": "down", "pixels": pixels})
        assert action["pixels"] == 2**53 - 1 and type(action["pixels"]) is int
    assert parse_action({"action": "scroll", "direction": "down", "pixels": 2**53 - 1})["pixels"] == 2**53 - 1


def test_failed_action_keeps_huge_integers_as_text() -> None:
    """The documented choice: an integer orjson cannot write is kept as its decimal text."""
    with pytest.raises(ActionValidationError) as info:
        parse_action({"action": "click_element", "element_index": HUGE_INT})
    assert info.value.failed_action == {"action": "click_element", "element_index": str(HUGE_INT)}
    with pytest.raises(ActionValidationError) as info:
        parse_action('{"action": "click_element", "element_index": 18446744073709551617}')
    # From text, orjson reads an integer beyond 64 bits as a float: the decoded action is kept, as for any refusal.
    assert info.value.failed_action == {"action": "click_element", "element_index": float(HUGE_INT)}
    assert "element_index must be at most 9007199254740991 in size, got 1.8446744073709552e+19" in info.value.message
    with pytest.raises(ActionValidationError) as info:
        parse_action({"action": "click_element", "element_index": -1})
    assert info.value.failed_action == {"action": "click_element", "element_index": -1}  # unchanged when it can be


@pytest.mark.parametrize(
    "raw",
    [
        DEEP_LIST,
        deep_dict(50_000),
        {"action": "click_element", "element_index": HUGE_INT},
        {"action": "input_text", "element_index": 2, "text": "a\ud800"},  # a lone surrogate: no JSON text has one
        {"action": "navigate", "url": "http://x/\udfff"},
        {"action": "fail_task", "message": "\ud800"},
    ],
    ids=["deep-list-text", "deep-dict", "huge-index", "surrogate-text", "surrogate-url", "surrogate-message"],
)
async def test_act_refuses_hostile_values(tab: cdp_engine.Tab, site: Any, raw: Any) -> None:
    await tab.goto(serve(site))
    await refused(tab, raw)


@pytest_asyncio.fixture
async def service(browser: cdp_engine.Browser, site: Any) -> AsyncIterator[tuple[str, ClientSession]]:
    app = create_app(browser, token=TOKEN, start_url=serve(site))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    async with ClientSession() as http:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}", http
    await runner.cleanup()


@pytest.mark.parametrize(
    "body",
    [
        DEEP_LIST,
        '{"a":' * 50_000,  # unterminated, as the issue sent it
        DEEP_OBJECT[:1_000_000],
        '{"action": "click_element", "element_index": 18446744073709551617}',
        '{"action": "select_option", "element_index": 1, "option_index": -18446744073709551617}',
        '{"action": "navigate", "url": "http://[::1"}',
        '{"action": "navigate", "url": "http://256.256.256.256/"}',
        '{"action": "navigate", "url": "about:config"}',
    ],
    ids=["deep-list", "deep-open", "deep-object", "huge-index", "huge-option", "ipv6", "ipv4", "about-config"],
)
async def test_service_answers_400(service: tuple[str, ClientSession], body: str) -> None:
    url, http = service
    async with http.get(url + "/state?screenshot=0", headers=AUTH) as resp:
        assert resp.status == 200
        before = orjson.loads(await resp.read())
    async with http.post(url + "/action?screenshot=0", data=body, headers=AUTH) as resp:
        assert resp.status == 400, await resp.text()
        state = valid_state(orjson.loads(await resp.read()))
    assert state["error"]["code"] == "ACTION_VALIDATION_FAILED"
    assert {k: v for k, v in state.items() if k != "error"} == before


# ----- options in optgroups, a listbox without a selection (defect 16) -----------------------------

OPTGROUPS = """<!doctype html><title>groups</title>
<select id="car" name="car">
  <optgroup label="Swedish"><option value="volvo">Volvo</option><option value="saab" disabled>Saab</option></optgroup>
  <optgroup label="German" disabled><option value="audi">Audi</option></optgroup>
  <option value="other">Other</option>
</select>
<select id="list" name="list" size="3"><option>One</option><option>Two</option><option>Three</option></select>
<select id="grouped-list" name="grouped-list" size="4"><optgroup label="G"><option>Alpha</option><option>Beta</option></optgroup></select>
<p id="out"></p>
<script>
  for (const id of ['car', 'list', 'grouped-list'])
    document.getElementById(id).addEventListener('change', e => { out.textContent = id + '=' + e.target.value; });
  document.getElementById('list').selectedIndex = -1;
</script>"""


def by_text(state: dict[str, Any], text: str) -> tuple[int, dict[str, Any]]:
    found = [(int(k), d) for k, d in state["element_index"].items() if d["tag"] == "option" and d["text_content"] == text]
    assert len(found) == 1, (text, state["element_index"])
    return found[0]


def select_of(state: dict[str, Any], element_id: str) -> tuple[int, dict[str, Any]]:
    found = [(int(k), d) for k, d in state["element_index"].items() if d["attributes"]["name"] == element_id]
    assert len(found) == 1, (element_id, state["element_index"])
    return found[0]


async def test_options_in_optgroups_are_indexed_and_selectable(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(serve(site, OPTGROUPS))
    state = valid_state(await tab.state(screenshot=False))
    car, car_desc = select_of(state, "car")
    assert car_desc["attributes"]["value"] == "volvo"
    volvo, volvo_desc = by_text(state, "Volvo")
    saab, _ = by_text(state, "Saab")
    audi, _ = by_text(state, "Audi")
    other, _ = by_text(state, "Other")
    assert volvo_desc["tag"] == "option" and volvo_desc["attributes"]["value"] == "volvo"
    assert car < volvo < saab < audi < other  # document order, right after their select
    # select_option picks an option inside an optgroup; disabled ones (own or group) are refused.
    state = valid_state(await tab.act({"action": "select_option", "element_index": car, "option_index": other}))
    assert "error" not in state, state.get("error")
    state = valid_state(await tab.act({"action": "select_option", "element_index": car, "option_index": volvo}))
    assert "error" not in state, state.get("error")
    assert await tab.evaluate("out.textContent") == "car=volvo"
    for option in (saab, audi):
        state = valid_state(await tab.act({"action": "select_option", "element_index": car, "option_index": option}))
        assert state["error"]["code"] == "ELEMENT_NOT_INTERACTIVE", state["error"]
    assert await tab.evaluate("document.getElementById('car').value") == "volvo"


async def test_a_listbox_without_selection_has_the_doms_empty_value(tab: cdp_engine.Tab, site: Any) -> None:
    await tab.goto(serve(site, OPTGROUPS))
    state = valid_state(await tab.state(screenshot=False))
    assert await tab.evaluate("document.getElementById('list').value") == ""
    listbox, desc = select_of(state, "list")
    assert desc["attributes"]["value"] == "" and desc["text_content"] is None
    grouped, desc = select_of(state, "grouped-list")
    assert desc["attributes"]["value"] == ""
    beta, _ = by_text(state, "Beta")
    state = valid_state(await tab.act({"action": "select_option", "element_index": grouped, "option_index": beta}))
    assert "error" not in state, state.get("error")
    assert select_of(state, "grouped-list")[1]["attributes"]["value"] == "Beta"
    two, _ = by_text(state, "Two")
    state = valid_state(await tab.act({"action": "select_option", "element_index": listbox, "option_index": two}))
    assert select_of(state, "list")[1]["attributes"]["value"] == "Two"


async def test_service_refuses_a_body_over_its_limit_with_json(service: tuple[str, ClientSession]) -> None:
    """A 3 MB navigate (beyond the service's 1 MB body bound, and Chromium's 2 MB URL limit) is a JSON 413."""
    url, http = service
    body = orjson.dumps({"action": "navigate", "url": "http://x/" + "a" * (3 * 1024 * 1024)})
    async with http.post(url + "/action?screenshot=0", data=body, headers=AUTH) as resp:
        assert resp.status == 413 and resp.content_type == "application/json"
        assert "error" in orjson.loads(await resp.read())
    async with http.get(url + "/state?screenshot=0", headers=AUTH) as resp:
        assert resp.status == 200  # and the service still answers
