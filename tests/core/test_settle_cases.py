"""The settle's rule, case by case (issue 15): what the state returned by act(click_element) shows.

The rule (core/settle.py, docs/protocol.md, "Settle"): a change the click's handlers made at once is in the
state; when they changed nothing at once, the page gets one task turn, which covers zero-delay
timers (a longer timer is not waited for: its change shows in a later state); changes that go on
past that get the quiet window; requests the click started are waited for, then their answers; a
navigation is waited for to its load; a finite transition that shows or moves an element is waited
for to its end; a page that never stops changing is left at the deadline, and the timings say so.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp import web

import cdp_engine
from cdp_engine.core.settle import SettleOptions

_paths = itertools.count()


def path(name: str) -> str:
    return f"/settle-cases/{next(_paths)}/{name}"


def button(onclick: str, label: str = "go", extra: str = "") -> str:
    return f'<button id=go onclick="{onclick}">{label}</button>{extra}<p id=o>early</p>'


async def click(tab: cdp_engine.Tab, url: str, label: str = "go") -> dict[str, Any]:
    """Open the page, read its state, click the button labelled `label`; the state act() returned."""
    await tab.goto(url)
    state = await tab.state(screenshot=False)
    index = next(int(k) for k, d in state["element_index"].items() if d.get("text") == label or label in str(d))
    after = await tab.act({"action": "click_element", "element_index": index}, screenshot=False)
    assert "error" not in after, after["error"]
    return after


async def later_state(tab: cdp_engine.Tab, wait: Callable[..., Awaitable[None]], expression: str) -> dict[str, Any]:
    """The state once the page itself says `expression` (for changes the rule does not promise at once)."""
    flag: list[Any] = []

    async def check() -> None:
        flag[:] = [await tab.evaluate(expression)]

    async with asyncio.timeout(10):
        while not (flag and flag[0]):
            await check()
            if not flag[0]:
                await asyncio.sleep(0.02)
    return await tab.state(screenshot=False)


async def test_a_change_made_at_once_is_in_the_state(tab: cdp_engine.Tab, site: Any) -> None:
    state = await click(tab, site.add(path("sync"), button("document.getElementById('o').textContent = 'NOW'")))
    assert "NOW" in state["page_content"]
    assert tab.last_timings["settle_changed"] == 1.0 and tab.last_timings["settle_deadline"] == 0.0


@pytest.mark.parametrize("delay", [0, 10, 50, 200, 500])
async def test_a_change_after_a_timer(
    tab: cdp_engine.Tab, site: Any, wait: Callable[..., Awaitable[None]], delay: int
) -> None:
    js = f"setTimeout(() => {{ document.getElementById('o').textContent = 'LATE' }}, {delay})"
    state = await click(tab, site.add(path(f"timer-{delay}"), button(js)))
    if delay == 0:  # promised: one task turn covers zero-delay timers
        assert "LATE" in state["page_content"]
        return
    if delay >= 500:  # not waited for: the settle does not sit out a timer
        assert "LATE" not in state["page_content"] and tab.last_timings["settle_changed"] == 0.0
    # Not promised in this state; a later state shows it.
    assert "LATE" in (await later_state(tab, wait, "document.getElementById('o').textContent === 'LATE'"))[
        "page_content"
    ]


async def test_a_fetch_of_100_ms_is_waited_for(tab: cdp_engine.Tab, site: Any) -> None:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(0.1)
        return web.Response(text="ARRIVED")

    data = site.add_handler(path("data"), slow)
    js = f"fetch('{data}').then(r => r.text()).then(t => {{ document.getElementById('o').textContent = t }})"
    state = await click(tab, site.add(path("fetch"), button(js)))
    assert "ARRIVED" in state["page_content"]  # the state shows the answer: the settle waited for it
    # It waited in its network phase (how long depends on how much of the 100 ms the input's own dispatch took).
    assert tab.last_timings["settle_requests"] >= 1 and tab.last_timings["settle_network_ms"] > 0


async def test_a_handler_that_removes_the_focused_button_makes_its_change_at_once(tab: cdp_engine.Tab, site: Any) -> None:
    # Removing the focused button fires blur and focusout inside the click: the change is still the click's
    # own (it once counted as a later render, and the quiet window ran after every MiniWoB-style click).
    js = (
        "const a = document.getElementById('a'); a.innerHTML = '';"
        "const b = document.createElement('button'); b.textContent = 'go'; a.appendChild(b);"
        "document.getElementById('o').textContent = 'REPLACED'"
    )
    state = await click(tab, site.add(path("remove-self"), f'<div id=a><button onclick="{js}">go</button></div><p id=o>o</p>'))
    assert "REPLACED" in state["page_content"]
    assert tab.last_timings["settle_changed"] == 1.0 and tab.last_timings["settle_continued"] == 0.0


async def _pressed_scroll(tab: cdp_engine.Tab, url: str) -> list[Any]:
    """Press each scrolling key through the settle; scrollY right after each settle, then once settled for good."""
    from cdp_engine.core.pipeline import Press
    from cdp_engine.index.element_index import ElementIndex

    await tab.goto(url)
    index = ElementIndex.of(tab)
    seen = []
    for key in ("PageDown", "ArrowDown", " ", "End", "Home"):
        await index.apply(Press(key))
        seen.append(await tab.evaluate("scrollY"))
    return seen


TALL = "<div style='height: 20000px'>tall</div>"
SCROLLED = [630, 670, 1300, 19296, 0]  # a 720 px high viewport: a page, an arrow's 40 px, a page, the end, the top


async def test_a_key_that_scrolls_is_waited_for(tab: cdp_engine.Tab, site: Any) -> None:
    assert await _pressed_scroll(tab, site.add(path("keys"), TALL)) == SCROLLED


async def test_a_key_that_scrolls_smoothly_is_waited_for_to_its_end(site: Any, tmp_path: Any) -> None:
    # A browser the engine attaches to may animate key scrolls (~150 ms): the settle waits for scrollend.
    from attached import start_user_chrome

    chrome = await start_user_chrome(tmp_path / "user-profile")
    try:
        async with cdp_engine.connect(chrome.ws_url) as browser:
            context = await browser.new_context()
            tab = await context.new_tab()
            assert await _pressed_scroll(tab, site.add(path("keys-smooth"), TALL)) == SCROLLED
            await context.close()
    finally:
        chrome.stop()


async def test_the_read_sent_behind_the_look_is_the_state_only_when_nothing_changed_after_it(
    tab: cdp_engine.Tab, site: Any
) -> None:
    # The handler's own change is all there is: the capture that went out behind the look is the state.
    state = await click(tab, site.add(path("spec-sync"), button("document.getElementById('o').textContent = 'NOW'")))
    assert "NOW" in state["page_content"] and tab.last_timings["settle_speculated"] == 1.0

    # A change at once that also starts a request: the early read is dropped, the state shows the answer (read
    # after the settle, or the read sent behind the look at the answers, when that look found it there).
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(0.05)
        return web.Response(text="ANSWER")

    data = site.add_handler(path("spec-data"), slow)
    js = (
        "document.getElementById('o').textContent = 'ASKED';"
        f"fetch('{data}').then(r => r.text()).then(t => {{ document.getElementById('o').textContent = t }})"
    )
    state = await click(tab, site.add(path("spec-fetch"), button(js)))
    timings = tab.last_timings
    assert "ANSWER" in state["page_content"]
    assert timings["settle_speculated"] == timings["settle_speculated_response"]  # never the read behind the input's look

    # Nothing changed at once, nor in the task turn the look waited: the read ran while it waited, at the change
    # probe's key the look ended with, so it is the state.
    state = await click(tab, site.add(path("spec-none"), button("void 0")))
    assert tab.last_timings["settle_speculated"] == 1.0 and "early" in state["page_content"]

    # A zero-delay timer's change in that turn: the early read is older than the look's end and is not used; the
    # state shows the change, whichever way the renderer ordered the read and the timer.
    for n in range(5):
        js = f"setTimeout(() => {{ document.getElementById('o').textContent = 'TIMER{n}' }}, 0)"
        state = await click(tab, site.add(path(f"spec-timer-{n}"), button(js)))
        assert f"TIMER{n}" in state["page_content"]
    # Typed text, whose last character is a key press: the read behind the look stands when no handler changed more.
    url = site.add(path("spec-typed"), "<input id=t aria-label=text><p id=o>-</p>")
    await tab.goto(url)
    first = await tab.state(screenshot=False)
    field = next(int(k) for k, d in first["element_index"].items() if d["tag"] == "input")
    state = await tab.act({"action": "input_text", "element_index": field, "text": "hello"}, screenshot=False)
    assert tab.last_timings["settle_speculated"] == 1.0
    assert state["element_index"][str(field)]["attributes"]["value"] == "hello"


async def test_a_link_is_followed_to_its_load(tab: cdp_engine.Tab, site: Any) -> None:
    target = site.add(path("arrived"), "<h1>Arrived</h1>")
    state = await click(tab, site.add(path("link"), f"<a href='{target}'>next</a>"), "next")
    assert state["url"] == target and "Arrived" in state["page_content"]


async def test_a_form_submit_is_followed_to_its_load(tab: cdp_engine.Tab, site: Any) -> None:
    async def echo(request: web.Request) -> web.Response:
        form = await request.post()
        return web.Response(text=f"<h1>Got {form.get('q')}</h1>", content_type="text/html")

    target = site.add_handler(path("submit"), echo)
    html = f"<form method=post action='{target}'><input name=q value=hello><button>send</button></form>"
    state = await click(tab, site.add(path("form"), html), "send")
    assert state["url"] == target and "Got hello" in state["page_content"]


async def test_location_assign_after_50_ms(tab: cdp_engine.Tab, site: Any, wait: Callable[..., Awaitable[None]]) -> None:
    target = site.add(path("assigned"), "<h1>Assigned</h1>")
    url = site.add(path("assign"), button(f"setTimeout(() => location.assign('{target}'), 50)"))
    await click(tab, url)  # a navigation a later timer starts is not waited for (nor broken by the state)
    state = await later_state(tab, wait, f"location.href === '{target}' && document.readyState === 'complete'")
    assert state["url"] == target and "Assigned" in state["page_content"]


async def test_a_click_that_opens_a_popup(tab: cdp_engine.Tab, site: Any, wait: Callable[..., Awaitable[None]]) -> None:
    popup_url = site.add(path("popup"), "<title>popup</title><h1>Popup</h1>")
    popups: list[cdp_engine.Tab] = []
    tab.add_listener(lambda kind, payload: popups.append(payload) if kind == "popup" else None)
    state = await click(tab, site.add(path("opener"), button(f"window.open('{popup_url}')")))
    assert state["url"].endswith("/opener") and "early" in state["page_content"]  # the opener's state
    await wait(lambda: bool(popups), 10)
    assert popups[0].opener is tab


async def test_a_click_that_opens_a_dialog(tab: cdp_engine.Tab, site: Any) -> None:
    html = button("alert('hello'); document.getElementById('o').textContent = 'after'")
    state = await click(tab, site.add(path("alert"), html))  # dismissed by the default policy
    assert tab.dialogs[-1].message == "hello" and "after" in state["page_content"]


async def test_a_click_that_does_nothing(tab: cdp_engine.Tab, site: Any) -> None:
    state = await click(tab, site.add(path("nothing"), button("")))
    assert "early" in state["page_content"]
    assert tab.last_timings["settle_changed"] == 0.0 and tab.last_timings["settle_deadline"] == 0.0


TRANSITION = """<style>
  #menu { opacity: 0; visibility: hidden; transition: opacity 300ms linear, visibility 300ms; }
  #menu.open { opacity: 1; visibility: visible; }
  #go { transition: background-color 5s; } #go:hover { background-color: red; }
