"""Named, isolated browser instances: their pages, frames, modal states and event streams.

Isolation: by default every instance is its own browser context in one shared Chromium
(separate cookies, storage, cache and downloads attribution; created in milliseconds). An
instance that needs a process of its own — a persistent `profile_dir`, a different `headless`
mode, or a server started with `isolation="process"` — gets a dedicated Chromium. Either way
the instance is not an OS security boundary.

Crash: an instance whose browser connection is gone, or whose pages have all crashed, is
`crashed`; the next call that resolves it gets `instance_crashed` and the instance is evicted
in the background. Nothing waits on a dead browser: its pending commands fail at once.

Size: the MCP reference's instance model in one module: instance lifecycle, pages, frames, modal state,
per-instance event records and the manager that starts and evicts instances, as the reference defines an
instance; the server's configuration is mcp_server/server_config.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..cdp.connection import CDPSession
from ..core import emulation, files, network, observers
from ..core.browser import Browser, BrowserContext
from ..core.policies import FilePolicy, Policies
from ..core.records import Dialog, Download
from ..core.refs import RefRegistry
from ..core.settle import observe
from ..core.tab import Tab
from ..core.worlds import Worlds
from ..errors import BrowserNotFoundError, CDPEngineError
from ..index.agent_tab import connect, launch
from ..snapshot.ax_tree import AXNode
from .envelope import ToolError
from .events import EventStream, truncate_fields
from .server_config import ATTACHED_NO_PROCESS, CAMOUFOX_OPTIONS, SESSIONLESS, Config

if TYPE_CHECKING:
    pass

log = logging.getLogger("cdp_engine.mcp")

def _iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Modal:
    """A pending dialog or file chooser that blocks the instance until it is handled."""

    kind: Literal["dialog", "file_chooser"]
    page: Page
    dialog: Dialog | None = None
    chooser: files.FileChooser | None = None
    session: CDPSession | None = None
    backend_node_id: int | None = None
    mode: str = "selectSingle"
    resolved: bool = False

    @property
    def pending(self) -> bool:
        if self.resolved or not self.page.live:
            return False
        return not (self.dialog is not None and self.dialog.handled)

    def describe(self) -> dict[str, Any]:
        if self.dialog is not None:
            return {
                "type": "dialog",
                "dialog_type": self.dialog.type,
                "message": self.dialog.message,
                "page_id": self.page.page_id,
            }
        return {
            "type": "file_chooser",
            "multiple": self.mode == "selectMultiple",
            "page_id": self.page.page_id,
        }

    def blocking_message(self) -> str:
        if self.dialog is not None:
            return (
                f"A '{self.dialog.type}' dialog is currently open with message '{self.dialog.message}'. "
                "Call browser_handle_dialog to dismiss it before issuing other tools."
            )
        return (
            "A file-chooser dialog is pending. Call browser_file_upload with the desired paths before "
            "issuing other tools."
        )


class Page:
    """One tab of an instance: a stable page_id, its refs and its frames' stable ids."""

    def __init__(self, instance: Instance, tab: Tab) -> None:
        self.instance = instance
        self.tab = tab
        self.page_id = str(uuid.uuid4())
        self.refs = RefRegistry(tab, prefix="e")
        observe(tab)  # the settle after its input knows what each document did before it (core/settle.py)
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._frame_ids: dict[str, str] = {}
        self._cdp_frames: dict[str, str] = {}
        self._sessions: set[str] = set()
        # The tree of the latest browser_snapshot (boxes and marks of its refs: snapshot/boxes.py).
        self.last_tree: AXNode | None = None

    def has_session(self, session: CDPSession) -> bool:
        """Whether this page's listeners are already on the session."""
        return (session.id or "") in self._sessions

    def claim_session(self, session: CDPSession) -> bool:
        """Mark a live session as set up for this page; False if it already was (or it is closed)."""
        if self.has_session(session) or session.closed:
            return False
        self._sessions.add(session.id or "")
        return True

    def main_world(self, cdp_frame: str) -> tuple[CDPSession, int] | None:
        """The page's own script context in a frame (browser_evaluate runs there), from core.worlds."""
        return Worlds.of(self.tab).main_context(cdp_frame)

    @property
    def live(self) -> bool:
        return not self.tab.closed and not self.tab.crashed

    def frame_id(self, cdp_frame_id: str) -> str:
        """The stable opaque id of a frame (minted on first sight, kept while the frame stays attached)."""
        fid = self._frame_ids.get(cdp_frame_id)
        if fid is None:
            fid = str(uuid.uuid4())
            self._frame_ids[cdp_frame_id] = fid
            self._cdp_frames[fid] = cdp_frame_id
        return fid

    def cdp_frame(self, frame_id: str) -> str | None:
        """The CDP frame id behind an opaque id, if that frame is still attached to this page."""
        cdp = self._cdp_frames.get(frame_id)
        if cdp is None or cdp not in self.tab.frames:
            return None
        return cdp

    @property
    def main_frame_id(self) -> str:
        return self.frame_id(self.tab.main_frame_id)


