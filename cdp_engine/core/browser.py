"""Browser and contexts over one Connection; the tabs they route to are core/tab.py.

Targets are tracked from events (auto-attach with flatten): every tab, popup and
out-of-process iframe gets its session before it runs script, is configured, then
resumed. Frame trees, lifecycle state, dialogs and downloads are kept current from
events, so reading them costs no round trip.

Size: the Browser is the single owner of routing state (targets, sessions, auto-attach, out-of-process frames,
downloads) beside the contexts it makes and the launch/connect entry points; a Tab (core/tab.py) is created
and routed here and reads its browser only through core.tab.TabBrowser.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import tempfile
from collections.abc import Callable, Coroutine, Generator, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

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
    ProtocolError,
    StorageStateError,
    TargetClosedError,
)
from ..util import activity
from . import network, storage
from .event_records import Download
from .policies import NavigationPolicy
from .tab import STOP_TIMEOUT, DialogPolicy, Tab

log = logging.getLogger("cdp_engine.core")
_E = TypeVar("_E")

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
