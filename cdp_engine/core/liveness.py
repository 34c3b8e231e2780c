"""Is the page still able to answer? Held dialogs and hung renderers, told apart from slow pages.

A renderer paused by a held JavaScript dialog, or busy in a script that never yields (`while(true){}`),
answers no command sent to it (DOMSnapshot, Runtime.evaluate, even the ack of an input event) until
the dialog is answered or the script ends, while the browser process still answers its own commands.
Waits race their work against a dialog opening (`unless_dialog`), and a command that overran its
deadline is followed by one short probe (`renderer_responds`) that tells a hung renderer from a slow one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import CDPEngineError, CommandTimeoutError, RendererHungError

if TYPE_CHECKING:
    from .browser import Tab

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
    (then the connection, not the page, is the fault)."""
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


async def bounded(tab: Tab, work: Awaitable[T], what: str, timeout: float) -> T:
    """`work` within one overall deadline. On overrun (or a command inside it timing out) one short
    probe decides the error: RendererHungError for a renderer that answers nothing while the browser
    does, CommandTimeoutError(what, timeout) for a page that is merely slow."""
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except BaseException:
        task.cancel()
        raise
    if done:
        try:
            return task.result()
        except CommandTimeoutError as exc:
            if isinstance(exc, RendererHungError) or await renderer_responds(tab):
                raise
            raise RendererHungError(exc.method, exc.timeout) from exc
    task.cancel()
    task.add_done_callback(_retrieve)
    if not await renderer_responds(tab):
        raise RendererHungError(what, timeout)
    raise CommandTimeoutError(what, timeout)