@dataclass
class InstanceOptions:
    headless: bool | str | None = None
    proxy: dict[str, Any] | None = None
    window: tuple[int, int] | None = None
    block_images: bool = False
    locale: str | None = None
    profile_dir: str | None = None


class Instance:
    """A named session: one browser context (or process), its pages, modal states and event streams."""

    def __init__(
        self,
        manager: InstanceManager,
        name: str,
        browser: Browser,
        context: BrowserContext,
        *,
        owns_browser: bool,
        options: InstanceOptions,
    ) -> None:
        self.manager = manager
        self.name = name
        self.instance_id = str(uuid.uuid4())
        self.browser = browser
        self.context = context
        self.owns_browser = owns_browser
        self.options = options
        self.owner: str | None = None  # the MCP session it belongs to under per-session ownership
        self.created_at = _iso_now()
        self.last_used = time.monotonic()
        self.pages: list[Page] = []
        self.by_target: dict[str, Page] = {}
        self.by_id: dict[str, Page] = {}
        self.known_page_ids: set[str] = set()
        self.selected: Page | None = None
        # The tab Chromium shows in front. Input to a hidden tab is never acknowledged, so actions bring their
        # page to the front first; this is Chromium's state, not the instance's selection.
        self.front: Page | None = None
        self.modals: list[Modal] = []
        self.lock = asyncio.Lock()
        self.recovery_lock = asyncio.Lock()
        self.busy = 0
        self.background: set[asyncio.Task[Any]] = set()
        self.crashed_flag = False
        self.suppress_blank = 0  # >0 while a temporary tab of our own is opening: not a page of the instance
        self.closing = False
        self.opened: set[str] = set()  # tabs this instance opened (in the default context: closed on destroy)
        size = manager.config.event_buffer_size
        self.console = EventStream("console", self.instance_id, size)
        self.network = EventStream("network", self.instance_id, size)
        self.downloads = EventStream("downloads", self.instance_id, size)
        self.download_objects: dict[str, Download] = {}
        self._modal_waiters: set[asyncio.Future[None]] = set()
        self._console_n = 0
        self._page_listeners: list[Callable[[Page], None]] = []

    # ----- status -------------------------------------------------------------------------------

    @property
    def crashed(self) -> bool:
        if not self.crashed_flag and (
            self.browser.closed or (self.pages and all(p.tab.crashed for p in self.pages))
        ):
            self.crashed_flag = True
        return self.crashed_flag

    @property
    def mode(self) -> str:
        return "persistent" if self.options.profile_dir else "ephemeral"

    def summary(self) -> dict[str, Any]:
        selected = self.selected
        return {
            "name": self.name,
            "instance_id": self.instance_id,
            "status": "crashed" if self.crashed else "live",
            "mode": self.mode,
            "isolation": "process" if self.owns_browser else "context",
            "profile_dir": self.options.profile_dir,
            "page_count": len([p for p in self.pages if p.live]),
            "active_url": selected.tab.url if selected is not None and selected.live else None,
            "idle_seconds": round(time.monotonic() - self.last_used, 3),
            "created_at": self.created_at,
        }

    # ----- pages --------------------------------------------------------------------------------

    @property
    def shares_default_context(self) -> bool:
        """Whether the instance works in a shared browser's default context (the user's tabs and logins)."""
        return not self.owns_browser and self.context is self.browser.default_context

    def owns_tab(self, tab: Tab) -> bool:
        if tab.browser is not self.browser:
            return False
        if self.shares_default_context:
            return tab in self.context.tabs
        return self.owns_browser or (tab.context_id is not None and tab.context_id == self.context.id)

    def on_page(self, listener: Callable[[Page], None]) -> Callable[[], None]:
        """listener(page) for every page adopted from now on (observations use it for popups)."""
        self._page_listeners.append(listener)
        return lambda: self._page_listeners.remove(listener) if listener in self._page_listeners else None

    def adopt(self, tab: Tab) -> Page:
        """Track a tab of this instance: hold its dialogs, intercept its file choosers, record its events."""
        page = self.by_target.get(tab.target_id)
        if page is not None:
            return page
        tab.dialog_policy = "hold"
        page = Page(self, tab)
        self.pages.append(page)
        self.by_target[tab.target_id] = page
        self.by_id[page.page_id] = page
        self.known_page_ids.add(page.page_id)
        self.front = page  # new tabs and popups open in front
        tab.add_listener(lambda kind, payload: self._on_tab_event(page, kind, payload))
        if tab.pending_dialog is not None:
            self._add_modal(Modal("dialog", page, dialog=tab.pending_dialog))
        task = asyncio.get_running_loop().create_task(self._setup_page(page))
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        for listener in list(self._page_listeners):
            listener(page)
        return page

    async def _setup_page(self, page: Page) -> None:
        try:
            await self._setup_session(page, page.tab.session, main=True)
            for session in list(page.tab.frame_sessions.values()):
                await self._setup_session(page, session, main=False)
        except CDPEngineError as exc:
            log.debug("page setup failed: %s", exc)
        finally:
            if not page.ready.done():
                page.ready.set_result(None)

    async def _setup_session(self, page: Page, session: CDPSession, *, main: bool) -> None:
        if not page.claim_session(session):
            return
        Worlds.of(page.tab).watch(session)  # before Runtime.enable: its context events are followed
        intercepting, _ = files.intercept_file_choosers(session, lambda c: self._on_file_chooser(page, c))
        console = observers.watch_console(
            session,
            on_console=lambda p: self._on_console(page, p),
            on_exception=lambda p: self._on_exception(page, p),
        )
        requests = observers.watch_network(
            session,
            on_request=lambda p: self._on_request(page, p),
            on_response=lambda p: self._on_response(page, p),
            on_failed=lambda p: self._on_failed(page, p),
        )
        commands: list[asyncio.Future[Any]] = [intercepting, console.enabled, requests.enabled]
        opts = self.options
        if main and opts.window is not None:
            w, h = opts.window
            commands.append(emulation.set_viewport(session, w, h))
        if opts.locale:
            commands.append(emulation.set_locale(session, opts.locale))
        if opts.block_images:
            commands.append(network.block_resource_types(session, ["Image"]).enabled)
        results = await asyncio.gather(*commands, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, CDPEngineError):
                raise result

    def _on_tab_event(self, page: Page, kind: str, payload: Any) -> None:
        if kind == "dialog" and isinstance(payload, Dialog) and not payload.handled:
            self._add_modal(Modal("dialog", page, dialog=payload))
        elif kind == "download" and isinstance(payload, Download):
            self._on_download(page, payload)
        elif kind == "frame":
            session = page.tab.frame_sessions.get(payload)
            if session is not None and not page.has_session(session):
                task = asyncio.get_running_loop().create_task(self._setup_session_quietly(page, session))
                self.background.add(task)
                task.add_done_callback(self.background.discard)
        elif kind == "closed":
            self.page_closed(page)
        elif kind == "crashed":
            self._notify_modal()

    async def _setup_session_quietly(self, page: Page, session: CDPSession) -> None:
        with contextlib.suppress(CDPEngineError):
            await self._setup_session(page, session, main=False)

    def page_closed(self, page: Page) -> None:
        """Forget a closed page (idempotent): drop it from the list, its modals, and pick the next selection."""
        if page not in self.pages:
            return
        index = self.pages.index(page)
        self.pages.remove(page)
        self.by_target.pop(page.tab.target_id, None)
        self.by_id.pop(page.page_id, None)
        if self.selected is page:
            self.selected = self.pages[min(index, len(self.pages) - 1)] if self.pages else None
        if self.front is page:
            self.front = None
        self._notify_modal()

    def select(self, page: Page) -> None:
        self.selected = page

    async def bring_to_front(self, page: Page) -> None:
        if self.front is not page:
            with contextlib.suppress(CDPEngineError):
                await page.tab.activate()
            self.front = page

    async def new_page(self, *, select: bool = True) -> Page:
        """Open a blank tab in this instance (its page is adopted before this returns)."""
        if self.owns_browser and self.context.id is None:
            tab = await self.browser.new_tab()
        else:
            tab = await self.context.new_tab()
        self.opened.add(tab.target_id)
        page = self.adopt(tab)
        await page.ready
        if select:
            self.selected = page
        return page

    # ----- modal state --------------------------------------------------------------------------

    def pending_modals(self) -> list[Modal]:
        self.modals = [m for m in self.modals if m.pending]
        return list(self.modals)

    def _add_modal(self, modal: Modal) -> None:
        self.modals.append(modal)
        self._notify_modal()

    def _notify_modal(self) -> None:
        waiters, self._modal_waiters = self._modal_waiters, set()
        for future in waiters:
            if not future.done():
                future.set_result(None)

    def modal_changed(self) -> asyncio.Future[None]:
        """A future set on the next modal change (opened, handled, page closed); drop it with forget_waiter."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._modal_waiters.add(future)
        return future

    def forget_waiter(self, future: asyncio.Future[None]) -> None:
        self._modal_waiters.discard(future)

    def resolved_modal(self, modal: Modal) -> None:
        modal.resolved = True
        self._notify_modal()

    def _on_file_chooser(self, page: Page, chooser: files.FileChooser) -> None:
        modal = Modal(
            "file_chooser",
            page,
            chooser=chooser,
            session=chooser.session,
            backend_node_id=chooser.backend_node_id,
            mode=chooser.mode,
        )
        self._add_modal(modal)

    # ----- event streams ------------------------------------------------------------------------

    def _on_console(self, page: Page, params: dict[str, Any]) -> None:
        kind = params.get("type", "log")
        level = {
            "warning": "warning",
            "error": "error",
            "info": "info",
            "debug": "debug",
            "assert": "error",
        }.get(kind, "log")
        text = " ".join(_remote_text(arg) for arg in params.get("args", []))
        frames = (params.get("stackTrace") or {}).get("callFrames") or []
        location = None
        if frames:
            top = frames[0]
            location = {
                "url": top.get("url", ""),
                "line_number": top.get("lineNumber"),
                "column_number": top.get("columnNumber"),
            }
        self._console_n += 1
        record = {"type": level, "text": text, "location": location, "page_id": page.page_id}
        self.console.upsert(f"c{self._console_n}", truncate_fields(record, ("text",)))

    def _on_exception(self, page: Page, params: dict[str, Any]) -> None:
        details = params.get("exceptionDetails") or {}
        exception = details.get("exception") or {}
        text = exception.get("description") or details.get("text") or "Uncaught exception"
        self._console_n += 1
        record = {"type": "error", "text": text, "location": None, "page_id": page.page_id}
        self.console.upsert(f"c{self._console_n}", truncate_fields(record, ("text",)))

    def _on_request(self, page: Page, params: dict[str, Any]) -> None:
        rid = params["requestId"]
        key = f"{page.page_id}:{rid}"
        redirect = params.get("redirectResponse")
        if redirect is not None:
            previous = self.network.get(key)
            if previous is not None:  # the earlier hop is final: keep it under its own key
                self.network.records.pop(key, None)
                hop = {**previous, "status": redirect.get("status")}
                self.network.upsert(f"{key}:{previous['sequence']}", hop)
        request = params.get("request") or {}
        record = {
            "url": request.get("url", ""),
            "method": request.get("method", "GET"),
            "status": None,
            "resource_type": str(params.get("type") or "other").lower(),
            "failure": None,
            "request_id": rid,
            "page_id": page.page_id,
        }
        self.network.upsert(key, truncate_fields(record, ("url",)))

    def _on_response(self, page: Page, params: dict[str, Any]) -> None:
        key = f"{page.page_id}:{params['requestId']}"
        record = self.network.get(key)
        if record is not None:
            record = dict(record)
            record["status"] = (params.get("response") or {}).get("status")
            self.network.upsert(key, record)

    def _on_failed(self, page: Page, params: dict[str, Any]) -> None:
        key = f"{page.page_id}:{params['requestId']}"
        record = self.network.get(key)
        if record is not None:
            record = dict(record)
            record["failure"] = params.get("errorText") or (
                "canceled" if params.get("canceled") else "failed"
            )
            self.network.upsert(key, record)

    def _on_download(self, page: Page, download: Download) -> None:
        existing = self.downloads.get(download.id)
        self.download_objects[download.id] = download
        if existing is None:
            record: dict[str, Any] = {
                "download_id": download.id,
                "page_id": page.page_id,
                "url": download.url,
                "suggested_filename": download.suggested_filename,
                "status": "detected",
                "created_at": _iso_now(),
                "available": False,
            }
        else:
            record = dict(existing)
        if download.state == "completed":
            record["available"] = bool(download.path and Path(download.path).exists())
        elif download.state == "canceled":
            record["status"] = "failed"
            record["failure"] = "canceled"
            record["available"] = False
        self.downloads.upsert(download.id, truncate_fields(record, ("url", "suggested_filename")))

    def set_download(self, download_id: str, **changes: Any) -> dict[str, Any]:
        record = dict(self.downloads.get(download_id) or {})
        record.update(changes)
        return self.downloads.upsert(download_id, record)


def _owned(record: dict[str, Any], owner: str | None) -> dict[str, Any]:
    """A health record, tagged with its session under per-session ownership (so only that session lists it)."""
    return record if owner is None else {**record, "session": owner}


def _remote_text(obj: dict[str, Any]) -> str:
    if "value" in obj:
        value = obj["value"]
        return (
            value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
        )
    if obj.get("type") == "undefined":
        return "undefined"
    return str(obj.get("description") or obj.get("unserializableValue") or obj.get("type", ""))


def _parse_options(options: dict[str, Any], files: FilePolicy) -> InstanceOptions:
    """browser_create_instance's options, checked: invalid_params or unsupported_capability; a profile_dir
    becomes the real folder inside the profile folder (PolicyError otherwise, the tools' invalid_params)."""
    headless = options.get("headless")
    if headless == "virtual":
        raise ToolError(
            "unsupported_capability", "headless='virtual' (a virtual X display) is not supported."
        )
    proxy = options.get("proxy")
    if proxy is not None:
        if not isinstance(proxy, dict) or not proxy.get("server"):
            raise ToolError(
                "invalid_params", "proxy needs a 'server', e.g. {'server': 'http://host:3128'}."
            )
        unknown = set(proxy) - {"server", "username", "password", "bypass"}
        if unknown:
            raise ToolError("invalid_params", f"Unknown proxy field(s): {', '.join(sorted(unknown))}.")
        if proxy.get("username") or proxy.get("password"):
            raise ToolError(
                "unsupported_capability",
                "Proxy credentials are not supported; use a proxy without authentication.",
            )
    window = options.get("window")
    if window is not None:
        if len(window) != 2 or not all(isinstance(v, int) and 100 <= v <= 10000 for v in window):
            raise ToolError("invalid_params", "window must be [width, height] in CSS pixels (100-10000).")
        window = (int(window[0]), int(window[1]))
    return InstanceOptions(
        headless=headless,
        proxy=proxy,
        window=window,
        block_images=bool(options.get("block_images")),
        locale=options.get("locale"),
        # "" is none given, as upstream reads it
        profile_dir=str(files.profile_path(options["profile_dir"])) if options.get("profile_dir") else None,
    )


def make_profile(profile: Path, root: Path | None) -> None:
    """The profile folder (the file policy checked it is inside root) and the root, readable by this user
    only: a profile holds cookies and saved logins."""
    try:
        if root is not None:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
        profile.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        caller = exc.errno in (errno.ENOTDIR, errno.EEXIST, errno.ENAMETOOLONG, errno.EINVAL)
        raise ToolError(
            "invalid_params" if caller else "internal_error",
            f"Profile directory '{profile}' could not be made: {exc.strerror or exc}.",
        ) from None


def instance_key(name: str, owner: str | None) -> str:
    """The registry key of a name: the name itself, or the name in its owner's namespace (per-session ownership)."""
    return name if owner is None else f"{owner}\x00{name}"


class InstanceManager:
    """Creates, finds and destroys instances under one cap; owns the shared Chromium unless given one.

    Names are looked up in the caller's view: `owner` is None for server-level instances (the reference's
    semantics), else the MCP session the caller speaks for (`owner_for`); an instance of another owner is
    `instance_not_found`, exactly as if it did not exist. The cap is server-wide either way.
    """

    def __init__(self, config: Config | None = None, *, browser: Browser | None = None) -> None:
        self.config = config or Config()
        self._shared: Browser | None = browser
        self._owns_shared = browser is None
        self._shared_lock = asyncio.Lock()
        self.instances: dict[str, Instance] = {}
        self._reserved: dict[str, str] = {}  # key -> "launching" | "closing"
        self._profiles: dict[str, tuple[str, str | None]] = {}  # resolved profile dir -> (name, owner)
        self._evicting: dict[str, asyncio.Task[None]] = {}
        self._unsubscribe: dict[int, Callable[[], None]] = {}
        self.failed_launches: list[dict[str, Any]] = []
        self.close_failed: list[dict[str, Any]] = []
        self._reaper: asyncio.Task[None] | None = None
        self._policies: Policies | None = None
        self.default_reserved = False  # a default-context instance is being created
        if browser is not None:
            self._watch(browser)

    @property
    def policies(self) -> Policies:
        """The server's policies; its output folder (a temporary one unless configured) is made on first use."""
        if self._policies is None:
            output = self.config.output_dir or tempfile.mkdtemp(prefix="cdp-engine-mcp-output-")
            Path(output).mkdir(parents=True, exist_ok=True)
            self._policies = self.config.policies(output)
        return self._policies

    # ----- browsers -----------------------------------------------------------------------------

    def _watch(self, browser: Browser) -> None:
        if id(browser) not in self._unsubscribe:
            self._unsubscribe[id(browser)] = browser.on_tab(self._route_tab)

    def _route_tab(self, tab: Tab) -> None:
        for instance in list(self.instances.values()):
            if instance.owns_tab(tab) and not instance.closing:
                if instance.suppress_blank and not tab.opener_id:
                    return
                instance.adopt(tab)
                return

    async def _launch(
        self, *, headless: bool, extra_args: list[str], window: tuple[int, int] | None, user_data_dir: str | None = None
    ) -> Browser:
        return await _start_browser(self.config, headless, extra_args, window, user_data_dir)

    async def shared_browser(self) -> Browser:
        async with self._shared_lock:
            if self._shared is not None and not self._shared.closed:
                return self._shared
            if self._shared is not None and not self._owns_shared:
                raise ToolError("instance_crashed", "The browser this server was given has closed.")
            self._shared = await self._launch(
                headless=self.config.headless, extra_args=[], window=None, user_data_dir=self.config.user_data_dir
            )
            self._watch(self._shared)
            return self._shared

    def _start_reaper(self) -> None:
        if self.config.reap_after > 0 and self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap())

    async def _reap(self) -> None:
        """Every reaper_interval: destroy idle (past the TTL) and crashed instances that no call is using."""
        ttl = self.config.reap_after
        while True:
            await asyncio.sleep(self.config.reaper_interval)
            now = time.monotonic()
            for key, inst in list(self.instances.items()):
                idle = now - inst.last_used > ttl
                if inst.busy == 0 and not inst.lock.locked() and (idle or inst.crashed):
                    try:
                        await self._destroy(key)
                    except ToolError:
                        pass
                    except Exception:  # the reaper outlives any one failed teardown
                        log.exception("reaping instance %r failed", inst.name)

    # ----- ownership ----------------------------------------------------------------------------

    def owner_for(self, session: str | None) -> str | None:
        """The owner a call from this transport session acts as: None (server-level) unless ownership is on."""
        if not self.config.session_ownership:
            return None
        return session or SESSIONLESS

    def get(self, name: str, owner: str | None = None) -> Instance | None:
        """The instance called `name` in the owner's view, without touching it."""
        return self.instances.get(instance_key(name, owner))

    async def end_session(self, session: str) -> int:
        """The session ended: destroy every instance it owns (per-session ownership only). Returns how many."""
        if not self.config.session_ownership:
            return 0
        keys = [key for key, inst in self.instances.items() if inst.owner == session]
        for key in keys:
            with contextlib.suppress(ToolError):
                await self._destroy(key)
        return len(keys)

    # ----- lifecycle ----------------------------------------------------------------------------

    async def create(self, name: str, *, owner: str | None = None, **options: Any) -> Instance:
        """A new instance; raises instance_already_exists, instance_limit_exceeded, profile_dir_in_use, ..."""
        for option in CAMOUFOX_OPTIONS:
            value = options.pop(option, None)
            if value is not None and value is not False:
                raise ToolError(
                    "unsupported_capability",
                    f"'{option}' is a Camoufox (Firefox) option; this server drives Chromium and does not support it.",
                )
        if not name:
            raise ToolError("invalid_params", "Instance name must be a non-empty string.")
        key = instance_key(name, owner)
        if key in self.instances or key in self._reserved:
            raise ToolError("instance_already_exists", f"Instance '{name}' already exists.")
        if len(self.instances) + len(self._reserved) >= self.config.max_instances:
            raise ToolError(
                "instance_limit_exceeded",
                f"Instance limit of {self.config.max_instances} reached; destroy an instance first.",
            )  # server-wide, also under per-session ownership
        opts = _parse_options(options, self.policies.files)
        profile_key = opts.profile_dir  # resolved: one folder however it is spelled
        if profile_key is not None and profile_key in self._profiles:
            holder, holder_owner = self._profiles[profile_key]
            by = f"instance '{holder}'" if holder_owner == owner else "another session's instance"
            raise ToolError("profile_dir_in_use", f"Profile directory '{opts.profile_dir}' is in use by {by}.")
        self._reserved[key] = "launching"
        if profile_key is not None:
            self._profiles[profile_key] = (name, owner)
        try:
            instance = await self._start_instance(name, opts)
        except BaseException as exc:
            self._reserved.pop(key, None)
            if profile_key is not None:
                self._profiles.pop(profile_key, None)
            self.failed_launches.append(_owned({"name": name, "error": str(exc), "at": _iso_now()}, owner))
            del self.failed_launches[:-20]
            if isinstance(exc, ToolError | asyncio.CancelledError):
                raise
            if isinstance(exc, CDPEngineError):
                raise ToolError("internal_error", f"Could not start the instance: {exc}") from exc
            raise
        self._reserved.pop(key, None)
        instance.owner = owner
        self.instances[key] = instance
        self._start_reaper()
        return instance

    async def _start_instance(self, name: str, opts: InstanceOptions) -> Instance:
        headless = self.config.headless if opts.headless is None else bool(opts.headless)
        dedicated = self.config.isolation == "process" or opts.profile_dir is not None or headless != self.config.headless
        if dedicated and self.config.cdp_url is not None:
            raise ToolError("unsupported_capability", ATTACHED_NO_PROCESS)
        if not dedicated and self.config.in_default_context:
            return await _default_context_instance(self, name, opts)
        if not dedicated:
            browser = await self.shared_browser()
            proxy = opts.proxy or {}
            context = await browser.new_context(
                proxy_server=proxy.get("server"), proxy_bypass_list=proxy.get("bypass"), dialog_policy="hold",
                navigation_policy=self.policies.navigation.request_guard, storage_state=self.config.storage_state,
            )  # fmt: skip
            return Instance(self, name, browser, context, owns_browser=False, options=opts)
        args: list[str] = []
        if opts.profile_dir:
            make_profile(Path(opts.profile_dir), self.policies.files.profile_root)
            args.append(f"--user-data-dir={opts.profile_dir}")
        if opts.proxy:
            args.append(f"--proxy-server={opts.proxy['server']}")
            if opts.proxy.get("bypass"):
                args.append(f"--proxy-bypass-list={opts.proxy['bypass']}")
        browser = await self._launch(headless=headless, extra_args=args, window=opts.window)
        try:
            browser.dialog_policy = "hold"
            browser.navigation_policy = self.policies.navigation.request_guard  # the start-up tab is closed below
            context = browser.default_context
            instance = Instance(self, name, browser, context, owns_browser=True, options=opts)
            # No page exists right after creation: close the start-up tab.
            for tab in list(browser.tabs.values()):
                await tab.close(timeout=self.config.close_timeout)
            self._watch(browser)
            return instance
        except BaseException:
            await browser.close()
            raise

    def resolve(self, name: str, owner: str | None = None) -> Instance:
        """The live instance called `name`; instance_not_found or instance_crashed (evicted in the background)."""
        key = instance_key(name, owner)
        instance = self.instances.get(key)
        if instance is None:
            raise ToolError("instance_not_found", f"Instance '{name}' not found.")
        if instance.crashed:
            if key not in self._evicting:
                self._evicting[key] = asyncio.get_running_loop().create_task(self._evict(key))
            raise ToolError(
                "instance_crashed",
                f"Instance '{name}' crashed (its browser disconnected or all its pages crashed); it is being removed. "
                "Create a new instance.",
            )
        instance.last_used = time.monotonic()
        return instance

    async def _evict(self, key: str) -> None:
        try:
            with contextlib.suppress(ToolError):
                await self._destroy(key)
        finally:
            self._evicting.pop(key, None)

    async def destroy(self, name: str, owner: str | None = None) -> None:
        """Remove the instance from listings, stop its work and close its context or process."""
        await self._destroy(instance_key(name, owner), name)

    async def _destroy(self, key: str, name: str | None = None) -> None:
        instance = self.instances.get(key)
        if instance is None:
            evicting = self._evicting.get(key)
            if evicting is not None and evicting is not asyncio.current_task():
                await evicting  # a crashed instance being evicted: destroying it succeeds
                return
            raise ToolError("instance_not_found", f"Instance '{name or key}' not found.")
        name = instance.name
        del self.instances[key]
        self._reserved[key] = "closing"
        instance.closing = True
        try:
            for task in list(instance.background):
                task.cancel()
            try:
                async with asyncio.timeout(self.config.close_timeout):
                    if instance.owns_browser:
                        self._unsubscribe.pop(id(instance.browser), lambda: None)()
                        await instance.browser.close()
                    elif instance.shares_default_context:
                        await _leave_default_context(instance, self.config.close_timeout)
                    else:
                        await instance.context.close()
            except (TimeoutError, CDPEngineError) as exc:
                self.close_failed.append(
                    _owned(
                        {"name": name, "instance_id": instance.instance_id, "error": str(exc) or "timeout"},
                        instance.owner,
                    )
                )
                del self.close_failed[:-20]
        finally:
            self._reserved.pop(key, None)
            if instance.options.profile_dir:
                self._profiles.pop(instance.options.profile_dir, None)

    def summaries(self, owner: str | None = None) -> list[dict[str, Any]]:
        """The instances the owner sees (all of them when ownership is off: every owner is None)."""
        return [inst.summary() for inst in self.instances.values() if inst.owner == owner]

    def records(
        self, kind: Literal["failed_launches", "close_failed"], owner: str | None = None
    ) -> list[dict[str, Any]]:
        """Failed launches or teardowns the owner may see (its own under per-session ownership)."""
        records = self.failed_launches if kind == "failed_launches" else self.close_failed
        return [dict(r) for r in records if r.get("session") == owner]

    async def close(self) -> None:
        """Destroy every instance and close the shared browser if this manager launched it."""
        if self._reaper is not None:
            self._reaper.cancel()
        for key in list(self.instances):
            with contextlib.suppress(ToolError):
                await self._destroy(key)
        for task in list(self._evicting.values()):
            with contextlib.suppress(BaseException):
                await task
        for unsubscribe in self._unsubscribe.values():
            unsubscribe()
        self._unsubscribe.clear()
        if self._owns_shared and self._shared is not None:
            await self._shared.close()
            self._shared = None
        if self._policies is not None and self.config.output_dir is None:
            output = self._policies.files.output_dir
            if output is not None:
                with contextlib.suppress(OSError):
                    output.rmdir()  # the temporary output folder, when nothing was written to it

    async def __aenter__(self) -> InstanceManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _default_context_instance(manager: InstanceManager, name: str, opts: InstanceOptions) -> Instance:
    """An instance in the shared browser's own context: its tabs (the user's, when attached) are its pages from
    the start; one such instance at a time, as they would share every tab."""
    if opts.proxy:
        raise ToolError("unsupported_capability", "A proxy needs a fresh context; this server works in the browser's own.")
    holder = next((i.name for i in manager.instances.values() if i.shares_default_context), None)
    if holder is not None or manager.default_reserved:
        raise ToolError(
            "profile_dir_in_use",
            f"The browser's own context is in use by instance '{holder or 'being created'}' (one instance works there "
            "at a time); destroy it first.",
        )
    manager.default_reserved = True
    try:
        browser = await manager.shared_browser()
        context = browser.default_context
        if context.navigation_policy is None:
            await context.set_navigation_policy(manager.policies.navigation.request_guard)
        instance = Instance(manager, name, browser, context, owns_browser=False, options=opts)
        for tab in context.tabs:
            if not tab.closed:
                instance.adopt(tab)
        instance.selected = instance.pages[0] if instance.pages else None
        await asyncio.gather(*[page.ready for page in instance.pages])
        return instance
    finally:
        manager.default_reserved = False


