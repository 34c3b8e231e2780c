"""Harness mode: action strings, isolated episodes, parallel environments, task hooks, trajectories
and replay, remote browsers, worker processes and Ray.

In-process tests share the session browser and site from conftest. Only the worker-process and
Ray tests start Chromium processes of their own (that is what they test), one per worker.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest

import cdp_engine
from cdp_engine.harness import (
    BrowserEnv,
    ScriptedPolicy,
    TaskSpec,
    find_index,
    read_trajectory,
    replay,
    run_episode,
    run_in_processes,
    run_tasks,
    run_with_ray,
)
from cdp_engine.harness.bgym import BGymCall, is_bgym_text, parse_bgym, to_protocol
from cdp_engine.index.actions import ActionValidationError

TASK_PAGES = Path(__file__).resolve().parents[2] / "tools" / "tasks"
_counter = iter(range(1, 1_000_000))


def unique(prefix: str) -> str:
    return f"/h-{prefix}-{os.getpid()}-{next(_counter)}"


# ----- action strings: pure parsing ---------------------------------------------------------------

GOOD = [
    ("click('12')", "click", {"bid": 12, "button": "left", "modifiers": ()}),
    ('click("7", button="right")', "click", {"bid": 7, "button": "right", "modifiers": ()}),
    ("click(3, modifiers=['Shift'])", "click", {"bid": 3, "button": "left", "modifiers": ("Shift",)}),
    ("fill('12', 'text')", "fill", {"bid": 12, "value": "text"}),
    ("fill(bid='4', value='a \\'quoted\\' word')", "fill", {"bid": 4, "value": "a 'quoted' word"}),
    ("select_option('5', 'Green')", "select_option", {"bid": 5, "options": "Green"}),
    ("select_option('5', ['g'])", "select_option", {"bid": 5, "options": "g"}),
    ("press('2', 'Enter')", "press", {"bid": 2, "key_comb": "Enter"}),
    ("press('2', 'Control+a')", "press", {"bid": 2, "key_comb": "Control+a"}),
    ("keyboard_press('Shift+Tab')", "keyboard_press", {"key": "Shift+Tab"}),
    ("scroll(0, 200)", "scroll", {"delta_x": 0, "delta_y": 200}),
    ("scroll(-10.5, 0)", "scroll", {"delta_x": -10.5, "delta_y": 0}),
    ("goto('http://example.com/a?b=1')", "goto", {"url": "http://example.com/a?b=1"}),
    ("go_back()", "go_back", {}),
    ("go_forward()", "go_forward", {}),
    ("new_tab()", "new_tab", {}),
    ("tab_focus(1)", "tab_focus", {"index": 1}),
    ("tab_close()", "tab_close", {}),
    ("noop()", "noop", {"wait_ms": 1000}),
    ("noop(wait_ms=5)", "noop", {"wait_ms": 5}),
    ("send_msg_to_user('The answer is 42.')", "send_msg_to_user", {"text": "The answer is 42."}),
    ("report_infeasible('no such product')", "report_infeasible", {"reason": "no such product"}),
    ("check('9')", "check", {"bid": 9}),
    ("uncheck('9')", "uncheck", {"bid": 9}),
    ("mouse_click(10, 20.5)", "mouse_click", {"x": 10, "y": 20.5, "button": "left"}),
    ("drag_and_drop('1', '2')", "drag_and_drop", {"from_bid": 1, "to_bid": 2}),
    (
        "upload_file('3', ['/tmp/a.txt', '/tmp/b.txt'])",
        "upload_file",
        {"bid": 3, "file": ("/tmp/a.txt", "/tmp/b.txt")},
    ),
    ("  ```python\nclick('12')\n```  ", "click", {"bid": 12, "button": "left", "modifiers": ()}),
]


@pytest.mark.parametrize(("text", "name", "args"), GOOD)
def test_parse_good_action_strings(text: str, name: str, args: dict[str, Any]) -> None:
    [call] = parse_bgym(text)
    assert call.name == name
    assert call.args == args


def test_parse_several_calls_is_one_multi_action_step() -> None:
    calls = parse_bgym("fill('3', 'widget')\npress('3', 'Enter'); noop(0)")
    assert [c.name for c in calls] == ["fill", "press", "noop"]
    assert calls[1].source == "press('3', 'Enter')"


BAD = [
    ("", "empty action"),
    ("   ", "empty action"),
    ("click('12'", "not a valid action call"),
    ("click 12", "not a valid action call"),
    ("bogus('1')", "unknown action 'bogus'"),
    ("clik('1')", "unknown action 'clik'"),
    ("click()", "missing argument 'bid'"),
    ("click('1', 'left', [], 4)", "takes 3 argument(s), got 4"),
    ("click('1', colour='red')", "has no argument 'colour'"),
    ("click('1', bid='2')", "given twice"),
    ("click('a12')", "must be an element index"),
    ("click(True)", "must be an element index"),
    ("click('1', button='side')", "must be one of left, middle, right"),
    ("click('1', modifiers=['Hyper'])", "must be a list of"),
    ("fill('1', 42)", "must be a string"),
    ("fill('1')", "missing argument 'value'"),
    ("press('1', 'Entr')", "argument 'key_comb'"),
    ("keyboard_press('')", "must be a key name"),
    ("scroll('down', 100)", "must be a number"),
    ("scroll(0, float('nan'))", "arguments must be literals"),
    ("tab_focus('x')", "must be an integer"),
    ("select_option('1', ['a', 'b'])", "exactly one option"),
    ("click(x)", "arguments must be literals"),
    ("click(*args)", "*args and **kwargs"),
    ("os.system('true')", "not a known action"),
    ("__import__('os').system('true')", "not a known action"),
    ("x = click('1')", "only action calls are accepted"),
    ("import os", "only action calls are accepted"),
    ("click('1') + 1", "only action calls are accepted"),
    ("lambda: click('1')", "only action calls are accepted"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD)
def test_parse_bad_action_strings_say_why(text: str, fragment: str) -> None:
    with pytest.raises(ActionValidationError) as info:
        parse_bgym(text)
    assert fragment in info.value.message
    assert info.value.code == "ACTION_VALIDATION_FAILED"
    assert info.value.failed_action == text


def test_parse_never_evaluates(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    for text in (
        f"click(open({str(marker)!r}, 'w'))",
        f"fill('1', __import__('pathlib').Path({str(marker)!r}).touch())",
        f"noop()\n__import__('pathlib').Path({str(marker)!r}).touch()",
    ):
        with pytest.raises(ActionValidationError):
            parse_bgym(text)
    assert not marker.exists()


def test_protocol_json_text_is_not_taken_for_a_call() -> None:
    assert not is_bgym_text('{"action": "click_element", "element_index": 1}')
    assert is_bgym_text("click('1')")


def test_to_protocol_mapping() -> None:
    state = {
        "element_index": {
            "4": {"tag": "select", "text_content": "Red", "attributes": {"value": "r"}},
            "5": {"tag": "option", "text_content": "Red", "attributes": {"value": "r"}},
            "6": {"tag": "option", "text_content": "Dark  green", "attributes": {"value": "g"}},
        }
    }
    options = {4: [5, 6]}

    def one(text: str) -> dict[str, Any] | None:
        return to_protocol(parse_bgym(text)[0], state, options)

    assert one("click('3')") == {"action": "click_element", "element_index": 3}
    assert one("click('3', button='right')") is None
    assert one("fill('3', 'x')") == {
        "action": "input_text",
        "element_index": 3,
        "text": "x",
        "overwrite": True,
    }
    assert one("clear('3')") == {"action": "input_text", "element_index": 3, "text": "", "overwrite": True}
    assert one("goto('http://a.test/')") == {"action": "navigate", "url": "http://a.test/"}
    assert one("scroll(0, -300)") == {"action": "scroll", "direction": "up", "pixels": 300}
    assert one("scroll(120, 0)") == {"action": "scroll", "direction": "right", "pixels": 120}
    assert one("scroll(10, 10)") is None
    assert one("send_msg_to_user('hi')") == {"action": "finish_task", "message": "hi"}
    assert one("report_infeasible('no')") == {"action": "fail_task", "message": "no"}
    assert one("select_option('4', 'g')") == {
        "action": "select_option",
        "element_index": 4,
        "option_index": 6,
    }
    assert one("select_option('4', 'dark green')") == {
        "action": "select_option",
        "element_index": 4,
        "option_index": 6,
    }
    assert one("select_option('9', 'g')") is None
    with pytest.raises(ActionValidationError, match=r"no option with value or label 'Blue'.*'r' \('Red'\)"):
        one("select_option('4', 'Blue')")
    assert one("press('3', 'Enter')") is None
    assert one("go_back()") is None


def test_find_index_and_scripted_policy() -> None:
    index = {
        "1": {
            "tag": "input",
            "aria-label": None,
            "text_content": None,
            "attributes": {"name": "user", "placeholder": "Your name"},
        },
        "2": {
            "tag": "button",
            "aria-label": None,
            "text_content": "Sign in",
            "attributes": {"type": "submit"},
        },
        "3": {"tag": "a", "aria-label": "Help", "text_content": "?", "attributes": {"href": "/help"}},
    }
    assert find_index(index, "name=user") == 1
    assert find_index(index, "your NAME") == 1
    assert find_index(index, "text=sign in") == 2
    assert find_index(index, "tag=button&type=submit") == 2
    assert find_index(index, "Help") == 3
    assert find_index(index, "nothing") is None
    with pytest.raises(ValueError, match="unknown field"):
        find_index(index, "colour=red")
    policy = ScriptedPolicy({"t": ["fill({name=user}, 'me')", "click({Sign in})", "click({Nope})"]})
    task = TaskSpec("t", "/x")
    obs = {"element_index": index}
    assert policy(obs, {"step": 0}, task) == "fill('1', 'me')"
    assert policy(obs, {"step": 1}, task) == "click('2')"
    assert policy(obs, {"step": 2}, task) == "report_infeasible('no element matches {Nope}')"
    assert policy(obs, {"step": 3}, task) is None
    assert BGymCall("noop", {"wait_ms": 1})["wait_ms"] == 1


# ----- pages --------------------------------------------------------------------------------------

FORM = """<!doctype html><html><head><title>Form</title></head><body>
<h1>Form</h1>
<input id="name" aria-label="Name">
<select id="color" aria-label="Color"><option value="r">Red</option><option value="g">Green</option>
<option value="b">Blue</option></select>
<label><input type="checkbox" id="agree" aria-label="Agree"> Agree</label>
<input id="keys" aria-label="Keys">
<button id="dbl" ondblclick="this.textContent = 'Doubled'">Double me</button>
<button id="hov" onmouseenter="this.textContent = 'Hovered'">Hover me</button>
<a href="%(popup)s" target="_blank">Open help</a>
<p id="log"></p>
<div style="height: 3000px"></div>
<script>
document.getElementById('keys').addEventListener('keydown', e => {
  document.getElementById('log').textContent += e.key + (e.ctrlKey ? '+ctrl' : '') + ' ';
});
</script>
</body></html>"""


def _ids(obs: dict[str, Any]) -> dict[str, int]:
    """Element index by aria-label (first) or text, for the tests' own pages."""
    out: dict[str, int] = {}
    for field in ("aria-label", "text_content"):
        for key, desc in obs["element_index"].items():
            label = desc.get(field)
            if label and label not in out:
                out[label] = int(key)
    return out


