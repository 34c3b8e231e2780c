"""The live view: a local web page that shows each tab of a running engine as it changes.

`async with LiveView() as view: print(view.url)` serves http://127.0.0.1:PORT/?token=… (aiohttp, loopback
only unless allow_remote, the random token required on every request: 403 without). The page shows every
tab (Page.startScreencast frames), the element index as an overlay that can be switched on, the last
actions of every surface with their timings and results (util/activity.py), and each tab's URL.

Costs: with no viewer connected, no screencast runs and the activity hook is not subscribed to frames;
the hook itself is one list check per call. With viewers, each keeps only the newest frame per tab: a
viewer that reads slowly misses frames, it never queues them and never slows the agent (core/screencast.py).

Which browsers: by default every Browser of this process, now and later (the MCP server's instances, the
HTTP service's, the harness's, a library program's: they register in util/activity.py); or the ones
given. A browser of another process is watched over CDP: `cdp-engine view --attach ENDPOINT` (view/attach.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import WSMsgType, web

from ..cdp.connection import CDPSession
from ..core.screencast import Screencast
from ..errors import CDPEngineError
from ..index.element_index import ElementIndex
from ..util import activity
from ..util.activity import Activity
from .page import render_page

if TYPE_CHECKING:
    from ..core.browser import Browser
    from ..core.tab import Tab

__all__ = ["LOOPBACK", "BoxSource", "LiveView", "Watched", "overlay_of", "serve"]

log = logging.getLogger("cdp_engine.view")

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
LOG_SIZE = 200  # the last actions a viewer gets when it connects
MESSAGES_PER_VIEWER = 500  # log and tab messages waiting for a slow viewer (frames never wait: newest only)
IDLE_RESUME = 0.15  # seconds without a call before the paused screencasts resume (core/screencast.py says why)


class Watched:
    """One page the view shows: its CDP session, and the in-process Tab when there is one."""

    def __init__(self, key: str, session: CDPSession, tab: Tab | None = None, url: str = "", title: str = "") -> None:
        self.key = key
        self.session = session
        self.tab = tab
        self._url = url
        self._title = title

    @property
    def url(self) -> str:
        return self.tab.url if self.tab is not None else self._url

    @property
    def title(self) -> str:
        return self.tab.title if self.tab is not None else self._title

    def update(self, url: str, title: str) -> None:
        self._url, self._title = url, title

    def info(self) -> dict[str, Any]:
        return {"id": self.key, "url": self.url, "title": self.title}


class _Viewer:
    """One connected page: its newest frame per tab and its waiting messages, sent by its own task."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.frames: dict[str, str] = {}
        self.messages: deque[str] = deque(maxlen=MESSAGES_PER_VIEWER)
        self.wake = asyncio.Event()
        self.overlay = False
        self.sent = 0
        self.dropped = 0  # frames replaced by a newer one before this viewer took them

    def frame(self, key: str, message: str) -> None:
        if key in self.frames:
            self.dropped += 1
        self.frames[key] = message
        self.wake.set()

    def send(self, message: str) -> None:
        self.messages.append(message)
        self.wake.set()

    async def pump(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, asyncio.CancelledError):
            while not self.ws.closed:
                await self.wake.wait()
                self.wake.clear()
                while self.messages:
                    await self.ws.send_str(self.messages.popleft())
                while self.frames:
                    key = next(iter(self.frames))
                    await self.ws.send_str(self.frames.pop(key))
                    self.sent += 1


def _dumps(message: dict[str, Any]) -> str:
    return orjson.dumps(message, default=str).decode()


def short_json(value: Any, limit: int = 300) -> str:
    """An action's arguments as one short JSON line for the log."""
    if value is None:
        return ""
    text = orjson.dumps(value, default=str).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def entry_of(event: Activity) -> dict[str, Any]:
    """The log line of one Activity (also what a recording keeps of it: view/record.py)."""
    return {
        "surface": event.surface,
        "name": event.name,
        "tab": event.tab.target_id if event.tab is not None else None,
        "url": event.url,
        "time": event.started,
        "ms": round(event.ms, 1),
        "ok": event.ok,
        "error": event.error,
        "args": short_json(event.arguments),
        "timings": {k: round(v, 1) for k, v in event.timings.items() if isinstance(v, int | float)},
    }


