"""A failed navigation leaves the tab on its page: the one home of that rule, for every surface.

Tab.goto/back/forward/reload run here: the raw steps under them (Tab._navigate, _back, _forward, _reload) leave
the tab wherever Chromium left it when one fails (for a refused connection that is its error page,
chrome-error://chromewebdata/, committed just after the failure is reported). goto and step here are the same
steps under the rule:

1. Nothing commits when the network fails the main document. While the step runs, an interception on a
   side session of the tab (Connection.attach_side_session: the tab's own session may hold a surface's
   route, and Fetch.enable there would replace it) holds each main-frame document response. One the
   network failed for a reason Chromium names to the interception (NET_ERRORS: refused, reset, closed,
   unreachable, name not resolved, ...) is aborted instead, and an aborted navigation commits no error
   page: the old document stays as it was, with what was typed into it, its script state, its scroll
   position and the element indices and refs handed out for it. The error reported is the network's.
2. Otherwise the tab is put back. A failure Chromium reports to the interception only as "Failed" (TLS
   errors, an empty response, an unsafe port) goes on, so that its error page commits with Chromium's
   exact reason; a page that committed but did not reach the wait point in time replaced the old
   document too. Then the tab goes to the history entry it was on, within what is left of the caller's
   deadline. The browser runs without the back-forward cache (the launcher's --disable-back-forward-cache:
   a page restored from it sends no new loader and no lifecycle events, so every lifecycle wait of the
   engine would run to its deadline), so the old page is loaded again, as a new document: what was
   typed into it and its script state are gone.

The NavigationError raised says where the tab is (`replaced`, `on_page`, `page_url`; `where_now` words it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, NavigationError, NavigationTimeoutError, TargetClosedError
from . import lifecycle, network
from .lifecycle import LifecycleWatcher, WaitUntil, wait_loaded

if TYPE_CHECKING:
    from .event_records import Response

E = TypeVar("E")


class Tab(lifecycle.Tab, Protocol):
    """What the rule needs of a tab (core.tab.Tab is one): its raw steps, its history and its per-tab state; a
    Protocol, so that the tab's module can run its navigations here without this module importing it back."""

    browser: Any  # core.browser.Browser: its connection attaches the guard's side session
    blocked_navigations: list[tuple[str, str]]

    def check_open(self) -> None: ...

    def extension(self, kind: type[E]) -> E: ...

    async def _navigate(
        self, url: str, *, wait_until: WaitUntil = "load", timeout: float | None = None, referrer: str | None = None,
        dialog_ends: bool = True,
    ) -> Response: ...  # fmt: skip

    async def _back(self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True) -> Response | None: ...

    async def _forward(self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True) -> Response | None: ...

    async def _reload(self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True) -> Response | None: ...

    async def go_to_history_entry(
        self, entry_id: int, url: str, wait_until: WaitUntil, timeout: float, dialog_ends: bool = True
    ) -> Response: ...

__all__ = ["NET_ERRORS", "goto", "step", "where_now"]

log = logging.getLogger("cdp_engine")

R = TypeVar("R")

# The interception's error reasons (Fetch.ErrorReason) that each name one network error; Chromium reports
# every other failure as "Failed" (and "Aborted" commits no error page anyway).
NET_ERRORS: dict[str, str] = {
    "ConnectionRefused": "net::ERR_CONNECTION_REFUSED",
    "ConnectionReset": "net::ERR_CONNECTION_RESET",
    "ConnectionClosed": "net::ERR_CONNECTION_CLOSED",
    "ConnectionAborted": "net::ERR_CONNECTION_ABORTED",
    "ConnectionFailed": "net::ERR_CONNECTION_FAILED",
    "NameNotResolved": "net::ERR_NAME_NOT_RESOLVED",
    "InternetDisconnected": "net::ERR_INTERNET_DISCONNECTED",
    "AddressUnreachable": "net::ERR_ADDRESS_UNREACHABLE",
    "TimedOut": "net::ERR_TIMED_OUT",
    "AccessDenied": "net::ERR_ACCESS_DENIED",
    "BlockedByClient": "net::ERR_BLOCKED_BY_CLIENT",
    "BlockedByResponse": "net::ERR_BLOCKED_BY_RESPONSE",
}
ABORTED = "net::ERR_ABORTED"  # an aborted navigation (a download, a stop) commits no error page
ERROR_PAGE_GRACE = 2.0  # seconds a failed navigation's error page gets to commit (it takes ~20 ms)
ABORT_GRACE = 1.0  # seconds an aborted step gets to report its end before it is let go


