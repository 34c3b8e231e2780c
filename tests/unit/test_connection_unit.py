"""The cdp layer's Connection against MockTransport: no browser, milliseconds per test.

What the connection promises: commands routed by id and session, each message decoded once,
events to the session they name, flat sessions made and unmade by Target events (nested ones
too), a deadline on every command, a dead transport failing everything at once, typed errors,
armed event waits, and the GC pause around large messages. The real-browser side of the same
promises is in test_core.py.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import orjson
import pytest

from cdp_engine.cdp import connection as connection_module
from cdp_engine.cdp.connection import LARGE_MESSAGE, CDPSession, Connection, gc_paused
from cdp_engine.cdp.mock import NO_ANSWER, Answer, MockTransport
from cdp_engine.errors import CommandTimeoutError, ConnectionClosedError, ProtocolError, TargetClosedError


def echo(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
    """Answers every command with what it was asked, so a test can see which command got which answer."""
    return {"method": method, "params": params, "session": session_id}


async def ticks(n: int = 3) -> None:
    """Let queued callbacks and the connection's write tasks run (no wall-clock wait)."""
    for _ in range(n):
        await asyncio.sleep(0)


_MADE: list[Connection] = []


def make(handler: Callable[..., Answer | Awaitable[Answer]] | None = echo, **kw: Any) -> tuple[MockTransport, Connection]:
    transport = MockTransport(handler)
    connection = Connection(transport, **kw)
    _MADE.append(connection)
    return transport, connection


@pytest.fixture(autouse=True)
def _no_deadline_outlives_its_test() -> Iterator[None]:
    """Commands a test left unanswered on purpose are cancelled with it: their 30 s deadlines would otherwise
    fire into later tests (the loop lives for the session) as never-retrieved exceptions."""
    yield
    for connection in _MADE:
        for future, _method, timer, _session in connection._pending.values():
            timer.cancel()
            future.cancel()
        connection._pending.clear()
    _MADE.clear()


def attached(connection: Connection, transport: MockTransport, session_id: str, **kw: Any) -> CDPSession:
    transport.attach(session_id, **kw)
    session = connection.session(session_id)
    assert session is not None
    return session


# ===== commands ===================================================================================


async def test_commands_are_numbered_and_answered_by_id() -> None:
    transport, connection = make()
    results = await asyncio.gather(*(connection.root.send("Runtime.evaluate", {"expression": str(i)}) for i in range(5)))
    assert [r["params"]["expression"] for r in results] == ["0", "1", "2", "3", "4"]
    ids = [c["id"] for c in transport.sent]
    assert ids == sorted(ids) and len(set(ids)) == 5
    assert all("sessionId" not in c for c in transport.sent)
    # Params default to {} on the wire: Chromium rejects a missing params object on some domains.
    await connection.root.send("Browser.getVersion")
    assert transport.sent[-1]["params"] == {}


async def test_answers_out_of_order_resolve_their_own_commands() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    first = connection.root.send("A.first")
    second = connection.root.send("A.second")
    await ticks()
    a, b = transport.sent
    transport.reply(b["id"], {"which": "second"})
    transport.reply(a["id"], {"which": "first"})
    assert (await first)["which"] == "first"
    assert (await second)["which"] == "second"