BoxSource = Callable[[], tuple[Mapping[Any, Mapping[str, Any]], tuple[float, ...] | None]]


def overlay_of(key: str, source: BoxSource) -> dict[str, Any] | None:
    """The overlay message of a tab: [label, x, y, width, height] of each visible box of its last read (the
    state's indices or the snapshot's refs: util/activity.py `Activity.boxes`), and the viewport they were
    measured in (the page moves them by the scroll since, frame by frame)."""
    try:
        boxes, viewport = source()
    except Exception:  # a surface's read that went with its page: no overlay
        log.debug("no boxes for %s", key, exc_info=True)
        return None
    items = [[str(label), b["x"], b["y"], b["width"], b["height"]] for label, b in boxes.items() if b.get("visible")]
    return {"t": "overlay", "id": key, "boxes": items, "viewport": list(viewport) if viewport else None}


def _state_viewport(tab: Tab) -> tuple[float, float, float, float] | None:
    """The viewport (width, height, scroll x, scroll y) of the tab's last state, for its screenshot's frame."""
    index = tab.extensions.get(ElementIndex)  # never made here: only a tab the index already serves
    capture = index.current if isinstance(index, ElementIndex) else None
    return capture.viewport if capture is not None else None


def _browser_list(browsers: Browser | Iterable[Browser] | None, replay: Any) -> list[Browser] | None:
    """The browsers given (None: every one of this process; none for a replay)."""
    if replay is not None:
        return []
    if browsers is None:
        return None
    from ..core.browser import Browser

    return [browsers] if isinstance(browsers, Browser) else list(browsers)