class _Guard:
    """The tab's side-session interception of main-frame documents, armed only while a step runs."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.lock = asyncio.Lock()  # one kept navigation at a time per tab
        self.session: CDPSession | None = None
        self.route: network.Route | None = None
        self.failed = asyncio.Event()
        self.error_text = ""
        self.url = ""

    @classmethod
    def of(cls, tab: Tab) -> _Guard:
        return tab.extension(cls)

    async def arm(self, timeout: float) -> None:
        """Hold the main frame's document responses from now on; without a side session, nothing is held
        (the restore alone keeps the rule)."""
        self.failed.clear()
        self.error_text = self.url = ""
        try:
            if self.session is None or self.session.closed:
                self.session = await self.tab.browser.connection.attach_side_session(
                    self.tab.target_id, timeout
                )
            self.route = network.route(
                self.session, self._decide, resource_types=["Document"], stage="Response"
            )
            await asyncio.wait_for(asyncio.shield(self.route.enabled), timeout)
        except (CDPEngineError, TimeoutError) as exc:
            log.debug("no navigation guard on %s: %s", self.tab.target_id, exc)
            self.disarm()

    def _decide(self, paused: network.PausedRequest) -> network.Decision:
        text = NET_ERRORS.get(paused.error_reason or "")
        if text is None or paused.frame_id != self.tab.main_frame_id or self.failed.is_set():
            return None  # an answer, a subframe's document, or a failure only its error page names exactly
        self.error_text, self.url = text, paused.url
        if paused.network_id:
            network.record_real_failure(self.tab.session, paused.network_id, text)
        self.failed.set()
        return network.Fail("Aborted")

    def disarm(self) -> None:
        if self.route is not None:
            self.route.stop()
            self.route = None


async def goto(
    tab: Tab,
    url: str,
    *,
    wait_until: WaitUntil = "load",
    timeout: float | None = None,
    deadline: float | None = None,
    referrer: str | None = None,
    dialog_ends: bool = True,
) -> Response:
    """Tab.goto under the rule (module doc): `timeout` is the navigation's (the tab's navigation timeout by
    default); `deadline` (event-loop time) bounds the whole call, the restore included, and defaults to
    the navigation's timeout from now. NavigationError says where the tab is."""
    return await _kept(
        tab,
        url,
        lambda left: tab._navigate(  # noqa: SLF001 - the raw step is run only here, under the rule
            url, wait_until=wait_until, timeout=left, referrer=referrer, dialog_ends=dialog_ends
        ),
        timeout,
        deadline,
    )


async def step(
    tab: Tab,
    which: Literal["back", "forward", "reload"],
    *,
    wait_until: WaitUntil = "load",
    timeout: float | None = None,
    deadline: float | None = None,
    dialog_ends: bool = True,
) -> Response | None:
    """Tab.back / forward / reload under the rule (see goto); None when there is no such history entry. A
    reload the network fails keeps the document it would have replaced; one whose error page committed
    cannot be undone (its entry is the tab's page)."""
    raw = {"back": tab._back, "forward": tab._forward, "reload": tab._reload}  # noqa: SLF001 - run only here
    run = raw[which]
    return await _kept(
        tab,
        "",
        lambda left: run(wait_until=wait_until, timeout=left, dialog_ends=dialog_ends),
        timeout,
        deadline,
    )


def explained(tab: Tab, error_text: str, since: int) -> str:
    """A failure the tab's origin policy caused, with the policy's reason (the navigation or a redirect of it):
    `since` is the number of blocked navigations the tab had recorded when the step began."""
    if "ERR_BLOCKED_BY_CLIENT" in error_text and len(tab.blocked_navigations) > since:
        return f"{error_text}: {tab.blocked_navigations[-1][1]}"
    return error_text


def where_now(exc: NavigationError) -> str:
    """One sentence for a surface's failure text: where the failed navigation left the tab."""
    url = exc.page_url or ""
    if not exc.replaced:
        return f"The tab is still on {url}."
    if exc.on_page:
        return f"The tab is back on {url}; the page was loaded again."
    return f"The tab now shows {url}."