</style>
<button id=go onclick="document.getElementById('menu').classList.add('open')">open</button>
<div id=menu><button>Item one</button></div>"""


async def test_a_css_transition_that_shows_an_element_is_waited_for(tab: cdp_engine.Tab, site: Any) -> None:
    state = await click(tab, site.add(path("transition"), TRANSITION), "open")
    # At its start the menu is still transparent (opacity 0: not in the index); at its end it is shown.
    assert any("Item one" in str(d) for d in state["element_index"].values())
    assert await tab.evaluate("getComputedStyle(document.getElementById('menu')).opacity") == "1"
    # The five-second colour transition of the hovered button only paints: it is not waited for.
    assert tab.last_timings["settle_deadline"] == 0.0


async def test_the_key_read_while_a_showing_animation_ran_is_not_the_key_after_it(tab: cdp_engine.Tab, site: Any) -> None:
    """The read a settle sends behind its look may run midway through a fade the look then waits out; it stands
    only if its probe key is the one the look ends with. A probe that bumped its version only while the fade
    ran (and at transitionend or animationend, which come a frame late, and never for a Web Animation)
    answered the same key once it ended: a state read with the menu still transparent stood (antd's date
    picker, a stale state in the real-web suite)."""
    from cdp_engine.snapshot.probes import ChangeProbes

    await tab.goto(site.add(path("fade"), '<div id=menu style="opacity: 0"><button>Item one</button></div>'))
    probes = ChangeProbes.of(tab)
    await probes.version_key()
    await tab.evaluate("window.fade = document.getElementById('menu').animate([{opacity: 0}, {opacity: 1}], 150); 0")
    midway = await probes.version_key()
    await tab.evaluate("fade.finished.then(() => 0)")
    after = await probes.version_key()
    assert midway != after
    assert after == await probes.version_key()  # a still page: one key again


async def test_an_endless_animation_the_click_starts_is_not_waited_for(tab: cdp_engine.Tab, site: Any) -> None:
    html = """<style>@keyframes spin { to { transform: rotate(360deg) } } .spin { animation: spin 1s linear infinite }
      </style>""" + button("document.getElementById('o').classList.add('spin')")
    await click(tab, site.add(path("spinner"), html))
    assert tab.last_timings["settle_deadline"] == 0.0


TICKING = """<p id=clock>0</p><script>
  const tick = () => { document.getElementById('clock').textContent = performance.now().toFixed(1); };
