"""Named, isolated browser instances: their pages, frames, modal states and event streams.

Isolation: by default every instance is its own browser context in one shared Chromium
(separate cookies, storage, cache and downloads attribution; created in milliseconds). An
instance that needs a process of its own — a persistent `profile_dir`, a different `headless`
mode, or a server started with `isolation="process"` — gets a dedicated Chromium. Either way
the instance is not an OS security boundary.

Crash: an instance whose browser connection is gone, or whose pages have all crashed, is
`crashed`; the next call that resolves it gets `instance_crashed` and the instance is evicted
in the background. Nothing waits on a dead browser: its pending commands fail at once.

The manager that starts, finds and evicts instances is mcp_server/instance_manager.py; the server's
configuration is mcp_server/server_config.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..cdp.connection import CDPSession
from ..core import emulation, files, network, observers
from ..core.browser import Browser, BrowserContext
from ..core.event_records import Dialog, Download
from ..core.refs import RefRegistry
from ..core.settle import observe
from ..core.tab import Tab
from ..core.worlds import Worlds
from ..errors import CDPEngineError
from ..snapshot.ax_tree import AXNode
from .events import EventStream, truncate_fields
from .server_config import Config

if TYPE_CHECKING:
    pass

log = logging.getLogger("cdp_engine.mcp")


class InstanceOwner(Protocol):
    """What an instance needs of its manager (mcp_server/instance_manager.InstanceManager is one): a Protocol, so
    the manager's module can make instances without this one importing it back."""

    config: Config

def iso_now() -> str:
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
        manager: InstanceOwner,
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
        self.created_at = iso_now()
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
                "created_at": iso_now(),
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


def _remote_text(obj: dict[str, Any]) -> str:
    if "value" in obj:
        value = obj["value"]
        return (
            value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
        )
    if obj.get("type") == "undefined":
        return "undefined"
    return str(obj.get("description") or obj.get("unserializableValue") or obj.get("type", ""))
