"""Regression pages for the defects real apps showed (issue 31), each driven through every surface: the element
index (`AgentTab.act`), the browser toolset (refs from read_page) and the MCP tools (refs from the snapshot).

Each page is the smallest that failed before its fix: a click at the bottom of a scrolled page, in a scrolled
container and in scrolled same- and cross-origin frames (the hit test was sent in the wrong coordinates); a
button whose label is slotted into a closed shadow root (the hit test walked DOM parents, not the flat tree); a
hover card that the pointer's move opens over the button (the press landed on the card and the click answered
success). A page records every click its handlers see in `window.clicks`, in the top document.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

import cdp_engine
from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
from cdp_engine.toolset.driver_config import ToolsetConfig
from cdp_engine.toolset.executor import BrowserToolset

SURFACES = ["index", "toolset", "mcp"]

RECORD = (
    "<script>window.clicks = []; addEventListener('message', e => { if (e.data === 'frame-scrolled')"
    " window.frameScrolled = true; else clicks.push(e.data); });"
    " function rec(what) { if (window.top === window) clicks.push(what); else top.postMessage(what, '*'); }</script>"
)


class Driver:
    """One surface, reduced to what a scripted agent does here: open a page, find a control by its label in
    what the surface shows, click it. click() answers None on success, else the surface's error text."""

    name = ""

    async def open(self, url: str) -> None:
        raise NotImplementedError

    async def click(self, label: str) -> str | None:
        raise NotImplementedError

    async def evaluate(self, expression: str) -> Any:
        raise NotImplementedError


class IndexDriver(Driver):
    name = "index"

    def __init__(self, tab: cdp_engine.AgentTab) -> None:
        self.tab = tab

    async def open(self, url: str) -> None:
        await self.tab.goto(url, wait_until="load")

    async def find(self, label: str) -> int:
        state = await self.tab.state()
        for key, el in state["element_index"].items():
            if label in (el["text_content"] or "") or label == el["aria-label"]:
                return int(key)
        # The protocol's index shows the viewport: scroll down a screen at a time, as an agent would.
        for _ in range(10):
            state = await self.tab.act({"action": "scroll", "direction": "down"})
            for key, el in state["element_index"].items():
                if label in (el["text_content"] or "") or label == el["aria-label"]:
                    return int(key)
        raise AssertionError(f"{label!r} not in the element index: {state['element_index']}")

    async def click(self, label: str) -> str | None:
        index = await self.find(label)
        state = await self.tab.act({"action": "click_element", "element_index": index})
        return state["error"]["message"] if "error" in state else None

    async def evaluate(self, expression: str) -> Any:
        return await self.tab.evaluate(expression)


class ToolsetDriver(Driver):
    name = "toolset"

    def __init__(self, ts: BrowserToolset) -> None:
        self.ts = ts

    async def open(self, url: str) -> None:
        _content, is_error = await self.ts.call("navigate", {"url": url})
        assert not is_error, _content

    async def click(self, label: str) -> str | None:
        content, is_error = await self.ts.call("read_page", {"filter": "all"})
        assert not is_error, content
        listing = "\n".join(b["text"] for b in content if b["type"] == "text")
        ref = next((m.group(1) for line in listing.splitlines() if label in line
                    for m in [re.search(r"\[(ref_\d+)\]", line)] if m), None)  # fmt: skip
        assert ref is not None, f"{label!r} not in read_page:\n{listing}"
        content, is_error = await self.ts.call("left_click", {"target": {"type": "ref", "ref": ref}})
        return content[0]["text"] if is_error else None

    async def evaluate(self, expression: str) -> Any:
        return await self.ts.book.get(None).tab.evaluate(expression)


class McpDriver(Driver):
    name = "mcp"

    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools

    async def call(self, tool: str, **args: Any) -> dict[str, Any]:
        return await self.tools.call(tool, {"instance": "t", **args})

    async def open(self, url: str) -> None:
        env = await self.call("browser_navigate", url=url)
        assert env["status"] == "success", env

    async def click(self, label: str) -> str | None:
        env = await self.call("browser_snapshot")
        assert env["status"] == "success", env
        snap = env["data"]["snapshot"]
        ref = next((line.split("[ref=")[1].split("]")[0] for line in snap.splitlines()
                    if label in line and "[ref=" in line), None)  # fmt: skip
        assert ref is not None, f"{label!r} not in the snapshot:\n{snap}"
        env = await self.call("browser_click", ref=ref)
        return None if env["status"] == "success" else str(env["message"])

    async def evaluate(self, expression: str) -> Any:
        page = self.tools.manager.instances["t"].selected
        assert page is not None
        return await page.tab.evaluate(expression)


