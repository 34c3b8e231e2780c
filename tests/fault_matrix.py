"""The fault matrix of issue 14 (Build 4): one table of cases, run by tests/stress/test_fault_matrix.py and by
tests/stress/fault_runs.py, so the figures and the tests can never drift apart.

Every case launches its own Chromium with short deadlines (launch(command_timeout=4, navigation_timeout=3)),
causes one fault while a call is in flight, and reports a row: the result (`state:<code>` for a state,
`state:ok` for a state without error, `raise:<ErrorType>` for a typed error), the time the faulting call took
against the case's documented deadline, whether the engine was usable at once afterwards, and how many
Chromium processes and temporary folders the browser left after close().

Deadlines (the DEAD, HELD, ... constants below): 1 s for a dead browser, a crashed or a closed tab; one
command deadline (4 s) plus the one-second liveness probe for a hung renderer; the navigation deadline (3 s)
for a page that never loads, an unreachable port or a server that never answers (a link click to it: the
settle's navigation deadline plus 1 s); 2 s for a dialog under any policy; one command deadline for a state
of a 20,000-button page. SLACK is what a deadline may overrun by on a loaded two-core machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from procs import live_processes_with

import cdp_engine

COMMAND_TIMEOUT = 4.0
NAVIGATION_TIMEOUT = 3.0
SLACK = 1.5
DEAD = 1.0  # a dead browser, a crashed or a closed tab fails the pending call within this
HELD = 2.0  # a dialog under any policy ends the call within this
PROBE = 1.0  # the liveness probe that tells a hung renderer from a slow command
USABLE = 3.0  # the next call after a fault answers within this

Result = tuple[str, float]  # (result, seconds the faulting call took)


class Pages:
    """Pages on 127.0.0.1 for the matrix: add(html) and a URL whose server accepts and never answers."""

    def __init__(self) -> None:
        self.url = ""
        self.pages: dict[str, str] = {}
        self.release = asyncio.Event()
        self._count = 0

    def add(self, html: str) -> str:
        self._count += 1
        path = f"/fm-{os.getpid()}-{self._count}"
        self.pages[path] = html
        return self.url + path

    def never(self) -> str:
        """A fresh URL whose server accepts the connection and answers only at teardown."""
        self._count += 1
        return f"{self.url}/never-{self._count}"

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        if request.path.startswith("/never-"):
            await self.release.wait()
            return web.Response(text="<h1>Late page</h1>", content_type="text/html")
        if request.path in self.pages:
            return web.Response(text=self.pages[request.path], content_type="text/html")
        return web.Response(status=404, text="not found")


@contextlib.asynccontextmanager
async def serve() -> AsyncIterator[Pages]:
    pages = Pages()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", pages.dispatch)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    pages.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    try:
        yield pages
    finally:
        pages.release.set()
        await runner.cleanup()


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fire(future: asyncio.Future[Any]) -> None:
    """A command the case sends to cause a fault: its answer (or its failure, once the fault hit) is not read."""
    future.add_done_callback(lambda f: f.cancelled() or f.exception())


def index_of(state: dict[str, Any], text: str) -> int:
    for key, descriptor in state["element_index"].items():
        if descriptor.get("text_content") == text:
            return int(key)
    raise AssertionError(f"no element {text!r} in {list(state['element_index'].values())[:5]}")


def outcome(value: Any, expected: str = "") -> str:
    """`state:ok`, `state:<code>` or `raise:<ErrorType>` for what a call gave; an error of a subclass of
    the expected type is reported as the expected type (TargetClosedError is a ConnectionClosedError)."""
    if isinstance(value, str):  # a surface case says its own result (`toolset:…`, `mcp:…`, `harness:…`)
        return value
    if isinstance(value, BaseException):
        names = [cls.__name__ for cls in type(value).__mro__]
        return expected if expected.removeprefix("raise:") in names else f"raise:{names[0]}"
    error = value.get("error") if isinstance(value, dict) else None
    return f"state:{error['code']}" if error else "state:ok"


async def timed(call: Awaitable[Any], bound: float = 30.0) -> tuple[Any, float]:
    """What `call` gave (a value or the exception it raised) and the seconds it took; never waits past bound."""
    t0 = time.monotonic()
    try:
        value: Any = await asyncio.wait_for(call, bound)
    except Exception as exc:  # the typed error is the result the row reports
        value = exc
    return value, time.monotonic() - t0


async def in_flight(task: asyncio.Task[Any], delay: float) -> None:
    """Let `task` start its CDP commands; the fault must hit it while it is still running."""
    await asyncio.sleep(delay)
    assert not task.done(), f"the call ended before the fault: {task.result() if not task.exception() else task.exception()}"


async def finish(task: asyncio.Task[Any], t0: float, bound: float = 30.0) -> tuple[Any, float]:
    """The task's value (or exception) and the seconds from the fault (t0) to its end."""
    try:
        value: Any = await asyncio.wait_for(task, bound)
    except Exception as exc:
        value = exc
    return value, time.monotonic() - t0


