"""The core's expectations (core/expectations.py) on real pages: conditions armed before an action and awaited
after it within a deadline (a response, a URL, an element or a text that comes later, a popup, a download), and
what ends the wait early (a held dialog, a closed page)."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import pytest
from aiohttp import web

import cdp_engine
from cdp_engine.core.expectations import (
    Condition,
    DialogOpenedError,
    ExpectationTimeout,
    PageClosedError,
    expect,
)

_counter = iter(range(1, 1_000_000))


def unique(prefix: str) -> str:
    return f"/ex-{prefix}-{os.getpid()}-{next(_counter)}"


PAGE = """<!doctype html><title>Expect</title>
<button aria-label="Fetch" onclick="fetch('%(api)s', {method: 'POST'}).then(r => r.text())
  .then(t => { const p = document.createElement('p'); p.textContent = 'Answer: ' + t; document.body.append(p); })">Fetch</button>
<button aria-label="Go" onclick="location.href = '%(next)s'">Go</button>
<button aria-label="Pop" onclick="window.open('%(popup)s')">Pop</button>
<button aria-label="Later" onclick="setTimeout(() => { const p = document.createElement('p'); p.id = 'late';
  p.textContent = 'Arrived late'; document.body.append(p); }, 400)">Later</button>
<button aria-label="Alert" onclick="setTimeout(() => alert('stop'), 100)">Alert</button>
<a aria-label="Download" href="%(file)s" download="data.bin">Download</a>"""


async def _page(tab: cdp_engine.Tab, site: Any) -> tuple[dict[str, str], dict[str, int]]:
    async def api(request: web.Request) -> web.Response:
        await asyncio.sleep(0.2)  # the answer comes after the click's own settle may have ended
        return web.Response(status=201, text="pong")

    urls = {
        "api": site.add_handler(unique("api"), api),
        "next": site.add(unique("next"), "<title>Next</title><h1>Next page</h1>"),
        "popup": site.add(unique("popup"), "<title>Popup</title><h1>Popup</h1>"),
        "file": site.add(unique("file"), b"\x00\x01binary"),
    }
    urls["page"] = site.add(unique("page"), PAGE % urls)
    await tab.goto(urls["page"], wait_until="load")
    state = await tab.state()  # type: ignore[attr-defined]
    ids = {d["aria-label"]: int(k) for k, d in state["element_index"].items() if d.get("aria-label")}
    return urls, ids


def _click(tab: Any, index: int) -> Any:
    return tab.act({"action": "click_element", "element_index": index})


async def test_a_click_that_fetches_is_seen_with_its_response_and_text(tab: cdp_engine.Tab, site: Any) -> None:
    urls, ids = await _page(tab, site)
    seen = await expect(
        tab, _click(tab, ids["Fetch"]), response=urls["api"], method="post", status=201, text="Answer: pong"
    )
    assert "error" not in seen.value
    assert seen["response"]["url"] == urls["api"] and seen["response"]["method"] == "POST"
    assert seen["response"]["status"] == 201 and seen["response"]["frame_id"] == tab.main_frame_id
    assert seen["text"] == {"state": "visible", "text": "Answer: pong"}


async def test_a_response_of_another_status_is_not_taken(tab: cdp_engine.Tab, site: Any) -> None:
    urls, ids = await _page(tab, site)
    t = time.perf_counter()
    with pytest.raises(ExpectationTimeout):
        await expect(tab, _click(tab, ids["Fetch"]), response=urls["api"], status=200, timeout=1.0)
    assert time.perf_counter() - t < 10


async def test_a_click_that_navigates_is_seen_at_its_url(tab: cdp_engine.Tab, site: Any) -> None:
    urls, ids = await _page(tab, site)
    seen = await expect(tab, lambda: _click(tab, ids["Go"]), url=urls["next"], selector="h1")
    assert seen["url"] == {"url": urls["next"], "frame_id": tab.main_frame_id}
    assert seen["element"] == {"state": "visible", "selector": "h1"}


async def test_a_click_that_opens_a_popup_hands_over_its_tab(tab: cdp_engine.Tab, site: Any) -> None:
    _urls, ids = await _page(tab, site)
    seen = await expect(tab, _click(tab, ids["Pop"]), popup=True)
    popup = seen["popup"]["tab"]
    assert isinstance(popup, cdp_engine.Tab) and popup.opener_id == tab.target_id
    await popup.close()


async def test_an_element_added_later_is_waited_for(tab: cdp_engine.Tab, site: Any) -> None:
    _urls, ids = await _page(tab, site)
    assert await tab.evaluate("document.getElementById('late') === null")
    seen = await expect(tab, _click(tab, ids["Later"]), selector="#late", text="Arrived late", timeout=5)
    assert seen["element"]["selector"] == "#late" and seen["text"]["text"] == "Arrived late"
    # It holds already: met at once; and the opposite state times out within its deadline.
    await expect(tab, None, selector="#late", state="attached", timeout=0.5)
    t = time.perf_counter()
    with pytest.raises(ExpectationTimeout):
        await expect(tab, tab.evaluate("1"), selector="#late", state="detached", timeout=0.4)
    assert time.perf_counter() - t < 3


async def test_a_click_that_downloads_hands_over_the_record(tab: cdp_engine.Tab, site: Any) -> None:
    _urls, ids = await _page(tab, site)
    seen = await expect(tab, _click(tab, ids["Download"]), download=True)
    assert seen["download"]["download"].suggested_filename == "data.bin"


async def test_a_held_dialog_ends_the_wait(context: cdp_engine.BrowserContext, site: Any) -> None:
    tab = await context.new_tab()
    tab.dialog_policy = "hold"
    _urls, ids = await _page(tab, site)
    t = time.perf_counter()
    with pytest.raises(DialogOpenedError) as caught:
        await expect(tab, _click(tab, ids["Alert"]), text="never shown", timeout=10)
    assert time.perf_counter() - t < 5 and caught.value.dialog is not None
    assert caught.value.dialog.message == "stop"
    await tab.handle_dialog(True)


async def test_a_closed_page_ends_the_wait(tab: cdp_engine.Tab, site: Any) -> None:
    await _page(tab, site)

    async def close_soon() -> None:
        await asyncio.sleep(0.2)  # the wait has begun: the page goes away under it
        await tab.close()

    closing = asyncio.create_task(close_soon())
    t = time.perf_counter()
    with pytest.raises(PageClosedError):
        await expect(tab, tab.evaluate("1"), text="never shown", timeout=10)
    assert time.perf_counter() - t < 5
    await closing


def test_a_condition_is_checked_when_made() -> None:
    with pytest.raises(ValueError, match="needs selector"):
        Condition("element")
    with pytest.raises(ValueError, match="state is one of"):
        Condition("text", text="x", state="attached")
    assert Condition("response", url="u", method="post").method == "POST"