@pytest_asyncio.fixture(params=SURFACES)
async def driver(
    request: pytest.FixtureRequest, browser: cdp_engine.Browser, context: cdp_engine.BrowserContext
) -> AsyncIterator[Driver]:
    if request.param == "index":
        tab = await context.new_tab()
        assert isinstance(tab, cdp_engine.AgentTab)
        yield IndexDriver(tab)
    elif request.param == "toolset":
        ts = await BrowserToolset(browser, context=context, config=ToolsetConfig()).start()
        yield ToolsetDriver(ts)
        await ts.close()
    else:
        manager = InstanceManager(Config(), browser=browser)
        tools = BrowserTools(manager)
        env = await tools.call("browser_create_instance", {"name": "t"})
        assert env["status"] == "success", env
        yield McpDriver(tools)
        await manager.close()


def button(label: str, extra: str = "") -> str:
    return f"<button onclick=\"rec('{label}')\" {extra}>{label}</button>"


LONG_PAGE = RECORD + "<div style='height:2500px'>top</div>" + button("Bottom button") + "<div style='height:600px'></div>"

CONTAINER = RECORD + (
    "<div style='height:200px'></div><div id=box style='height:300px; width:400px; overflow:auto; border:1px solid'>"
    "<div style='height:1200px'></div>" + button("Inner button") + "<div style='height:400px'></div></div>"
    "<script>box.scrollTop = 1000</script>"
)

FRAME_PAGE = (
    "<div style='height:1800px'>frame top</div>" + button("Framed button") + "<div style='height:400px'></div>"
    # Scrolled, and the top told so. Chromium loses a scroll made while an out-of-process frame is out of view
    # (throttled) in about 1 of 40 loads under load: the frame then shows its top and the button is rightly not in
    # view. So the frame scrolls again at each animation frame until it holds (which it gets once in view).
    "<script>(function go() { scrollTo(0, 1700); if (scrollY >= 1700) top.postMessage('frame-scrolled', '*');"
    " else requestAnimationFrame(go); })()</script>"
)


def framed(src: str) -> str:
    return RECORD + (
        "<div style='height:1200px'>outer top</div>"
        f"<iframe id=f src='{src}' style='width:500px; height:300px; border:0'></iframe>"
        "<div style='height:1200px'>outer bottom</div>"
    )


SLOTTED = RECORD + """
<my-button onclick="rec('slotted')"><span>Save order</span></my-button>
<script>
customElements.define('my-button', class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({mode: 'closed'});
    root.innerHTML = '<button style="padding:20px 40px; font-size:20px"><slot></slot></button>';
  }
});
</script>"""

HOVER_CARD = RECORD + """
<button id=b onclick="rec('button')" style="width:200px; height:40px"
  onmouseenter="document.getElementById('card').style.display = 'block'">Open profile</button>
<div id=card onclick="rec('card')" onmousedown="rec('card down')"
  style="display:none; position:absolute; left:0; top:0; width:400px; height:200px; background:#eee">Profile card</div>
"""


async def test_click_at_the_bottom_of_a_long_page(driver: Driver, site: Any) -> None:
    await driver.open(site.add(f"/defects/long-{driver.name}", LONG_PAGE))
    assert await driver.click("Bottom button") is None
    assert await driver.evaluate("clicks") == ["Bottom button"]


# Scrolled by less than a screen: the hit test at the viewport point, read as a document point, found the page
# above the button and refused the click as covered.
SCROLLED_A_LITTLE = RECORD + (
    "<div style='height:700px'>top</div>" + button("Lower button", "style='height:60px'")
    + "<div style='height:1500px'></div><script>scrollTo(0, 300)</script>"
)


async def test_click_on_a_page_scrolled_by_less_than_a_screen(driver: Driver, site: Any) -> None:
    await driver.open(site.add(f"/defects/scrolled-{driver.name}", SCROLLED_A_LITTLE))
    assert await driver.evaluate("scrollY") == 300
    assert await driver.click("Lower button") is None
    assert await driver.evaluate("clicks") == ["Lower button"]