# ----- the environment on real pages --------------------------------------------------------------


async def test_env_runs_action_strings(browser: cdp_engine.Browser, site: Any) -> None:
    popup = site.add(unique("help"), "<title>Help</title><h1>Help page</h1>")
    url = site.add(unique("form"), FORM % {"popup": popup})
    async with BrowserEnv(browser, read_page=True) as env:
        obs = await env.reset(url)
        assert obs["url"] == url and obs["read_page"] == obs["page_content"] and obs["screenshot"] == ""
        info = env.last_info
        assert info["tabs"] == [{"index": 0, "url": url, "title": "Form", "active": True}]
        assert set(info["timings"]) >= {"context_ms", "load_ms", "capture_ms", "reset_ms", "teardown_ms"}
        ids = _ids(obs)

        obs, info = await env.step(f"fill('{ids['Name']}', 'Ada Lovelace')")
        assert info["error"] is None and info["last_action_error"] == ""
        assert info["ran"] == [
            {"action": "input_text", "element_index": ids["Name"], "text": "Ada Lovelace", "overwrite": True}
        ]
        assert set(info["timings"]) >= {"action_ms", "settle_ms", "capture_ms", "step_ms"}
        assert info["timings"]["settle_ms"] > 0 and info["timings"]["capture_ms"] > 0
        assert await env.evaluate("document.getElementById('name').value") == "Ada Lovelace"

        obs, info = await env.step(f"select_option('{ids['Color']}', 'Blue')")
        assert info["error"] is None
        assert await env.evaluate("document.getElementById('color').value") == "b"
        obs, info = await env.step(f"select_option('{ids['Color']}', 'g')")
        assert await env.evaluate("document.getElementById('color').value") == "g"

        obs, info = await env.step(f"check('{ids['Agree']}')")
        assert info["error"] is None and await env.evaluate("document.getElementById('agree').checked")
        obs, info = await env.step(f"check('{ids['Agree']}')")  # already checked: nothing happens
        assert info["error"] is None and await env.evaluate("document.getElementById('agree').checked")
        obs, info = await env.step(f"uncheck('{ids['Agree']}')")
        assert not await env.evaluate("document.getElementById('agree').checked")
        obs, info = await env.step(f"check('{ids['Name']}')")
        assert info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE"

        obs, info = await env.step(f"press('{ids['Keys']}', 'Enter')\npress('{ids['Keys']}', 'Control+a')")
        assert info["error"] is None, info["error"]
        assert (
            await env.evaluate("document.getElementById('log').textContent") == "Enter Control+ctrl a+ctrl "
        )
        obs, info = await env.step("keyboard_type('typed')")
        assert await env.evaluate("document.getElementById('keys').value") == "typed"
        obs, info = await env.step(f"clear('{ids['Keys']}')")
        assert await env.evaluate("document.getElementById('keys').value") == ""

        obs, info = await env.step(f"dblclick('{ids['Double me']}')")
        assert (
            info["error"] is None
            and await env.evaluate("document.getElementById('dbl').textContent") == "Doubled"
        )
        obs, info = await env.step(f"hover('{ids['Hover me']}')")
        assert (
            info["error"] is None
            and await env.evaluate("document.getElementById('hov').textContent") == "Hovered"
        )

        obs, info = await env.step("scroll(0, 400)")
        assert info["ran"] == [{"action": "scroll", "direction": "down", "pixels": 400}]
        assert await env.evaluate("scrollY") == 400
        obs, info = await env.step("scroll(0, -100)\nscroll(5, 5)")
        assert await env.evaluate("scrollY") == 305
        obs, info = await env.step("scroll(-5, -305)")
        assert await env.evaluate("[scrollX, scrollY]") == [0, 0]

        # A link with target=_blank opens a popup: it becomes the active tab.
        obs, info = await env.step(f"click('{_ids(obs)['Open help']}')")
        assert info["error"] is None
        assert obs["url"] == popup and info["active_tab"] == 1 and len(info["tabs"]) == 2
        obs, info = await env.step("tab_focus(0)")
        assert obs["url"] == url and info["active_tab"] == 0
        obs, info = await env.step("tab_focus(5)")
        assert (
            info["error"]["code"] == "ACTION_VALIDATION_FAILED"
            and "2 tab(s) open" in info["error"]["message"]
        )
        obs, info = await env.step("new_tab()")
        assert obs["url"] == "about:blank" and info["active_tab"] == 2 and len(info["tabs"]) == 3
        obs, info = await env.step(f"goto('{popup}')")
        assert obs["url"] == popup
        obs, info = await env.step("go_back()")
        assert obs["url"] == "about:blank"
        obs, info = await env.step("go_forward()")
        assert obs["url"] == popup
        obs, info = await env.step("tab_close()")
        assert len(info["tabs"]) == 2 and info["active_tab"] == 1

        # Protocol action objects and their JSON text are accepted as they are.
        obs, info = await env.step(orjson.dumps({"action": "navigate", "url": url}).decode())
        assert obs["url"] == url and info["error"] is None
        obs, info = await env.step({"action": "scroll", "direction": "down", "pixels": 50})
        assert info["error"] is None

        obs, info = await env.step("noop(wait_ms=1)")
        assert info["error"] is None and not info["done"]
        obs, info = await env.step("send_msg_to_user('All done.')")
        assert info["done"] and info["message"] == "All done." and not info["infeasible"]


