"""One page target: navigation, evaluation, screenshots, dialogs and frames, kept current from events.

Why its own module: a Tab is what every layer above holds (the element index, the surfaces, the harness); the
Browser (core/browser.py) creates tabs and routes target events to them. A tab reads what it needs of its
browser and context through TabBrowser and TabContext (below), so this module imports nothing of browser.py.

Size: a Tab keeps its frames, dialogs, init scripts and navigation state current from events (reading them costs
no round trip) and offers goto/back/forward/reload, evaluate and screenshots as thin calls into lifecycle.py,
scripts.py and files.py; those event handlers and calls share the tab's state.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeVar
from urllib.parse import urlsplit

from ..cdp.connection import CDPSession, Connection
from ..cdp.launcher import ChromiumProcess
from ..errors import CDPEngineError, NavigationError, NavigationTimeoutError, ProtocolError, TargetClosedError
from . import files, navigation, network, scripts, storage
from .event_records import Dialog, Frame, Response
from .lifecycle import SAME_DOCUMENT_TYPES, LifecycleWatcher, WaitUntil, check_wait_until
from .marks import Mark
from .policies import NavigationPolicy, PolicyError

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

    def __init__(self, browser: TabBrowser, session: CDPSession, target_info: dict[str, Any]) -> None:
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
        # Bumped before each engine input or agent script that may scroll an element: that scroll's event comes
        # with the next frame, so the change probe may not have counted it yet, and a view captured before it
        # is not served again (snapshot/ax_capturer.py). Typing into a focused text field does not bump it.
        self.scroll_epoch = 0
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
        self.scroll_epoch += 1  # the page's script runs on with the answer
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
    def context(self) -> TabContext:
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
        deadline: float | None = None,
        referrer: str | None = None,
        dialog_ends: bool = True,
    ) -> Response:
        """Navigate the main frame and wait for the lifecycle point; raises NavigationError on failure, and a
        failed navigation leaves the tab on its page (core/navigation.py: the network's failure commits
        nothing, anything else is put back; the error says where the tab is).

        A dialog held (policy 'hold') during the wait ends it at once (`dialog_ends`; Response.dialog).
        `timeout`: the navigation's (the tab's navigation timeout by default); at it the navigation is
        abandoned, so it can never commit later. `deadline` (event-loop time) bounds the whole call, the
        putting back included; by default the navigation's timeout from now."""
        return await navigation.goto(
            self, url, wait_until=wait_until, timeout=timeout, deadline=deadline, referrer=referrer,
            dialog_ends=dialog_ends,
        )  # fmt: skip

    async def _navigate(
        self,
        url: str,
        *,
        wait_until: WaitUntil = "load",
        timeout: float | None = None,
        referrer: str | None = None,
        dialog_ends: bool = True,
    ) -> Response:
        """The raw step under goto (core/navigation.py runs it under the rule): navigate the main frame and wait
        for the lifecycle point; NavigationError on failure, the tab then wherever Chromium left it.

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
                raise NavigationError(url, navigation.explained(self, error_text, blocked_before))
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
        self, *, wait_until: WaitUntil = "load", timeout: float | None = None, deadline: float | None = None,
        dialog_ends: bool = True,
    ) -> Response | None:
        """Go back one history entry; None when there is none. A failure leaves the tab on its page (see goto)."""
        return await navigation.step(
            self, "back", wait_until=wait_until, timeout=timeout, deadline=deadline, dialog_ends=dialog_ends
        )

    async def forward(
        self, *, wait_until: WaitUntil = "load", timeout: float | None = None, deadline: float | None = None,
        dialog_ends: bool = True,
    ) -> Response | None:
        """Go forward one history entry; None when there is none. A failure leaves the tab on its page (see goto)."""
        return await navigation.step(
            self, "forward", wait_until=wait_until, timeout=timeout, deadline=deadline, dialog_ends=dialog_ends
        )

    async def reload(
        self, *, wait_until: WaitUntil = "load", timeout: float | None = None, deadline: float | None = None,
        dialog_ends: bool = True,
    ) -> Response | None:
        """Reload the main document and wait for its new document to reach the lifecycle point. A reload the
        network fails keeps the document it would have replaced (see goto)."""
        return await navigation.step(
            self, "reload", wait_until=wait_until, timeout=timeout, deadline=deadline, dialog_ends=dialog_ends
        )

    async def _back(self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True) -> Response | None:
        """The raw step under back (core/navigation.py)."""
        return await self._history_step(-1, wait_until, timeout, dialog_ends)

    async def _forward(self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True) -> Response | None:
        """The raw step under forward (core/navigation.py)."""
        return await self._history_step(1, wait_until, timeout, dialog_ends)

    async def _reload(self, *, wait_until: WaitUntil = "load", timeout: float | None = None, dialog_ends: bool = True) -> Response:
        """The raw step under reload (core/navigation.py)."""
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


class TabContext(Protocol):
    """What a tab reads of its browser context (core/browser.py: BrowserContext)."""

    dialog_policy: DialogPolicy | None
    navigation_policy: NavigationPolicy | None
    init_scripts: list[str]
    visited_origins: set[str]

    @property
    def tabs(self) -> Sequence[Tab]: ...


class TabBrowser(Protocol):
    """What a tab reads of its browser (core/browser.py: Browser)."""

    dialog_policy: DialogPolicy
    navigation_policy: NavigationPolicy | None
    init_scripts: list[str]
    viewport_size: tuple[int, int]
    process: ChromiumProcess | None
    profile_context_id: str | None
    navigation_timeout: float
    connection: Connection

    @property
    def contexts(self) -> Mapping[str, TabContext]: ...

    @property
    def default_context(self) -> TabContext: ...

    @property
    def tabs(self) -> Mapping[str, Tab]: ...

    def tab_closed_future(self, target_id: str) -> asyncio.Future[Any]: ...


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