async def usable_tab(browser: cdp_engine.Browser, pages: Pages) -> bool:
    """A new tab in the same browser loads a page and gives its state at once."""
    t0 = time.monotonic()
    tab = await asyncio.wait_for(browser.new_tab(pages.add("<button onclick=\"this.dataset.n = 1\">fresh</button>")), USABLE)
    state = await asyncio.wait_for(tab.state(screenshot=False), USABLE)
    clicked = await asyncio.wait_for(tab.act({"action": "click_element", "element_index": index_of(state, "fresh")}, screenshot=False), USABLE)
    return "error" not in state and "error" not in clicked and time.monotonic() - t0 < USABLE


async def usable_launch(pages: Pages) -> bool:
    """After the browser died, a new launch works at once (and leaves nothing behind either)."""
    t0 = time.monotonic()
    async with cdp_engine.launch(command_timeout=COMMAND_TIMEOUT, navigation_timeout=NAVIGATION_TIMEOUT) as again:
        ok = await usable_tab(again, pages)
    return ok and time.monotonic() - t0 < USABLE + 2


# ----- the cases -----------------------------------------------------------------------------------------

BLOCKING = """<title>Blocking</title>
<button onclick="const t = Date.now(); while (Date.now() - t < 3000) {}">Block</button>
<script>window.block = () => { const t = Date.now(); while (Date.now() - t < 3000) {} }</script><p>text</p>"""


async def sigkill_during_state(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add(BLOCKING))
    await tab.state(screenshot=False)
    fire(tab.session.send("Runtime.evaluate", {"expression": "setTimeout(window.block, 0)"}))
    await asyncio.sleep(0.2)  # the page's main thread is busy now: state() waits on its first evaluate
    task = asyncio.ensure_future(tab.state(screenshot=False))
    await in_flight(task, 0.3)
    assert browser.process is not None
    t0 = time.monotonic()
    os.kill(browser.process.process.pid, signal.SIGKILL)
    value, took = await finish(task, t0)
    return value, took, await usable_launch(pages)


async def sigkill_during_act(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add(BLOCKING))
    state = await tab.state(screenshot=False)
    task = asyncio.ensure_future(tab.act({"action": "click_element", "element_index": index_of(state, "Block")}, screenshot=False))
    await in_flight(task, 0.5)
    assert browser.process is not None
    t0 = time.monotonic()
    os.kill(browser.process.process.pid, signal.SIGKILL)
    value, took = await finish(task, t0)
    if isinstance(value, dict):
        assert {k: value[k] for k in state} == state  # the last state the page gave, marked by `error`
    return value, took, await usable_launch(pages)


FETCHING = """<title>Fetching</title><button onclick="fetch('%s')">Fetch</button><p>text</p>"""