async def test_click_in_a_scrolled_container(driver: Driver, site: Any) -> None:
    await driver.open(site.add(f"/defects/box-{driver.name}", CONTAINER))
    assert await driver.click("Inner button") is None
    assert await driver.evaluate("clicks") == ["Inner button"]


@pytest.mark.parametrize("origin", ["same", "cross"])
async def test_click_in_a_scrolled_frame(driver: Driver, site: Any, origin: str) -> None:
    inner = site.add(f"/defects/frame-inner-{origin}-{driver.name}", RECORD + FRAME_PAGE)
    src = inner if origin == "same" else inner.replace(site.url, site.other_url)
    await driver.open(site.add(f"/defects/frame-{origin}-{driver.name}", framed(src)))
    await driver.evaluate("document.getElementById('f').scrollIntoView()")  # the page and the frame scrolled
    scrolled = "new Promise(r => { const t0 = performance.now(); (function look() {" \
        " if (window.frameScrolled || performance.now() - t0 > 3000) r(!!window.frameScrolled); else setTimeout(look, 10); })(); })"
    assert await driver.evaluate(scrolled), "the frame never scrolled"
    assert await driver.click("Framed button") is None
    # The frame tells the top by a message, which arrives a task later.
    clicks = await driver.evaluate(
        "new Promise(r => { const t0 = performance.now(); (function look() {"
        " if (clicks.length || performance.now() - t0 > 2000) r(clicks); else setTimeout(look, 10); })(); })"
    )
    assert clicks == ["Framed button"]


async def test_click_on_a_button_whose_label_is_slotted(driver: Driver, site: Any) -> None:
    await driver.open(site.add(f"/defects/slotted-{driver.name}", SLOTTED))
    assert await driver.click("Save order") is None
    assert await driver.evaluate("clicks") == ["slotted"]


async def test_a_press_that_lands_on_what_the_move_opened_is_refused(driver: Driver, site: Any) -> None:
    await driver.open(site.add(f"/defects/hover-{driver.name}", HOVER_CARD))
    error = await driver.click("Open profile")
    assert error is not None and "Profile card" in error, error
    assert await driver.evaluate("clicks") == []  # the card's handlers never saw the press, nor the button's


# ----- one click pipeline: enabled, delivered, and not ignored -------------------------------------------

DISABLED_CONTROLS = RECORD + """
<fieldset disabled><button onclick="rec('fieldset')">Fieldset button</button></fieldset>
<div role=button tabindex=0 aria-disabled=true onclick="rec('aria')">Aria control</div>
<div role=group aria-disabled=true><div role=button tabindex=0 onclick="rec('inherited')">Inherited control</div></div>
"""


@pytest.mark.parametrize("label", ["Fieldset button", "Aria control", "Inherited control"])
async def test_a_click_on_a_disabled_control_is_refused_on_every_surface(
    driver: Driver, site: Any, label: str
) -> None:
    # Natively disabled (by its fieldset) or aria-disabled on the control or the nearest ancestor that says:
    # refused with the word, as Playwright's enabled check, and the page sees nothing.
    await driver.open(site.add(f"/defects/disabled-{driver.name}-{label[:4]}", DISABLED_CONTROLS))
    error = await driver.click(label)
    assert error is not None and "disabled" in error, error
    assert await driver.evaluate("clicks") == []


IGNORING_PAGE = RECORD + """
<div role=button tabindex=0>Dead control</div>
<button>Dead button</button>
<button onclick="rec('quiet')">Quiet button</button>
"""
DELEGATING_PAGE = IGNORING_PAGE + """
<div role=button tabindex=0 id=delegated>Delegated control</div>
<script>document.addEventListener('click', e => { if (e.target.id === 'delegated') rec('delegated'); });</script>
"""


@pytest.mark.parametrize("label", ["Dead control", "Dead button"])
async def test_a_click_nothing_handles_is_reported_as_ignored(driver: Driver, site: Any, label: str) -> None:
    # The press reached the element, nothing on the page listens for it and nothing changed: never a success.
    await driver.open(site.add(f"/defects/ignored-{driver.name}-{label[5:9]}", IGNORING_PAGE))
    error = await driver.click(label)
    assert error is not None and "ignored the click" in error, error


