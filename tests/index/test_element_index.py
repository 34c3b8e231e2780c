"""The DOM Action and Element Index protocol against real Chromium: what is indexed, the
descriptors, every action, every error code, stale indices, state_hash and the unchanged-page cache.

Every state a test receives is checked against the protocol's state schema (`check`).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

import cdp_engine
from cdp_engine.errors import CDPEngineError
from cdp_engine.snapshot.capture import PAGE_CONTENT_CAP
from cdp_engine.util import schema

ROOT = Path(__file__).resolve().parents[2]
_paths = itertools.count(1)


# ----- helpers ------------------------------------------------------------------------------------


def check(state: dict[str, Any]) -> dict[str, Any]:
    """Assert the state object conforms to the protocol's schema, and return it."""
    errors = schema.validate("state", state)
    assert not errors, f"invalid state: {errors}"
    assert set(state["element_index"]) == {str(i) for i in range(1, len(state["element_index"]) + 1)}
    return state


def page(html: str, title: str = "t") -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body>{html}</body></html>"


def path(name: str) -> str:
    return f"/eix/{next(_paths)}/{name}"


async def open_page(tab: cdp_engine.Tab, site: Any, html: str, name: str = "p") -> dict[str, Any]:
    await tab.goto(site.add(path(name), page(html)))
    return await state(tab)


async def state(tab: cdp_engine.Tab, **kwargs: Any) -> dict[str, Any]:
    kwargs.setdefault("screenshot", False)
    return check(await tab.state(**kwargs))


async def act(tab: cdp_engine.Tab, action: Any) -> dict[str, Any]:
    result = check(await tab.act(action, screenshot=False))
    return result


def find(st: dict[str, Any], **want: Any) -> int:
    """The single index whose descriptor matches: tag, role, text (text_content), label, or any attribute."""
    hits = []
    for key, d in st["element_index"].items():
        ok = True
        for field, value in want.items():
            if field == "text":
                have = d["text_content"]
            elif field == "label":
                have = d["aria-label"]
            elif field in ("tag", "role"):
                have = d[field]
            else:
                have = d["attributes"][field]
            if have != value:
                ok = False
                break
        if ok:
            hits.append(int(key))
    assert len(hits) == 1, f"{want} matched {hits} in {st['element_index']}"
    return hits[0]


def texts(st: dict[str, Any]) -> list[str | None]:
    return [d["text_content"] for d in st["element_index"].values()]


def assert_error(before: dict[str, Any], after: dict[str, Any], code: str, failed_action: Any) -> None:
    """The error state is the previous state, every field identical, plus error."""
    assert "error" in after, f"expected {code}, got a state without error"
    error = after["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"]
    assert error["failed_action"] == failed_action
    assert {k: v for k, v in after.items() if k != "error"} == before


async def assert_unchanged(tab: cdp_engine.Tab, before: dict[str, Any]) -> None:
    now = await state(tab)
    assert now["url"] == before["url"]
    assert now["page_content"] == before["page_content"]
    assert now["state_hash"] == before["state_hash"]
    assert now["element_index"] == before["element_index"]


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cached(tab: cdp_engine.Tab) -> bool:
    return bool(tab.last_timings.get("cached"))


def elements(tab: cdp_engine.Tab) -> dict[int, Any]:
    current = tab.element_index.current
    assert current is not None
    return current.elements


# ----- what is indexed ----------------------------------------------------------------------------

ROLES = (
    "button",
    "link",
    "menuitem",
    "checkbox",
    "radio",
    "switch",
    "textbox",
    "searchbox",
    "combobox",
    "listbox",
    "option",
)


async def test_interactive_definition_every_row(tab: cdp_engine.Tab, site: Any) -> None:
    roles = "".join(f'<div role="{r}">role-{r}</div>' for r in ROLES)
    st = await open_page(
        tab,
        site,
        f"""<a href="/somewhere">A link</a>
        <button>A button</button>
        <input name="in1">
        <textarea name="ta1"></textarea>
        <select name="sel1"><option value="o1">First</option><option value="o2">Second</option></select>
        {roles}
        <label for="lf">For-label</label><input id="lf" name="forinput">
        <label>Wrap-label <input name="wrapped"></label>
        <label>Lone-label</label>
        <label for="nothing">Dangling-label</label>
        <div contenteditable="true">Editable area</div>
        <div contenteditable="false">Not editable</div>
        <div>Plain div</div><span onclick="1">Plain span</span>""",
    )
    idx = st["element_index"]
    assert find(st, tag="a", text="A link", href="/somewhere")
    assert find(st, tag="button", text="A button")
    assert find(st, tag="input", name="in1")
    assert find(st, tag="textarea", name="ta1")
    sel = find(st, tag="select", name="sel1")
    o1, o2 = find(st, tag="option", value="o1"), find(st, tag="option", value="o2")
    assert sel < o1 < o2, "options of a visible select are indexed after it, in document order"
    assert elements(tab)[o1].select_index == sel
    for r in ROLES:
        i = find(st, tag="div", text=f"role-{r}")
        assert idx[str(i)]["role"] == r
    assert find(st, tag="label", text="For-label")
    assert find(st, tag="label", text="Wrap-label")
    assert find(st, tag="input", name="forinput")
    assert find(st, tag="input", name="wrapped")
    assert find(st, text="Editable area")
    shown = texts(st)
    for absent in ("Lone-label", "Dangling-label", "Not editable", "Plain div", "Plain span"):
        assert absent not in shown
        assert absent in st["page_content"]  # still part of the page's text
    # keys run 1..N in document order
    order = [
        find(st, text="A link"),
        find(st, text="A button"),
        find(st, name="in1"),
        find(st, name="ta1"),
        sel,
    ]
    assert order == sorted(order) == [1, 2, 3, 4, 5]
    # page_content marks indexed elements with [N]
    assert "[2]<button>A button</button>" in st["page_content"]


