"""The harness's element-targeted BrowserGym input runs through the core's one element click and aim
(core/input.py click_element, point_of): keys held as a person holds them, the delivery guard, the wait for
animations, and the protocol's refusals (index/perform.py not_clickable). Coordinate input stays coordinate
input. Real Chromium on pages served from 127.0.0.1."""

from __future__ import annotations

import os
from typing import Any

import cdp_engine
from cdp_engine.harness import BrowserEnv

_counter = iter(range(1, 1_000_000))


def unique(prefix: str) -> str:
    return f"/hp-{prefix}-{os.getpid()}-{next(_counter)}"


PAGE = """<!doctype html><title>Pipeline</title>
<style>
  #target { position: absolute; left: 40px; top: 40px; width: 160px; height: 50px; }
  #other { position: absolute; left: 40px; top: 140px; width: 160px; height: 50px; }
  #plain { position: absolute; left: 40px; top: 240px; width: 160px; height: 30px; }
  .cover { position: absolute; left: 0; top: 0; width: 400px; height: 400px; background: rgba(0,0,0,.3); }
  @keyframes away { from { transform: none; } to { transform: translateX(3000px); } }
  .leaving { animation: away 600ms steps(1, end) forwards; }
</style>
<button id="target" aria-label="Target">Target</button>
<button id="other" aria-label="Other">Other</button>
<button id="plain" aria-label="Plain" disabled>Plain</button>
<script>
  window.seen = [];
  const log = s => window.seen.push(s);
  document.addEventListener('keydown', e => log('keydown:' + e.key));
  document.addEventListener('keyup', e => log('keyup:' + e.key));
  const target = document.getElementById('target');
  target.addEventListener('mousedown', e => log('down:' + e.button));
  target.addEventListener('click', e => log('click ctrl=' + e.ctrlKey + ' shift=' + e.shiftKey));
  target.addEventListener('dblclick', () => log('dblclick'));
  target.addEventListener('contextmenu', e => { e.preventDefault(); log('contextmenu'); });
  target.addEventListener('mouseenter', () => log('hover'));
  // An overlay that opens when the pointer arrives over the target: only a check at delivery sees it.
  window.coverOnHover = () => target.addEventListener('mouseover', () => {
    if (document.querySelector('.cover')) return;
    const c = document.createElement('div'); c.className = 'cover';
    c.addEventListener('mousedown', () => log('overlay:down'));
    c.addEventListener('dblclick', () => log('overlay:dblclick'));
    document.body.append(c);
  });
  window.cover = () => {
    const c = document.createElement('div'); c.className = 'cover';
    c.addEventListener('mousedown', () => log('overlay:down'));
    document.body.append(c); return c;
  };
</script>"""


def _ids(obs: dict[str, Any]) -> dict[str, int]:
    return {d["aria-label"]: int(k) for k, d in obs["element_index"].items() if d.get("aria-label")}


async def _on_page(env: BrowserEnv, site: Any) -> dict[str, int]:
    return _ids(await env.reset(site.add(unique("page"), PAGE)))


async def test_a_ctrl_click_holds_the_key_as_a_person_does(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        _obs, info = await env.step(f"click('{ids['Target']}', modifiers=['ControlOrMeta', 'Shift'])")
        assert info["error"] is None, info["error"]
        seen = await env.evaluate("window.seen")
        assert "click ctrl=true shift=true" in seen
        # The keys went down before the press and up after the click, as a person holds them.
        assert seen.index("keydown:Control") < seen.index("down:0") < seen.index("click ctrl=true shift=true")
        assert seen.index("keydown:Shift") < seen.index("down:0")
        assert seen.index("click ctrl=true shift=true") < seen.index("keyup:Shift")
        assert "keyup:Control" in seen
        # Nothing stays held: a plain click after it has no modifiers.
        _obs, info = await env.step(f"click('{ids['Target']}')")
        assert info["error"] is None and (await env.evaluate("window.seen"))[-1] == "click ctrl=false shift=false"


async def test_a_right_click_lands_with_button_2(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        _obs, info = await env.step(f"click('{ids['Target']}', button='right')")
        assert info["error"] is None, info["error"]
        seen = await env.evaluate("window.seen")
        assert "down:2" in seen and "contextmenu" in seen and not any(s.startswith("click") for s in seen)
        _obs, info = await env.step(f"click('{ids['Target']}', button='middle')")
        assert info["error"] is None, info["error"]
        assert "down:1" in await env.evaluate("window.seen")


async def test_a_dblclick_on_a_target_covered_after_the_state_is_refused(
    browser: cdp_engine.Browser, site: Any
) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        # Covered once the pointer arrives (a hover menu, a consent layer): the press would land on the overlay.
        await env.evaluate("window.coverOnHover()")
        _obs, info = await env.step(f"dblclick('{ids['Target']}')")
        assert info["error"] is not None and info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE", info["error"]
        assert f"Element {ids['Target']} did not receive the click" in info["error"]["message"]
        assert info["error"]["failed_action"] == f"dblclick('{ids['Target']}')"
        seen = await env.evaluate("window.seen")
        assert "overlay:down" not in seen and "overlay:dblclick" not in seen and "dblclick" not in seen
        # Covered already when the action runs: refused before any press, in the protocol's words.
        await env.evaluate("document.querySelector('.cover').remove(); window.seen = []; window.cover(); 1")
        _obs, info = await env.step(f"dblclick('{ids['Other']}')")
        assert info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE"
        assert f"Element {ids['Other']} is covered by another element" in info["error"]["message"]
        assert await env.evaluate("window.seen") == []


async def test_a_hover_on_a_covered_element_is_refused(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        await env.evaluate("window.cover(); 1")
        _obs, info = await env.step(f"hover('{ids['Target']}')")
        assert info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE"
        assert f"Element {ids['Target']} is covered by another element" in info["error"]["message"]
        assert "hover" not in await env.evaluate("window.seen")


async def test_a_hover_waits_for_a_cover_that_is_animating_away(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        await env.evaluate("window.cover().classList.add('leaving'); 1")
        _obs, info = await env.step(f"hover('{ids['Target']}')")
        assert info["error"] is None, info["error"]
        assert "hover" in await env.evaluate("window.seen")


async def test_drag_and_drop_refuses_a_covered_end(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        await env.evaluate("window.cover(); 1")
        _obs, info = await env.step(f"drag_and_drop('{ids['Target']}', '{ids['Other']}')")
        assert info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE"
        assert await env.evaluate("window.seen") == []


async def test_press_on_an_element_that_cannot_take_focus_is_refused(
    browser: cdp_engine.Browser, site: Any
) -> None:
    async with BrowserEnv(browser) as env:
        ids = await _on_page(env, site)
        _obs, info = await env.step(f"press('{ids['Plain']}', 'Enter')")
        assert info["error"] is not None and info["error"]["code"] == "ELEMENT_NOT_INTERACTIVE", info["error"]
        assert "cannot take focus" in info["error"]["message"]
        assert await env.evaluate("window.seen") == []  # no key went to another element
        _obs, info = await env.step(f"press('{ids['Other']}', 'Enter')")
        assert info["error"] is None and "keydown:Enter" in await env.evaluate("window.seen")


async def test_coordinate_clicks_stay_coordinate_input(browser: cdp_engine.Browser, site: Any) -> None:
    async with BrowserEnv(browser) as env:
        await _on_page(env, site)
        await env.evaluate("window.cover(); 1")
        _obs, info = await env.step("mouse_click(60, 60)")  # the point is the target's; the overlay takes it
        assert info["error"] is None, info["error"]
        assert "overlay:down" in await env.evaluate("window.seen")