async def _leave_default_context(instance: Instance, timeout: float) -> None:
    """Destroying a default-context instance: close the tabs it opened; the user's stay, as they were."""
    for page in list(instance.pages):
        page.tab.dialog_policy = instance.browser.dialog_policy
    mine = [tab for tab in instance.context.tabs if tab.target_id in instance.opened and not tab.closed]
    await asyncio.gather(*[tab.close(timeout=timeout) for tab in mine], return_exceptions=True)


async def _start_browser(
    config: Config, headless: bool, extra_args: list[str], window: tuple[int, int] | None, user_data_dir: str | None
) -> Browser:
    """The shared browser (attached to config.cdp_url when set, else launched) or an instance's own Chromium."""
    navigation, command = config.navigation_timeout, config.command_timeout
    try:
        if config.cdp_url is not None and user_data_dir is None and not extra_args:
            return await connect(
                config.cdp_url, headers=config.cdp_headers, window_size=window or config.window,
                navigation_timeout=navigation, command_timeout=command,
            )  # fmt: skip
        return await launch(
            config.executable, headless=headless, args=extra_args, window_size=window or config.window,
            user_data_dir=user_data_dir, navigation_timeout=navigation, command_timeout=command,
        )  # fmt: skip
    except BrowserNotFoundError as exc:
        raise ToolError("binary_not_found", f"Chromium could not be found: {exc}") from None