async def test_tab_closed_by_its_page_and_failed_reset(browser: cdp_engine.Browser, site: Any) -> None:
    closer = site.add(
        unique("closer"), "<title>Closer</title><button onclick='window.close()'>Close me</button>"
    )
    url = site.add(
        unique("opener"), f"<title>Opener</title><a href='{closer}' target='_blank'>Open closer</a>"
    )
    async with BrowserEnv(browser) as env:
        with pytest.raises(RuntimeError, match="reset"):
            await env.step("noop(0)")
        with pytest.raises(cdp_engine.NavigationError):
            await env.reset("http://127.0.0.1:1/")  # nothing listens there
        obs = await env.reset(url)  # the failed episode's context is disposed, the next one starts
        obs, info = await env.step(f"click('{_ids(obs)['Open closer']}')")
        assert obs["url"] == closer and len(info["tabs"]) == 2
        obs, info = await env.step(f"click('{_ids(obs)['Close me']}')")
        assert info["error"] is None, info["error"]
        assert obs["url"] == url and info["tabs"] == [
            {"index": 0, "url": url, "title": "Opener", "active": True}
        ]
        obs, info = await env.step("tab_close()")  # the last tab: a blank one takes its place
        assert obs["url"] == "about:blank" and len(info["tabs"]) == 1


