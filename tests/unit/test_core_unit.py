"""The core's navigation logic on a scripted browser (tests/fakebrowser.py): no Chromium, milliseconds.

Tab's raw navigation steps (Tab._navigate, _back, _forward: what Tab.goto runs under the rule of
core/navigation.py, whose own tests need a real Chromium: test_failed_navigation.py) and the lifecycle watcher
(core/lifecycle.py): each lifecycle point from its own event, only
the navigation's own document counting, Chromium's error text, the deadline, a held dialog, a
detached or crashed tab, same-document navigations, the status; the settle after actions
(core/settle.py): arming before the input, the look after it, a navigation the action caused, the requests
it started, the knobs and the deadline flag, a dialog, a closed tab.
The same promises against real Chromium are in test_lifecycle.py and test_settle.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
import pytest_asyncio
from fakebrowser import FIRST_LOADER, TARGET, FakeBrowser

from cdp_engine.cdp.mock import NO_ANSWER
from cdp_engine.core import input as core_input
from cdp_engine.core.lifecycle import LifecycleWatcher, wait_loaded
from cdp_engine.core.settle import (
    ARM_FUNCTION,
    LOOK_FUNCTION,
    SETTLE_ALLOWANCE_MS,
    SETTLE_MAX_MS,
    SETTLE_QUIET_MS,
    SETTLE_RESPONSE_MS,
    STATE,
    TOOL_CALL,
    NetworkTracker,
    SettleOptions,
    settle,
)
from cdp_engine.core.tab import IGNORED_NAVIGATION_ERRORS
from cdp_engine.errors import NavigationError, NavigationTimeoutError, TargetClosedError

URL = "http://site.test/page"


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeBrowser]:
    fake = await FakeBrowser.start()
    try:
        yield fake
    finally:
        await fake.close()
        assert fake.transport.errors == []  # the scripted browser never failed behind the test's back


async def ticks(n: int = 5) -> None:
    """Let queued callbacks run (no wall-clock wait)."""
    for _ in range(n):
        await asyncio.sleep(0)


def navigates(fake: FakeBrowser, loader: str = "L1", **extra: Any) -> None:
    """Page.navigate starts a new document `loader` (Chromium announces it before it answers)."""

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        fake.started_navigating(params["url"], loader=loader)
        return {"frameId": fake.frame_id, "loaderId": loader, **extra}

    fake.answer("Page.navigate", answer)


async def start_goto(fake: FakeBrowser, **kw: Any) -> asyncio.Future[Any]:
    going = asyncio.ensure_future(fake.tab._navigate(URL, **kw))
    await fake.sent("Page.navigate")
    await ticks()
    return going


# ===== the fake itself ============================================================================


async def test_browser_starts_and_the_tab_attaches_configured(fake: FakeBrowser) -> None:
    tab = fake.tab
    assert tab.ready.done() and tab.main_frame_id == TARGET and tab.frames[TARGET].loader_id == FIRST_LOADER
    assert fake.browser.profile_context_id == "CTX0" and not tab.off_the_record
    on_page = [c["method"] for c in fake.transport.sent if c.get("sessionId") == "S1"]
    for method in ("Page.enable", "Page.setLifecycleEventsEnabled", "Page.getFrameTree", "Target.setAutoAttach",
                   "Emulation.setDeviceMetricsOverride", "Runtime.runIfWaitingForDebugger"):  # fmt: skip
        assert method in on_page
    # The paused page is resumed right behind its setup, not after the answers (a noopener popup needs it).
    assert on_page[-1] == "Runtime.runIfWaitingForDebugger"


# ===== goto and the lifecycle watcher =============================================================

ORDER = ["commit", "DOMContentLoaded", "load", "networkAlmostIdle", "networkIdle"]
WAITS = {"commit": "commit", "domcontentloaded": "DOMContentLoaded", "load": "load",
         "networkalmostidle": "networkAlmostIdle", "networkidle": "networkIdle"}  # fmt: skip


@pytest.mark.parametrize("wait_until", list(WAITS))
async def test_goto_returns_at_its_lifecycle_point_and_not_before(fake: FakeBrowser, wait_until: str) -> None:
    navigates(fake)
    going = await start_goto(fake, wait_until=wait_until)
    fake.lifecycle("load", FIRST_LOADER)  # the old document's events never count
    fake.commit("L1", URL)
    for name in ORDER[1 : ORDER.index(WAITS[wait_until]) + 1]:
        await ticks()
        assert not going.done(), f"returned before {name}"
        fake.lifecycle(name, "L1")
    response = await asyncio.wait_for(going, 1)
    assert (response.url, response.status, response.loader_id) == (URL, 200, "L1")
    assert not response.same_document and not response.dialog
    assert fake.tab.url == URL and fake.commands("Page.navigate")[-1]["params"] == {"url": URL}


async def test_only_the_navigations_own_document_counts(fake: FakeBrowser) -> None:
    navigates(fake, "L1")
    going = await start_goto(fake)
    fake.commit("L9", URL)  # a document that was not this navigation's (an older one still committing)
    fake.load("L9")
    await ticks()
    assert not going.done()
    fake.commit("L1", URL)
    fake.load("L1")
    assert (await asyncio.wait_for(going, 1)).loader_id == "L1"


async def test_a_client_side_redirect_counts_once_it_loads(fake: FakeBrowser) -> None:
    navigates(fake, "L1")
    going = await start_goto(fake)
    fake.commit("L1", URL)
    fake.lifecycle("DOMContentLoaded", "L1")
    fake.commit("L2", URL + "/next")  # location.replace before load
    await ticks()
    assert not going.done()
    fake.load("L2")
    response = await asyncio.wait_for(going, 1)
    assert response.url == URL + "/next" and response.status == 200


@pytest.mark.parametrize("status", [404, None])
async def test_goto_reports_the_documents_status(fake: FakeBrowser, status: int | None) -> None:
    fake.status = status
    navigates(fake)
    going = await start_goto(fake, wait_until="commit")
    fake.commit("L1", URL)
    assert (await asyncio.wait_for(going, 1)).status == status


async def test_failed_navigation_raises_chromiums_text_at_once(fake: FakeBrowser) -> None:
    navigates(fake, errorText="net::ERR_NAME_NOT_RESOLVED")
    started = time.perf_counter()
    with pytest.raises(NavigationError) as caught:
        await fake.tab._navigate(URL, timeout=5)
    assert caught.value.error_text == "net::ERR_NAME_NOT_RESOLVED" and caught.value.url == URL
    assert not isinstance(caught.value, NavigationTimeoutError) and time.perf_counter() - started < 0.5


async def test_an_http_error_status_is_not_a_failed_navigation(fake: FakeBrowser) -> None:
    fake.status = 500
    navigates(fake, errorText=IGNORED_NAVIGATION_ERRORS[0])
    going = await start_goto(fake)
    fake.commit("L1", URL)
    fake.load("L1")
    assert (await asyncio.wait_for(going, 1)).status == 500


async def test_goto_deadline(fake: FakeBrowser) -> None:
    navigates(fake)
    started = time.perf_counter()
    with pytest.raises(NavigationTimeoutError) as caught:
        await fake.tab._navigate(URL, timeout=0.2)
    elapsed = time.perf_counter() - started
    assert 0.15 < elapsed < 1.0
    assert (caught.value.url, caught.value.wait_until, caught.value.timeout) == (URL, "load", 0.2)
    # A renderer that never answers Page.navigate has the same deadline.
    fake.answer("Page.navigate", lambda params: NO_ANSWER)
    started = time.perf_counter()
    with pytest.raises(NavigationTimeoutError):
        await fake.tab._navigate(URL, timeout=0.2)
    assert time.perf_counter() - started < 1.0


async def test_a_held_dialog_ends_the_wait_at_once(fake: FakeBrowser) -> None:
    fake.tab.dialog_policy = "hold"
    navigates(fake)
    going = await start_goto(fake, timeout=5)
    fake.commit("L1", URL)
    evaluations = len(fake.commands("Runtime.evaluate"))
    fake.dialog("while loading")
    response = await asyncio.wait_for(going, 0.5)
    assert response.dialog and response.status is None and response.loader_id == "L1"
    assert fake.tab.pending_dialog is not None and fake.tab.pending_dialog.message == "while loading"
    # The renderer is paused: nothing was evaluated to read the status, and the dialog is not answered.
    assert len(fake.commands("Runtime.evaluate")) == evaluations and not fake.commands("Page.handleJavaScriptDialog")
    await fake.tab.handle_dialog(True)
    assert fake.commands("Page.handleJavaScriptDialog")[-1]["params"] == {"accept": True}


async def test_a_dialog_does_not_end_the_wait_when_told_or_when_answered_by_policy(fake: FakeBrowser) -> None:
    navigates(fake)
    going = await start_goto(fake)  # policy 'dismiss': answered at once, the load goes on
    fake.commit("L1", URL)
    fake.dialog("dismissed")
    await ticks()
    assert not going.done() and fake.commands("Page.handleJavaScriptDialog")[-1]["params"] == {"accept": False}
    fake.load("L1")
    assert not (await asyncio.wait_for(going, 1)).dialog
    fake.tab.dialog_policy = "hold"
    navigates(fake, "L2")
    going = await start_goto(fake, dialog_ends=False)
    fake.commit("L2", URL)
    fake.dialog("held")
    await ticks()
    assert not going.done()
    await fake.tab.handle_dialog(False)
    fake.load("L2")
    assert not (await asyncio.wait_for(going, 1)).dialog


@pytest.mark.parametrize("how", ["detach", "crash"])
async def test_the_tab_going_away_fails_the_wait_at_once(fake: FakeBrowser, how: str) -> None:
    navigates(fake)
    going = await start_goto(fake, timeout=5)
    fake.commit("L1", URL)
    started = time.perf_counter()
    fake.detach() if how == "detach" else fake.crash()
    with pytest.raises(TargetClosedError):
        await asyncio.wait_for(going, 0.5)
    assert time.perf_counter() - started < 0.5
    assert fake.tab.closed if how == "detach" else fake.tab.crashed
    with pytest.raises(TargetClosedError):  # and a later wait fails before waiting at all
        await LifecycleWatcher(fake.tab).wait("load", 5)
    with pytest.raises(TargetClosedError):
        await fake.tab._navigate(URL)


async def test_a_click_whose_page_closes_before_answering_happened(fake: FakeBrowser) -> None:
    # A click handler that closes its page (window.close()): Chromium may drop the target before it answers
    # the release. Every event went out, so the click stands; the page gone is the next step's to report.
    def release(params: dict[str, Any]) -> Any:
        if params["type"] != "mouseReleased":
            return {}
        asyncio.get_running_loop().call_soon(fake.detach)
        return NO_ANSWER

    fake.answer("Input.dispatchMouseEvent", release)
    await asyncio.wait_for(core_input.click_at(fake.tab, 10, 20), 1)
    assert [c["params"]["type"] for c in fake.commands("Input.dispatchMouseEvent")] == [
        "mouseMoved", "mousePressed", "mouseReleased",
    ]  # fmt: skip
    assert fake.tab.closed
    with pytest.raises(TargetClosedError):  # a page closed before the click: nothing went out, the error stands
        await core_input.click_at(fake.tab, 10, 20)
    assert len(fake.commands("Input.dispatchMouseEvent")) == 3


async def test_same_document_navigation(fake: FakeBrowser) -> None:
    def answer(params: dict[str, Any]) -> dict[str, Any]:
        fake.started_navigating(params["url"], "sameDocument")
        return {"frameId": fake.frame_id}  # no loaderId: the document stays

    fake.answer("Page.navigate", answer)
    going = await start_goto(fake)
    fake.same_document(URL + "#part")
    response = await asyncio.wait_for(going, 0.5)
    assert response.same_document and response.loader_id is None and response.url == URL + "#part"
    # An action's pushState: the watcher reports it, and no navigation (a sameDocument start is none).
    with LifecycleWatcher(fake.tab) as watcher:
        fake.started_navigating(URL + "/pushed", "sameDocument")
        fake.same_document(URL + "/pushed")
        result = await watcher.wait("load", 1.0, same_document=True)
    assert result.same_document and not result.reached and not result.navigated and not watcher.committed
    assert fake.tab.url == URL + "/pushed"


async def test_watcher_signals(fake: FakeBrowser) -> None:
    tab = fake.tab
    with LifecycleWatcher(tab) as plain, LifecycleWatcher(tab, loading_counts=True) as loading:
        fake.emit("Page.frameStartedLoading", {"frameId": TARGET})
        assert not plain.navigating and loading.navigating  # the MCP surface's rule for a pressed Enter
        fake.emit("Page.frameStartedLoading", {"frameId": "child"})  # another frame's loading is not ours
        fake.requested(URL)
        assert plain.requested and not plain.committed
    # A navigation that turned into a download: the frame stops loading without a new document.
    with LifecycleWatcher(tab) as watcher:
        fake.requested(URL + "/file.zip")
        waiting = asyncio.ensure_future(watcher.wait("load", 2.0, stop_ends=True))
        await ticks()
        fake.stopped_loading()
        result = await asyncio.wait_for(waiting, 0.5)
    assert result.stopped and result.navigated and not result.reached and not result.timed_out
    # The caller's own signal ends a wait too, and raise_on_timeout=False reports instead of raising.
    with LifecycleWatcher(tab) as watcher:
        until = asyncio.Event()
        waiting = asyncio.ensure_future(watcher.wait("load", 2.0, until=until))
        await ticks()
        until.set()
        assert (await asyncio.wait_for(waiting, 0.5)).ended
        timed = await watcher.wait("load", 0.05, raise_on_timeout=False)
        assert timed.timed_out and not timed.navigated


async def test_wait_loaded(fake: FakeBrowser) -> None:
    tab = fake.tab
    assert not await wait_loaded(tab, 0.05)  # about:blank never sent load here
    waiting = asyncio.ensure_future(wait_loaded(tab, 2.0))
    await ticks()
    fake.lifecycle("load", FIRST_LOADER)
    assert await asyncio.wait_for(waiting, 0.5)
    fake.commit("L1", URL)
    tab.dialog_policy = "hold"
    waiting = asyncio.ensure_future(wait_loaded(tab, 2.0, dialog_ends=True))
    await ticks()
    fake.dialog("stop")
    assert not await asyncio.wait_for(waiting, 0.5)  # ended by the dialog, not loaded
    fake.detach()
    assert not await wait_loaded(tab, 2.0)  # a closed tab answers at once


async def test_a_wait_that_starts_as_the_tab_closes_fails_at_once(fake: FakeBrowser) -> None:
    # A watcher checks for a closed tab, then registers its condition a loop turn later: a close in
    # between used to leave the wait running to its deadline instead of failing it.
    with LifecycleWatcher(fake.tab) as watcher:
        waiting = asyncio.ensure_future(watcher.wait("load", 5))
        fake.detach()
        with pytest.raises(TargetClosedError):
            await asyncio.wait_for(waiting, 0.5)
    with pytest.raises(TargetClosedError):
        await asyncio.wait_for(fake.tab.wait_for_condition(lambda: False, 5), 0.5)


async def test_history_step_without_an_entry_is_none_and_back_waits(fake: FakeBrowser) -> None:
    entries = [{"id": 1, "url": "about:blank"}, {"id": 2, "url": URL}]
    fake.answer("Page.getNavigationHistory", lambda params: {"currentIndex": 1, "entries": entries})
    assert await fake.tab._forward() is None
    going = asyncio.ensure_future(fake.tab._back(timeout=2))
    await fake.sent("Page.navigateToHistoryEntry")
    await ticks()
    assert fake.commands("Page.navigateToHistoryEntry")[-1]["params"] == {"entryId": 1}
    fake.commit("L5", "about:blank")
    fake.load("L5")
    response = await asyncio.wait_for(going, 0.5)
    assert response is not None and response.loader_id == "L5" and not response.same_document


# ===== the settle after actions ===================================================================


def looks(fake: FakeBrowser) -> list[list[Any]]:
    """The arguments of every look the settle sent (mode, expect, allowance, quiet, max)."""
    return [
        [a.get("value") for a in c["params"]["arguments"]]
        for c in fake.commands("Runtime.callFunctionOn")
        if c["params"]["functionDeclaration"] == LOOK_FUNCTION
    ]


def arms(fake: FakeBrowser) -> int:
    return sum(c["params"]["functionDeclaration"] == ARM_FUNCTION for c in fake.commands("Runtime.callFunctionOn"))


async def test_settle_arms_before_the_input_and_looks_after(fake: FakeBrowser) -> None:
    seen: list[int] = []

    async def action() -> str:
        seen.append(arms(fake))  # the observer is armed before the input runs
        return "clicked"

    report = await asyncio.wait_for(settle(fake.tab, action()), 1)
    assert report.value == "clicked" and seen == [1] and report.waited_for == ["dom"] and not report.navigated
    o = SettleOptions()
    assert looks(fake) == [["input", 0, o.allowance_ms, o.quiet_ms, o.max_ms]]  # compared with the arming
    assert (o.allowance_ms, o.quiet_ms, o.max_ms) == (SETTLE_ALLOWANCE_MS, SETTLE_QUIET_MS, SETTLE_MAX_MS)
    assert report.timings()["settle_quiet_ms"] == SETTLE_QUIET_MS and report.timings()["settle_deadline"] == 0.0


async def test_settle_reports_the_look_and_the_tab_s_own_knobs(fake: FakeBrowser) -> None:
    SettleOptions(allowance_ms=5, quiet_ms=30, max_ms=200).use(fake.tab)
    fake.look = {"changed": True, "continued": True, "deadline": True, "ms": 200.0}

    async def action() -> None:
        return None

    report = await asyncio.wait_for(settle(fake.tab, action()), 1)
    assert looks(fake)[-1][2:] == [5, 30, 200]
    assert report.changed and report.continued and report.deadline
    timings = report.timings()
    assert timings["settle_deadline"] == 1.0 and timings["settle_changed"] == 1.0
    assert (timings["settle_allowance_ms"], timings["settle_quiet_ms"], timings["settle_max_ms"]) == (5, 30, 200)


async def test_settle_without_an_action_looks_from_now(fake: FakeBrowser) -> None:
    report = await asyncio.wait_for(settle(fake.tab), 1)
    assert arms(fake) == 0 and looks(fake)[-1][0] == "now" and report.waited_for == ["dom"]


async def test_settle_waits_for_the_navigation_the_action_caused(fake: FakeBrowser) -> None:
    async def click() -> None:
        fake.requested(URL)  # the click followed a link

    settling = asyncio.ensure_future(settle(fake.tab, click(), load_timeout=2))
    await ticks(20)
    assert not settling.done()
    fake.commit("L1", URL)
    fake.load("L1")
    report = await asyncio.wait_for(settling, 1)
    assert report.navigated and report.loaded and report.waited_for == ["navigation", "dom"]
    assert [look[0] for look in looks(fake)] == ["input", "now"]  # the new document's look counts from its load
    assert report.settle_ms >= report.navigation_ms > 0 and fake.tab.url == URL


async def test_settle_waits_for_the_requests_the_input_started(fake: FakeBrowser) -> None:
    network = NetworkTracker.of(fake.tab)
    await network.enable()
    assert fake.commands("Network.enable")
    fake.emit("Network.requestWillBeSent", {"requestId": "R0", "type": "XHR", "request": {"url": URL + "/poll"}})

    async def click() -> None:
        fake.emit("Network.requestWillBeSent", {"requestId": "R1", "type": "Fetch", "request": {"url": URL + "/api"}})
        fake.emit("Network.requestWillBeSent", {"requestId": "R2", "type": "WebSocket", "request": {"url": "ws://x"}})
        fake.emit("Network.requestWillBeSent", {"requestId": "R3", "type": "XHR", "request": {"url": URL + "/gone"}})

    settling = asyncio.ensure_future(settle(fake.tab, click(), network=network))
    await ticks(20)
    assert not settling.done() and network.inflight == 3  # the WebSocket is not waited for
    fake.emit("Network.loadingFailed", {"requestId": "R3", "errorText": "net::ERR_CONNECTION_REFUSED"})
    await ticks()
    assert not settling.done() and network.inflight == 2
    fake.emit("Network.loadingFinished", {"requestId": "R1"})  # R0 started before the input: not waited for
    report = await asyncio.wait_for(settling, 1)
    assert report.waited_for == ["dom", "network"] and report.requests == 2 and network.inflight == 1
    assert [look[:2] for look in looks(fake)] == [["input", 0], ["response", SETTLE_RESPONSE_MS]]  # then the answers


async def test_settle_stops_waiting_for_requests_at_its_deadline(fake: FakeBrowser) -> None:
    network = NetworkTracker.of(fake.tab)

    async def click() -> None:
        fake.emit("Network.requestWillBeSent", {"requestId": "R1", "type": "Fetch", "request": {"url": URL + "/hang"}})

    report = await asyncio.wait_for(settle(fake.tab, click(), network=network, options=SettleOptions(network_max=0.05)), 1)
    assert report.deadline and report.requests == 1 and report.timings()["settle_deadline"] == 1.0


async def test_a_held_dialog_ends_the_settle_at_once(fake: FakeBrowser) -> None:
    fake.tab.dialog_policy = "hold"
    # The renderer is paused by the dialog: the look never answers.
    fake.answer(
        "Runtime.callFunctionOn",
        lambda params: {"result": {"value": 0}} if params["functionDeclaration"] == ARM_FUNCTION else NO_ANSWER,
    )

    async def click() -> None:
        fake.dialog("sure?", "confirm")

    started = time.perf_counter()
    report = await asyncio.wait_for(settle(fake.tab, click()), 1)
    assert report.dialog and not report.navigated and time.perf_counter() - started < 0.5


async def test_a_dialog_during_the_navigation_ends_the_settle(fake: FakeBrowser) -> None:
    fake.tab.dialog_policy = "hold"

    async def click() -> None:
        fake.requested(URL)

    settling = asyncio.ensure_future(settle(fake.tab, click(), load_timeout=5))
    await ticks(20)
    fake.commit("L1", URL)
    fake.dialog("onload alert")
    report = await asyncio.wait_for(settling, 0.5)
    assert report.dialog and report.navigated and not report.loaded


@pytest.mark.parametrize("raise_closed", [True, False])
async def test_the_tab_closing_during_the_settle(fake: FakeBrowser, raise_closed: bool) -> None:
    async def click() -> None:
        fake.requested(URL)

    settling = asyncio.ensure_future(settle(fake.tab, click(), load_timeout=5, profile=replace(STATE, raise_closed=raise_closed)))
    await ticks(20)
    assert not settling.done() and looks(fake)  # waiting for the navigation
    fake.detach()
    if raise_closed:
        with pytest.raises(TargetClosedError):
            await asyncio.wait_for(settling, 0.5)
    else:
        report = await asyncio.wait_for(settling, 0.5)
        assert report.closed and report.navigated
    report = await settle(fake.tab)  # after the close there is nothing to wait for
    assert report.closed and report.waited_for == []


async def test_settle_a_stopped_navigation_waits_briefly_for_its_download(fake: FakeBrowser) -> None:
    began = asyncio.Event()

    async def click() -> None:
        fake.requested(URL + "/file.zip")

    settling = asyncio.ensure_future(settle(fake.tab, click(), profile=TOOL_CALL, until=began))
    await ticks(20)
    fake.stopped_loading()
    await ticks()
    assert not settling.done()  # Chromium announces the download just after it stops the navigation
    began.set()
    report = await asyncio.wait_for(settling, 0.5)
    assert report.navigated and not report.loaded and report.waited_for == ["navigation"]
