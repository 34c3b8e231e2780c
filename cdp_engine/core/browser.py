"""Browser, contexts, tabs and frames over one Connection.

Targets are tracked from events (auto-attach with flatten): every tab, popup and
out-of-process iframe gets its session before it runs script, is configured, then
resumed. Frame trees, lifecycle state, dialogs and downloads are kept current from
events, so reading them costs no round trip.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import logging
import os
import tempfile
from collections.abc import Callable, Coroutine, Generator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from ..cdp.connection import CDPSession, Connection
from ..cdp.discovery import candidate_urls, refusal
from ..cdp.launcher import (
    DEFAULT_TRANSPORT,
    ChromiumProcess,
    TransportName,
    launch_process,
    remove_profile,
)
from ..cdp.transport import WebSocketTransport
from ..errors import (
    AttachError,
    CDPEngineError,
    NavigationError,
    NavigationTimeoutError,
    ProtocolError,
    StorageStateError,
    TargetClosedError,
)
from ..util import activity
from . import files, network, scripts, storage
from .lifecycle import SAME_DOCUMENT_TYPES, LifecycleWatcher, WaitUntil, check_wait_until
from .marks import Mark
from .policies import NavigationPolicy, PolicyError
from .records import Dialog, Download, Frame, Response

log = logging.getLogger("cdp_engine.core")
_E = TypeVar("_E")

DialogPolicy = Literal["dismiss", "accept", "hold"]
# Chromium reports an HTTP error status this way although the page committed; it is not a failure.
IGNORED_NAVIGATION_ERRORS = ("net::ERR_HTTP_RESPONSE_CODE_FAILURE",)
STOP_TIMEOUT = 2.0  # seconds Page.stopLoading gets when a navigation is abandoned
# Page.navigate's answer to a URL Chromium cannot parse, and the failure goto reports for it instead
# (Chromium's own net error for such a URL).
INVALID_URL_ANSWER = "Cannot navigate to invalid URL"
INVALID_URL = "net::ERR_INVALID_URL"
# Chromium's own pages (chrome://settings, history, extensions, password-manager, ...) need the regular
# profile: opened by Page.navigate in an off-the-record context they crash the browser process, and with
# it every tab of every context (Chromium 156; the UI would have opened them in a regular window instead).
# Which pages do that changes between versions, so none of them is opened in such a context.
BROWSER_UI_SCHEMES = frozenset({"chrome", "chrome-untrusted", "chrome-search"})
BROWSER_UI_REFUSED = (
    "Chromium's own pages (chrome:) cannot be opened in an isolated browser context: they need the regular "
    "profile and crash the whole browser there; open them in the default context"
)


def is_browser_ui_url(url: str) -> bool:
    """Whether url is one of Chromium's own pages (view-source: of one included), parsed as browsers do."""
    text = url.strip()
    try:
        scheme = urlsplit(text).scheme.lower()
    except ValueError:
        return False
    if scheme == "view-source":
        return is_browser_ui_url(text.split(":", 1)[1])
    return scheme in BROWSER_UI_SCHEMES