async def test_async_handler_answers_late_and_connection_send_defaults_to_browser_session() -> None:
    release = asyncio.Event()

    async def late(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        await release.wait()
        return {"late": True, "session": session_id}

    _transport, connection = make(late)
    future = connection.send("Target.getTargets")
    await ticks()
    assert not future.done()
    release.set()
    assert await future == {"late": True, "session": None}


async def test_answer_counts_only_from_the_session_the_command_went_to() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    child = attached(connection, transport, "S1")
    future = child.send("Runtime.evaluate")
    await ticks()
    command = transport.sent[-1]
    assert command["sessionId"] == "S1"
    transport.deliver({"id": command["id"], "result": {"from": "browser"}})  # no sessionId: not its answer
    transport.deliver({"id": command["id"], "sessionId": "S2", "result": {"from": "S2"}})
    transport.deliver({"id": 9999, "sessionId": "S1", "result": {}})  # an id nobody sent
    await ticks()
    assert not future.done()
    transport.reply(command["id"], {"from": "S1"})
    assert await future == {"from": "S1"}
    transport.reply(command["id"], {"again": True})  # a second answer to the same id is dropped
    await ticks()


async def test_each_message_is_decoded_once_and_large_ones_with_the_gc_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    decodes: list[tuple[int, bool]] = []

    class CountingJson:
        @staticmethod
        def loads(data: bytes | str) -> Any:
            decodes.append((len(data), gc.isenabled()))
            return orjson.loads(data)

        dumps = staticmethod(orjson.dumps)

    big = "x" * (LARGE_MESSAGE + 10)
    _transport, connection = make(lambda m, p, s: {"blob": big} if m == "Big.get" else {"small": 1})
    monkeypatch.setattr(connection_module, "orjson", CountingJson)
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        small_future = connection.root.send("Small.get")
        big_future = connection.root.send("Big.get")
        small, result = await small_future, await big_future
    finally:
        if not was_enabled:
            gc.disable()
    assert small == {"small": 1} and result["blob"] == big
    assert len(decodes) == 2  # one decode per message, none per listener or waiter
    (small_len, small_gc), (big_len, big_gc) = decodes
    assert small_len < LARGE_MESSAGE and small_gc is True
    assert big_len > LARGE_MESSAGE and big_gc is False
    assert gc.isenabled()  # the pause ended with the decode


async def test_protocol_error_carries_method_code_message_and_data() -> None:
    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        raise ProtocolError(method, -32000, "Cannot find context with specified id", {"contextId": 7})

    _transport, connection = make(handler)
    with pytest.raises(ProtocolError) as caught:
        await connection.root.send("Runtime.evaluate", {"contextId": 7})
    error = caught.value
    assert (error.method, error.code, error.message, error.data) == (
        "Runtime.evaluate",
        -32000,
        "Cannot find context with specified id",
        {"contextId": 7},
    )
    assert "Runtime.evaluate" in str(error) and "-32000" in str(error)


async def test_gone_session_error_answers_become_target_closed() -> None:
    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        if method == "A.session":
            raise ProtocolError(method, -32001, "Session with given id not found.")
        raise ProtocolError(method, -32602, "No target with given id found")

    _transport, connection = make(handler)
    for method in ("A.session", "A.target"):
        with pytest.raises(TargetClosedError, match=method):
            await connection.root.send(method)


async def test_handler_bug_surfaces_as_an_internal_error() -> None:
    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        raise KeyError("oops")

    transport, connection = make(handler)
    with pytest.raises(ProtocolError) as caught:
        await connection.root.send("X.y")
    assert caught.value.code == -32603
    assert isinstance(transport.errors[0], KeyError)


# ===== deadlines ==================================================================================


async def test_command_deadline_raises_command_timeout_and_late_answer_is_dropped() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(CommandTimeoutError) as caught:
        await connection.root.send("Page.navigate", {"url": "about:blank"}, timeout=0.05)
    elapsed = loop.time() - started
    assert caught.value.method == "Page.navigate" and caught.value.timeout == 0.05
    assert isinstance(caught.value, TimeoutError)
    assert 0.04 <= elapsed < 1.0
    transport.reply(transport.sent[-1]["id"], {"frameId": "F"})  # arrives after the deadline: ignored
    await ticks()
    # The connection is still fine afterwards.
    transport.handler = echo
    assert (await connection.root.send("Runtime.evaluate"))["method"] == "Runtime.evaluate"


async def test_default_timeout_applies_when_none_given() -> None:
    _transport, connection = make(lambda m, p, s: NO_ANSWER, default_timeout=0.05)
    with pytest.raises(CommandTimeoutError) as caught:
        await connection.root.send("Page.reload")
    assert caught.value.timeout == 0.05


async def test_answered_command_cancels_its_deadline() -> None:
    _transport, connection = make(default_timeout=0.05)
    future = connection.root.send("Runtime.evaluate")
    assert (await future)["method"] == "Runtime.evaluate"
    await asyncio.sleep(0.08)  # past the deadline: the future keeps its result, no late timeout
    assert future.exception() is None


# ===== events =====================================================================================


async def test_events_go_to_the_session_they_name() -> None:
    transport, connection = make()
    child = attached(connection, transport, "S1")
    seen: dict[str, list[Any]] = {"root": [], "child": []}
    connection.root.on("Page.loadEventFired", lambda p: seen["root"].append(p["t"]))
    child.on("Page.loadEventFired", lambda p: seen["child"].append(p["t"]))
    transport.emit("Page.loadEventFired", {"t": 1})
    transport.emit("Page.loadEventFired", {"t": 2}, session_id="S1")
    transport.emit("Page.loadEventFired", {"t": 3}, session_id="unknown")  # no such session: dropped
    transport.emit("Page.frameNavigated", {"t": 4}, session_id="S1")  # nobody listens: fine
    assert seen == {"root": [1], "child": [2]}


async def test_unsubscribe_and_a_failing_listener_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    transport, connection = make()
    seen: list[int] = []

    def broken(params: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    connection.root.on("E.x", broken)
    unsubscribe = connection.root.on("E.x", lambda p: seen.append(p["n"]))
    with caplog.at_level(logging.ERROR, logger="cdp_engine"):
        transport.emit("E.x", {"n": 1})
    assert seen == [1]
    assert "listener for E.x failed" in caplog.text
    unsubscribe()
    unsubscribe()  # twice is harmless
    transport.emit("E.x", {"n": 2})
    assert seen == [1]


async def test_handler_events_arrive_before_its_answer() -> None:
    """Chromium sends Target.attachedToTarget before the attachToTarget answer: the session exists on return."""
    transport: MockTransport

    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        if method == "Target.attachToTarget":
            transport.attach("S9", {"targetId": params["targetId"]})
            return {"sessionId": "S9"}
        return {}

    transport, connection = make(handler)
    result = await connection.root.send("Target.attachToTarget", {"targetId": "T9", "flatten": True})
    session = connection.session(result["sessionId"])
    assert session is not None and session.target_id == "T9"


# ===== event waiters ==============================================================================


async def test_wait_for_with_predicate_skips_other_events() -> None:
    transport, connection = make()
    waiter = connection.root.wait_for("Page.lifecycleEvent", lambda p: p["name"] == "load")
    transport.emit("Page.lifecycleEvent", {"name": "DOMContentLoaded"})
    assert not waiter.done()
    transport.emit("Page.lifecycleEvent", {"name": "load", "n": 1})
    transport.emit("Page.lifecycleEvent", {"name": "load", "n": 2})
    assert (await waiter)["n"] == 1


async def test_wait_armed_before_the_command_catches_an_event_sent_with_the_answer() -> None:
    transport: MockTransport

    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        transport.emit("Page.frameNavigated", {"frame": {"id": "F"}})
        return {}

    transport, connection = make(handler)
    waiter = connection.root.wait_for("Page.frameNavigated")
    await connection.root.send("Page.navigate")
    assert (await waiter.wait(timeout=1.0))["frame"]["id"] == "F"


async def test_wait_deadline_raises_timeout_error_naming_the_event() -> None:
    transport, connection = make()
    waiter = connection.root.wait_for("Page.loadEventFired")
    with pytest.raises(TimeoutError, match=r"no Page.loadEventFired event within 0.05 s"):
        await waiter.wait(timeout=0.05)
    assert waiter.done()
    transport.emit("Page.loadEventFired", {})  # the unsubscribed waiter ignores it


async def test_wait_default_deadline_is_the_connections() -> None:
    _transport, connection = make(default_timeout=0.05)
    with pytest.raises(TimeoutError):
        await connection.root.wait_for("Never.happens")


async def test_predicate_error_fails_the_wait() -> None:
    transport, connection = make()
    waiter = connection.root.wait_for("E.x", lambda p: p["missing"])
    transport.emit("E.x", {})
    with pytest.raises(KeyError):
        await waiter.wait(timeout=1.0)


async def test_cancelled_wait_lets_go_of_the_event() -> None:
    transport, connection = make()
    seen: list[int] = []
    waiter = connection.root.wait_for("E.x", lambda p: bool(seen.append(p["n"])))
    waiter.cancel()
    transport.emit("E.x", {"n": 1})
    assert seen == [] and waiter.done()


async def test_wait_fails_when_its_session_detaches_and_at_once_on_a_closed_session() -> None:
    transport, connection = make()
    child = attached(connection, transport, "S1")
    waiter = child.wait_for("Page.loadEventFired")
    transport.detach("S1")
    assert waiter.done()
    with pytest.raises(TargetClosedError):
        await waiter.wait(timeout=1.0)
    late = child.wait_for("Page.loadEventFired")  # armed after the close: no waiting out a deadline
    assert late.done()
    with pytest.raises(TargetClosedError):
        await late


# ===== flat sessions ==============================================================================


async def test_attached_target_becomes_a_flat_session_with_its_info_and_hooks() -> None:
    transport, connection = make()
    hooked: list[tuple[str | None, bool]] = []
    connection.on_session_attached.append(lambda s, p: hooked.append((s.id, p["waitingForDebugger"])))
    transport.attach("S1", {"targetId": "T1", "type": "iframe", "url": "http://a/"}, waiting_for_debugger=True)
    session = connection.session("S1")
    assert session is not None
    assert (session.id, session.target_id, session.target_type) == ("S1", "T1", "iframe")
    assert session.parent is connection.root and not session.closed
    assert hooked == [("S1", True)]
    assert (await session.send("DOM.enable"))["session"] == "S1"
    assert transport.sent[-1]["sessionId"] == "S1"


async def test_side_session_is_made_but_no_hook_hears_of_it() -> None:
    """attach_side_session: a second session on an attached target (core/navigation.py intercepts there), which
    is no new target: the attach and detach hooks (the Browser's tabs, the harness's popups) never see it."""
    transport: MockTransport

    def handler(method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        if method == "Target.attachToTarget":
            transport.attach("SIDE", {"targetId": params["targetId"], "type": "page"})
            return {"sessionId": "SIDE"}
        return {}

    transport, connection = make(handler)
    heard: list[str | None] = []
    connection.on_session_attached.append(lambda s, _p: heard.append(s.id))
    connection.on_session_detached.append(lambda s: heard.append(s.id))
    page = attached(connection, transport, "P")
    side = await connection.attach_side_session("P-target")
    assert side is connection.session("SIDE") and side.side and not page.side
    assert side.target_id == "P-target" and side.parent is connection.root
    assert transport.sent[-1]["params"] == {"targetId": "P-target", "flatten": True}
    transport.detach("SIDE")
    assert side.closed and heard == ["P"]
    # The same target attached on its own afterwards (not asked for as a side session) is heard again.
    transport.attach("AGAIN", {"targetId": "P-target", "type": "page"})
    assert heard == ["P", "AGAIN"]


async def test_nested_session_has_its_parent_and_goes_with_it() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    page = attached(connection, transport, "P")
    frame = attached(connection, transport, "F", parent_session_id="P")
    inner = attached(connection, transport, "G", parent_session_id="F")
    other = attached(connection, transport, "Q")
    assert frame.parent is page and inner.parent is frame
    detached: list[str | None] = []
    connection.on_session_detached.append(lambda s: detached.append(s.id))
    pending = [s.send("Runtime.evaluate") for s in (page, frame, inner, other)]
    await ticks()
    transport.detach("P")
    # Chromium sends one detach for the page only; its frames' sessions close with it.
    assert sorted(detached) == ["F", "G", "P"]
    assert {s.id for s in (page, frame, inner) if s.closed} == {"P", "F", "G"}
    assert connection.session("P") is None and connection.session("F") is None and connection.session("G") is None
    for future in pending[:3]:
        assert future.done()
        with pytest.raises(TargetClosedError):
            await future
    assert not pending[3].done() and not other.closed and connection.session("Q") is other
    with pytest.raises(TargetClosedError):
        await frame.send("Runtime.evaluate")  # a closed session fails at once, nothing is written
    assert transport.sent[-1]["sessionId"] == "Q"


async def test_detach_of_a_child_leaves_its_parent() -> None:
    transport, connection = make()
    page = attached(connection, transport, "P")
    frame = attached(connection, transport, "F", parent_session_id="P")
    transport.detach("F", parent_session_id="P")
    assert frame.closed and not page.closed
    assert connection.session("F") is None and connection.session("P") is page
    transport.detach("F")  # a second detach of the same session: nothing happens
    transport.detach("never-attached")


async def test_crashed_target_fails_its_session_but_not_the_browser() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    page = attached(connection, transport, "P")
    future = page.send("Runtime.evaluate")
    browser_future = connection.root.send("Target.getTargets")
    await ticks()
    transport.emit("Inspector.targetCrashed", {}, session_id="P")
    with pytest.raises(TargetClosedError, match="crashed"):
        await future
    assert page.closed and not browser_future.done() and not connection.root.closed
    transport.emit("Inspector.targetCrashed", {})  # for the browser session: ignored
    assert not connection.root.closed


async def test_close_listeners_run_once_with_the_reason() -> None:
    transport, connection = make()
    page = attached(connection, transport, "P")
    reasons: list[BaseException] = []
    page.add_close_listener(reasons.append)
    dropped = page.add_close_listener(lambda r: reasons.append(RuntimeError("unsubscribed")))
    dropped()
    transport.detach("P")
    transport.emit("Inspector.targetCrashed", {}, session_id="P")
    assert len(reasons) == 1 and isinstance(reasons[0], TargetClosedError)
    late: list[BaseException] = []
    page.add_close_listener(late.append)  # already closed: called at once
    assert late == reasons


# ===== the transport going away ===================================================================


async def test_transport_close_fails_every_pending_command_at_once() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    page = attached(connection, transport, "P")
    closed: list[BaseException] = []
    connection.on_close.append(closed.append)
    futures = [connection.root.send("Browser.getVersion"), page.send("Runtime.evaluate"), page.send("DOM.enable")]
    waiter = page.wait_for("Page.loadEventFired")
    await ticks()
    await transport.close()  # the browser is gone
    assert all(f.done() for f in futures) and waiter.done()  # settled now, not at their deadlines
    with pytest.raises(ConnectionClosedError) as root_error:
        await futures[0]
    assert not isinstance(root_error.value, TargetClosedError)
    for future in futures[1:]:
        with pytest.raises(TargetClosedError):  # a subclass: `except ConnectionClosedError` catches both
            await future
    with pytest.raises(ConnectionClosedError):
        await waiter
    assert connection.closed and connection.root.closed and page.closed
    assert len(closed) == 1
    with pytest.raises(ConnectionClosedError):
        await connection.root.send("Browser.getVersion")  # later commands fail at once
    await connection.close()  # closing again is harmless
    assert len(closed) == 1


async def test_transport_error_is_in_the_reason() -> None:
    transport, connection = make(lambda m, p, s: NO_ANSWER)
    future = connection.root.send("Browser.getVersion")
    await ticks()
    transport.disconnect(OSError("pipe broke"))
    with pytest.raises(ConnectionClosedError, match="pipe broke"):
        await future


async def test_write_failure_fails_just_that_command() -> None:
    class Refusing(MockTransport):
        async def send(self, data: bytes) -> None:
            raise OSError("write failed")

    connection = Connection(Refusing(echo))
    with pytest.raises(ConnectionClosedError, match="write failed"):
        await connection.root.send("Browser.getVersion")
    assert not connection.closed


async def test_connection_close_closes_the_transport() -> None:
    transport, connection = make()
    await connection.close()
    assert transport.closed and connection.closed
    with pytest.raises(ConnectionClosedError):
        await connection.root.send("Browser.getVersion")


async def test_reader_failure_closes_the_connection() -> None:
    transport, connection = make()
    transport.deliver(b"{not json")
    assert connection.closed and transport.closed
    assert transport.errors and isinstance(connection.closed_reason, ConnectionClosedError)


# ===== gc_paused ==================================================================================


@pytest.fixture
def gc_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_gc_paused_overlapping_pauses_end_with_the_last(gc_on: None) -> None:
    outer = gc_paused()
    inner = gc_paused()
    outer.__enter__()
    assert not gc.isenabled()
    inner.__enter__()
    outer.__exit__(None, None, None)  # pauses need not nest: the first one out is not the last
    assert not gc.isenabled()
    inner.__exit__(None, None, None)
    assert gc.isenabled()


def test_gc_paused_restores_on_error(gc_on: None) -> None:
    with pytest.raises(ValueError), gc_paused():
        raise ValueError
    assert gc.isenabled()


def test_gc_paused_leaves_an_application_without_the_collector_alone(gc_on: None) -> None:
    gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # not switched on behind the application's back