async def test_malformed_action_changes_nothing(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(unique("form"), FORM % {"popup": "/"})
    async with BrowserEnv(browser) as env:
        obs = await env.reset(url)
        ids = _ids(obs)
        for bad in (
            f"fill('{ids['Name']}', 'x'",
            f"fill('{ids['Name']}', 'x')\nbogus()",
            f"press('{ids['Name']}', 'NoSuchKey')",
            "click(1",
        ):
            after, info = await env.step(bad)
            assert info["error"]["code"] == "ACTION_VALIDATION_FAILED"
            assert info["error"]["failed_action"] == bad
            assert info["last_action_error"].startswith("ACTION_VALIDATION_FAILED: ")
            assert after == obs  # the previous state, every field identical
        assert await env.evaluate("document.getElementById('name').value") == ""
        after, info = await env.step('{"action": "click_element"')  # protocol JSON that is not JSON
        assert info["error"]["code"] == "ACTION_VALIDATION_FAILED" and after == obs
        after, info = await env.step("click('999')")  # well formed, but no such element
        assert info["error"]["code"] == "INVALID_ELEMENT_INDEX" and after == obs
        assert info["error"]["failed_action"] == "click('999')"
        after, info = await env.step(f"select_option('{ids['Color']}', 'Purple')")
        assert (
            info["error"]["code"] == "ACTION_VALIDATION_FAILED"
            and "'g' ('Green')" in info["error"]["message"]
        )
        assert after == obs


async def test_reset_waits_for_the_environments_wait_until_and_no_more(browser: cdp_engine.Browser, site: Any) -> None:
    # The page's readiness is the environment's wait_until: a reset to "domcontentloaded" does not wait for
    # the load event an image holds back (it waited for load, 2 s here, before).
    from aiohttp import web

    image = unique("slow-image")

    async def slow_image(request: web.Request) -> web.Response:
        await asyncio.sleep(2.0)
        return web.Response(body=b"", content_type="image/gif")

    site.add_handler(image, slow_image)
    url = site.add(unique("dcl"), f"<title>dcl</title><p id=p>parsed</p><img src='{image}'>")
    async with BrowserEnv(browser, prewarm=False, wait_until="domcontentloaded") as env:
        t0 = time.monotonic()
        obs = await env.reset(url)
        took = time.monotonic() - t0
        assert "parsed" in obs["page_content"]
        assert took < 1.5, f"reset took {took:.2f} s: it waited past DOMContentLoaded"
        timings = env.last_info["timings"]
        assert {"navigation_ms", "ready_ms", "capture_ms", "load_ms", "reset_ms"} <= set(timings)


async def test_reset_disposes_the_old_context_once_the_new_page_is_up(browser: cdp_engine.Browser, site: Any) -> None:
    # A disposal keeps Chromium's browser process busy; during the next page's load it slowed that load.
    first = site.add(unique("first"), "<title>first</title><p>first</p>")
    second = site.add(unique("second"), "<title>second</title><p>second</p>")
    async with BrowserEnv(browser) as env:
        await env.reset(first)
        old = env.context
        assert old is not None
        reached: list[str | None] = []
        close = old.close

        async def recording_close() -> None:
            reached.append(env.active.url if env.active else None)  # how far the new episode had come
            await close()

        old.close = recording_close  # type: ignore[method-assign]
        obs = await env.reset(second)
        assert "second" in obs["page_content"]
        for _ in range(200):
            if reached and old.closed:
                break
            await asyncio.sleep(0.01)
        assert reached == [second], reached
        assert old.closed and old.id not in browser.contexts


async def test_episodes_are_isolated(browser: cdp_engine.Browser, site: Any) -> None:
    from aiohttp import web

    cached = unique("cached") + ".js"

    async def script(request: web.Request) -> web.Response:
        return web.Response(
            text="window.loaded = 1;",
            content_type="application/javascript",
            headers={"Cache-Control": "max-age=3600"},
        )

    site.add_handler(cached, script)
    url = site.add(unique("iso"), f"<title>iso</title><p>iso</p><script src='{cached}'></script>")
    read = (
        "({cookie: document.cookie, local: localStorage.getItem('k'), session: sessionStorage.getItem('k'),"
        " idb: (await indexedDB.databases()).map(d => d.name)})"
    )
    async with BrowserEnv(browser, prewarm=False) as env:
        await env.reset(url)
        first_context = env.context
        assert await env.evaluate("(async () => " + read + ")()") == {
            "cookie": "",
            "local": None,
            "session": None,
            "idb": [],
        }
        await env.evaluate(
            "document.cookie = 'k=1; max-age=3600'; localStorage.setItem('k', '1'); sessionStorage.setItem('k', '1');"
            "new Promise(r => { indexedDB.open('db1').onsuccess = r; })"
        )
        assert await env.evaluate("(async () => " + read + ")()") == {
            "cookie": "k=1",
            "local": "1",
            "session": "1",
            "idb": ["db1"],
        }
        await env.active.reload()  # type: ignore[union-attr]
        assert await env.evaluate("window.loaded") == 1
        assert site.hits[cached] == 1  # the reload served the script from this context's cache

        await env.reset(url)
        assert env.context is not first_context
        assert await env.evaluate("(async () => " + read + ")()") == {
            "cookie": "",
            "local": None,
            "session": None,
            "idb": [],
        }
        assert site.hits[cached] == 2  # a new context has a new, empty cache
    assert first_context is not None and first_context.closed and first_context.id not in browser.contexts


async def test_permissions_are_per_context(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(unique("perm"), "<p>perm</p>")
    query = "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)"
    async with BrowserEnv(browser, permissions=["geolocation"]) as granted, BrowserEnv(browser) as plain:
        await asyncio.gather(granted.reset(url), plain.reset(url))
        assert await granted.evaluate(query) == "granted"
        assert await plain.evaluate(query) == "prompt"


async def test_parallel_environments_in_one_browser(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(unique("par"), FORM % {"popup": "/"})
    used: set[str | None] = set()

    async def episode(env: BrowserEnv, n: int) -> tuple[str, str | None]:
        obs = await env.reset(url)
        await env.evaluate(f"localStorage.setItem('who', 'env{n}')")
        obs, info = await env.step(f"fill('{_ids(obs)['Name']}', 'env {n}')")
        assert info["error"] is None
        return await env.evaluate("document.getElementById('name').value"), await env.evaluate(
            "localStorage.getItem('who')"
        )

    envs = [BrowserEnv(browser) for _ in range(4)]
    try:
        for _round in range(2):
            results = await asyncio.gather(*[episode(env, n) for n, env in enumerate(envs)])
            assert results == [(f"env {n}", f"env{n}") for n in range(4)]
            ids = {env.context.id for env in envs}  # type: ignore[union-attr]
            assert len(ids) == 4 and not ids & used
            used |= ids
    finally:
        await asyncio.gather(*[env.close() for env in envs])
    assert not used & set(browser.contexts)
    alive = (await browser.connection.root.send("Target.getBrowserContexts"))["browserContextIds"]
    assert not used & set(alive)
    await asyncio.sleep(0.2)
    assert not [t for t in browser.tabs.values() if t.context_id in used]


async def test_run_tasks_many_envs_one_browser(browser: cdp_engine.Browser) -> None:
    pages = _task_pages()
    tasks = [LOGIN, SELECT] * 3 + [replace_name(LOGIN, "login-wrong")]
    policy = ScriptedPolicy(
        {
            **SCRIPTS,
            "login-wrong": [
                "fill({name=user}, 'agent')",
                "fill({name=pass}, 'nope')",
                "click({text=Sign in})",
            ],
        }
    )
    results = await run_tasks(tasks, policy, browser=browser, concurrency=3, pages=pages)
    assert [r.task for r in results] == [t.name for t in tasks]
    assert [r.success for r in results] == [True] * 6 + [False], [r.error for r in results]
    assert all(r.error is None and r.reset_ms > 0 and len(r.step_ms) == r.steps for r in results)
    assert results[-1].reward == 0.0


async def test_a_failed_step_is_a_step_error_never_a_timing(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(unique("steperr"), "<title>s</title><button onclick=\"document.title='hit'\">Go</button>")
    actions = iter([{"action": "click_element", "element_index": 999}, {"action": "click_element", "element_index": 1}])
    async with BrowserEnv(browser) as env:
        result = await run_episode(env, TaskSpec("steperr", url, max_steps=2), lambda obs, info, task: next(actions))
    assert result.error is None and result.steps == 2
    assert len(result.step_ms) == 1  # the click that ran
    assert len(result.step_errors) == 1 and result.step_errors[0].startswith("INVALID_ELEMENT_INDEX: ")


# ----- task hooks -------------------------------------------------------------------------------

INJECTED = "window.__inj = (window.__inj || 0) + 1; window.__injPath = location.pathname;"


async def test_init_scripts_run_in_every_document_and_frame_of_the_episode_only(
    browser: cdp_engine.Browser, site: Any
) -> None:
    frame_path = unique("frame")
    site.add(
        frame_path,
        "<p>frame</p><script>parent.postMessage({inj: window.__inj, path: location.pathname}, '*');</script>",
    )
    popup = site.add(unique("popup"), "<p>popup</p><script>window.sawAtStart = window.__inj;</script>")
    url = site.add(
        unique("top"),
        "<script>window.sawAtStart = window.__inj; window.frames_ = [];"
        " addEventListener('message', e => window.frames_.push(e.data));</script>"
        f"<iframe src='{frame_path}'></iframe><iframe src='{site.other_url}{frame_path}'></iframe>"
        f"<a href='{popup}' target='_blank'>Open popup</a>",
    )
    async with BrowserEnv(browser, init_scripts=[INJECTED]) as env:
        task = TaskSpec("inj", url, init_scripts=("window.__task = 'yes';",))
        obs = await env.reset(task=task)
        assert await env.evaluate("[window.sawAtStart, window.__task]") == [1, "yes"]
        await asyncio.sleep(0.2)
        frames = await env.evaluate("window.frames_")
        assert sorted(f["inj"] for f in frames) == [1, 1], frames  # same-origin iframe and OOPIF
        obs, _info = await env.step(f"click('{_ids(obs)['Open popup']}')")
        assert obs["url"] == popup
        assert await env.evaluate("[window.sawAtStart, window.__task]") == [
            1,
            "yes",
        ]  # first document of the popup
        await env.step("new_tab()")
        await env.step(f"goto('{popup}')")
        assert await env.evaluate("window.sawAtStart") == 1

        # Another context of the same browser never sees the episode's scripts.
        other = await browser.new_context()
        try:
            tab = await other.new_tab(url)
            assert await tab.evaluate("[window.sawAtStart ?? null, window.__task ?? null]") == [None, None]
        finally:
            await other.close()


async def test_task_setup_and_reward_through_javascript(browser: cdp_engine.Browser) -> None:
    from cdp_engine.harness import TaskSite

    async with TaskSite(_task_pages()) as site:
        env = BrowserEnv(browser, base_url=site.url)
        try:
            result = await run_episode(env, LOGIN, ScriptedPolicy(SCRIPTS))
            assert result.success and result.reward == 1.0 and result.error is None, result
            assert await env.evaluate("document.getElementById('greeting').textContent") == "Welcome, agent"
            # Without setup_js the account does not exist in the fresh context: the same policy fails.
            result = await run_episode(
                env, replace_name(LOGIN, "login", setup_js=None), ScriptedPolicy(SCRIPTS)
            )
            assert not result.success and result.reward == 0.0
            assert "Wrong username" in await env.evaluate("document.getElementById('message').textContent")
            obs = await env.reset(task=SELECT)
            assert env.last_info["reward"] is None
            obs, info = await env.step(
                f"select_option('{find_index(obs['element_index'], 'tag=select')}', 'Canada')"
            )
            assert info["reward"] == 0.0
            obs, info = await env.step(f"click('{find_index(obs['element_index'], 'text=Save')}')")
            assert info["reward"] == 1.0 and await env.reward() == 1.0
        finally:
            await env.close()


# ----- trajectories and replay ------------------------------------------------------------------

SEARCH_SCRIPT = [
    "fill({Search products}, 'widget')",
    "press({Search products}, 'Enter')",
    "click({text=Blue widget})",
    "send_msg_to_user('Opened the blue widget.')",
]


async def test_record_then_replay_gives_identical_hashes(browser: cdp_engine.Browser, tmp_path: Path) -> None:
    from cdp_engine.harness import TaskSite

    async with TaskSite(_task_pages()) as site:
        env = BrowserEnv(browser, base_url=site.url, record_dir=tmp_path, record_screenshots=True)
        try:
            result = await run_episode(
                env, replace_name(SEARCH, "search", seed=7), ScriptedPolicy({"search": SEARCH_SCRIPT})
            )
        finally:
            await env.close()
        assert result.success and result.trajectory, result
        header, steps, end = read_trajectory(result.trajectory)
        assert header["seed"] == 7 and header["start_url"] == site.url + "search.html"
        assert [s["step"] for s in steps] == [0, 1, 2, 3, 4] and end is not None and end["reward"] == 1.0
        assert all(len(s["state_hash"]) == 64 and len(s["content_digest"]) == 16 for s in steps)
        assert steps[2]["action"] == "press('1', 'Enter')" and steps[2]["error"] is None
        assert set(steps[1]["timings"]) >= {"action_ms", "settle_ms", "capture_ms"}
        for s in steps:
            assert (tmp_path / s["screenshot"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

        report = await replay(result.trajectory, browser)
        assert report.ok, report.summary()
        assert [s.replayed_hash for s in report.steps] == [s["state_hash"] for s in steps]
        assert [s.replayed_digest for s in report.steps] == [s["content_digest"] for s in steps]

        # Change the page (another catalogue): the replay says where the hashes part.
        site.pages["/search.html"] = site.pages["/search.html"].replace("'Blue widget'", "'Blue widget XL'")
        report = await replay(result.trajectory, browser)
        assert report.diverged_at == 2, report.summary()  # the search results differ
        assert report.steps[0].match and report.steps[1].match
        assert "diverges at step 2" in report.summary()


async def test_seed_makes_math_random_repeatable(browser: cdp_engine.Browser, site: Any) -> None:
    url = site.add(
        unique("rand"),
        "<p id=r></p><script>document.getElementById('r').textContent = Math.random();</script>",
    )
    async with BrowserEnv(browser) as env:
        a = await env.reset(url, seed=42)
        b = await env.reset(url, seed=42)
        c = await env.reset(url, seed=43)
        d = await env.reset(url)
    assert a["state_hash"] == b["state_hash"] != c["state_hash"] != d["state_hash"]


# ----- beyond one machine -----------------------------------------------------------------------


async def test_env_on_a_remote_browser_through_connect(site: Any) -> None:
    # A browser that serves its DevTools URL to other clients: launched with the websocket (the default
    # pipe opens no port).
    async with cdp_engine.launch(transport="websocket") as browser:
        assert browser.process is not None and browser.process.ws_url
        url = site.add(unique("remote"), FORM % {"popup": "/"})
        env = await BrowserEnv.connect(browser.process.ws_url)
        remote_contexts: list[str | None] = []
        try:
            obs = await env.reset(url)
            remote_contexts.append(env.context.id)  # type: ignore[union-attr]
            obs, info = await env.step(f"fill('{_ids(obs)['Name']}', 'remote')")
            assert info["error"] is None
            assert await env.evaluate("document.getElementById('name').value") == "remote"
        finally:
            await env.close()
        assert not browser.closed  # closing a connected env leaves the browser running
        alive = (await browser.connection.root.send("Target.getBrowserContexts"))["browserContextIds"]
        assert remote_contexts[0] not in alive  # its contexts are disposed


def _tagged_chromium(tag: str) -> list[int]:
    """Live Chromium processes started under this test's marker environment variable."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            cmdline = Path(entry.path, "cmdline").read_bytes()
            if b"chrom" not in cmdline.split(b"\0", 1)[0]:
                continue
            if tag.encode() not in Path(entry.path, "environ").read_bytes():
                continue
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def _wait_none(tag: str, timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := _tagged_chromium(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.fixture
def process_tag(monkeypatch: pytest.MonkeyPatch) -> str:
    """A marker in the environment that worker processes and their Chromium inherit."""
    tag = f"harness-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("CDP_ENGINE_TEST_TAG", tag)
    return tag


@pytest.mark.slow
def test_worker_processes_each_with_its_own_chromium(process_tag: str) -> None:
    tasks = [LOGIN, SELECT, LOGIN, SELECT]
    results = run_in_processes(tasks, ScriptedPolicy(SCRIPTS), workers=2, concurrency=2, pages=_task_pages())
    assert [r.success for r in results] == [True] * 4, [r.error for r in results]
    workers = {r.worker for r in results}
    assert len(workers) == 2 and str(os.getpid()) not in {w.rsplit(":", 1)[1] for w in workers}
    assert _wait_none(process_tag) == []  # every worker's Chromium is gone


@pytest.mark.slow
def test_ray_local_run(process_tag: str) -> None:
    ray = pytest.importorskip("ray", reason="Ray is the optional extra cdp-engine[ray]")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        tasks = [LOGIN, SELECT, replace_name(SEARCH, "search", seed=3), LOGIN]
        policy = ScriptedPolicy({**SCRIPTS, "search": SEARCH_SCRIPT})
        results = run_with_ray(tasks, policy, workers=2, pages=_task_pages())
        assert [r.task for r in results] == ["login", "select", "search", "login"]
        assert [r.success for r in results] == [True] * 4, [r.error for r in results]
        assert len({r.worker for r in results}) == 2
    finally:
        ray.shutdown()
    assert _wait_none(process_tag) == []


# ----- shared task definitions --------------------------------------------------------------------


def _task_pages() -> dict[str, str]:
    return {"/" + p.name: p.read_text() for p in TASK_PAGES.glob("*.html")}


def replace_name(task: TaskSpec, name: str, **changes: Any) -> TaskSpec:
    from dataclasses import replace

    return replace(task, name=name, **changes)


LOGIN = TaskSpec(
    "login",
    "/login.html",
    setup_js="localStorage.setItem('users', JSON.stringify({agent: 'hunter2'}))",
    reward_js="location.pathname === '/welcome.html' && document.cookie.includes('session=agent')",
)
SELECT = TaskSpec(
    "select", "/select.html", reward_js="document.getElementById('saved').textContent === 'Saved: ca'"
)
SEARCH = TaskSpec(
    "search", "/search.html", reward_js="new URLSearchParams(location.search).get('id') === 'blue-widget'"
)
SCRIPTS = {
    "login": ["fill({name=user}, 'agent')", "fill({name=pass}, 'hunter2')", "click({text=Sign in})"],
    "select": ["select_option({tag=select}, 'Canada')", "click({text=Save})"],
}


async def test_the_tab_list_takes_the_active_tabs_title_from_the_state_it_just_read(
    browser: cdp_engine.Browser, site: Any
) -> None:
    # The snapshot carries the document's title: the tab list after a reset or a step asks the page nothing.
    url = site.add(unique("titled"), "<title>Before</title><button onclick=\"document.title = '  After  it '\">t</button>")
    async with BrowserEnv(browser) as env:
        obs = await env.reset(url)
        assert env.last_info["tabs"][0]["title"] == "Before"
        tab = env.active
        assert tab is not None
        sent: list[str] = []
        original = tab.session.send

        def spy(method: str, params: Any = None, **kwargs: Any) -> Any:
            sent.append(str((params or {}).get("expression", "")))
            return original(method, params, **kwargs)

        tab.session.send = spy  # type: ignore[method-assign]
        try:
            index = next(int(k) for k, d in obs["element_index"].items() if d.get("tag") == "button")
            _obs, info = await env.step({"action": "click_element", "element_index": index})
        finally:
            del tab.session.send
        assert info["tabs"][0]["title"] == "After it" == await tab.evaluate("document.title")
        assert "document.title" not in sent