async def crash_during_act(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add(FETCHING % pages.never()))
    state = await tab.state(screenshot=False)
    # The click starts a request that never ends: act() is settling (network busy) when the renderer dies.
    task = asyncio.ensure_future(tab.act({"action": "click_element", "element_index": index_of(state, "Fetch")}, screenshot=False))
    await in_flight(task, 0.5)
    t0 = time.monotonic()
    fire(tab.session.send("Page.crash"))  # never answered: the renderer is gone
    value, took = await finish(task, t0)
    if isinstance(value, dict):
        assert "crashed" in value["error"]["message"], value["error"]
        assert {k: value[k] for k in state} == state
    return value, took, await usable_tab(browser, pages)


async def _close_during(browser: cdp_engine.Browser, pages: Pages, call: str) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add(BLOCKING))
    state = await tab.state(screenshot=False)
    if call == "state":
        fire(tab.session.send("Runtime.evaluate", {"expression": "setTimeout(window.block, 0)"}))
        await asyncio.sleep(0.2)
        task = asyncio.ensure_future(tab.state(screenshot=False))
    else:
        task = asyncio.ensure_future(tab.act({"action": "click_element", "element_index": index_of(state, "Block")}, screenshot=False))
    await in_flight(task, 0.3)
    t0 = time.monotonic()
    closing = asyncio.ensure_future(tab.close())
    value, took = await finish(task, t0)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(closing, 5)
    return value, took, await usable_tab(browser, pages)


