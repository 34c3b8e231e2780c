"""Is the page still able to answer? Held dialogs and hung renderers, told apart from slow pages.

A renderer paused by a held JavaScript dialog, or busy in a script that never yields (`while(true){}`),
answers no command sent to it (DOMSnapshot, Runtime.evaluate, even the ack of an input event) until
the dialog is answered or the script ends, while the browser process still answers its own commands.
Waits race their work against a dialog opening (`unless_dialog`), and a command that overran its
deadline is followed by one short probe (`renderer_responds`) that tells a hung renderer from a slow one.
Every surface bounds its page work with `bounded` (one overall deadline, that verdict on overrun), and
the tab remembers a hung verdict (`Tab.renderer_hung`): the next call on it probes first
(`check_responsive`) and fails within the probe's second while the script still runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import CDPEngineError, CommandTimeoutError, RendererHungError

if TYPE_CHECKING:
    from .tab import Tab

T = TypeVar("T")

PROBE_TIMEOUT = 1.0  # the liveness probe's own deadline (s): a live renderer answers "1" in about a millisecond


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def unless_dialog(tab: Tab, work: Awaitable[T]) -> tuple[bool, T | None]:
    """(True, result) when `work` finished, (False, None) as soon as a dialog is held on the tab first
    (`work` is cancelled then: what it waits for comes only after the dialog is answered)."""
    task: asyncio.Future[Any] = asyncio.ensure_future(work)
    if tab.pending_dialog is None and not task.done():
        held: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def on_event(kind: str, _payload: Any) -> None:
            if kind == "dialog" and tab.pending_dialog is not None and not held.done():
                held.set_result(None)

        unsubscribe = tab.add_listener(on_event)
        try:
            await asyncio.wait({task, held}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            unsubscribe()
    if task.done():
        result: T = task.result()
        return True, result
    task.cancel()
    task.add_done_callback(_retrieve)
    return False, None


async def renderer_responds(tab: Tab, timeout: float = PROBE_TIMEOUT) -> bool:
    """False when the tab's renderer does not answer a trivial evaluation within `timeout` while the
    browser answers (a busy script); True when the renderer answers, or when the browser does not either
    (then the connection, not the page, is the fault). True without asking under a held dialog (the
    dialog, not a script, pauses the renderer: the caller's dialog handling says so) and while a main-frame
    navigation is pending (Chromium defers the renderer's commands until it commits or stops)."""
    if tab.pending_dialog is not None or tab.navigation_pending:
        return True
    probe = tab.session.send("Runtime.evaluate", {"expression": "1", "returnByValue": True}, timeout=timeout)
    browser = tab.browser.connection.root.send("Target.getTargetInfo", {"targetId": tab.target_id}, timeout=timeout)
    try:
        await probe
        return True
    except CommandTimeoutError:
        pass
    except CDPEngineError:
        return True  # a closed or crashed target: not a hang, the caller's own error says what happened
    finally:
        browser.add_done_callback(_retrieve)
    try:
        await browser
    except CDPEngineError:
        return True
    return False


async def check_responsive(tab: Tab) -> None:
    """RendererHungError within the probe's second while a renderer found hung still answers nothing;
    nothing (no command at all) for a tab never found hung."""
    if tab.renderer_hung:
        if not await renderer_responds(tab):
            raise RendererHungError("the liveness probe", PROBE_TIMEOUT)
        tab.renderer_hung = False


async def diagnose(tab: Tab, exc: CommandTimeoutError) -> CommandTimeoutError:
    """The error a command that overran means: RendererHungError when the probe finds the renderer
    hung (the tab remembers it), else `exc` itself (a slow page, or a slow browser)."""
    if not isinstance(exc, RendererHungError) and not await renderer_responds(tab):
        exc = RendererHungError(exc.method, exc.timeout)
    tab.renderer_hung = tab.renderer_hung or isinstance(exc, RendererHungError)
    return exc


async def bounded(tab: Tab, work: Awaitable[T], what: str, timeout: float) -> T:
    """`work` within one overall deadline, on a tab not known to be hung (check_responsive first).

    Whenever the work has run one more command deadline (a member that waits longer than one command on
    purpose, a navigation, a screenshot with its own timeout), one short probe checks the renderer, so a
    hung one is reported then, not at the overall deadline. On overrun (or a command inside timing out)
    the probe decides the error: RendererHungError for a renderer that answers nothing while the browser
    does, CommandTimeoutError(what, timeout) for a page that is merely slow."""
    try:
        await check_responsive(tab)
    except BaseException:
        if asyncio.iscoroutine(work):
            work.close()  # never started: no "never awaited" warning
        raise
    loop = asyncio.get_running_loop()
    start = loop.time()
    end = start + timeout
    period = tab.browser.connection.default_timeout
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=max(0.0, min(end, loop.time() + period) - loop.time()))
            if done or loop.time() >= end:
                break
            if not await renderer_responds(tab):
                tab.renderer_hung = True
                task.cancel()
                task.add_done_callback(_retrieve)
                raise RendererHungError(what, loop.time() - start)
    except BaseException:
        task.cancel()
        raise
    if task.done():
        try:
            return task.result()
        except CommandTimeoutError as exc:
            diagnosed = await diagnose(tab, exc)
            if diagnosed is exc:
                raise
            raise diagnosed from exc
    task.cancel()
    task.add_done_callback(_retrieve)
    # Let the work unwind first (an abandoned navigation sends its Page.stopLoading then), then probe.
    await asyncio.wait({task}, timeout=PROBE_TIMEOUT)
    raise await diagnose(tab, CommandTimeoutError(what, timeout))