async def test_hidden_elements_are_not_indexed(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<button>Shown</button>
        <button style="display:none">DisplayNone</button>
        <button style="visibility:hidden">VisHidden</button>
        <button style="opacity:0">Transparent</button>
        <div style="opacity:0"><button>TransparentParent</button></div>
        <div style="visibility:hidden"><button>HiddenParent</button></div>
        <button style="width:0;height:0;padding:0;border:0;overflow:hidden">ZeroSize</button>
        <div style="position:relative;width:220px;height:60px">
          <button style="width:150px;height:40px">Covered</button>
          <div style="position:absolute;left:0;top:0;width:220px;height:60px;background:#fff"></div>
        </div>
        <div style="position:relative;width:220px;height:60px">
          <button style="width:150px;height:40px" onclick="this.textContent='Clicked through'">Glass</button>
          <div style="position:absolute;left:0;top:0;width:220px;height:60px;background:rgba(0,0,0,.2);
                      pointer-events:none"></div>
        </div>
        <button style="position:absolute;left:-500px;top:10px">OffLeft</button>
        <div style="height:1000px"></div>
        <button>BelowFold</button>
        <div style="height:2000px"></div>""",
    )
    shown = texts(st)
    assert "Shown" in shown
    assert "Glass" in shown, "an overlay with pointer-events:none does not hide what is under it"
    for hidden in (
        "DisplayNone",
        "VisHidden",
        "Transparent",
        "TransparentParent",
        "HiddenParent",
        "ZeroSize",
        "Covered",
        "OffLeft",
        "BelowFold",
    ):
        assert hidden not in shown, f"{hidden} should not be indexed"
    for el in elements(tab).values():
        assert el.visible
    # The element under the glass overlay is clickable.
    after = await act(tab, {"action": "click_element", "element_index": find(st, text="Glass")})
    assert "Clicked through" in texts(after)
    # Scroll one viewport down: the button below the fold is now indexed, at its viewport position.
    scrolled = await act(tab, {"action": "scroll", "direction": "down"})
    i = find(scrolled, text="BelowFold")
    box = elements(tab)[i].box
    rect = await tab.evaluate(
        "(() => { const r = [...document.querySelectorAll('button')].find(b => b.textContent === 'BelowFold')"
        ".getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()"
    )
    assert box == pytest.approx(tuple(rect), abs=1)
    assert "Shown" not in texts(scrolled)


FRAME_HTML = """<!doctype html><html><body style="margin:0">
<button style="position:absolute;left:10px;top:20px;width:80px;height:30px"
        onclick="this.textContent='{label} clicked'">{label}</button>
<input placeholder="{label} field" style="position:absolute;left:10px;top:70px;width:100px;height:20px">
</body></html>"""


async def _iframe_page(tab: cdp_engine.Tab, site: Any, wait: Any) -> dict[str, Any]:
    same = site.add(path("same"), FRAME_HTML.format(label="SameFrame"))
    cross_path = path("cross")
    site.add(cross_path, FRAME_HTML.format(label="CrossFrame"))
    cross = site.other_url + cross_path
    outer = page(
        f"""<h1>Frames</h1>
        <iframe id="same" src="{same}" style="position:absolute;left:100px;top:150px;width:300px;height:200px;
                border:3px solid black"></iframe>
        <iframe id="cross" src="{cross}" style="position:absolute;left:500px;top:160px;width:300px;height:200px;
                border:5px solid black"></iframe>"""
    )
    # The out-of-process frame's session is listed as it attaches; its setup (a round trip) ends with a
    # frame event, which changes the version key: wait for that too, or a state taken in between would
    # never be served from the cache (the page did change under it).
    set_up: list[str] = []
    stop = tab.add_listener(lambda kind, fid: set_up.append(fid) if kind == "frame" and fid in tab.frame_sessions else None)
    try:
        await tab.goto(site.add(path("outer"), outer))
        await wait(lambda: len(tab.frame_sessions) == 1 and set(set_up) >= set(tab.frame_sessions))
    finally:
        stop()
    return await state(tab)


async def test_iframe_elements_are_indexed_in_top_level_coordinates(
    tab: cdp_engine.Tab, site: Any, wait: Any
) -> None:
    st = await _iframe_page(tab, site, wait)
    same_btn = find(st, tag="button", text="SameFrame")
    cross_btn = find(st, tag="button", text="CrossFrame")
    same_in = find(st, tag="input", placeholder="SameFrame field")
    cross_in = find(st, tag="input", placeholder="CrossFrame field")
    els = elements(tab)
    # content box of each iframe (border included in the offset)
    assert els[same_btn].box == pytest.approx((100 + 3 + 10, 150 + 3 + 20, 80, 30), abs=1)
    assert els[cross_btn].box == pytest.approx((500 + 5 + 10, 160 + 5 + 20, 80, 30), abs=1)
    assert els[same_in].box[:2] == pytest.approx((100 + 3 + 10, 150 + 3 + 70), abs=1)
    assert els[cross_in].box[:2] == pytest.approx((500 + 5 + 10, 160 + 5 + 70), abs=1)
    assert els[cross_btn].session is not tab.session, "the cross-site frame is out of process"
    assert "<iframe>" in st["page_content"] and "SameFrame" in st["page_content"]

    # Acting inside both frames works and the next state shows it.
    after = await act(tab, {"action": "click_element", "element_index": cross_btn})
    assert "CrossFrame clicked" in texts(after)
    after = await act(tab, {"action": "click_element", "element_index": find(after, text="SameFrame")})
    assert "SameFrame clicked" in texts(after)
    after = await act(
        tab,
        {"action": "input_text", "element_index": find(after, placeholder="CrossFrame field"), "text": "xyz"},
    )
    assert (
        after["element_index"][str(find(after, placeholder="CrossFrame field"))]["attributes"]["value"]
        == "xyz"
    )