@pytest.mark.parametrize(("label", "seen"), [("Quiet button", "quiet"), ("Delegated control", "delegated")])
async def test_a_click_handled_without_a_change_is_a_success(
    driver: Driver, site: Any, label: str, seen: str
) -> None:
    # A handler on the element or one delegated to the document: handled, though the DOM did not change.
    await driver.open(site.add(f"/defects/handled-{driver.name}-{seen}", DELEGATING_PAGE))
    assert await driver.click(label) is None
    assert await driver.evaluate("clicks") == [seen]


# ----- typing only where focus is (defect 3) --------------------------------------------------------------

TYPING_FORM = """
<label>Quantity <input id=qty type=number value=3></label>
<label>Notes <textarea id=notes>keep</textarea></label>
<details id=more><summary>More</summary><p>closed</p></details>
<script>document.getElementById('qty').focus();</script>
"""

# Each turns the notes field, after the state was read, into a target that cannot take the keys.
UNFOCUSABLE = {
    "hidden": "notes.style.display = 'none'",
    "closed-details": "more.appendChild(notes)",
    "disabled": "notes.disabled = true",
    "readonly": "notes.readOnly = true",
    "inert": "notes.inert = true",
    "invisible": "notes.style.visibility = 'hidden'",
}
FIELDS = "[qty.value, notes.value, document.activeElement.id]"


@pytest.mark.parametrize("how", list(UNFOCUSABLE))
async def test_text_for_a_field_that_cannot_take_focus_is_refused_and_typed_nowhere(
    context: cdp_engine.BrowserContext, site: Any, how: str
) -> None:
    # On a real form the notes went into the focused quantity field, wiping it, and the action answered success.
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add(f"/defects/typing-{how}", TYPING_FORM), wait_until="load")
    state = await tab.state()
    notes = next(int(k) for k, el in state["element_index"].items() if el["tag"] == "textarea")
    await tab.evaluate(UNFOCUSABLE[how])
    for overwrite in (False, True):
        after = await tab.act({"action": "input_text", "element_index": notes, "text": "9 extra", "overwrite": overwrite})
        assert after["error"]["code"] in ("ELEMENT_NOT_INTERACTIVE", "INVALID_ELEMENT_INDEX"), after["error"]
        assert await tab.evaluate(FIELDS) == ["3", "keep", "qty"]


@pytest.mark.parametrize("how", list(UNFOCUSABLE))
async def test_mcp_type_into_a_field_that_cannot_take_focus_is_refused_and_typed_nowhere(
    browser: cdp_engine.Browser, site: Any, how: str
) -> None:
    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)
    try:
        assert (await tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
        url = site.add(f"/defects/mcp-typing-{how}", TYPING_FORM)
        assert (await tools.call("browser_navigate", {"instance": "t", "url": url}))["status"] == "success"
        snap = (await tools.call("browser_snapshot", {"instance": "t"}))["data"]["snapshot"]
        ref = next(line.split("[ref=")[1].split("]")[0] for line in snap.splitlines() if 'textbox "Notes"' in line)
        page = manager.instances["t"].selected
        assert page is not None
        await page.tab.evaluate(UNFOCUSABLE[how])
        for clear_first in (False, True):
            env = await tools.call(
                "browser_type", {"instance": "t", "ref": ref, "text": "9 extra", "clear_first": clear_first}
            )
            assert env["status"] == "error", env
            assert await page.tab.evaluate(FIELDS) == ["3", "keep", "qty"]
    finally:
        await manager.close()


# ----- what is rendered, and the text a person reads (defects 2, 4, 6) ---------------------------------------

RENDERED = """
<details id=more><summary>More options</summary><textarea name=notes rows=12 cols=80></textarea><p>secret</p></details>
<button>Save</button> <button>Save and add another</button> <button>Save and continue editing</button>
<details open><summary>Shown</summary><input name=shown></details>
<div hidden=until-found><input name=later></div>
<div inert><button>Inert button</button></div>
<div style="display: contents"><div style="display: contents"><div style="display: contents">
  <button>Deep button</button></div></div></div>
<p><button>Gre<span>en</span></button> <button>Pl<span>ace </span> order</button> <a href="#o">Order #<b>1</b></a>
<button><span>Two</span><br><span>lines</span></button></p>
"""


async def test_the_index_holds_what_is_rendered_and_reads_text_as_shown(
    context: cdp_engine.BrowserContext, site: Any
) -> None:
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add("/defects/rendered", RENDERED), wait_until="load")
    state = await tab.state()
    names = [el["attributes"]["name"] for el in state["element_index"].values() if el["tag"] in ("input", "textarea")]
    texts = [el["text_content"] for el in state["element_index"].values() if el["tag"] in ("button", "a")]
    # A closed <details> shows its summary only: the field inside is not indexed and its box covers nothing,
    # so the three buttons after it are there; an open one shows its content.
    assert names == ["shown"]
    assert texts == [
        "Save", "Save and add another", "Save and continue editing", "Deep button", "Green", "Place order",
        "Order #1", "Two lines",
    ]  # fmt: skip
    assert "secret" not in state["page_content"] and "Inert button" in state["page_content"]
    # Opened, the details' content is rendered and indexed.
    await tab.evaluate("document.getElementById('more').open = true")
    state = await tab.state()
    assert [el["attributes"]["name"] for el in state["element_index"].values() if el["tag"] == "textarea"] == ["notes"]
    assert "secret" in state["page_content"]