async def close_during_state(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _close_during(browser, pages, "state")


async def close_during_act(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _close_during(browser, pages, "act")


async def busy_loop(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add('<title>Busy</title><button onclick="while (true) {}">Hang</button>'))
    state = await tab.state(screenshot=False)
    value, took = await timed(tab.act({"action": "click_element", "element_index": index_of(state, "Hang")}, screenshot=False))
    if isinstance(value, dict):
        assert "renderer is not responding" in value["error"]["message"], value["error"]
    return value, took, await usable_tab(browser, pages)


COUNTER = '<title>Start</title><script>window.clicks = 0</script><button onclick="window.clicks++">Count</button>'


async def _same_tab_usable(tab: cdp_engine.Tab, before: dict[str, Any]) -> bool:
    """The tab still shows the page of `before` and its indices work, at once."""
    t0 = time.monotonic()
    now = await asyncio.wait_for(tab.state(screenshot=False), USABLE)
    clicked = await asyncio.wait_for(tab.act({"action": "click_element", "element_index": index_of(before, "Count")}, screenshot=False), USABLE)
    clicks = await tab.evaluate("window.clicks", timeout=USABLE)
    return (
        "error" not in now and now["state_hash"] == before["state_hash"] and "error" not in clicked
        and clicks == 1 and time.monotonic() - t0 < USABLE
    )


async def _navigate_fails(browser: cdp_engine.Browser, pages: Pages, url: str) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add(COUNTER))
    before = await tab.state(screenshot=False)
    value, took = await timed(tab.act({"action": "navigate", "url": url}, screenshot=False))
    if isinstance(value, dict) and "error" in value:
        assert {k: v for k, v in value.items() if k != "error"} == before  # the page as it was
    return value, took, await _same_tab_usable(tab, before) and await usable_tab(browser, pages)


async def never_loads(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _navigate_fails(browser, pages, pages.add(f'<h1>Hanging</h1><img src="{pages.never()}">'))


async def unreachable_port(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _navigate_fails(browser, pages, f"http://127.0.0.1:{closed_port()}/")


async def never_answers_navigate(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _navigate_fails(browser, pages, pages.never())


async def never_answers_link(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(pages.add(COUNTER + f'<a href="{pages.never()}">Slow link</a>'))
    before = await tab.state(screenshot=False)
    value, took = await timed(tab.act({"action": "click_element", "element_index": index_of(before, "Slow link")}, screenshot=False))
    if isinstance(value, dict):
        assert value["state_hash"] == before["state_hash"]  # the click ran; the navigation it began is abandoned
    return value, took, await _same_tab_usable(tab, before) and await usable_tab(browser, pages)


# ----- the same faults through the other surfaces (Build 2: one deadline per call on every surface) ----------

BUSY_PAGE = "<title>Busy</title><p>busy page</p>"
HANG_SOON = "setTimeout(() => { while (true) {} }, 50), 1"  # started once the surface's call returned: no race


def _text(content: list[dict[str, Any]]) -> str:
    return " ".join(block.get("text", "") for block in content if block.get("type") == "text")


def _toolset_result(content: list[dict[str, Any]], is_error: bool) -> str:
    text = _text(content)
    if not is_error:
        return "toolset:ok"
    if "is not responding (a script is busy)" in text:
        return "toolset:hung"
    if "timed out" in text or "did not finish" in text:
        return "toolset:timed-out"
    return f"toolset:error:{text[:120]}"


async def _toolset_case(browser: cdp_engine.Browser, pages: Pages, url: str, member: str, args: dict[str, Any]) -> tuple[Any, float, bool]:
    from cdp_engine.toolset import BrowserToolset, ToolsetConfig

    ts = await BrowserToolset(browser, config=ToolsetConfig(navigation_timeout=NAVIGATION_TIMEOUT)).start()
    try:
        home = pages.add(COUNTER + "<p>home page</p>")
        assert not (await ts.call("navigate", {"url": home}))[1]
        if url:
            assert not (await ts.call("navigate", {"url": url}))[1]
            await ts.book.tabs[ts.book.active or ""].tab.evaluate(HANG_SOON)
            await asyncio.sleep(0.3)  # the page's timer has started its loop
        (content, is_error), took = await timed(ts.call(member, args))
        t0 = time.monotonic()
        if url:  # the hung tab is closed, a new one works
            assert not (await asyncio.wait_for(ts.call("new_tab", {}), USABLE))[1]
            assert not (await asyncio.wait_for(ts.call("navigate", {"url": home}), USABLE))[1]
        page, failed = await asyncio.wait_for(ts.call("get_page_text", {}), USABLE)
        usable = not failed and "home page" in _text(page) and time.monotonic() - t0 < USABLE
        return _toolset_result(content, is_error), took, usable and await usable_tab(browser, pages)
    finally:
        await asyncio.wait_for(ts.close(), 15)


async def toolset_busy_loop(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _toolset_case(browser, pages, pages.add(BUSY_PAGE), "screenshot", {})


async def toolset_never_answers(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _toolset_case(browser, pages, "", "navigate", {"url": pages.never()})


async def _mcp_case(browser: cdp_engine.Browser, pages: Pages, url: str, tool: str, args: dict[str, Any]) -> tuple[Any, float, bool]:
    from cdp_engine.mcp_server.instance_manager import InstanceManager
    from cdp_engine.mcp_server.server_config import Config
    from cdp_engine.mcp_server.tools import BrowserTools

    config = Config(command_timeout=COMMAND_TIMEOUT, navigation_timeout=NAVIGATION_TIMEOUT)
    manager = InstanceManager(config, browser=browser)
    tools = BrowserTools(manager)
    try:
        assert (await tools.call("browser_create_instance", {"name": "m"}))["status"] == "success"
        home = pages.add(COUNTER + "<p>home page</p>")
        assert (await tools.call("browser_navigate", {"instance": "m", "url": url or home}))["status"] == "success"
        if url:
            hang = await tools.call("browser_evaluate", {"instance": "m", "expression": HANG_SOON})
            assert hang["status"] == "success", hang
            await asyncio.sleep(0.3)
        env, took = await timed(tools.call(tool, {"instance": "m", **args}))
        result = "mcp:ok" if env["status"] == "success" else f"mcp:{env['error_type']}"
        if result == "mcp:internal_error" and env["message"].startswith("The page is not responding"):
            result = "mcp:hung"
        t0 = time.monotonic()
        if url:
            assert (await asyncio.wait_for(tools.call("browser_tabs", {"instance": "m", "action": "new"}), USABLE))["status"] == "success"
            await asyncio.wait_for(tools.call("browser_navigate", {"instance": "m", "url": home}), USABLE)
        snap = await asyncio.wait_for(tools.call("browser_snapshot", {"instance": "m"}), USABLE)
        usable = snap["status"] == "success" and "home page" in str(snap["data"]) and time.monotonic() - t0 < USABLE
        return result, took, usable and await usable_tab(browser, pages)
    finally:
        await asyncio.wait_for(manager.close(), 15)


async def mcp_busy_loop(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _mcp_case(browser, pages, pages.add(BUSY_PAGE), "browser_snapshot", {})


async def mcp_never_answers(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    return await _mcp_case(browser, pages, "", "browser_navigate", {"url": pages.never()})


async def harness_busy_loop(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    from cdp_engine.harness import BrowserEnv

    async with BrowserEnv(browser, prewarm=False) as env:
        await env.reset(start_url=pages.add(BUSY_PAGE))
        await env.evaluate(HANG_SOON)
        await asyncio.sleep(0.3)
        (_obs, info), took = await timed(env.step({"action": "scroll", "direction": "down"}))
        error = info.get("error") or {}
        result = "harness:hung" if "renderer is not responding" in error.get("message", "") else f"harness:{error.get('code', 'ok')}"
        t0 = time.monotonic()
        obs = await asyncio.wait_for(env.reset(start_url=pages.add("<p>fresh episode</p>")), USABLE)
        usable = "fresh episode" in obs["page_content"] and time.monotonic() - t0 < USABLE
    return result, took, usable


LARGE_COUNT = 20_000


async def large_page(browser: cdp_engine.Browser, pages: Pages) -> tuple[Any, float, bool]:
    tab = await browser.new_tab()
    await tab.goto(pages.add(
        "<title>Large</title><div id=root></div><script>const root = document.getElementById('root');"
        f"for (let i = 0; i < {LARGE_COUNT}; i++) {{ const b = document.createElement('button');"
        "b.textContent = 'b' + i; b.onclick = () => { document.title = 'clicked ' + i }; root.appendChild(b) }</script>"
    ))
    assert await tab.evaluate("document.querySelectorAll('button').length") == LARGE_COUNT
    value, took = await timed(tab.state(screenshot=False))
    if isinstance(value, dict) and "error" not in value:
        # The index holds the elements that show (the viewport's few hundred); the capture reads all 20,000.
        last = max(value["element_index"], key=int)
        text = value["element_index"][last]["text_content"]
        for action in ({"action": "click_element", "element_index": int(last)}, {"action": "scroll", "direction": "down"}):
            after, seconds = await timed(tab.act(action, screenshot=False))
            took = max(took, seconds)
            assert isinstance(after, dict) and "error" not in after, after
        assert await tab.evaluate("document.title") == f"clicked {text[1:]}"
    return value, took, await usable_tab(browser, pages)


# ----- dialogs: every kind, from a click and from a timer, under every policy ----------------------------

DIALOG_KINDS = ("alert", "confirm", "prompt", "beforeunload")
TRIGGERS = ("click", "timer")
POLICIES = ("dismiss", "accept", "hold")

# window.answer records what the page got back from its dialog (confirm: bool, prompt: text or null).
DIALOG_SCRIPT = {
    "alert": "window.answer = String(alert('hello'))",
    "confirm": "window.answer = String(confirm('hello'))",
    "prompt": "window.answer = String(prompt('hello', 'typed'))",
    "beforeunload": "location.href = '%s'",
}


def dialog_page(pages: Pages, kind: str) -> str:
    """`Open` opens the dialog from a click; window.later() opens it from a timer after 0.4 s of script, so a
    call sent meanwhile is in flight (waiting on the busy page) when the dialog appears."""
    script = DIALOG_SCRIPT[kind]
    if kind == "beforeunload":
        script = script % pages.add("<title>Left</title><p>left the page</p>")
    unload = "<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = 'stay?' })</script>"
    return pages.add(
        f"<title>Dialogs</title>{unload if kind == 'beforeunload' else ''}"
        f'<button onclick="{script}">Open</button>'
        "<button onclick=\"document.title = 'plain'\">Plain</button>"
        '<button onclick="window.armed = true">Arm</button>'
        f"<script>window.later = () => {{ const t = Date.now(); while (Date.now() - t < 400) {{}}; {script} }}</script>"
    )


def _expected_answer(kind: str, policy: str) -> str | None:
    """What the page's dialog call returned under a policy that answers at once."""
    accept = policy == "accept"
    return {"alert": "undefined", "confirm": str(accept).lower(), "prompt": "typed" if accept else "null"}.get(kind)


async def dialog_case(browser: cdp_engine.Browser, pages: Pages, kind: str, trigger: str, policy: str) -> tuple[Any, float, bool]:
    tab = await browser.new_tab(dialog_page(pages, kind))
    tab.dialog_policy = policy  # type: ignore[assignment]
    state = await tab.state(screenshot=False)
    opened = len(tab.dialogs)
    if trigger == "click":
        value, took = await timed(tab.act({"action": "click_element", "element_index": index_of(state, "Open")}, screenshot=False))
    else:
        if kind == "beforeunload":  # Chromium shows beforeunload only on a page the user has interacted with
            await tab.act({"action": "click_element", "element_index": index_of(state, "Arm")}, screenshot=False)
        await tab.evaluate("setTimeout(window.later, 0)")
        task = asyncio.ensure_future(tab.state(screenshot=False))
        await in_flight(task, 0.1)  # state() waits on the busy page; the dialog opens under it
        value, took = await finish(task, time.monotonic() - 0.1)
    dialog = tab.dialogs[-1] if len(tab.dialogs) > opened else None
    assert dialog is not None and dialog.type == kind, (kind, tab.dialogs)
    if policy == "hold":
        assert tab.pending_dialog is dialog
        assert isinstance(value, dict) and value["error"]["message"].startswith("DIALOG_OPEN: "), value
        await tab.handle_dialog(True, "typed")
    else:
        assert tab.pending_dialog is None and dialog.handled
        assert dialog.accepted == (policy == "accept" or kind == "beforeunload"), dialog
    t0 = time.monotonic()
    if kind == "beforeunload":  # accepted: the page left; usable means the new page answers
        async with asyncio.timeout(USABLE):
            while True:  # polls the page's title; an evaluation the navigation cuts off is asked again
                with contextlib.suppress(cdp_engine.errors.ProtocolError):
                    if "Left" in await tab.evaluate("document.title"):
                        break
                await asyncio.sleep(0.02)
        after = await asyncio.wait_for(tab.state(screenshot=False), USABLE)
        usable = "error" not in after and "left the page" in after["page_content"]
    else:
        answer = await tab.evaluate("window.answer", timeout=USABLE)
        expected = "typed" if policy == "hold" and kind == "prompt" else ("true" if policy == "hold" and kind == "confirm" else _expected_answer(kind, policy))
        assert answer == expected, (kind, policy, answer)
        fresh = await asyncio.wait_for(tab.state(screenshot=False), USABLE)
        plain = await asyncio.wait_for(tab.act({"action": "click_element", "element_index": index_of(fresh, "Plain")}, screenshot=False), USABLE)
        usable = "error" not in fresh and "error" not in plain and await tab.evaluate("document.title") == "plain"
    return value, took, usable and time.monotonic() - t0 < USABLE


# ----- the table -----------------------------------------------------------------------------------------

CaseRun = Callable[[cdp_engine.Browser, Pages], Awaitable[tuple[Any, float, bool]]]


@dataclass(frozen=True)
class Case:
    """One fault: how to cause it, the result it must give and its deadline in seconds."""

    name: str
    run: CaseRun
    expected: str
    deadline: float


def _dialog_cases() -> list[Case]:
    cases = []
    for kind in DIALOG_KINDS:
        for trigger in TRIGGERS:
            for policy in POLICIES:
                async def run(browser: cdp_engine.Browser, pages: Pages, k: str = kind, t: str = trigger, p: str = policy) -> tuple[Any, float, bool]:
                    return await dialog_case(browser, pages, k, t, p)

                expected = "state:INTERNAL_BROWSER_ERROR" if policy == "hold" else "state:ok"  # DIALOG_OPEN
                cases.append(Case(f"dialog-{kind}-{trigger}-{policy}", run, expected, HELD))
    return cases


CASES: list[Case] = [
    Case("sigkill-during-state", sigkill_during_state, "raise:ConnectionClosedError", DEAD),
    Case("sigkill-during-act", sigkill_during_act, "state:INTERNAL_BROWSER_ERROR", DEAD),
    Case("page-crash-during-act", crash_during_act, "state:INTERNAL_BROWSER_ERROR", DEAD),
    Case("tab-closed-during-state", close_during_state, "raise:TargetClosedError", DEAD),
    Case("tab-closed-during-act", close_during_act, "state:INTERNAL_BROWSER_ERROR", DEAD),
    Case("busy-loop", busy_loop, "state:INTERNAL_BROWSER_ERROR", COMMAND_TIMEOUT + PROBE),
    Case("page-never-loads", never_loads, "state:NAVIGATION_FAILED", NAVIGATION_TIMEOUT),
    Case("unreachable-port", unreachable_port, "state:NAVIGATION_FAILED", NAVIGATION_TIMEOUT),
    Case("never-answers-navigate", never_answers_navigate, "state:NAVIGATION_FAILED", NAVIGATION_TIMEOUT),
    Case("never-answers-link-click", never_answers_link, "state:ok", NAVIGATION_TIMEOUT + 1),
    Case("large-page-20000", large_page, "state:ok", COMMAND_TIMEOUT),
    Case("toolset-busy-loop", toolset_busy_loop, "toolset:hung", COMMAND_TIMEOUT + PROBE),
    Case("toolset-never-answers-navigate", toolset_never_answers, "toolset:timed-out", NAVIGATION_TIMEOUT),
    Case("mcp-busy-loop", mcp_busy_loop, "mcp:hung", COMMAND_TIMEOUT + PROBE),
    Case("mcp-never-answers-navigate", mcp_never_answers, "mcp:navigation_timeout", NAVIGATION_TIMEOUT),
    Case("harness-busy-loop", harness_busy_loop, "harness:hung", COMMAND_TIMEOUT + PROBE),
    *_dialog_cases(),
]


async def run_case(case: Case, pages: Pages) -> dict[str, Any]:
    """Run one case in its own browser and give its row; an assertion or a hang is the row's result."""
    browser = await cdp_engine.launch(command_timeout=COMMAND_TIMEOUT, navigation_timeout=NAVIGATION_TIMEOUT)
    assert browser.process is not None
    profile, downloads = Path(browser.process.user_data_dir), Path(browser.downloads_dir)
    result, took, usable = "not run", 0.0, False
    try:
        value, took, usable = await asyncio.wait_for(case.run(browser, pages), 60)
        result = outcome(value, case.expected)
    except Exception as exc:  # the row says what went wrong; the test fails on it
        result = f"failed:{type(exc).__name__}:{exc}"[:300]
    finally:
        await asyncio.wait_for(browser.close(), 20)
    deadline = time.monotonic() + 5  # process-group members may take a moment to be reaped
    while live_processes_with(str(profile)) and time.monotonic() < deadline:  # noqa: ASYNC110 - /proc has no event
        await asyncio.sleep(0.05)
    leaked_processes = len(live_processes_with(str(profile)))
    leaked_folders = sum(1 for folder in (profile, downloads) if folder.exists())
    return {
        "case": case.name,
        "result": result,
        "expected": case.expected,
        "ms": round(took * 1000, 1),
        "deadline_ms": round(case.deadline * 1000),
        "within_deadline": took <= case.deadline + SLACK,
        "usable_after": usable,
        "leaked_processes": leaked_processes,
        "leaked_folders": leaked_folders,
    }