async def test_shadow_dom_open_and_closed(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<open-host></open-host><closed-host></closed-host>
        <script>
        customElements.define('open-host', class extends HTMLElement { constructor() { super();
          this.attachShadow({mode: 'open'}).innerHTML =
            '<button onclick="this.textContent=\\'Open clicked\\'">Open button</button>'; } });
        customElements.define('closed-host', class extends HTMLElement { constructor() { super();
          const root = this.attachShadow({mode: 'closed'});
          root.innerHTML = '<input placeholder="Closed field"><a href="#x">Closed link</a>'; } });
        </script>""",
    )
    open_btn = find(st, tag="button", text="Open button")
    closed_in = find(st, tag="input", placeholder="Closed field")
    assert find(st, tag="a", text="Closed link")
    after = await act(tab, {"action": "click_element", "element_index": open_btn})
    assert "Open clicked" in texts(after)
    after = await act(tab, {"action": "input_text", "element_index": closed_in, "text": "inside"})
    assert after["element_index"][str(closed_in)]["attributes"]["value"] == "inside"


# ----- descriptors --------------------------------------------------------------------------------


def _desc(tag: str, role: str | None, label: str | None, text: str | None, **attrs: Any) -> dict[str, Any]:
    base = {"name": None, "value": None, "placeholder": None, "type": None, "href": None, "checked": None}
    base.update(attrs)
    return {"tag": tag, "role": role, "aria-label": label, "text_content": text, "attributes": base}


async def test_descriptors_as_in_example_1(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<h1>Login</h1>
        <input name="email" type="email" aria-label="Email Address" placeholder="Enter your email">
        <input name="password" type="password" aria-label="Password" placeholder="Enter your password">
        <button>Sign In</button>""",
        "login",
    )
    assert st["element_index"] == {
        "1": _desc("input", "textbox", "Email Address", None, name="email", value="", placeholder="Enter your email", type="email"),
        "2": _desc("input", "textbox", "Password", None, name="password", value="", placeholder="Enter your password", type="password"),
        "3": _desc("button", "button", None, "Sign In", type="submit"),
    }  # fmt: skip
    assert "<h1>Login</h1>" in st["page_content"]
    after = await act(
        tab, {"action": "input_text", "element_index": 1, "text": "testuser@clawpedia.io", "overwrite": True}
    )
    assert after["element_index"]["1"]["attributes"]["value"] == "testuser@clawpedia.io"
    after = await act(tab, {"action": "input_text", "element_index": 2, "text": "hunter2"})
    assert "hunter2" not in orjson.dumps(after).decode(), "a password never appears in the state"


async def test_descriptor_fields(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<input name="plain">
        <input type="bogus" name="weird">
        <input type="checkbox" name="cb" checked>
        <input type="radio" name="rd" value="r1">
        <button type="button" name="b" value="bv">Typed</button>
        <button type="nonsense">Nonsense</button>
        <select name="s"><option>One</option><option selected value="2">Two</option></select>
        <a href="/next" aria-label="Next page">  Next   &raquo; </a>
        <textarea name="t">preset</textarea>
        <div role="checkbox" aria-checked="true">Custom check</div>""",
    )
    idx = st["element_index"]
    assert idx[str(find(st, name="plain"))]["attributes"]["type"] == "text", "input without type reports text"
    assert idx[str(find(st, name="weird"))]["attributes"]["type"] == "text"
    cb = idx[str(find(st, name="cb"))]
    assert (cb["role"], cb["attributes"]["checked"], cb["attributes"]["type"]) == (
        "checkbox",
        True,
        "checkbox",
    )
    rd = idx[str(find(st, name="rd"))]
    assert (rd["role"], rd["attributes"]["checked"], rd["attributes"]["value"]) == ("radio", False, "r1")
    typed = idx[str(find(st, text="Typed"))]
    assert typed["attributes"] | {} == {
        "name": "b", "value": "bv", "placeholder": None, "type": "button", "href": None, "checked": None
    }  # fmt: skip
    assert idx[str(find(st, text="Nonsense"))]["attributes"]["type"] == "submit"
    sel = idx[str(find(st, tag="select"))]
    assert (sel["role"], sel["attributes"]["value"], sel["text_content"]) == ("combobox", "2", "Two")
    link = idx[str(find(st, tag="a"))]
    assert (link["role"], link["aria-label"], link["text_content"], link["attributes"]["href"]) == (
        "link",
        "Next page",
        "Next »",
        "/next",
    )
    ta = idx[str(find(st, tag="textarea"))]
    assert (ta["role"], ta["attributes"]["value"], ta["text_content"]) == ("textbox", "preset", None)
    custom = idx[str(find(st, text="Custom check"))]
    assert (custom["role"], custom["attributes"]["checked"]) == ("checkbox", True)
    for key, d in idx.items():
        if d["attributes"]["type"] not in ("checkbox", "radio") and d["role"] not in ("checkbox", "radio"):
            assert d["attributes"]["checked"] is None, key
    # checked follows the live state: click the checkbox and the radio
    after = await act(tab, {"action": "click_element", "element_index": find(st, name="cb")})
    after = await act(tab, {"action": "click_element", "element_index": find(after, name="rd")})
    assert after["element_index"][str(find(after, name="cb"))]["attributes"]["checked"] is False
    assert after["element_index"][str(find(after, name="rd"))]["attributes"]["checked"] is True


# ----- actions ------------------------------------------------------------------------------------


async def test_click_element_button_and_link(tab: cdp_engine.Tab, site: Any) -> None:
    target = site.add(path("target"), page("<h2>Arrived</h2>", "arrived"))
    st = await open_page(
        tab,
        site,
        f"""<button onclick="this.textContent = 'Clicked ' + (++window.n)">Press</button>
        <script>window.n = 0</script><a href="{target}">Go there</a>""",
    )
    after = await act(tab, {"action": "click_element", "element_index": find(st, text="Press")})
    assert "error" not in after
    assert "Clicked 1" in texts(after)
    assert await tab.evaluate("window.n") == 1, "exactly one click"
    after = await act(tab, {"action": "click_element", "element_index": find(after, text="Go there")})
    assert "error" not in after
    assert after["url"] == target
    assert "Arrived" in after["page_content"]


async def test_input_text_overwrite_append_and_contenteditable(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<input name="a" value="abc"><textarea name="t">line</textarea>
        <div contenteditable="true" id="ed">Hello</div>""",
    )
    a = find(st, name="a")
    after = await act(tab, {"action": "input_text", "element_index": a, "text": "def"})
    assert after["element_index"][str(a)]["attributes"]["value"] == "abcdef", "absent overwrite appends"
    after = await act(tab, {"action": "input_text", "element_index": a, "text": "g", "overwrite": False})
    assert after["element_index"][str(a)]["attributes"]["value"] == "abcdefg"
    after = await act(tab, {"action": "input_text", "element_index": a, "text": "new", "overwrite": True})
    assert after["element_index"][str(a)]["attributes"]["value"] == "new", "overwrite clears first"
    after = await act(tab, {"action": "input_text", "element_index": a, "text": "", "overwrite": True})
    assert after["element_index"][str(a)]["attributes"]["value"] == ""
    t = find(after, name="t")
    after = await act(tab, {"action": "input_text", "element_index": t, "text": " more"})
    assert after["element_index"][str(t)]["attributes"]["value"] == "line more"
    ed = find(after, text="Hello")
    after = await act(tab, {"action": "input_text", "element_index": ed, "text": " world"})
    assert await tab.evaluate("document.getElementById('ed').textContent") == "Hello world"
    ed = find(after, text="Hello world")
    after = await act(
        tab, {"action": "input_text", "element_index": ed, "text": "Replaced", "overwrite": True}
    )
    assert await tab.evaluate("document.getElementById('ed').textContent") == "Replaced"
    assert "Replaced" in texts(after)