async def test_mcp_and_toolset_views_agree_on_what_is_rendered_and_its_text(
    browser: cdp_engine.Browser, context: cdp_engine.BrowserContext, site: Any
) -> None:
    url = site.add("/defects/rendered-views", RENDERED)
    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)
    ts = await BrowserToolset(browser, context=context, config=ToolsetConfig()).start()
    try:
        assert (await tools.call("browser_create_instance", {"name": "t"}))["status"] == "success"
        assert (await tools.call("browser_navigate", {"instance": "t", "url": url}))["status"] == "success"
        snap = (await tools.call("browser_snapshot", {"instance": "t"}))["data"]["snapshot"]
        content, is_error = await ts.call("navigate", {"url": url})
        assert not is_error, content
        content, is_error = await ts.call("read_page", {"filter": "all"})
        listing = "\n".join(b["text"] for b in content if b["type"] == "text")
        for view in (snap, listing):
            assert view.count("textbox") == 1, view  # the open details' field; not the closed one's
            for torn in ("Gre en", "Pl ace", "Order # 1"):  # words split at inline boundaries
                assert torn not in view, view
            for name in ("Save", "Save and add another", "Save and continue editing", "Deep button", "Green",
                         "Place order", "Two lines"):  # fmt: skip
                assert f'button "{name}"' in view, view
            assert 'link "Order #1"' in view, view
    finally:
        await ts.close()
        await manager.close()


@pytest.mark.xfail(strict=True, reason="known limit (docs/real-web.md): an author's content-visibility: hidden is not "
                   "read; one more style column would make every snapshot slower (+25 % on 1,000 controls)")
async def test_an_authors_content_visibility_hidden(context: cdp_engine.BrowserContext, site: Any) -> None:
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    html = "<input name=shown><div style='content-visibility: hidden'><input name=skipped></div>"
    await tab.goto(site.add("/defects/content-visibility", html), wait_until="load")
    state = await tab.state()
    assert [el["attributes"]["name"] for el in state["element_index"].values()] == ["shown"]


# ----- a change made only inside a shadow root (defect 8) ----------------------------------------------------

SHADOW_STATUS = """
<order-status id=open-one data-mode=open></order-status>
<order-status id=closed-one data-mode=closed></order-status>
<script>
customElements.define('order-status', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: this.dataset.mode});
    root.innerHTML = '<p>Status: <span>draft</span></p><button>Open list</button>';
    this.show = (text) => { root.querySelector('span').textContent = text; };
    this.add = () => { const b = document.createElement('button'); b.textContent = 'Item ' + this.id;
                       root.appendChild(b); };
  }
});
</script>"""


@pytest.mark.parametrize("mode", ["open", "closed"])
async def test_a_change_inside_a_shadow_root_is_a_new_state(
    context: cdp_engine.BrowserContext, site: Any, mode: str
) -> None:
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add(f"/defects/shadow-{mode}", SHADOW_STATUS), wait_until="load")
    first = await tab.state()
    assert first["page_content"].count("draft") == 2
    for _ in range(2):  # the cached state on an unchanged page, before and after the probe watches the roots
        assert (await tab.state())["page_content"] == first["page_content"]
    await tab.evaluate(f"document.getElementById('{mode}-one').show('Saved order 42')")
    state = await tab.state()
    assert "Saved order 42" in state["page_content"], state["page_content"]
    await tab.evaluate(f"document.getElementById('{mode}-one').add()")
    state = await tab.state()
    assert f"Item {mode}-one" in [el["text_content"] for el in state["element_index"].values()]