class _Condition:
    __slots__ = ("future", "predicate")

    def __init__(self, predicate: Callable[[], bool]) -> None:
        self.predicate = predicate
        self.future: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class Tab:
    """One page target: navigation, evaluation, screenshots, dialogs and frames.

    The agent-facing state and actions are layered on top (`cdp_engine.index.AgentTab`).
    """

    def __init__(self, browser: Browser, session: CDPSession, target_info: dict[str, Any]) -> None:
        self.browser = browser
        self.session = session
        self.target_id: str = target_info["targetId"]
        self.context_id: str | None = target_info.get("browserContextId")
        self.opener_id: str | None = target_info.get("openerId") or None
        self.url: str = target_info.get("url", "")
        self.title: str = target_info.get("title", "")
        self.frames: dict[str, Frame] = {}
        self.main_frame_id: str = self.target_id
        self.frame_sessions: dict[str, CDPSession] = {}  # OOPIF frame id (== target id) -> session
        self.dialogs: list[Dialog] = []
        self.pending_dialog: Dialog | None = None
        # A context may set its own policy (the MCP surface holds dialogs in its instances' contexts).
        context = browser.contexts.get(self.context_id or "")
        self.dialog_policy: DialogPolicy = (context.dialog_policy if context else None) or browser.dialog_policy
        self.closed = False
        self.crashed = False
        self.renderer_hung = False  # core.liveness found the renderer hung: the next page call probes it first
        # A main-frame navigation started and not yet committed or stopped: the renderer's commands wait
        # behind it (Chromium defers them), so a silent renderer then is no sign of a busy script.
        self.navigation_pending = False
        self.ready: asyncio.Future[Tab] = asyncio.get_running_loop().create_future()
        self._conditions: list[_Condition] = []
        self._listeners: list[Callable[[str, Any], None]] = []
        self.dom_version = 0  # bumped on every navigation event, for cheap change detection
        self.last_timings: dict[str, float] = {}
        self.extensions: dict[Any, Any] = {}  # per-tab state of higher layers (Tab.extension); lives as long as the tab
        self.init_scripts: list[str] = []  # this tab's own, on top of the browser's
        # Document requests the navigation policy's origins refused (url, message), newest last.
        self.blocked_navigations: list[tuple[str, str]] = []
        self._guards: dict[str, network.Route] = {}  # session id -> its navigation guard
        self._watch_session(session)

    # ----- events -----------------------------------------------------------------------------

    def add_listener(self, listener: Callable[[str, Any], None]) -> Callable[[], None]:
        """listener(kind, payload) for 'dialog', 'download', 'popup', 'window_open', 'navigated', 'frame', 'closed', 'crashed'."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, kind: str, payload: Any) -> None:
        """Tell this tab's listeners (add_listener) about an event; the Browser emits popups and downloads."""
        for listener in list(self._listeners):
            try:
                listener(kind, payload)
            except Exception:
                log.exception("tab listener failed")

    def _watch_session(self, session: CDPSession) -> None:
        session.on("Page.frameAttached", lambda p: self._on_frame_attached(session, p))
        session.on("Page.frameNavigated", lambda p: self._on_frame_navigated(session, p))
        session.on("Page.navigatedWithinDocument", self._on_same_document)
        session.on("Page.frameDetached", self._on_frame_detached)
        session.on("Page.lifecycleEvent", self._on_lifecycle)
        session.on("Page.javascriptDialogOpening", lambda p: self._on_dialog(session, p))
        session.on("Page.javascriptDialogClosed", self._on_dialog_closed)
        if session is self.session:
            session.on("Page.frameStartedNavigating", self._on_started_navigating)
            session.on("Page.frameStoppedLoading", self._on_stopped_loading)
            session.on("Inspector.targetCrashed", self._on_crashed)
            # A page asked for a window (window.open, target=_blank): listeners hear it before the popup attaches.
            session.on("Page.windowOpen", lambda p: self.emit("window_open", p))

    def _on_started_navigating(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self.main_frame_id and params.get("navigationType") not in SAME_DOCUMENT_TYPES:
            self.navigation_pending = True

    def _on_stopped_loading(self, params: dict[str, Any]) -> None:
        if params.get("frameId") == self.main_frame_id:
            self.navigation_pending = False

    def _on_crashed(self, params: dict[str, Any]) -> None:
        # The connection has already closed the session; waits on this tab would otherwise run to their deadline.
        self.crashed = True
        self._fail_conditions(TargetClosedError(f"tab {self.target_id} crashed"))
        self.emit("crashed", None)

    def check_conditions(self) -> None:
        """Re-check the pending wait_for_condition predicates now (for watchers whose state changed on an
        event the tab itself does not track)."""
        self._check_conditions()

    def _check_conditions(self) -> None:
        if not self._conditions:
            return
        for cond in list(self._conditions):
            if cond.future.done():
                self._conditions.remove(cond)
                continue
            try:
                met = cond.predicate()
            except Exception as exc:
                cond.future.set_exception(exc)
                self._conditions.remove(cond)
                continue
            if met:
                cond.future.set_result(None)
                self._conditions.remove(cond)

    async def wait_for_condition(self, predicate: Callable[[], bool], timeout: float) -> None:
        """Wait until predicate() holds, re-checked on every frame and lifecycle event; TimeoutError after,
        TargetClosedError at once when the tab is closed or crashed (also when it closed before this wait began)."""
        if predicate():
            return
        if self.closed or self.crashed:
            raise TargetClosedError(f"tab {self.target_id} is closed")
        cond = _Condition(predicate)
        self._conditions.append(cond)
        try:
            async with asyncio.timeout(timeout):
                await cond.future
        finally:
            if cond in self._conditions:
                self._conditions.remove(cond)

    def _fail_conditions(self, exc: BaseException) -> None:
        for cond in self._conditions:
            if not cond.future.done():
                cond.future.set_exception(exc)
        self._conditions.clear()

    def _add_frame_tree(
        self, session: CDPSession, tree: dict[str, Any], parent_id: str | None, *, fill_only: bool = False
    ) -> None:
        info = tree["frame"]
        frame = self.frames.get(info["id"])
        if frame is None:
            frame = Frame(info["id"], info.get("parentId", parent_id), session)
            self.frames[frame.id] = frame
        frame.session = session
        # fill_only: what this session's own frame events already set is never older than the tree: keep it.
        if not (fill_only and frame.url):
            frame.url = info.get("url", "") + info.get("urlFragment", "")
            frame.name = info.get("name", "")
            frame.loader_id = info.get("loaderId", frame.loader_id)
        for child in tree.get("childFrames", ()):
            self._add_frame_tree(session, child, frame.id, fill_only=fill_only)

    def _on_frame_attached(self, session: CDPSession, params: dict[str, Any]) -> None:
        frame_id = params["frameId"]
        if frame_id not in self.frames:
            self.frames[frame_id] = Frame(frame_id, params.get("parentFrameId"), session)
        self.dom_version += 1
        self.emit("frame", frame_id)
        self._check_conditions()

    def _on_frame_navigated(self, session: CDPSession, params: dict[str, Any]) -> None:
        info = params["frame"]
        frame = self.frames.get(info["id"])
        if frame is None:
            frame = Frame(info["id"], info.get("parentId"), session)
            self.frames[frame.id] = frame
        frame.session = session
        frame.url = info.get("url", "") + info.get("urlFragment", "")
        frame.name = info.get("name", "")
        if frame.loader_id != info.get("loaderId"):
            frame.lifecycle.clear()
        frame.loader_id = info.get("loaderId", "")
        origin = storage.origin_of(frame.url)
        if origin is not None:
            self.context.visited_origins.add(origin)  # storage_state() reads these origins' localStorage
        if frame.parent_id is None and "parentId" not in info:
            self.main_frame_id = frame.id
            self.url = frame.url
            self.navigation_pending = False  # committed: the new document answers
            if session is self.session:
                # A new main document: drop frames of the old one (they re-attach with the new document).
                for fid in [f for f, fr in self.frames.items() if fr.parent_id is not None]:
                    if fid not in self.frame_sessions:
                        self.frames.pop(fid, None)
        self.dom_version += 1
        self.emit("navigated", frame.id)
        self._check_conditions()

    def _on_same_document(self, params: dict[str, Any]) -> None:
        frame = self.frames.get(params["frameId"])
        if frame is not None:
            frame.url = params["url"]
            if frame.id == self.main_frame_id:
                self.url = params["url"]
        self.dom_version += 1
        self.emit("navigated", params["frameId"])
        self._check_conditions()

    def _on_frame_detached(self, params: dict[str, Any]) -> None:
        frame_id = params["frameId"]
        if params.get("reason") != "swap":  # a swap moves the frame into its own process; it stays
            self.frames.pop(frame_id, None)
        self.dom_version += 1
        self._check_conditions()

    def _on_lifecycle(self, params: dict[str, Any]) -> None:
        frame = self.frames.get(params["frameId"])
        if frame is None:
            return
        if params["name"] == "init":
            frame.loader_id = params["loaderId"]
            frame.lifecycle.clear()
        if params["loaderId"] == frame.loader_id:
            frame.lifecycle.add(params["name"])
        self._check_conditions()

    def _on_dialog(self, session: CDPSession, params: dict[str, Any]) -> None:
        dialog = Dialog(
            type=params.get("type", "alert"),
            message=params.get("message", ""),
            default_prompt=params.get("defaultPrompt", ""),
            url=params.get("url", ""),
            frame_id=params.get("frameId"),
            session=session,
        )
        self.dialogs.append(dialog)
        policy = self.dialog_policy
        if policy == "hold":
            self.pending_dialog = dialog
        else:
            # beforeunload is accepted unless the caller asked otherwise: requested navigations must proceed.
            accept = policy == "accept" or dialog.type == "beforeunload"
            self._answer_dialog(dialog, accept, dialog.default_prompt if accept else None)
        self.emit("dialog", dialog)
        self._check_conditions()

    def _answer_dialog(self, dialog: Dialog, accept: bool, prompt_text: str | None) -> asyncio.Future[Any]:
        dialog.handled = True
        dialog.accepted = accept
        dialog.prompt_text = prompt_text
        params: dict[str, Any] = {"accept": accept}
        if prompt_text is not None:
            params["promptText"] = prompt_text
        session = dialog.session or self.session
        future = session.send("Page.handleJavaScriptDialog", params, timeout=5.0)
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        return future

    def _on_dialog_closed(self, params: dict[str, Any]) -> None:
        dialog = self.pending_dialog
        if dialog is not None:
            dialog.handled = True
            if dialog.accepted is None:
                dialog.accepted = bool(params.get("result"))
                dialog.prompt_text = params.get("userInput")
        self.pending_dialog = None
        self._check_conditions()

    async def handle_dialog(
        self, accept: bool, prompt_text: str | None = None, *, dialog: Dialog | None = None
    ) -> Dialog:
        """Answer the dialog held under the 'hold' policy (or `dialog`, one this tab recorded)."""
        if dialog is None:
            dialog = self.pending_dialog
            if dialog is None:
                raise CDPEngineError("no dialog is open on this tab")
        if self.pending_dialog is dialog:
            self.pending_dialog = None
        with contextlib.suppress(CDPEngineError):
            await self._answer_dialog(dialog, accept, prompt_text)
        return dialog

    # ----- setup ------------------------------------------------------------------------------

    async def configure(self, waiting: bool) -> None:
        """Enable the domains a tab needs and let it run; called once by the Browser when the tab attaches."""
        s = self.session
        # A tab an attached browser already had (not paused at its start) keeps its own size: the user's tabs
        # are left as they were; tabs opened while attached, and every tab of a launched browser, get the viewport.
        viewport = self.browser.viewport_size if waiting or self.browser.process is not None else None
        scripts = [*self.browser.init_scripts, *self.context.init_scripts]
        commands, tree_future = self._setup_commands(s, scripts, waiting, viewport)
        await asyncio.gather(*commands)
        tree = tree_future.result()["frameTree"]
        # The page may have run (and sent frame events) before this continuation: don't undo those events.
        self._add_frame_tree(s, tree, None, fill_only=True)
        self.main_frame_id = tree["frame"]["id"]

    @property
    def context(self) -> BrowserContext:
        """The context this tab belongs to (the default context when it is none this client created)."""
        return self.browser.contexts.get(self.context_id or "") or self.browser.default_context

    @property
    def navigation_policy(self) -> NavigationPolicy | None:
        """The origins this tab's navigations may reach: its context's policy, else the browser's (None: any)."""
        context = self.context
        if context.navigation_policy is not None:
            return context.navigation_policy
        return self.browser.navigation_policy

    def check_navigation(self, url: str) -> None:
        """PolicyError when the navigation policy's origins refuse `url` (goto and every surface call this first)."""
        policy = self.navigation_policy
        if policy is not None:
            policy.check_origin(url)

    def guard(self, session: CDPSession) -> asyncio.Future[dict[str, Any]] | None:
        """(Re)install the request-level navigation guard on one of this tab's sessions, or remove it when the
        policy restricts no origin; the Fetch.enable future, or None when there is nothing to enable."""
        old = self._guards.pop(session.id or "", None)
        if old is not None:
            old.stop()
        policy = self.navigation_policy
        if policy is None or not policy.guards_origins:
            return None
        route = network.guard_navigations(session, policy, self._on_blocked)
        self._guards[session.id or ""] = route
        return route.enabled

    def _on_blocked(self, request: network.PausedRequest, exc: PolicyError) -> None:
        log.info("blocked a document request of tab %s: %s", self.target_id, exc.message)
        self.blocked_navigations.append((request.url, exc.message))
        del self.blocked_navigations[:-20]
        self.emit("navigation_blocked", (request.url, exc))

    def _explain(self, error_text: str, since: int) -> str:
        """A failure the guard caused, with the policy's reason (the navigation or a redirect of it)."""
        if "ERR_BLOCKED_BY_CLIENT" in error_text and len(self.blocked_navigations) > since:
            return f"{error_text}: {self.blocked_navigations[-1][1]}"
        return error_text

    def _setup_commands(
        self,
        session: CDPSession,
        scripts: list[str],
        waiting: bool,
        viewport: tuple[int, int] | None = None,
    ) -> tuple[list[asyncio.Future[dict[str, Any]]], asyncio.Future[dict[str, Any]]]:
        """The commands a tab's or an out-of-process frame's session gets before its page runs, all sent now
        and in order (Chromium applies them before the page runs any script); and the frame-tree answer.
        `viewport` (tabs only): one fixed CSS viewport at scale 1, so screenshots keep one size and
        coordinates are CSS pixels."""
        commands = [
            session.send("Page.enable"),
            session.send("Page.setLifecycleEventsEnabled", {"enabled": True}),
            # Keeps the renderer's accessibility tree built as pages load, so a capture's role lookups
            # cost milliseconds instead of building the whole tree on demand (see capture.py).
            session.send("Accessibility.enable"),
            tree_future := session.send("Page.getFrameTree"),
            session.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}),
        ]
        if viewport is not None:
            width, height = viewport
            commands.append(
                session.send(
                    "Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                )
            )
        commands += [
            session.send("Page.addScriptToEvaluateOnNewDocument", {"source": src, "runImmediately": True})
            for src in scripts
        ]
        guarded = self.guard(session)  # before the page runs: a popup's first request is checked too
        if guarded is not None:
            commands.append(guarded)
        if waiting:
            # Sent right behind the setup commands, not after their answers: a popup opened with noopener
            # has no renderer until its navigation resumes, so renderer-side commands would never answer.
            # Chromium applies the commands in order, before the page runs any script.
            commands.append(session.send("Runtime.runIfWaitingForDebugger"))
        return commands, tree_future

    async def attach_frame_session(self, session: CDPSession, waiting: bool) -> None:
        """An out-of-process iframe: configure its session like a tab's, then let it run."""
        frame_id = session.target_id
        self.frame_sessions[frame_id] = session
        self._watch_session(session)
        frame = self.frames.get(frame_id)
        if frame is not None:
            frame.session = session
        try:
            scripts = [*self.browser.init_scripts, *self.context.init_scripts, *self.init_scripts]
            commands, tree_future = self._setup_commands(session, scripts, waiting)
            await asyncio.gather(*commands)
            parent = self.frames.get(frame_id)
            # The frame may already have run and sent newer frame events: only fill in what is missing.
            self._add_frame_tree(
                session, tree_future.result()["frameTree"], parent.parent_id if parent else None, fill_only=True
            )
        except CDPEngineError as exc:
            log.debug("OOPIF %s setup failed: %s", frame_id, exc)
        self.dom_version += 1
        self.emit("frame", frame_id)
        self._check_conditions()

    def frame_session_detached(self, session: CDPSession) -> None:
        """An out-of-process frame's session went away (called by the Browser, which routes detach events)."""
        frame_id = session.target_id
        if self.frame_sessions.get(frame_id) is session:
            del self.frame_sessions[frame_id]
            self.dom_version += 1
        frame = self.frames.get(frame_id)
        if frame is not None and frame.session is session and frame.parent_id not in self.frames:
            del self.frames[frame_id]  # its document went away with its parent's

    def mark_closed(self, reason: BaseException) -> None:
        """The tab is gone: every wait on it fails with `reason` (called by the Browser on detach or crash)."""
        self.closed = True
        self._fail_conditions(reason)
        if not self.ready.done():
            self.ready.set_exception(reason)
            self.ready.exception()  # retrieved: nobody may be waiting for this tab any more
        self.emit("closed", reason)

    # ----- navigation -------------------------------------------------------------------------

    @property
    def off_the_record(self) -> bool:
        """Whether the tab is in an isolated context (Target.createBrowserContext), not the regular profile."""
        if self.context_id is None:
            return False
        default = self.browser.profile_context_id
        return self.context_id != default if default is not None else self.context_id in self.browser.contexts

    def _timeout(self, timeout: float | None) -> float:
        return self.browser.navigation_timeout if timeout is None else timeout

    def extension(self, kind: type[_E], make: Callable[[], _E] | None = None) -> _E:
        """The tab's one `kind` (ElementIndex, Worlds, NetworkTracker, …), made on first use by `make()` or
        `kind(tab)`; it lives as long as the tab. One home for the per-tab state of the layers above."""
        found = self.extensions.get(kind)
        if not isinstance(found, kind):
            found = self.extensions[kind] = make() if make is not None else kind(self)  # type: ignore[call-arg]
        return found

    def check_open(self) -> None:
        """Raise TargetClosedError once the tab or its session is gone, so a call fails fast instead of timing out."""
        if self.closed or self.session.closed:
            raise TargetClosedError(f"tab {self.target_id} is closed")

    async def goto(
        self,
        url: str,
        *,
        wait_until: WaitUntil = "load",
        timeout: float | None = None,
        referrer: str | None = None,
        dialog_ends: bool = True,
    ) -> Response:
        """Navigate the main frame and wait for the lifecycle point; raises NavigationError on failure.

        A dialog held (policy 'hold') during the wait ends it at once (`dialog_ends`; Response.dialog).
        One deadline (`timeout`): at it the navigation is abandoned with stop_loading(), so it can
        never commit later and the tab answers at once. A failure Chromium answers (a refused
        connection) raises at once; Chromium's error page commits just after (about 20 ms).
        """
        self.check_open()
        check_wait_until(wait_until)
        self.check_navigation(url)
        if self.off_the_record and is_browser_ui_url(url):
            raise NavigationError(url, BROWSER_UI_REFUSED)
        timeout = self._timeout(timeout)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        params: dict[str, Any] = {"url": url}
        if referrer:
            params["referrer"] = referrer
        try:
            return await self._goto(url, params, wait_until, timeout, deadline, dialog_ends)
        except asyncio.CancelledError:
            # The caller gave up (its own overall deadline): a navigation nobody waits for must not commit
            # later or keep the renderer's commands waiting behind it. Sent now, ahead of the next command.
            if not (self.closed or self.session.closed):
                self.session.send("Page.stopLoading", timeout=STOP_TIMEOUT).add_done_callback(_quiet)
            raise

    async def _goto(
        self, url: str, params: dict[str, Any], wait_until: WaitUntil, timeout: float, deadline: float,
        dialog_ends: bool,
    ) -> Response:  # fmt: skip
        loop = asyncio.get_running_loop()
        blocked_before = len(self.blocked_navigations)
        # Armed first: Page.navigate answers a same-document navigation before Page.navigatedWithinDocument,
        # and a fast page may send its lifecycle events before the answer.
        with LifecycleWatcher(self) as watcher:
            try:
                result = await self.session.send("Page.navigate", params, timeout=timeout)
            except TimeoutError:
                await self.stop_loading()
                raise NavigationTimeoutError(url, wait_until, timeout) from None
            except ProtocolError as exc:
                if exc.message != INVALID_URL_ANSWER:
                    raise
                # A URL Chromium refuses to parse (the policies catch most first): a failed navigation
                # in Chromium's own words, not a protocol fault; nothing was committed.
                raise NavigationError(url, INVALID_URL) from None
            loader_id = result.get("loaderId")
            error_text = result.get("errorText")
            if error_text and error_text not in IGNORED_NAVIGATION_ERRORS:
                raise NavigationError(url, self._explain(error_text, blocked_before))
            if not loader_id:
                # Same document: wait briefly for its event, so the tab's url is current when goto returns.
                await watcher.wait(
                    "load", max(0.1, min(2.0, deadline - loop.time())), same_document=True,
                    dialog_ends=dialog_ends, raise_on_timeout=False,
                )  # fmt: skip
                return Response(self.url, None, None, same_document=True)
            watcher.expect(loader_id)
            # The status is read as soon as the document commits, while it loads: no round trip after the load.
            status_read = asyncio.ensure_future(self._status_at_commit(watcher, deadline))
            try:
                # "commit" too: Page.navigate may answer before the new document's Page.frameNavigated.
                outcome = await watcher.wait(wait_until, max(0.0, deadline - loop.time()), dialog_ends=dialog_ends)
            except NavigationTimeoutError:  # the caller's timeout, not what was left of it after the answer
                status_read.cancel()
                await self.stop_loading()
                raise NavigationTimeoutError(url, wait_until, timeout) from None
            except BaseException:
                status_read.cancel()
                raise
            if outcome.dialog or self.pending_dialog is not None:
                status_read.cancel()  # the renderer is paused: reading the status would wait for the answer
                return Response(self.url, None, loader_id, dialog=outcome.dialog)
        return Response(self.url, await status_read, loader_id)

    async def _status_at_commit(self, watcher: LifecycleWatcher, deadline: float) -> int | None:
        """The main document's HTTP status, read once `watcher`'s navigation committed (None if unknown)."""
        left = deadline - asyncio.get_running_loop().time()
        with contextlib.suppress(CDPEngineError, TimeoutError):
            await self.wait_for_condition(lambda: watcher.reached("commit"), max(0.1, left))
        if self.pending_dialog is not None:  # the renderer is paused: the read would wait for the answer
            return None
        return await self._main_status(max(0.1, deadline - asyncio.get_running_loop().time()))

    async def stop_loading(self, timeout: float = STOP_TIMEOUT) -> bool:
        """Abandon the main frame's pending navigation and loads (Page.stopLoading); never raises.

        Why: a navigation nobody waits for any more keeps the renderer busy (script and snapshots wait
        behind it) and would commit whenever its server answers. A navigation that has not committed is
        cancelled without an error page; a committed document keeps what it loaded. False when the tab
        did not answer (closed, or no answer within `timeout`).
        """
        if self.closed or self.session.closed:
            return False
        try:
            await self.session.send("Page.stopLoading", timeout=timeout)
        except (CDPEngineError, TimeoutError):
            return False
        return True

    async def _main_status(self, timeout: float) -> int | None:
        with contextlib.suppress(CDPEngineError, TimeoutError):
            value = await self.evaluate(
                "(() => { const e = performance.getEntriesByType('navigation')[0];"
                " return e && e.responseStatus ? e.responseStatus : null })()",
                timeout=min(timeout, 2.0),
            )
            return value if isinstance(value, int) else None
        return None

    async def _history_step(
        self, delta: int, wait_until: WaitUntil, timeout: float | None, dialog_ends: bool
    ) -> Response | None:
        self.check_open()
        check_wait_until(wait_until)
        timeout = self._timeout(timeout)
        history = await self.session.send("Page.getNavigationHistory", timeout=timeout)
        index = history["currentIndex"] + delta
        entries = history["entries"]
        if not 0 <= index < len(entries):
            return None
        entry = entries[index]
        return await self.go_to_history_entry(entry["id"], entry["url"], wait_until, timeout, dialog_ends)

    async def go_to_history_entry(
        self, entry_id: int, url: str, wait_until: WaitUntil, timeout: float, dialog_ends: bool = True
    ) -> Response:
        """Go to one entry of the tab's history (Page.getNavigationHistory's id; `url` names it in errors)
        and wait for the lifecycle point (a same-document entry: its event)."""
        with LifecycleWatcher(self) as watcher:
            try:
                await self.session.send("Page.navigateToHistoryEntry", {"entryId": entry_id}, timeout=timeout)
                outcome = await watcher.wait(
                    wait_until, timeout, same_document=True, dialog_ends=dialog_ends, url=url
                )
            except TimeoutError:  # abandoned: it must not commit later (see stop_loading)
                await self.stop_loading()
                raise
        main = self.frames.get(self.main_frame_id)
        return Response(
            self.url, None, main.loader_id if main else None, same_document=outcome.same_document, dialog=outcome.dialog
        )

    async def back(
        self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True
    ) -> Response | None:
        """Go back one history entry; None when there is none."""
        return await self._history_step(-1, wait_until, timeout, dialog_ends)

    async def forward(
        self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True
    ) -> Response | None:
        """Go forward one history entry; None when there is none."""
        return await self._history_step(1, wait_until, timeout, dialog_ends)

    async def reload(
        self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True
    ) -> Response:
        """Reload the main document and wait for its new document to reach the lifecycle point."""
        self.check_open()
        check_wait_until(wait_until)
        timeout = self._timeout(timeout)
        with LifecycleWatcher(self) as watcher:
            try:
                await self.session.send("Page.reload", timeout=timeout)
                outcome = await watcher.wait(wait_until, timeout, dialog_ends=dialog_ends)
            except TimeoutError:  # abandoned: it must not commit later (see stop_loading)
                await self.stop_loading()
                raise
        main = self.frames.get(self.main_frame_id)
        loader = main.loader_id if main else None
        if outcome.dialog:
            return Response(self.url, None, loader, dialog=True)
        return Response(self.url, await self._main_status(2.0), loader)

    # ----- script, screenshots ----------------------------------------------------------------

    async def evaluate(
        self,
        expression: str,
        *,
        await_promise: bool = True,
        timeout: float | None = None,
        user_gesture: bool = True,
        session: CDPSession | None = None,
        context_id: int | None = None,
    ) -> Any:
        """Evaluate JavaScript in the page and return its value (promises awaited); JavaScriptError if it throws."""
        self.check_open()
        return await scripts.evaluate_value(
            session or self.session,
            expression,
            context_id=context_id,
            await_promise=await_promise,
            user_gesture=user_gesture,
            timeout=timeout,
        )

    async def add_init_script(self, source: str) -> str:
        """Run source at the start of every new document in every frame of this tab."""
        self.init_scripts.append(source)  # for out-of-process frames that attach later
        sessions = [self.session, *self.frame_sessions.values()]
        results = await asyncio.gather(
            *[s.send("Page.addScriptToEvaluateOnNewDocument", {"source": source}) for s in sessions]
        )
        identifier: str = results[0]["identifier"]
        return identifier

    def add_init_script_nowait(self, source: str) -> asyncio.Future[list[dict[str, Any]]]:
        """add_init_script without awaiting: the commands go out now, so a synchronous attach callback
        can add scripts before the tab's own setup lets the page run. The future holds the answers."""
        self.init_scripts.append(source)  # for out-of-process frames that attach later
        sessions = [self.session, *self.frame_sessions.values()]
        return asyncio.gather(
            *[s.send("Page.addScriptToEvaluateOnNewDocument", {"source": source}) for s in sessions]
        )

    async def screenshot_base64(
        self,
        *,
        format: Literal["png", "jpeg", "webp"] = "png",
        quality: int | None = None,
        clip: dict[str, float] | None = None,
        scale: float = 1.0,
        full_page: bool = False,
        max_width: int | None = None,
        max_height: int | None = None,
        optimize_for_speed: bool = True,
        timeout: float | None = None,
        marks: Sequence[Mark] | None = None,
        world: int | None = None,
        viewport: tuple[float, float, float, float] | None = None,
    ) -> str:
        """The viewport (or a clip of the page, or the whole page) at `scale`, within a maximum size, as
        base64; the viewport size stays what the browser set. See files.ScreenshotOptions. `marks`: boxes
        to outline and label on the image (core/marks.py), never on the page, with `world` (an isolated
        world's context id, core/worlds.py, where the labels are drawn; AgentTab passes the engine's own); `viewport`: where the marks'
        boxes were measured (files.capture_screenshot)."""
        options = files.ScreenshotOptions(
            format=format,
            quality=quality,
            clip=clip,
            scale=scale,
            max_width=max_width,
            max_height=max_height,
            full_page=full_page,
            optimize_for_speed=optimize_for_speed,
        )
        shot = await self.capture_screenshot(options, timeout=timeout, marks=marks, world=world, viewport=viewport)
        return shot.data

    async def capture_screenshot(
        self,
        options: files.ScreenshotOptions | None = None,
        *,
        timeout: float | None = None,
        marks: Sequence[Mark] | None = None,
        world: int | None = None,
        viewport: tuple[float, float, float, float] | None = None,
    ) -> files.Screenshot:
        """A screenshot as `options` say, with its size. Every surface's screenshot goes through here
        (files.capture_screenshot) or, for a capture that gathers it with other commands,
        files.start_screenshot. `marks` (boxes in viewport CSS px) are drawn on the image, their labels in
        `world`, an isolated world of the main frame (Worlds.of(tab).context(tab.main_frame_id)): the page
        sees nothing."""
        self.check_open()
        self.show_for_capture()
        return await files.capture_screenshot(
            self.session, options, timeout=timeout, marks=marks, world=world, viewport=viewport
        )

    def show_for_capture(self) -> None:
        """Before a capture: bring the tab to the front when another tab of its context may hide it. A hidden
        tab draws no frames, so Page.captureScreenshot waits for one that never comes (Chromium 156: every other
        capture of a background tab timed out). Sent without awaiting, ahead of the capture on the same session
        (answered in order); on a tab already in front it changes nothing the page can see (no focus or
        visibility event). A tab alone in its context is never hidden: nothing is sent."""
        if any(other is not self and not other.closed for other in self.context.tabs):
            self.session.send("Page.bringToFront").add_done_callback(_quiet)

    async def pdf_base64(
        self,
        *,
        paper_width: float = 8.27,
        paper_height: float = 11.69,
        landscape: bool = False,
        print_background: bool = False,
        timeout: float | None = None,
    ) -> str:
        """The page printed to PDF (inches; A4 by default) as base64; headless Chromium only."""
        self.check_open()
        return await files.print_pdf(
            self.session,
            paper_width=paper_width,
            paper_height=paper_height,
            landscape=landscape,
            print_background=print_background,
            timeout=timeout,
        )

    async def screenshot_region(self, *, full_page: bool = False, timeout: float | None = None) -> dict[str, float]:
        """The CSS rectangle a screenshot of the viewport (at its scroll offset) or the whole page covers."""
        self.check_open()
        return await files.page_region(self.session, full_page=full_page, timeout=timeout)

    async def screenshot(self, **kwargs: Any) -> bytes:
        """Like screenshot_base64, decoded to bytes."""
        return base64.b64decode(await self.screenshot_base64(**kwargs))

    async def viewport(self) -> dict[str, float]:
        """CSS viewport: width, height and scroll offsets."""
        metrics = await self.session.send("Page.getLayoutMetrics")
        vp = metrics["cssVisualViewport"]
        return {
            "width": vp["clientWidth"],
            "height": vp["clientHeight"],
            "scroll_x": vp["pageX"],
            "scroll_y": vp["pageY"],
        }

    # ----- lifecycle --------------------------------------------------------------------------

    async def activate(self) -> None:
        await self.browser.connection.root.send("Target.activateTarget", {"targetId": self.target_id})

    async def close(self, *, timeout: float = 10.0) -> None:
        """Close the tab (beforeunload is accepted by the default dialog policy)."""
        if self.closed:
            return
        detached = self.browser.tab_closed_future(self.target_id)
        with contextlib.suppress(CDPEngineError):
            await self.browser.connection.root.send("Target.closeTarget", {"targetId": self.target_id}, timeout=timeout)
        with contextlib.suppress(TimeoutError, CDPEngineError):
            async with asyncio.timeout(timeout):
                await detached

    @property
    def opener(self) -> Tab | None:
        return self.browser.tabs.get(self.opener_id) if self.opener_id else None

    @property
    def navigation_timeout(self) -> float:
        """The browser's default deadline for navigations (launch(navigation_timeout=...))."""
        return self.browser.navigation_timeout

    def __repr__(self) -> str:
        return f"<Tab {self.target_id[:8]} {self.url}>"


class BrowserContext:
    """An isolated profile inside one browser (cookies, storage, cache, permissions); id None is the default."""

    def __init__(self, browser: Browser, context_id: str | None) -> None:
        self.browser = browser
        self.id = context_id
        self.closed = False
        self.dialog_policy: DialogPolicy | None = None  # None: the browser's policy
        self.navigation_policy: NavigationPolicy | None = None  # None: the browser's (its origins)
        self.init_scripts: list[str] = []  # run in every document of this context's tabs, besides the browser's
        self.visited_origins: set[str] = set()  # http(s) origins its frames showed (storage_state reads them)

    @property
    def tabs(self) -> list[Tab]:
        if self.id is not None:
            return [t for t in self.browser.tabs.values() if t.context_id == self.id]
        # The default context: tabs Chromium reports in the profile's context (or in none).
        default = (None, self.browser.default_context_id, self.browser.profile_context_id)
        return [t for t in self.browser.tabs.values() if t.context_id in default]

    async def new_tab(self, url: str | None = None, **goto_kwargs: Any) -> Tab:
        return await self.browser.new_tab(url, context=self, **goto_kwargs)

    def _context_params(self) -> dict[str, Any]:
        return {"browserContextId": self.id} if self.id else {}

    async def cookies(self) -> list[dict[str, Any]]:
        """Every cookie of this context (the protocol's Network.Cookie objects)."""
        result = await self.browser.connection.root.send("Storage.getCookies", self._context_params())
        cookies: list[dict[str, Any]] = result.get("cookies", [])
        return cookies

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> None:
        """Set cookies (each {name, value} plus url or domain+path, optional expires/httpOnly/secure/sameSite)."""
        await self.browser.connection.root.send("Storage.setCookies", {"cookies": cookies, **self._context_params()})

    async def clear_cookies(self) -> None:
        """Delete every cookie of this context."""
        await self.browser.connection.root.send("Storage.clearCookies", self._context_params())

    async def grant_permissions(self, permissions: Iterable[str], origin: str | None = None) -> None:
        """Grant permissions (e.g. 'geolocation', 'clipboardReadWrite') to this context's pages: for
        every origin, or only `origin`. Chromium drops them when the context is disposed."""
        params: dict[str, Any] = {"permissions": list(permissions)}
        if self.id is not None:
            params["browserContextId"] = self.id
        if origin is not None:
            params["origin"] = origin
        await self.browser.connection.root.send("Browser.grantPermissions", params)

    async def set_navigation_policy(self, policy: NavigationPolicy | None) -> None:
        """Restrict the origins this context's tabs may reach (None: the browser's policy), for the tabs it
        has now and every later one, popups included; returns once every open tab is guarded."""
        self.navigation_policy = policy
        futures = []
        for tab in self.tabs:
            for session in [tab.session, *tab.frame_sessions.values()]:
                future = tab.guard(session)
                if future is not None:
                    futures.append(future)
        await asyncio.gather(*futures)

    async def storage_state(
        self, *, path: str | os.PathLike[str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """The context's logins, as Playwright's `context.storage_state(path=...)`: every cookie (httpOnly too),
        the localStorage of each origin its tabs showed, and the sessionStorage of its open tabs
        (core/storage.py has the format). Written to `path` when given, readable by this user only."""
        cookies = [storage.saved_cookie(c) for c in await self.cookies()]
        entries: dict[str, dict[str, Any]] = {}
        for tab in self.tabs:
            origin = storage.origin_of(tab.url)
            if origin is None or origin in entries or tab.closed:
                continue
            with contextlib.suppress(CDPEngineError):
                found = await tab.evaluate(storage.READ_SCRIPT, timeout=timeout, user_gesture=False)
                if isinstance(found, dict) and found.get("origin") == origin:
                    entries[origin] = found
        others = sorted(self.visited_origins - set(entries))
        for origin, found in (await self._on_origins(dict.fromkeys(others, storage.READ_SCRIPT), timeout)).items():
            if isinstance(found, dict):
                entries[origin] = {**found, "sessionStorage": []}  # a new tab has none of its own
        origins = []
        for origin in sorted(entries):
            found = entries[origin]
            entry = {"origin": origin, "localStorage": found.get("localStorage") or []}
            if found.get("sessionStorage"):
                entry["sessionStorage"] = found["sessionStorage"]
            if entry["localStorage"] or "sessionStorage" in entry:
                origins.append(entry)
        state: dict[str, Any] = {"cookies": cookies, "origins": origins}
        if path is not None:
            storage.save(state, path)
        return state

    async def set_storage_state(self, source: storage.Source, *, timeout: float | None = None) -> None:
        """Add a saved storage state (a file path or a dict) to this context: its cookies, the localStorage of
        each origin, and sessionStorage for the origin's next documents. The whole state is checked first: a
        malformed one is a StorageStateError and changes nothing."""
        state = storage.load(source)
        if state["cookies"]:
            try:
                await self.add_cookies(storage.cookie_params(state["cookies"]))
            except ProtocolError as exc:
                raise StorageStateError(f"storage_state: Chromium refused its cookies ({exc.message})") from None
        writes = {o["origin"]: storage.write_script(o) for o in state["origins"] if o["localStorage"]}
        done = await self._on_origins(writes, timeout)
        missing = sorted(set(writes) - {origin for origin, ok in done.items() if ok is True})
        if missing:
            raise StorageStateError(f"storage_state: could not write the localStorage of {', '.join(missing)}")
        script = storage.session_storage_script(state["origins"])
        if script is not None:
            self.init_scripts.append(script)
            await asyncio.gather(*[tab.add_init_script(script) for tab in self.tabs if not tab.closed])
        self.visited_origins.update(o["origin"] for o in state["origins"])

    async def _on_origins(self, scripts: dict[str, str], timeout: float | None) -> dict[str, Any]:
        """Run a script on a page of each origin, in one temporary tab whose documents are answered locally
        (nothing is fetched); origin -> its value (origins that could not be opened are left out)."""
        if not scripts:
            return {}
        results: dict[str, Any] = {}
        tab = await self.new_tab(timeout=timeout)
        try:
            route = network.route(tab.session, storage.blank_documents)
            await route.enabled
            for origin, script in scripts.items():
                try:
                    await tab.goto(origin + "/", timeout=timeout, wait_until="commit")
                    results[origin] = await tab.evaluate(script, timeout=timeout, user_gesture=False)
                except CDPEngineError as exc:
                    log.info("storage state: cannot open %s (%s)", origin, exc)
            route.stop()
        finally:
            await tab.close()
        return results

    async def close(self) -> None:
        """Dispose the context and every tab in it."""
        if self.closed or self.id is None:
            return
        self.closed = True
        self.browser.contexts.pop(self.id, None)
        with contextlib.suppress(CDPEngineError):
            await self.browser.connection.root.send("Target.disposeBrowserContext", {"browserContextId": self.id})

    async def __aenter__(self) -> BrowserContext:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class Browser:
    """One Chromium over one connection; create with launch() or connect()."""

    def __init__(
        self,
        connection: Connection,
        process: ChromiumProcess | None = None,
        *,
        dialog_policy: DialogPolicy = "dismiss",
        navigation_timeout: float = 30.0,
        downloads_dir: str | Path | None = None,
        viewport_size: tuple[int, int] = (1280, 720),
        tab_class: type[Tab] = Tab,
        navigation_policy: NavigationPolicy | None = None,
    ) -> None:
        self.connection = connection
        # The origins every tab may reach unless its context sets its own (the guard checks each document request).
        self.navigation_policy = navigation_policy
        self.tab_class = tab_class  # higher layers pass a subclass (cdp_engine.index.AgentTab adds state/act)
        self.viewport_size = viewport_size
        self.process = process
        self.dialog_policy: DialogPolicy = dialog_policy
        self.navigation_timeout = navigation_timeout
        self.tabs: dict[str, Tab] = {}
        self.contexts: dict[str, BrowserContext] = {}
        self.default_context = BrowserContext(self, None)
        self.default_context_id: str | None = None
        self.downloads: dict[str, Download] = {}
        self.init_scripts: list[str] = []
        self.version: dict[str, Any] = {}
        # The id of the default context (the regular profile); every other context is off the record.
        self.profile_context_id: str | None = None
        self._own_downloads_dir = downloads_dir is None
        self.downloads_dir = Path(downloads_dir or tempfile.mkdtemp(prefix="cdp-engine-downloads-"))
        self._pending_tabs: dict[str, asyncio.Future[Tab]] = {}
        self._closed_tabs: dict[str, asyncio.Future[None]] = {}
        self._tab_listeners: list[Callable[[Tab], None]] = []
        self._download_listeners: list[Callable[[Download], None]] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        # Tabs this client opened in the default context of a browser it attached to (connect()): close() closes
        # them, and nothing else of the user's.
        self.opened_tabs: set[str] = set()
        self._closing = False
        connection.on_session_attached.append(self._on_attached)
        connection.on_session_detached.append(self._on_detached)
        connection.on_close.append(self._on_connection_closed)
        root = connection.root
        root.on("Target.targetInfoChanged", self._on_target_info)
        root.on("Browser.downloadWillBegin", self._on_download_begin)
        root.on("Browser.downloadProgress", self._on_download_progress)
        activity.register_browser(self)  # a live view started beside this program finds it

    # ----- setup ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Discover targets and contexts and set up downloads; launch() and connect() call it once."""
        root = self.connection.root
        version, contexts, _discover, _downloads, _attach = await asyncio.gather(
            root.send("Browser.getVersion"),
            root.send("Target.getBrowserContexts"),
            root.send("Target.setDiscoverTargets", {"discover": True, "filter": [{"type": "page"}]}),
            self._set_download_behavior(None),
            root.send(
                "Target.setAutoAttach",
                {
                    "autoAttach": True,
                    "waitForDebuggerOnStart": True,
                    "flatten": True,
                    "filter": [{"type": "page"}],
                },
            ),
        )
        self.version = version
        self.profile_context_id = contexts.get("defaultBrowserContextId")
        # The initial about:blank tab was attached by setAutoAttach: wait until it is configured.
        await asyncio.gather(*[t.ready for t in list(self.tabs.values())], return_exceptions=True)

    def _set_download_behavior(self, context_id: str | None) -> asyncio.Future[dict[str, Any]]:
        params: dict[str, Any] = {
            "behavior": "allowAndName",
            "downloadPath": str(self.downloads_dir),
            "eventsEnabled": True,
        }
        if context_id:
            params["browserContextId"] = context_id
        return self.connection.root.send("Browser.setDownloadBehavior", params)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _on_attached(self, session: CDPSession, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        waiting = params.get("waitingForDebugger", False)
        kind = info.get("type")
        if kind == "page" and session.parent is self.connection.root:
            tab = self.tab_class(self, session, info)
            self.tabs[tab.target_id] = tab
            self._spawn(self._setup_tab(tab, waiting))
        elif kind == "iframe":
            owner = self._tab_for_session(session.parent)
            if owner is not None:
                self._spawn(owner.attach_frame_session(session, waiting))
            elif waiting:
                session.send("Runtime.runIfWaitingForDebugger").add_done_callback(_quiet)
        else:
            # Workers and anything else: let them run, and stop listening.
            if waiting:
                session.send("Runtime.runIfWaitingForDebugger").add_done_callback(_quiet)
            parent = session.parent or self.connection.root
            parent.send("Target.detachFromTarget", {"sessionId": session.id}).add_done_callback(_quiet)

    def _tab_for_session(self, session: CDPSession | None) -> Tab | None:
        while session is not None:
            for tab in self.tabs.values():
                if tab.session is session or session in tab.frame_sessions.values():
                    return tab
            session = session.parent
        return None

    async def _setup_tab(self, tab: Tab, waiting: bool) -> None:
        try:
            await tab.configure(waiting)
        except BaseException as exc:
            if not tab.ready.done():
                tab.ready.set_exception(exc if isinstance(exc, Exception) else CDPEngineError(str(exc)))
                tab.ready.exception()
            return
        if not tab.ready.done():
            tab.ready.set_result(tab)
        pending = self._pending_tabs.pop(tab.target_id, None)
        if pending is not None and not pending.done():
            pending.set_result(tab)
        for listener in list(self._tab_listeners):
            try:
                listener(tab)
            except Exception:
                log.exception("tab listener failed")
        opener = tab.opener
        if opener is not None:
            opener.emit("popup", tab)

    def _on_detached(self, session: CDPSession) -> None:
        tab = self.tabs.get(session.target_id)
        if tab is not None and tab.session is session:
            del self.tabs[session.target_id]
            tab.mark_closed(session.closed_reason or TargetClosedError("tab closed"))
            closed = self._closed_tabs.pop(tab.target_id, None)
            if closed is not None and not closed.done():
                closed.set_result(None)
            return
        owner = self._tab_for_session(session.parent)
        if owner is not None:
            owner.frame_session_detached(session)

    def _on_connection_closed(self, reason: BaseException) -> None:
        for tab in list(self.tabs.values()):
            tab.mark_closed(reason)
        futures: list[asyncio.Future[Any]] = [*self._pending_tabs.values(), *self._closed_tabs.values()]
        for future in futures:
            if not future.done():
                future.set_exception(reason)
                future.exception()

    def _on_target_info(self, params: dict[str, Any]) -> None:
        info = params["targetInfo"]
        tab = self.tabs.get(info["targetId"])
        if tab is not None:
            tab.url = info.get("url", tab.url)
            tab.title = info.get("title", tab.title)
            if info.get("openerId") and not tab.opener_id:
                tab.opener_id = info["openerId"]

    def tab_closed_future(self, target_id: str) -> asyncio.Future[None]:
        """Resolves when the tab's target is destroyed (Tab.close waits on it)."""
        future = self._closed_tabs.get(target_id)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            if target_id not in self.tabs:
                future.set_result(None)
            else:
                self._closed_tabs[target_id] = future
        return future

    # ----- downloads --------------------------------------------------------------------------

    def _tab_for_frame(self, frame_id: str | None) -> Tab | None:
        if frame_id is None:
            return None
        for tab in self.tabs.values():
            if frame_id in tab.frames or frame_id == tab.target_id:
                return tab
        return None

    def _on_download_begin(self, params: dict[str, Any]) -> None:
        tab = self._tab_for_frame(params.get("frameId"))
        download = Download(
            id=params["guid"],
            url=params.get("url", ""),
            suggested_filename=params.get("suggestedFilename", "") or "download",
            frame_id=params.get("frameId"),
            tab_id=tab.target_id if tab else None,
        )
        self.downloads[download.id] = download
        self._emit_download(download)
        if tab is not None:
            tab.emit("download", download)

    def _on_download_progress(self, params: dict[str, Any]) -> None:
        download = self.downloads.get(params["guid"])
        if download is None:
            return
        download.received_bytes = int(params.get("receivedBytes", 0))
        download.total_bytes = int(params.get("totalBytes", 0))
        state = params.get("state", "inProgress")
        if state == download.state:
            return
        download.state = state
        if state == "completed":
            source = self.downloads_dir / download.id
            target = _unique_path(self.downloads_dir, download.suggested_filename)
            try:
                source.rename(target)
                download.path = str(target)
                download.size = target.stat().st_size
            except OSError:
                download.path = str(source) if source.exists() else None
                download.size = source.stat().st_size if source.exists() else None
        self._emit_download(download)
        tab = self.tabs.get(download.tab_id or "")
        if tab is not None:
            tab.emit("download", download)

    def on_download(self, listener: Callable[[Download], None]) -> Callable[[], None]:
        """listener(download) when any download begins and when its state changes (completed or canceled:
        its file is already in place); returns a function that unsubscribes. download.tab_id names its tab."""
        self._download_listeners.append(listener)
        return lambda: self._download_listeners.remove(listener) if listener in self._download_listeners else None

    def _emit_download(self, download: Download) -> None:
        for listener in list(self._download_listeners):
            try:
                listener(download)
            except Exception:
                log.exception("download listener failed")

    async def wait_for_download(self, download_id: str, timeout: float = 30.0) -> Download:
        """Wait until a download completes or is cancelled."""
        download = self.downloads[download_id]
        done = asyncio.get_running_loop().create_future()

        def check(params: dict[str, Any]) -> None:
            if params["guid"] == download_id and params.get("state") in ("completed", "canceled") and not done.done():
                # Let the progress listener (registered first) rename the file before we answer.
                done.set_result(None)

        unsubscribe = self.connection.root.on("Browser.downloadProgress", check)
        try:
            if download.state not in ("completed", "canceled"):
                async with asyncio.timeout(timeout):
                    await done
        finally:
            unsubscribe()
        return download

    # ----- tabs and contexts ------------------------------------------------------------------

    def on_tab(self, listener: Callable[[Tab], None]) -> Callable[[], None]:
        """listener(tab) whenever a new tab (including a popup) is ready."""
        self._tab_listeners.append(listener)
        return lambda: self._tab_listeners.remove(listener) if listener in self._tab_listeners else None

    async def new_context(
        self,
        *,
        proxy_server: str | None = None,
        proxy_bypass_list: str | None = None,
        dialog_policy: DialogPolicy | None = None,
        navigation_policy: NavigationPolicy | None = None,
        storage_state: storage.Source | None = None,
    ) -> BrowserContext:
        """A fresh isolated context (its own cookies, storage and cache), created in milliseconds.

        `proxy_server` routes the context's traffic through a proxy; `dialog_policy` and
        `navigation_policy` (the origins its tabs may reach) override the browser's for tabs of this
        context (set before any of them exists, so none is missed). `storage_state`: logins saved by
        `context.storage_state(path=...)` (a path or the dict), loaded before this returns; a malformed
        one is a StorageStateError before any context is made.
        """
        state = storage.load(storage_state) if storage_state is not None else None
        root = self.connection.root
        params: dict[str, Any] = {"disposeOnDetach": True}
        if proxy_server:
            params["proxyServer"] = proxy_server
            if proxy_bypass_list:
                params["proxyBypassList"] = proxy_bypass_list
        result = await root.send("Target.createBrowserContext", params)
        context_id: str = result["browserContextId"]
        context = BrowserContext(self, context_id)
        context.dialog_policy = dialog_policy
        context.navigation_policy = navigation_policy
        self.contexts[context_id] = context
        try:
            await self._set_download_behavior(context.id)
            if state is not None:
                await context.set_storage_state(state)
        except BaseException:
            await context.close()
            raise
        return context

    async def new_tab(
        self,
        url: str | None = None,
        *,
        context: BrowserContext | None = None,
        timeout: float | None = None,
        **goto_kwargs: Any,
    ) -> Tab:
        """Open a tab (in `context`, or the default one) and, when url is given, navigate it."""
        timeout = self.navigation_timeout if timeout is None else timeout
        params: dict[str, Any] = {"url": "about:blank"}
        if context is not None and context.id is not None:
            params["browserContextId"] = context.id
        result = await self.connection.root.send("Target.createTarget", params, timeout=timeout)
        target_id = result["targetId"]
        if self.process is None and "browserContextId" not in params:
            self.opened_tabs.add(target_id)  # the user's context: closed again when this client detaches
        tab = self.tabs.get(target_id)
        if tab is None or not tab.ready.done():
            future = self._pending_tabs.setdefault(target_id, asyncio.get_running_loop().create_future())
            if tab is not None:
                future = tab.ready
            async with asyncio.timeout(timeout):
                tab = await future
        else:
            tab = tab.ready.result()
        if url is not None:
            await tab.goto(url, timeout=timeout, **goto_kwargs)
        return tab

    async def targets(self, *, timeout: float = 2.0) -> list[dict[str, Any]]:
        """Every target's TargetInfo (title, url, type...) in one browser-level round trip (works under an open dialog)."""
        result = await self.connection.root.send("Target.getTargets", timeout=timeout)
        infos: list[dict[str, Any]] = result.get("targetInfos", [])
        return infos

    async def add_init_script(self, source: str) -> None:
        """Run source at the start of every new document in every frame of every tab, now and later."""
        self.init_scripts.append(source)
        await asyncio.gather(*[tab.add_init_script(source) for tab in self.tabs.values()])

    # ----- closing ----------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self.connection.closed

    async def close(self) -> None:
        """Close Chromium (Browser.close, then terminate and kill after deadlines) and delete its folders.

        For a browser reached with connect() it detaches instead: the contexts this client created are disposed
        and the tabs it opened in the default context closed; the browser and the user's own tabs stay as they were.
        """
        if self._closing:
            return
        self._closing = True
        root = self.connection.root
        if self.process is not None:
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await root.send("Browser.close", timeout=2.0)
            await self.connection.close()
            await self.process.stop()
        else:
            mine = [tab for target_id, tab in list(self.tabs.items()) if target_id in self.opened_tabs]
            await asyncio.gather(
                *[c.close() for c in list(self.contexts.values())],
                *[tab.close(timeout=STOP_TIMEOUT) for tab in mine],
                return_exceptions=True,
            )
            await self.connection.close()
        for task in list(self._tasks):
            task.cancel()
        if self._own_downloads_dir:
            await remove_profile(self.downloads_dir)

    async def __aenter__(self) -> Browser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _unique_path(folder: Path, name: str) -> Path:
    name = Path(name).name or "download"
    stem, suffix = Path(name).stem, Path(name).suffix
    candidate = folder / name
    for n in itertools.count(1):
        if not candidate.exists():
            return candidate
        candidate = folder / f"{stem} ({n}){suffix}"
    raise AssertionError("unreachable")


class Starter:
    """Awaitable and async context manager, so both `await launch()` and `async with launch()` work."""

    def __init__(self, factory: Callable[[], Coroutine[Any, Any, Browser]]) -> None:
        self._factory = factory
        self._browser: Browser | None = None

    def __await__(self) -> Generator[Any, None, Browser]:
        return self._factory().__await__()

    async def __aenter__(self) -> Browser:
        self._browser = await self._factory()
        return self._browser

    async def __aexit__(self, *exc: object) -> None:
        if self._browser is not None:
            await self._browser.close()


def launch(
    executable: str | None = None,
    *,
    headless: bool = True,
    transport: TransportName = DEFAULT_TRANSPORT,
    window_size: tuple[int, int] = (1280, 720),
    args: list[str] | tuple[str, ...] = (),
    timeout: float = 30.0,
    command_timeout: float = 30.0,
    navigation_timeout: float = 30.0,
    dialog_policy: DialogPolicy = "dismiss",
    downloads_dir: str | Path | None = None,
    tab_class: type[Tab] = Tab,
    navigation_policy: NavigationPolicy | None = None,
    user_data_dir: str | os.PathLike[str] | None = None,
) -> Starter:
    """Launch Chromium headless with a fresh profile: `async with launch() as browser:` (or `await launch()`).

    `navigation_policy`: the origins every tab may reach (redirects and popups included).
    `transport`: "pipe" (the default: cheaper per message, no port) or "websocket" (also serves
    `browser.process.ws_url` to other clients); see cdp.launcher.DEFAULT_TRANSPORT.
    `user_data_dir`: a persistent profile folder instead of a fresh one; its default context
    (`browser.default_context`, `browser.new_tab()`) keeps cookies and storage across launches."""

    async def start() -> Browser:
        process = await launch_process(
            executable,
            headless=headless,
            transport=transport,
            window_size=window_size,
            extra_args=args,
            timeout=timeout,
            user_data_dir=user_data_dir,
        )
        try:
            connection = Connection(process.transport, command_timeout)
            browser = Browser(
                connection,
                process,
                dialog_policy=dialog_policy,
                navigation_timeout=navigation_timeout,
                downloads_dir=downloads_dir,
                viewport_size=window_size,
                tab_class=tab_class,
                navigation_policy=navigation_policy,
            )
            await browser.start()
        except BaseException:
            with contextlib.suppress(Exception):
                await process.transport.close()
            await process.stop(grace=0)
            raise
        return browser

    return Starter(start)


def connect(
    endpoint: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    profile_dirs: Iterable[str | os.PathLike[str]] | None = None,
    timeout: float = 10.0,
    command_timeout: float = 30.0,
    navigation_timeout: float = 30.0,
    dialog_policy: DialogPolicy = "dismiss",
    downloads_dir: str | Path | None = None,
    window_size: tuple[int, int] = (1280, 720),
    tab_class: type[Tab] = Tab,
    navigation_policy: NavigationPolicy | None = None,
) -> Starter:
    """Attach to a running Chromium: a ws:// URL, http://host:port (resolved through /json/version), or
    None / "auto" for the DevToolsActivePort of a local Chrome started with --remote-debugging-port (the
    usual profile folders, or `profile_dirs`, or $CDP_ENGINE_AUTO_CONNECT_DIRS; cdp/discovery.py).

    `headers` go with the /json/version request and the websocket handshake (a hosted browser's key).
    Closing detaches: the browser, and every tab this client did not open, stay as they were. Nothing
    reachable there is an AttachError saying what was tried."""
    folders = None if profile_dirs is None else [Path(p) for p in profile_dirs]

    async def start() -> Browser:
        urls = await candidate_urls(endpoint, timeout, headers, folders)
        refused: list[str] = []
        for ws_url in urls:
            try:
                transport = await WebSocketTransport.connect(ws_url, timeout=timeout, headers=headers)
                break
            except Exception as exc:
                refused.append(refusal(ws_url, exc))
        else:
            raise AttachError(f"cannot attach to {endpoint or 'a local browser'}: " + "; ".join(refused))
        connection = Connection(transport, command_timeout)
        browser = Browser(
            connection,
            None,
            dialog_policy=dialog_policy,
            navigation_timeout=navigation_timeout,
            downloads_dir=downloads_dir,
            viewport_size=window_size,
            tab_class=tab_class,
            navigation_policy=navigation_policy,
        )
        try:
            await browser.start()
        except BaseException:
            await browser.close()
            raise
        return browser

    return Starter(start)