class LiveView:
    """The live view's server; `async with LiveView(browser) as view:` or `await LiveView().start()`."""

    def __init__(
        self,
        browsers: Browser | Iterable[Browser] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        allow_remote: bool = False,
        max_fps: float = 5.0,
        quality: int = 60,
        max_size: tuple[int, int] = (800, 500),
        sock: socket.socket | None = None,
        replay: dict[str, Any] | None = None,
    ) -> None:
        """`replay`: serve that run (record.load_run) in the same page instead of watching browsers."""
        if host.strip("[]").lower() not in LOOPBACK and not allow_remote:
            raise CDPEngineError(f"live view host {host}: not a loopback address (pass allow_remote=True)")
        self.host = host
        self.port = port
        self.token = token or secrets.token_urlsafe(24)
        self.max_fps = max_fps
        self.quality = quality
        self.max_size = max_size
        self._sock = sock
        self.replay = replay
        self._given: list[Browser] | None = _browser_list(browsers, replay)
        self.watched: dict[str, Watched] = {}
        self.casts: dict[str, Screencast] = {}
        self.viewers: set[_Viewer] = set()
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_SIZE)
        self.last_frames: dict[str, str] = {}
        self.box_sources: dict[str, BoxSource] = {}  # tab id -> the boxes of its last read (Activity.boxes)
        self._unsubscribe: list[Callable[[], None]] = []
        self._runner: web.AppRunner | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cast_lock = asyncio.Lock()
        self._resume: asyncio.TimerHandle | None = None

    # ----- server -----------------------------------------------------------------------------

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The page's address, token included (give it to the people who may watch)."""
        return f"{self.origin}/?token={self.token}"

    async def start(self) -> LiveView:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/ws", self._socket)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site: web.BaseSite
        if self._sock is not None:
            site = web.SockSite(self._runner, self._sock)
        else:
            site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self._unsubscribe.append(activity.on_activity(self._on_activity))
        self._unsubscribe.append(activity.on_running(self._on_running))
        if self._given is None:
            for browser in activity.browsers():
                self.watch_browser(browser)
            self._unsubscribe.append(activity.on_browser(self.watch_browser))
        else:
            for given in self._given:
                self.watch_browser(given)
        return self

    async def close(self) -> None:
        for off in self._unsubscribe:
            off()
        self._unsubscribe.clear()
        for viewer in list(self.viewers):
            with contextlib.suppress(Exception):
                await viewer.ws.close()
        await self._stop_casts()
        for task in list(self._tasks):
            task.cancel()
        if self._resume is not None:
            self._resume.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> LiveView:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _authorized(self, request: web.Request) -> bool:
        given = request.query.get("token", "")
        return hmac.compare_digest(given.encode(), self.token.encode())

    async def _page(self, request: web.Request) -> web.StreamResponse:
        if not self._authorized(request):
            return web.Response(status=403, text="forbidden: open the URL with its token")
        return web.Response(text=render_page(self.replay), content_type="text/html", headers=_PAGE_HEADERS)

    # ----- what is watched --------------------------------------------------------------------

    def watch_browser(self, browser: Browser) -> None:
        """Show this browser's tabs, those open now and those opened later."""
        for tab in list(browser.tabs.values()):
            if tab.ready.done() and not tab.closed:
                self.watch_tab(tab)
        self._unsubscribe.append(browser.on_tab(self.watch_tab))

    def watch_tab(self, tab: Tab) -> None:
        key = tab.target_id
        if key in self.watched:
            return
        index = tab.extensions.get(ElementIndex)  # never made here: only a tab the index already serves
        if isinstance(index, ElementIndex):  # a state taken before the view started: its boxes for the overlay
            self.box_sources[key] = index.boxes_with_viewport
        self.add(Watched(key, tab.session, tab))
        self._unsubscribe.append(tab.add_listener(lambda kind, _p: self.remove(key) if kind == "closed" else None))

    def add(self, watched: Watched) -> None:
        """A page to show (in-process tabs come through watch_tab; view/attach.py adds pages of another process)."""
        self.watched[watched.key] = watched
        if self.viewers:
            self._spawn(self._start_cast(watched))
        self._broadcast(self._tabs_message())

    def remove(self, key: str) -> None:
        if self.watched.pop(key, None) is None:
            return
        cast = self.casts.pop(key, None)
        if cast is not None:
            self._spawn(cast.stop())
        self.last_frames.pop(key, None)
        self.box_sources.pop(key, None)
        self._broadcast(self._tabs_message())

    def _tabs_message(self) -> str:
        return _dumps({"t": "tabs", "tabs": [w.info() for w in self.watched.values() if not self._own(w)]})

    def _own(self, watched: Watched) -> bool:
        """A tab showing this very page (a viewer opened in the watched browser): never cast it."""
        return watched.url.startswith(self.origin + "/")

    # ----- screencasts ------------------------------------------------------------------------

    async def _start_cast(self, watched: Watched) -> None:
        if watched.key in self.casts or self._own(watched) or watched.session.closed:
            return
        cast = Screencast(
            watched.session, watched.key, self._on_frame, max_fps=self.max_fps, quality=self.quality, max_size=self.max_size
        )
        self.casts[watched.key] = cast
        await cast.start(paused=activity.running())

    async def _start_casts(self) -> None:
        async with self._cast_lock:
            await asyncio.gather(*[self._start_cast(w) for w in list(self.watched.values())])

    async def _stop_casts(self) -> None:
        async with self._cast_lock:
            casts, self.casts = list(self.casts.values()), {}
            self.last_frames.clear()
            await asyncio.gather(*[c.stop() for c in casts], return_exceptions=True)

    def _on_frame(self, key: str, data: str, metadata: dict[str, Any]) -> None:
        watched = self.watched.get(key)
        if watched is None:
            return
        if self._own(watched):  # it navigated to this page since: stop showing it
            cast = self.casts.pop(key, None)
            if cast is not None:
                self._spawn(cast.stop())
            self._broadcast(self._tabs_message())
            return
        message = _dumps({"t": "frame", "id": key, "data": data, "meta": metadata, "url": watched.url, "title": watched.title})
        self.last_frames[key] = message
        for viewer in self.viewers:
            viewer.frame(key, message)

    # ----- activity ---------------------------------------------------------------------------

    def _on_activity(self, event: Activity) -> None:
        entry = entry_of(event)
        self.log.append(entry)
        if event.tab is not None and event.boxes is not None:
            self.box_sources[event.tab.target_id] = event.boxes
        if not self.viewers:
            return
        shot = event.state.get("screenshot") if event.state is not None else None
        if shot and event.tab is not None and event.tab.target_id in self.watched:
            self._on_shot(event.tab, shot)
        self._broadcast(_dumps({"t": "log", "entry": entry}))
        if event.tab is not None and event.boxes is not None and any(v.overlay for v in self.viewers):
            overlay = overlay_of(event.tab.target_id, event.boxes)
            if overlay is not None:
                message = _dumps(overlay)
                for viewer in self.viewers:
                    if viewer.overlay:
                        viewer.send(message)

    def _on_shot(self, tab: Tab, shot: str) -> None:
        """The state's own screenshot, as the tab's newest frame: what the agent saw, at no extra cost."""
        watched = self.watched[tab.target_id]
        if self._own(watched):
            return
        viewport = _state_viewport(tab)
        meta: dict[str, Any] = {}
        if viewport is not None:
            width, height, scroll_x, scroll_y = viewport
            meta = {"deviceWidth": width, "deviceHeight": height, "scrollOffsetX": scroll_x, "scrollOffsetY": scroll_y}
        mime = "image/jpeg" if shot.startswith("/9j/") else "image/webp" if shot.startswith("UklGR") else "image/png"
        message = _dumps(
            {"t": "frame", "id": tab.target_id, "data": shot, "mime": mime, "meta": meta, "url": watched.url, "title": watched.title}
        )
        self.last_frames[tab.target_id] = message
        for viewer in self.viewers:
            viewer.frame(tab.target_id, message)

    def _on_running(self, running: bool) -> None:
        """Pause every screencast while a call runs; resume once the engine has been idle IDLE_RESUME seconds."""
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        if running:
            for cast in self.casts.values():
                cast.pause()
        elif self.casts:
            self._resume = asyncio.get_running_loop().call_later(IDLE_RESUME, self._resume_casts)

    def _resume_casts(self) -> None:
        self._resume = None
        if not activity.running():
            for cast in self.casts.values():
                cast.resume()

    def _broadcast(self, message: str) -> None:
        for viewer in self.viewers:
            viewer.send(message)

    # ----- viewers ----------------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if not self._authorized(request):
            return web.Response(status=403, text="forbidden: the token is missing or wrong")
        # No permessage-deflate: compressing every frame (already JPEG) would cost the agent's process CPU.
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=1 << 16, compress=False)
        await ws.prepare(request)
        viewer = _Viewer(ws)
        viewer.send(_dumps({"t": "hello", "log": list(self.log), "started": time.time()}))
        viewer.send(self._tabs_message())
        for key, message in self.last_frames.items():
            viewer.frame(key, message)
        self.viewers.add(viewer)
        pump = asyncio.get_running_loop().create_task(viewer.pump())
        try:
            if len(self.viewers) == 1:
                await self._start_casts()
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._on_viewer_message(viewer, msg.data)
        finally:
            self.viewers.discard(viewer)
            pump.cancel()
            if not self.viewers:
                await self._stop_casts()
        return ws

    def _on_viewer_message(self, viewer: _Viewer, text: str) -> None:
        with contextlib.suppress(orjson.JSONDecodeError, AttributeError):
            message = orjson.loads(text)
            if "overlay" in message:
                viewer.overlay = bool(message["overlay"])
                if viewer.overlay:
                    for key, source in list(self.box_sources.items()):
                        overlay = overlay_of(key, source) if key in self.watched else None
                        if overlay is not None:
                            viewer.send(_dumps(overlay))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


# The token is in the URL: keep it out of Referer headers and caches; the page loads nothing from elsewhere.
_PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; connect-src 'self' ws: wss:",
}


async def serve(browsers: Browser | Iterable[Browser] | None = None, **options: Any) -> LiveView:
    """Start a live view (LiveView's options) and return it; `await view.close()` ends it."""
    return await LiveView(browsers, **options).start()