NESTED_CLOSED = """
<order-card id=card></order-card>
<script>
customElements.define('order-line', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'closed'});
    root.innerHTML = '<p>Line: <span>draft</span></p>';
    window.setLine = (text) => { root.querySelector('span').textContent = text; };
  }
});
customElements.define('order-card', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'closed'});
    root.innerHTML = '<h2>Card</h2><order-line></order-line>';
  }
});
</script>"""


@pytest.mark.parametrize(("outer", "inner"), [("closed", "closed"), ("open", "closed"), ("closed", "open")])
async def test_a_change_in_a_shadow_root_inside_another_is_a_new_state(
    context: cdp_engine.BrowserContext, site: Any, outer: str, inner: str
) -> None:
    # A root inside another root's tree, closed or open at each level: the probe watches it too.
    html = NESTED_CLOSED.replace("{mode: 'closed'});\n    root.innerHTML = '<h2>", f"{{mode: '{outer}'}});\n    root.innerHTML = '<h2>")
    html = html.replace("{mode: 'closed'});\n    root.innerHTML = '<p>Line", f"{{mode: '{inner}'}});\n    root.innerHTML = '<p>Line")
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add(f"/defects/nested-{outer}-{inner}", html), wait_until="load")
    first = await tab.state()
    assert "draft" in first["page_content"], first["page_content"]
    for _ in range(2):
        assert (await tab.state())["page_content"] == first["page_content"]
    await tab.evaluate("setLine('Saved line 7')")
    state = await tab.state()
    assert "Saved line 7" in state["page_content"], state["page_content"]


# ----- what an action started in a shadow root, fading in (defect 7 with 8) ---------------------------------

FADING_POPUP = """
<fancy-select></fancy-select>
<script>
customElements.define('fancy-select', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({mode: 'open'});
    root.innerHTML = '<button id=open>Choose a size</button>'
      + '<div id=list role=listbox hidden><div role=option>Small</div><div role=option>Large</div></div>';
    root.getElementById('open').addEventListener('click', () => {
      const list = root.getElementById('list');
      list.hidden = false;
      list.animate([{opacity: 0}, {opacity: 1}], {duration: 150, fill: 'both'});
    });
  }
});
</script>"""


async def test_the_state_after_a_click_waits_for_a_fade_in_inside_a_shadow_root(
    context: cdp_engine.BrowserContext, site: Any
) -> None:
    # document.getAnimations() leaves out a shadow tree's animations: the settle and the change probe read
    # them from the watched roots, so the state an action returns shows the list, and no state read during
    # the fade is served from the cache afterwards.
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add("/defects/fading-popup", FADING_POPUP), wait_until="load")
    state = await tab.state(interactive="extended")
    opener = next(int(k) for k, el in state["element_index"].items() if el["text_content"] == "Choose a size")
    after = await tab.act({"action": "click_element", "element_index": opener}, interactive="extended")
    options = [el["text_content"] for el in after["element_index"].values() if el["role"] == "option"]
    assert options == ["Small", "Large"], after["page_content"]
    assert await tab.state(interactive="extended") == after


@pytest.mark.parametrize("scale", [1.5, 2])
@pytest.mark.parametrize(("page", "label"), [("scrolled", "Lower button"), ("long", "Bottom button"), ("box", "Inner button")])
async def test_clicks_land_at_a_device_scale_factor_other_than_1(
    context: cdp_engine.BrowserContext, site: Any, scale: float, page: str, label: str
) -> None:
    # CSS pixels all the way: the quads, the hit test's point and the dispatched events do not depend on it.
    html = {"scrolled": SCROLLED_A_LITTLE, "long": LONG_PAGE, "box": CONTAINER}[page]
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.session.send(
        "Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 720, "deviceScaleFactor": scale, "mobile": False}
    )
    driver = IndexDriver(tab)
    await driver.open(site.add(f"/defects/dsf-{page}-{scale}", html))
    assert await driver.click(label) is None
    assert await driver.evaluate("clicks") == [label]