</script>"""


async def test_a_ticking_clock_the_click_starts_runs_the_settle_to_its_deadline(tab: cdp_engine.Tab, site: Any) -> None:
    # A quiet window longer than the clock's period (4 ms: nested timers are clamped) makes the page never
    # quiet: the settle returns at its deadline and says so.
    SettleOptions(quiet_ms=100, max_ms=300).use(tab)
    state = await click(tab, site.add(path("ticking"), TICKING + button("setInterval(tick, 0)")))
    assert "early" in state["page_content"]
    timings = tab.last_timings
    assert timings["settle_deadline"] == 1.0 and timings["settle_max_ms"] == 300
    assert 250 <= timings["settle_dom_ms"] < 5000  # at its deadline (a generous bound against a hang)


async def test_a_page_that_keeps_ticking_does_not_hold_up_a_change_made_at_once(tab: cdp_engine.Tab, site: Any) -> None:
    html = TICKING + "<script>setInterval(tick, 0)</script>" + button("document.getElementById('o').textContent = 'NOW'")
    state = await click(tab, site.add(path("clock"), html))
    assert "NOW" in state["page_content"] and tab.last_timings["settle_deadline"] == 0.0


async def test_a_render_that_goes_on_is_waited_for_right_after_other_actions(tab: cdp_engine.Tab, site: Any) -> None:
    # Each click renders in a zero-delay timer, then once more 30 ms later (the quiet window covers that: a
    # long one here, so this is no timing test). Each click arms just after the previous one's renders: those
    # were that action's own, not a stream of the page's, so every click's follow-up render is waited for.
    SettleOptions(quiet_ms=100).use(tab)
    js = (
        "setTimeout(() => { const o = document.getElementById('o'); o.textContent = 'one';"
        " setTimeout(() => { o.textContent = 'two ' + (window.n = (window.n || 0) + 1); }, 30); }, 0)"
    )
    state = await click(tab, site.add(path("cascade"), button(js)))
    assert "two 1" in state["page_content"]
    index = next(int(k) for k, d in state["element_index"].items() if "go" in str(d))
    for n in (2, 3, 4):
        state = await tab.act({"action": "click_element", "element_index": index}, screenshot=False)
        assert "error" not in state and f"two {n}" in state["page_content"]
        assert tab.last_timings["settle_deadline"] == 0.0


async def test_a_scroll_action_shows_what_the_pages_scroll_listener_renders(tab: cdp_engine.Tab, site: Any) -> None:
    # Scroll events fire with the next frame: the state after `scroll` shows what the listener wrote then
    # (it once showed the position before the scroll in most runs).
    html = (
        "<div style='height: 50000px'></div><div id=pos style='position: fixed; top: 0'>scrollY 0</div>"
        "<script>addEventListener('scroll', () => {"
        " document.getElementById('pos').textContent = 'scrollY ' + Math.round(scrollY) })</script>"
    )
    await tab.goto(site.add(path("scroll-listener"), html))
    await tab.state(screenshot=False)
    for k in range(1, 6):
        state = await tab.act({"action": "scroll", "direction": "down", "pixels": 200}, screenshot=False)
        assert "error" not in state and f"scrollY {200 * k}" in state["page_content"], (k, state["page_content"])