async def _kept(
    tab: Tab, url: str, run: Callable[[float], Awaitable[R]], timeout: float | None, deadline: float | None
) -> R:
    tab.check_open()
    loop = asyncio.get_running_loop()
    timeout = tab.navigation_timeout if timeout is None else timeout
    end = loop.time() + timeout if deadline is None else deadline
    guard = _Guard.of(tab)
    blocked_before = len(tab.blocked_navigations)
    async with guard.lock:
        main = tab.frames.get(tab.main_frame_id)
        loader_before = main.loader_id if main else ""
        history = tab.session.send("Page.getNavigationHistory", timeout=max(0.1, end - loop.time()))
        await guard.arm(max(0.1, end - loop.time()))
        try:
            with LifecycleWatcher(tab) as watcher:
                try:
                    try:
                        return await _race(
                            tab, run(max(0.0, min(timeout, end - loop.time()))), guard, watcher
                        )
                    finally:
                        guard.disarm()
                except NavigationError as exc:
                    error = exc
                    if guard.failed.is_set():  # aborted in place of the network's failure
                        error = NavigationError(url or guard.url, explained(tab, guard.error_text, blocked_before))
                    elif not isinstance(exc, NavigationTimeoutError) and exc.error_text != ABORTED:
                        # Chromium commits its error page just after it answered (~20 ms); loading then stops.
                        grace = max(0.0, min(ERROR_PAGE_GRACE, end - loop.time()))
                        await watcher.wait("commit", grace, stop_ends=True, raise_on_timeout=False)
        finally:
            history.add_done_callback(_retrieve)
        main = tab.frames.get(tab.main_frame_id)
        error.replaced = bool(loader_before) and main is not None and main.loader_id != loader_before
        if error.replaced:
            error.on_page = await _restore(tab, await _entry_id(history), end)
        main = tab.frames.get(tab.main_frame_id)
        error.page_url = main.url if main is not None else tab.url
        raise error


async def _race(tab: Tab, work: Awaitable[R], guard: _Guard, watcher: LifecycleWatcher) -> R:
    """The step's result; NavigationError as soon as the guard aborted its document (a history step or a
    reload would otherwise wait to its deadline for a document that never comes)."""
    task = asyncio.ensure_future(work)
    failed = asyncio.ensure_future(guard.failed.wait())
    try:
        await asyncio.wait({task, failed}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():  # aborted: the step ends when the frame stops loading
            ended = asyncio.ensure_future(tab.wait_for_condition(lambda: watcher.stopped, ABORT_GRACE))
            await asyncio.wait({task, ended}, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            ended.add_done_callback(_retrieve)
    finally:
        failed.cancel()
        if not task.done():
            task.cancel()
            task.add_done_callback(_retrieve)
    if not task.done() or task.cancelled():
        raise NavigationError(guard.url, guard.error_text)
    return task.result()


async def _entry_id(history: asyncio.Future[dict[str, Any]]) -> int | None:
    """The id of the history entry the tab was on before the step (None when unknown)."""
    with contextlib.suppress(CDPEngineError, TimeoutError, LookupError, TypeError):
        answer = await history
        entry_id = answer["entries"][answer["currentIndex"]]["id"]
        return entry_id if isinstance(entry_id, int) else None
    return None


async def _restore(tab: Tab, entry_id: int | None, end: float) -> bool:
    """Go to the history entry the tab was on, within the deadline; True when the tab got there.

    Nothing to go to when the failed document took that very entry (a reload, a navigation to the same
    URL): then the tab shows what committed."""
    if entry_id is None:
        return False
    loop = asyncio.get_running_loop()
    for _attempt in range(3):
        if (left := end - loop.time()) <= 0:
            break
        try:
            history = await tab.session.send("Page.getNavigationHistory", timeout=left)
            entries = history["entries"]
            if entries[history["currentIndex"]]["id"] == entry_id:
                return False
            entry = next((e for e in entries if e["id"] == entry_id), None)
            if entry is None:
                return False
            await tab.go_to_history_entry(
                entry_id, entry["url"], "domcontentloaded", max(0.0, end - loop.time())
            )
            await wait_loaded(tab, max(0.0, end - loop.time()))
            return True
        except (TimeoutError, TargetClosedError):
            if tab.closed:
                raise
            break
        except CDPEngineError:
            # Right after the error page commits its session is briefly not ready: wait for its load.
            await wait_loaded(tab, min(1.0, max(0.0, end - loop.time())))
    log.debug("could not put the tab back on its page after a failed navigation")
    return False


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