@pytest.mark.parametrize("scale", [1.5, 2.0])
@pytest.mark.parametrize(("page", "label"), [("scrolled", "Lower button"), ("long", "Bottom button")])
async def test_clicks_land_on_a_pinch_zoomed_page(
    context: cdp_engine.BrowserContext, site: Any, scale: float, page: str, label: str
) -> None:
    # A pinch zoom: the quads and Input's points are in the visual viewport, the page's client coordinates in
    # the layout viewport, offset by the visual one's position. The hit test and the delivery guard take the
    # layout's; before, the guard found no press at its point and called a delivered click undelivered.
    html = {"scrolled": SCROLLED_A_LITTLE, "long": LONG_PAGE}[page]
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    driver = IndexDriver(tab)
    await driver.open(site.add(f"/defects/pinch-{page}-{scale}", html))
    await tab.session.send("Emulation.setPageScaleFactor", {"pageScaleFactor": scale})
    # Panned inside the layout viewport, as a person's pinch leaves it.
    await tab.session.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": 100, "y": 100, "deltaX": 0, "deltaY": 120})
    await tab.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert await driver.click(label) is None
    assert await driver.evaluate("clicks") == [label]


# ----- typing the page ignored: reported, never a success that changed nothing ---------------------------

REJECTING_FIELDS = """
<label>Amount <input id=amount type=number value=5></label>
<label>Code <input id=code maxlength=3 value=abc></label>
<label>Locked <input id=locked value=fixed></label>
<label>Free <input id=free value=x></label>
<script>locked.addEventListener('input', () => { locked.value = 'fixed'; });</script>
"""
# (field, text, overwrite, ignored): letters appended to a number field, a full field, a controlled field that
# puts its value back; a free field takes the text.
TYPINGS = [("amount", "abc", False, True), ("code", "d", False, True), ("locked", "new", True, True),
           ("free", "yz", False, False)]  # fmt: skip


@pytest.mark.parametrize(("field", "text", "overwrite", "ignored"), TYPINGS, ids=[t[0] for t in TYPINGS])
async def test_typing_the_page_ignored_is_reported_by_the_index(
    context: cdp_engine.BrowserContext, site: Any, field: str, text: str, overwrite: bool, ignored: bool
) -> None:
    tab = await context.new_tab()
    assert isinstance(tab, cdp_engine.AgentTab)
    await tab.goto(site.add(f"/defects/rejecting-index-{field}", REJECTING_FIELDS), wait_until="load")
    state = await tab.state(screenshot=False)
    index = next(int(k) for k, el in state["element_index"].items() if el["attributes"].get("value") is not None
                 and (el["attributes"]["value"], el["tag"]) == ({"amount": "5", "code": "abc", "locked": "fixed", "free": "x"}[field], "input"))  # fmt: skip
    after = await tab.act({"action": "input_text", "element_index": index, "text": text, "overwrite": overwrite})
    if ignored:
        assert after["error"]["code"] == "ELEMENT_NOT_INTERACTIVE" and "ignored the text" in after["error"]["message"]
    else:
        assert "error" not in after and await tab.evaluate("free.value") == "xyz"


@pytest.mark.parametrize(("field", "text", "overwrite", "ignored"), TYPINGS, ids=[t[0] for t in TYPINGS])
async def test_typing_the_page_ignored_is_reported_by_mcp(
    browser: cdp_engine.Browser, site: Any, field: str, text: str, overwrite: bool, ignored: bool
) -> None:
    manager = InstanceManager(Config(), browser=browser)
    tools = BrowserTools(manager)
    try:
        await tools.call("browser_create_instance", {"name": "t"})
        url = site.add(f"/defects/rejecting-mcp-{field}", REJECTING_FIELDS)
        assert (await tools.call("browser_navigate", {"instance": "t", "url": url}))["status"] == "success"
        snap = (await tools.call("browser_snapshot", {"instance": "t"}))["data"]["snapshot"]
        label = field.capitalize()
        ref = next(line.split("[ref=")[1].split("]")[0] for line in snap.splitlines() if f'"{label}"' in line)
        env = await tools.call(
            "browser_type", {"instance": "t", "ref": ref, "text": text, "clear_first": overwrite}
        )
        if ignored:
            assert env["status"] == "error" and "ignored the text" in env["message"], env
        else:
            assert env["status"] == "success", env
    finally:
        await manager.close()