async def test_select_option(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<select name="fruit" onchange="document.getElementById('out').textContent = 'chose ' + this.value">
          <option value="a">Apple</option><option value="b">Banana</option><option value="c" disabled>Cherry</option>
        </select>
        <select name="other"><option value="x">Xylo</option></select>
        <p id="out">none</p><button>Not a select</button>""",
    )
    sel = find(st, name="fruit")
    banana = find(st, tag="option", value="b")
    after = await act(tab, {"action": "select_option", "element_index": sel, "option_index": banana})
    assert "error" not in after
    assert after["element_index"][str(sel)]["attributes"]["value"] == "b"
    assert after["element_index"][str(sel)]["text_content"] == "Banana"
    assert "chose b" in after["page_content"], "input/change events fired"
    before = await state(tab)
    sel = find(before, name="fruit")
    for option_index, code in (
        (99, "INVALID_ELEMENT_INDEX"),
        (find(before, tag="option", value="x"), "ELEMENT_NOT_INTERACTIVE"),  # an option of another select
        (find(before, text="Not a select"), "ELEMENT_NOT_INTERACTIVE"),  # not an option at all
        (find(before, tag="option", value="c"), "ELEMENT_NOT_INTERACTIVE"),  # disabled option
    ):
        action = {"action": "select_option", "element_index": sel, "option_index": option_index}
        failed = await act(tab, action)
        assert_error(before, failed, code, action)
        await assert_unchanged(tab, before)


async def test_scroll_directions_and_default_amount(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, '<div style="height:5000px;width:5000px">tall</div>')
    vp = await tab.viewport()
    after = await act(tab, {"action": "scroll", "direction": "down"})
    assert "error" not in after
    assert await tab.evaluate("scrollY") == vp["height"], "default: one viewport height"
    await act(tab, {"action": "scroll", "direction": "down", "pixels": 100})
    assert await tab.evaluate("scrollY") == vp["height"] + 100
    await act(tab, {"action": "scroll", "direction": "up", "pixels": 50})
    assert await tab.evaluate("scrollY") == vp["height"] + 50
    await act(tab, {"action": "scroll", "direction": "up"})
    assert await tab.evaluate("scrollY") == 50
    await act(tab, {"action": "scroll", "direction": "right", "pixels": 30})
    await act(tab, {"action": "scroll", "direction": "left", "pixels": 10})
    assert await tab.evaluate("scrollX") == 20


async def test_navigate_ok_and_failed(tab: cdp_engine.Tab, site: Any) -> None:
    before = await open_page(tab, site, "<h1>Start page</h1><button>Stay</button>")
    target = site.add(path("dest"), page("<h1>Destination</h1>"))
    after = await act(tab, {"action": "navigate", "url": target})
    assert "error" not in after
    assert after["url"] == target and "Destination" in after["page_content"]
    before = after
    action = {"action": "navigate", "url": f"http://127.0.0.1:{closed_port()}/nothing"}
    failed = await act(tab, action)
    assert_error(before, failed, "NAVIGATION_FAILED", action)
    assert tab.url == target
    await assert_unchanged(tab, before)
    assert await tab.evaluate("document.querySelector('h1').textContent") == "Destination"


async def test_finish_and_fail_task_return_current_state(tab: cdp_engine.Tab, site: Any) -> None:
    before = await open_page(tab, site, "<button>Done?</button>")
    for name in ("finish_task", "fail_task"):
        after = await act(tab, {"action": name, "message": f"{name} message"})
        assert "error" not in after
        assert {k: after[k] for k in ("url", "page_content", "element_index", "state_hash")} == {
            k: before[k] for k in ("url", "page_content", "element_index", "state_hash")
        }
        assert tab.element_index.finished == {"action": name, "message": f"{name} message"}


# ----- errors -------------------------------------------------------------------------------------


async def test_every_error_leaves_the_page_unchanged(tab: cdp_engine.Tab, site: Any) -> None:
    before = await open_page(
        tab,
        site,
        """<script>window.clicks = 0</script>
        <button onclick="window.clicks++">Live</button>
        <button disabled onclick="window.clicks++">Off</button>
        <fieldset disabled><button onclick="window.clicks++">InDisabledSet</button></fieldset>
        <input name="q" value="keep">
        <input name="ro" value="fixed" readonly>""",
    )
    live = find(before, text="Live")
    off = find(before, text="Off")
    in_set = find(before, text="InDisabledSet")
    q = find(before, name="q")
    ro = find(before, name="ro")
    cases: list[tuple[Any, str, Any]] = [
        ({"action": "click_element", "element_index": 99}, "INVALID_ELEMENT_INDEX", None),
        ({"action": "input_text", "element_index": 99, "text": "x"}, "INVALID_ELEMENT_INDEX", None),
        ({"action": "click_element", "element_index": off}, "ELEMENT_NOT_INTERACTIVE", None),
        ({"action": "click_element", "element_index": in_set}, "ELEMENT_NOT_INTERACTIVE", None),
        ({"action": "input_text", "element_index": live, "text": "x"}, "ELEMENT_NOT_INTERACTIVE", None),
        ({"action": "input_text", "element_index": ro, "text": "x"}, "ELEMENT_NOT_INTERACTIVE", None),
        (
            {"action": "select_option", "element_index": q, "option_index": live},
            "ELEMENT_NOT_INTERACTIVE",
            None,
        ),
        ("{not json", "ACTION_VALIDATION_FAILED", "{not json"),
        ('{"action": "click_element", "element_index": 1', "ACTION_VALIDATION_FAILED", None),
        ({"action": "double_click", "element_index": live}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "click_element"}, "ACTION_VALIDATION_FAILED", None),
        ({"element_index": live}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "input_text", "element_index": q}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "click_element", "element_index": live, "extra": 1}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "click_element", "element_index": 0}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "click_element", "element_index": -1}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "click_element", "element_index": True}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "click_element", "element_index": "1"}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "scroll", "direction": "sideways"}, "ACTION_VALIDATION_FAILED", None),
        (
            {"action": "input_text", "element_index": q, "text": "x", "overwrite": "yes"},
            "ACTION_VALIDATION_FAILED",
            None,
        ),
        ({"action": "navigate", "url": "not a url"}, "ACTION_VALIDATION_FAILED", None),
        ({"action": "finish_task"}, "ACTION_VALIDATION_FAILED", None),
        ([], "ACTION_VALIDATION_FAILED", None),
        ({"action": "navigate", "url": f"http://127.0.0.1:{closed_port()}/"}, "NAVIGATION_FAILED", None),
    ]
    for action, code, failed_action in cases:
        result = await act(tab, action)
        expected_failed = failed_action if failed_action is not None else action
        if isinstance(action, str) and failed_action is None:
            expected_failed = result["error"]["failed_action"]  # truncated JSON text: reported as received
            assert expected_failed == action
        assert_error(before, result, code, expected_failed)
        await assert_unchanged(tab, before)
    assert await tab.evaluate("window.clicks") == 0
    assert await tab.evaluate("document.querySelector('[name=q]').value") == "keep"
    # an action as JSON text works too
    after = await act(tab, orjson.dumps({"action": "click_element", "element_index": live}).decode())
    assert "error" not in after
    assert await tab.evaluate("window.clicks") == 1


async def test_internal_browser_error(
    tab: cdp_engine.Tab, site: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Provoked safely: the input layer fails as a lost browser connection would."""
    before = await open_page(
        tab, site, "<script>window.clicks = 0</script><button onclick='clicks++'>B</button>"
    )
    import cdp_engine.core.input as input_module

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise CDPEngineError("simulated browser failure")

    monkeypatch.setattr(input_module, "click_at", broken)
    action = {"action": "click_element", "element_index": 1}
    failed = await act(tab, action)
    assert_error(before, failed, "INTERNAL_BROWSER_ERROR", action)
    monkeypatch.undo()
    await assert_unchanged(tab, before)
    assert await tab.evaluate("clicks") == 0


# ----- stale indices ------------------------------------------------------------------------------

STALE_PAGE = """<script>window.oldClicks = 0; window.newClicks = 0;</script>
<div id="box"><button id="b" onclick="oldClicks++" style="width:120px;height:40px">Old button</button></div>
<input name="other">"""


@pytest.mark.parametrize(
    "mutation",
    [
        # a different button at the same place (same index)
        "document.getElementById('box').innerHTML = "
        '\'<button onclick="newClicks++" style="width:120px;height:40px">New button</button>\'',
        # an identical-looking replacement: still a different element
        "document.getElementById('box').innerHTML = "
        '\'<button onclick="newClicks++" style="width:120px;height:40px">Old button</button>\'',
        # removed
        "document.getElementById('b').remove()",
    ],
    ids=["replaced", "lookalike", "removed"],
)
async def test_stale_index_never_hits_another_element(tab: cdp_engine.Tab, site: Any, mutation: str) -> None:
    before = await open_page(tab, site, STALE_PAGE)
    index = find(before, tag="button")
    await tab.evaluate(mutation)
    action = {"action": "click_element", "element_index": index}
    failed = await act(tab, action)
    assert_error(before, failed, "INVALID_ELEMENT_INDEX", action)
    assert await tab.evaluate("[oldClicks, newClicks]") == [0, 0]
    # a fresh state gives a fresh index that works
    now = await state(tab)
    buttons = [int(k) for k, d in now["element_index"].items() if d["tag"] == "button"]
    if buttons:
        ok = await act(tab, {"action": "click_element", "element_index": buttons[0]})
        assert "error" not in ok
        assert await tab.evaluate("[oldClicks, newClicks]") == [0, 1]


async def test_stale_index_after_navigation(tab: cdp_engine.Tab, site: Any) -> None:
    before = await open_page(tab, site, STALE_PAGE)
    await tab.goto(site.add(path("again"), page(STALE_PAGE)))
    action = {"action": "input_text", "element_index": find(before, name="other"), "text": "x"}
    failed = await act(tab, action)
    assert_error(before, failed, "INVALID_ELEMENT_INDEX", action)
    assert await tab.evaluate("document.querySelector('input').value") == ""


async def test_index_survives_unrelated_change(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(tab, site, STALE_PAGE + "<p id='p'>status</p>")
    await tab.evaluate("document.getElementById('p').textContent = 'changed'")
    after = await act(tab, {"action": "click_element", "element_index": find(st, tag="button")})
    assert "error" not in after
    assert await tab.evaluate("oldClicks") == 1


# ----- state_hash ---------------------------------------------------------------------------------

HASH_SCRIPT = """
import asyncio, sys
import cdp_engine

async def main():
    async with cdp_engine.launch() as browser:
        tab = await browser.new_tab()
        await tab.goto(sys.argv[1])
        state = await tab.state(screenshot=False)
        print(state["state_hash"])

asyncio.run(main())
"""


async def test_state_hash(tab: cdp_engine.Tab, site: Any, tmp_path: Path) -> None:
    url = site.add(
        path("hash"),
        page(
            """<h1>Hash me</h1><p>Some <strong>text</strong> &amp; more</p>
            <input name="q" placeholder="type"><select><option>one</option></select>
            <a href="/x">link</a><ul><li>item é ✓</li></ul>"""
        ),
    )
    await tab.goto(url)
    first = await state(tab)
    second = await state(tab)
    assert first["state_hash"] == second["state_hash"]
    canonical = orjson.dumps(
        {"page_content": first["page_content"], "url": first["url"]}, option=orjson.OPT_SORT_KEYS
    )
    assert first["state_hash"] == hashlib.sha256(canonical).hexdigest()
    assert len(first["state_hash"]) == 64

    typed = await act(tab, {"action": "input_text", "element_index": find(first, name="q"), "text": "a"})
    assert typed["state_hash"] != first["state_hash"]
    again = await state(tab)
    assert again["state_hash"] == typed["state_hash"]

    script = tmp_path / "hash_state.py"
    script.write_text(HASH_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=str(ROOT),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert out.decode().strip() == first["state_hash"], "another process, another browser: the same hash"


# ----- the unchanged-page cache -------------------------------------------------------------------


async def _assert_fresh(
    tab: cdp_engine.Tab, expect: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    st = await state(tab)
    assert not cached(tab), f"served from cache after {what}"
    assert expect(st), f"state does not reflect {what}"
    again = await state(tab)
    assert cached(tab), f"unchanged page after {what} not served from cache"
    assert again == st
    return st


async def test_unchanged_page_cache(tab: cdp_engine.Tab, site: Any, wait: Any) -> None:
    st = await _iframe_page(tab, site, wait)
    st = await state(tab)
    again = await state(tab)
    assert cached(tab)
    assert again == st
    shot = await state(tab, screenshot=True)
    assert shot["screenshot"], "asking for a screenshot never returns a cached state without one"
    await state(tab, screenshot=True)

    # DOM mutation in the top document
    await tab.evaluate("document.querySelector('h1').textContent = 'Mutated heading'")
    await _assert_fresh(tab, lambda s: "Mutated heading" in s["page_content"], "a DOM mutation")

    # attribute-only change (hides an element)
    await tab.evaluate("document.getElementById('same').style.visibility = 'hidden'")
    await _assert_fresh(tab, lambda s: "SameFrame" not in texts(s), "a style change")
    await tab.evaluate("document.getElementById('same').style.visibility = ''")
    st = await _assert_fresh(tab, lambda s: "SameFrame" in texts(s), "a style change back")

    # typing through act: the returned state is fresh and shows the value
    field = find(st, placeholder="SameFrame field")
    typed = await act(tab, {"action": "input_text", "element_index": field, "text": "abc"})
    assert not cached(tab)
    assert typed["element_index"][str(field)]["attributes"]["value"] == "abc"
    assert await state(tab) == typed and cached(tab)

    # typing by trusted input outside act (no DOM mutation: only the value changes)
    await tab.evaluate("document.getElementById('same').contentDocument.querySelector('input').focus()")
    await tab.session.send("Input.insertText", {"text": "d"})
    await _assert_fresh(
        tab,
        lambda s: (
            s["element_index"][str(find(s, placeholder="SameFrame field"))]["attributes"]["value"] == "abcd"
        ),
        "typing",
    )

    # mutation inside the same-origin iframe
    await tab.evaluate(
        "document.getElementById('same').contentDocument.querySelector('button').textContent = 'Same mutated'"
    )
    await _assert_fresh(tab, lambda s: "Same mutated" in texts(s), "a mutation in a same-origin iframe")

    # mutation inside the cross-origin iframe (its own process)
    (oopif,) = tab.frame_sessions.values()
    await tab.evaluate("document.querySelector('button').textContent = 'Cross mutated'", session=oopif)
    await _assert_fresh(tab, lambda s: "Cross mutated" in texts(s), "a mutation in a cross-origin iframe")

    # scrolling by script
    await tab.evaluate("document.body.style.height = '3000px'")
    await state(tab)
    await tab.evaluate("window.scrollTo(0, 400)")
    await _assert_fresh(
        tab, lambda s: "SameFrame" not in texts(s) and "Same mutated" not in texts(s), "a scroll"
    )

    # scrolling by act
    scrolled = await act(tab, {"action": "scroll", "direction": "up", "pixels": 400})
    assert not cached(tab) and "Same mutated" in texts(scrolled)

    # navigation
    await tab.goto(site.add(path("next"), page("<button>Next page button</button>")))
    await _assert_fresh(tab, lambda s: texts(s) == ["Next page button"], "a navigation")

    # same-document navigation changes the url
    await tab.evaluate("history.pushState({}, '', '#moved')")
    await _assert_fresh(tab, lambda s: s["url"].endswith("#moved"), "a pushState")


# ----- more visibility and label cases ------------------------------------------------------------


async def test_labels_partial_overlays_and_frame_clipping(tab: cdp_engine.Tab, site: Any) -> None:
    inner = site.add(
        path("inner"),
        "<!doctype html><body style='margin:0'><button>FrameTop</button>"
        "<div style='height:600px'></div><button>FrameBottom</button></body>",
    )
    st = await open_page(
        tab,
        site,
        f"""<label for="agree">I agree</label><input type="checkbox" id="agree" name="agree">
        <select style="display:none"><option>HiddenOption</option></select>
        <div style="position:relative;width:220px;height:60px">
          <button style="width:150px;height:40px">HalfCovered</button>
          <div style="position:absolute;left:0;top:0;width:60px;height:60px;background:#fff"></div>
        </div>
        <iframe src="{inner}" style="width:300px;height:100px;border:0"></iframe>""",
    )
    shown = texts(st)
    assert "HalfCovered" in shown, "a partly covered element is still indexed"
    assert "HiddenOption" not in shown, "options of a hidden select are not indexed"
    assert "FrameTop" in shown
    assert "FrameBottom" not in shown, "outside the iframe's visible area"
    label = find(st, tag="label", text="I agree")
    after = await act(tab, {"action": "click_element", "element_index": label})
    assert after["element_index"][str(find(after, name="agree"))]["attributes"]["checked"] is True


async def test_state_screenshots(tab: cdp_engine.Tab, site: Any) -> None:
    import base64

    await open_page(tab, site, "<button>Shot</button>")
    png = await state(tab, screenshot=True)
    assert base64.b64decode(png["screenshot"]).startswith(b"\x89PNG")
    jpeg = await state(tab, screenshot="jpeg")
    assert base64.b64decode(jpeg["screenshot"]).startswith(b"\xff\xd8")
    assert png["state_hash"] == jpeg["state_hash"]
    plain = await state(tab)
    assert plain["screenshot"] == "" and plain["state_hash"] == png["state_hash"]


async def test_element_clipped_by_scroll_container_is_not_indexed(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<div style="height:100px;overflow:auto"><div style="height:300px"></div><button>Clipped</button></div>""",
    )
    assert "Clipped" not in texts(st)


async def test_clipping_respects_positioned_escapes(tab: cdp_engine.Tab, site: Any) -> None:
    """An absolutely positioned menu escapes an overflow:hidden box that is not its containing block."""
    st = await open_page(
        tab,
        site,
        """<div style="position:relative">
             <div style="height:40px;overflow:hidden">
               <div style="position:absolute;top:60px"><button>Escaped</button></div>
               <div style="height:300px"></div><button>Hidden below</button>
             </div>
           </div>""",
    )
    assert "Escaped" in texts(st)
    assert "Hidden below" not in texts(st)


# ----- page_content: whitespace and the cap ---------------------------------------------------------


async def test_whitespace_between_inline_elements_separates_words(tab: cdp_engine.Tab, site: Any) -> None:
    st = await open_page(
        tab,
        site,
        """<pre><span>def</span> <span>greeting</span>(<span>name</span>: <span>str</span>)</pre>
           <p><em>Introducing</em> <a href="#x">Protocol</a> and <b>more</b></p>
           <ul>
             <li> <a href="#y">Docs</a> </li>
           </ul>""",
    )
    content = st["page_content"]
    assert "def greeting(name: str)" in content
    assert '<em>Introducing</em> [1]<a href="#x">Protocol</a> and more' in content
    assert '<li>[2]<a href="#y">Docs</a></li>' in content  # no space after an opening or before a closing tag


async def test_page_content_cap_is_marked_and_viewport_elements_stay_indexed(
    tab: cdp_engine.Tab, site: Any
) -> None:
    """Past the cap the text stops, with the marker, even where folding whitespace shrank the collected
    text below the cap; elements in the viewport are still indexed however far down the document they are."""
    filler = "".join(
        f"<p>{'word    ' * 40}{n}</p>\n" for n in range(700)
    )  # ~230k raw characters, much whitespace
    st = await open_page(
        tab,
        site,
        f"""<button style="position:fixed;top:0;right:0">Fixed early</button>
            {filler}
            <div id="end"><button>Bottom button</button>
              <select><option>one</option><option selected>two</option></select></div>
            <button style="position:fixed;top:0;left:0">Fixed late</button>""",
    )
    content = st["page_content"]
    body, _, marker = content.rpartition("\n")
    end = len(body) + 1  # the window ends after a whole line
    assert marker == f"[page_content truncated: characters 0-{end:,} shown; more follows. Next: offset={end}.]"
    assert len(body) <= PAGE_CONTENT_CAP
    assert len(body) > PAGE_CONTENT_CAP - 1_000, "the budget is filled, not cut early"
    assert {"Fixed early", "Fixed late"} <= set(texts(st))
    assert "Bottom button" not in texts(st)
    await tab.evaluate("document.getElementById('end').scrollIntoView()")
    st = await state(tab)
    assert {"Fixed early", "Fixed late", "Bottom button", "two"} <= set(texts(st))
    select = find(st, tag="select")
    options = [d for d in st["element_index"].values() if d["tag"] == "option"]
    assert [o["text_content"] for o in options] == ["one", "two"] and select
    assert st["page_content"].endswith(f"Next: offset={end}.]")


async def test_capture_leaves_the_garbage_collector_as_it_found_it(tab: cdp_engine.Tab, site: Any) -> None:
    import gc

    await tab.goto(site.add(path("gc"), page("<button>B</button>")))
    assert gc.isenabled()
    await tab.state(screenshot=False)
    assert gc.isenabled()
    gc.disable()
    try:
        await tab.evaluate("document.body.append('x')")
        await tab.state(screenshot=False)
        assert not gc.isenabled(), "an application that runs without the collector keeps it off"
    finally:
        gc.enable()


# ----- clipping and occluder styles, verified only where the geometry leaves them open ------------


async def test_ordinary_page_needs_no_style_verification(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, "<h1>Plain</h1><p><a href='#a'>A</a> <button>B</button> <input></p>")
    assert tab.last_timings["verified"] == 0


async def test_clipping_and_covering_verified_in_frames_and_shadow_roots(
    tab: cdp_engine.Tab, site: Any, wait: Any
) -> None:
    """Scroll containers clip in the top document, in a same-origin and a cross-origin frame and inside a
    closed shadow root; an overflow:visible box does not; a pointer-events:none cover does not hide."""
    body = """<div style="height:60px;overflow:auto"><div style="height:200px"></div>
                <button>{p}Clipped</button></div>
              <div style="height:30px"><div style="height:40px"></div><button>{p}Overflowing</button></div>
              <div style="height:40px"></div>
              <div style="position:relative;height:40px"><button>{p}Glass</button>
                <div style="position:absolute;inset:0;pointer-events:none;background:rgba(0,0,0,.1)"></div></div>
              <div style="position:relative;height:40px"><button>{p}Covered</button>
                <div style="position:absolute;inset:0;background:#fff"></div></div>"""
    frame = "<!doctype html><html><body style='margin:0'>{}</body></html>"
    same = site.add(path("vsame"), frame.format(body.format(p="Same")))
    cross_path = path("vcross")
    site.add(cross_path, frame.format(body.format(p="Cross")))
    html = (
        body.format(p="Top")
        + """<div id="host"></div>
        <script>
          const root = document.getElementById('host').attachShadow({mode: 'closed'});
          root.innerHTML = `<div style="height:50px;overflow:hidden"><div style="height:80px"></div>
                              <button>ShadowClipped</button></div><button>ShadowShown</button>`;
        </script>"""
        + f"""<iframe src="{same}" style="width:400px;height:260px"></iframe>
        <iframe src="{site.other_url + cross_path}" style="width:400px;height:260px"></iframe>"""
    )
    await tab.goto(site.add(path("verify"), page(html)))
    await wait(lambda: len(tab.frame_sessions) == 1)
    st = await state(tab)
    shown = set(texts(st))
    for prefix in ("Top", "Same", "Cross"):
        assert {f"{prefix}Overflowing", f"{prefix}Glass"} <= shown, prefix
        assert not {f"{prefix}Clipped", f"{prefix}Covered"} & shown, prefix
    assert "ShadowShown" in shown and "ShadowClipped" not in shown
    assert tab.last_timings["verified"] > 0


async def test_a_resize_is_a_new_state_and_a_late_resize_event_is_not(tab: cdp_engine.Tab, site: Any) -> None:
    """The change probe reads the window's size instead of counting resize events: Chromium fires them a frame
    after the size changed (an out-of-process frame's first one could come after two states had read the same
    page, so the second missed the cache). A resize is still a new state; a resize event alone is none."""
    from cdp_engine.core.emulation import set_viewport

    await open_page(tab, site, "<button>Wide</button><style>@media (max-width: 500px) { button { display: none } }</style>")
    st = await state(tab)
    assert "Wide" in texts(st)
    await tab.evaluate("window.dispatchEvent(new Event('resize'))")  # the event without a change of size
    await state(tab)
    assert cached(tab)
    width, height = await tab.evaluate("[innerWidth, innerHeight]")  # the engine's own emulated viewport
    await set_viewport(tab, 400, 600)
    try:
        narrow = await state(tab)
        assert not cached(tab) and "Wide" not in texts(narrow)
        assert tab.element_index.current is not None and tab.element_index.current.viewport[:2] == (400, 600)
    finally:
        await set_viewport(tab, width, height)  # as the engine set it (clearing it would resize later, racily)
    wide = await state(tab)
    assert not cached(tab) and "Wide" in texts(wide)
    assert tab.element_index.current is not None and tab.element_index.current.viewport[:2] == (width, height)


async def test_viewport_rides_with_the_change_probe(tab: cdp_engine.Tab, site: Any) -> None:
    """The capture takes the visual viewport from its change probe (no Page.getLayoutMetrics), and it
    equals Chromium's layout metrics, scrolled or not, in standards and quirks mode."""
    sent: list[str] = []
    original = tab.session.send

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(method)
        return original(method, *args, **kwargs)

    for doctype in ("<!doctype html>", ""):
        await tab.goto(site.add(path("vv"), f"{doctype}<div style='height:3000px;width:3000px'>big</div>"))
        await tab.evaluate("window.scrollTo(120, 340)")
        tab.session.send = spy  # type: ignore[method-assign]
        try:
            await state(tab)
        finally:
            del tab.session.send
        metrics = (await tab.session.send("Page.getLayoutMetrics"))["cssVisualViewport"]
        current = tab.element_index.current
        assert current is not None
        assert current.viewport == (metrics["clientWidth"], metrics["clientHeight"], metrics["pageX"], metrics["pageY"])
        assert current.viewport[2:] == (120, 340)
        assert "Page.getLayoutMetrics" not in sent and "DOMSnapshot.captureSnapshot" in sent
        sent.clear()


async def test_style_verification_recovers_from_a_lost_isolated_world(tab: cdp_engine.Tab, site: Any) -> None:
    """A world context that no longer exists (its document went, or Chromium dropped it) is replaced before the
    styles are asked, so the answers stay right instead of falling back to geometry."""
    html = """<div style="position:relative;height:40px"><button>Glass</button>
                <div style="position:absolute;inset:0;pointer-events:none;background:rgba(0,0,0,.1)"></div></div>"""
    await tab.goto(site.add(path("lostworld"), page(html)))
    worlds = tab.element_index.capturer.worlds
    key = (tab.main_frame_id, tab.frames[tab.main_frame_id].loader_id)
    await worlds.context(tab.main_frame_id)
    worlds._worlds[key] = (tab.session, 987654)  # a context id Chromium never issued (no public way to lose one)
    st = await state(tab)
    assert "Glass" in texts(st), "the pointer-events:none cover was verified in a fresh world"
    assert tab.last_timings["verified"] > 0
    await tab.evaluate("document.body.append('changed')")
    assert "Glass" in texts(await state(tab)), "and the next capture has a working world again"


async def test_action_validation_non_finite_huge_wrong_missing_extra(tab: cdp_engine.Tab, site: Any) -> None:
    """The one validator (util.schema against protocol/schemas/action.json) in the protocol's words: NaN and the
    infinities are not numbers (ACTION_VALIDATION_FAILED, like a wrong type, a missing or an extra field); a huge
    index (beyond 2**53 - 1) is refused the same way, with a serialisable failed_action (issue 14, defect 4); a huge
    scroll scrolls to the end; nothing else happens on a failure."""
    before = await open_page(tab, site, '<button onclick="clicks++">Go</button><div style="height:3000px"></div>'
                             "<script>window.clicks = 0</script>")
    nan, inf = float("nan"), float("inf")
    refused = [
        ({"action": "click_element", "element_index": nan}, "click_element: element_index must be an integer >= 1, got NaN"),
        ({"action": "click_element", "element_index": inf}, "click_element: element_index must be an integer >= 1, got Infinity"),
        ({"action": "scroll", "direction": "down", "pixels": -inf}, "scroll: pixels must be an integer >= 1, got -Infinity"),
        ({"action": "click_element", "element_index": "1"}, "click_element: element_index must be an integer >= 1, got '1'"),
        ({"action": "click_element", "element_index": True}, "click_element: element_index must be an integer >= 1, got true"),
        ({"action": "input_text", "element_index": 1}, "input_text: missing required field 'text'"),
        ({"action": "click_element", "element_index": 1, "extra": 1}, "click_element: unexpected field 'extra'"),
        ({"element_index": 1}, "action: missing required field 'action'"),
    ]  # fmt: skip
    for action, message in refused:
        failed = await act(tab, action)
        assert_error(before, failed, "ACTION_VALIDATION_FAILED", action)
        assert failed["error"]["message"] == message
    huge = {"action": "click_element", "element_index": 10**30}
    failed = await act(tab, huge)
    assert_error(before, failed, "ACTION_VALIDATION_FAILED", {**huge, "element_index": str(10**30)})
    assert failed["error"]["message"] == (
        "click_element: element_index must be at most 9007199254740991 in size, got 1000000000000000000000000000000"
    )
    failed = await act(tab, {"action": "click_element", "element_index": 2**53 - 1})
    assert_error(before, failed, "INVALID_ELEMENT_INDEX", {"action": "click_element", "element_index": 2**53 - 1})
    assert await tab.evaluate("clicks") == 0
    scrolled = await act(tab, {"action": "scroll", "direction": "down", "pixels": 10**30})
    assert "error" not in scrolled and await tab.evaluate("scrollY") > 0
