"""The protocol over HTTP, so agents in other processes or languages can drive one tab.

    GET  /health                      -> 200 {"status": "ok", "browser": "<product>"}   (no auth)
    GET  /state?screenshot=0|1|jpeg   -> 200 state JSON
         [&offset=N][&max_chars=M]        (which part of the page's text page_content holds: default from 0,
                                          --result-chars characters; 400 for a bad value, nothing captured)
         [&max_width=N&max_height=N]     the screenshot shrunk to fit N image px (never enlarged)
         [&quality=0-100]                a jpeg's quality (screenshot=jpeg only); bad values: 400
    POST /action[?screenshot=...]     -> 200 next state JSON, the same screenshot parameters (a protocol `error` is part of the state);
                                         400 previous state + error ACTION_VALIDATION_FAILED when the
                                         body is not JSON or not a valid action
    GET  /changes                     -> 200 what changed from the state returned before the latest
                                         one to the latest (docs/changes.md); 409 before any state

Every route but /health needs `Authorization: Bearer <token>`: the service drives a real browser,
and the token is what stops any other local process or web page (DNS rebinding) from using it.
Timings travel beside the state, in the `X-CDP-Engine-Timings` header, so the body stays exactly
the protocol's state object. One tab in its own browser context per service; requests are
serialized because the protocol is one turn at a time (state, action, state).

Run it with `cdp-engine serve [--port 8765] [--start-url URL]` or `python -m cdp_engine.service` (one
command: the same options, from app/options.py, and the same code, `run()`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import signal
import socket
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import orjson
from aiohttp import web

from .app.options import LOOPBACK_HOSTS, Settings
from .app.process import bind, run_command
from .core.browser import Browser, BrowserContext
from .core.files import ScreenshotOptions, ScreenshotSpec
from .core.policies import RESULT_CHARS, SERVER_SCHEMES, Policies
from .core.tab import Tab
from .index.agent_tab import open_browser
from .index.element_index import ElementIndex
from .snapshot.extended import INTERACTIVE_MODES
from .util.text_windows import BudgetError, check_budget, check_offset

__all__ = ["LOOPBACK_HOSTS", "TIMINGS_HEADER", "create_app", "serve"]

log = logging.getLogger("cdp_engine.service")

TIMINGS_HEADER = "X-CDP-Engine-Timings"
REASONS_HEADER = "X-CDP-Engine-Reasons"  # extended mode: {index: reason code} (docs/extended.md)
VALIDATION_FAILED = "ACTION_VALIDATION_FAILED"
MAX_BODY = 1 << 20  # an action is a few hundred bytes; a megabyte is generous and bounds memory

Screenshot = bool | Literal["png", "jpeg"]
_SCREENSHOT_VALUES: dict[str, Screenshot] = {
    "0": False,
    "false": False,
    "no": False,
    "1": True,
    "true": True,
    "yes": True,
    "png": "png",
    "jpeg": "jpeg",
    "jpg": "jpeg",
}


_SIZING = ("max_width", "max_height", "quality")  # ScreenshotOptions fields a request may set


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        body=orjson.dumps(data), status=status, content_type="application/json", headers=headers
    )


class _Service:
    """The one tab this service drives, created on startup and recreated if it closes or crashes."""

    def __init__(
        self, browser: Browser, token: str, start_url: str | None, policies: Policies, storage_state: Any = None,
        result_chars: int = RESULT_CHARS,
    ) -> None:
        self.browser = browser
        self.storage_state = storage_state
        self.result_chars = result_chars  # page_content's default budget (--result-chars; per request max_chars)
        self.token = token.encode()
        self.start_url = start_url
        self.policies = policies
        self.context: BrowserContext | None = None
        self.tab_: Tab | None = None
        self.lock = asyncio.Lock()  # one protocol turn at a time, and timings that belong to the request

    async def start(self, _app: web.Application) -> None:
        # Allowed or blocked origins: every document request of the context is checked (redirects, popups).
        self.context = await self.browser.new_context(
            navigation_policy=self.policies.navigation.request_guard, storage_state=self.storage_state
        )
        self.tab_ = self._governed(await self.context.new_tab(self.start_url))

    def _governed(self, tab: Tab) -> Tab:
        """The tab with the service's policies: a remote caller's navigate reaches only what they allow."""
        index = ElementIndex.of(tab)
        index.policies = self.policies
        index.result_chars = self.result_chars
        return tab

    async def stop(self, _app: web.Application) -> None:
        if self.context is not None:
            await self.context.close()

    async def tab(self) -> Tab:
        """The live tab; a fresh one (about:blank) when the page closed itself or crashed."""
        tab = self.tab_
        if tab is None or self.context is None:
            raise web.HTTPServiceUnavailable(reason="service not started")
        if tab.closed or tab.crashed:
            log.warning(
                "tab %s is gone (closed=%s crashed=%s); opening a new one",
                tab.target_id,
                tab.closed,
                tab.crashed,
            )
            with contextlib.suppress(Exception):
                await tab.close(timeout=2.0)
            tab = self.tab_ = self._governed(await self.context.new_tab())
        return tab

    def authorized(self, request: web.Request) -> bool:
        """Whether the request carries the token; a refusal is logged at warning (never the credential sent)."""
        header = request.headers.get("Authorization", "")
        scheme, _, credentials = header.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(credentials.strip().encode(), self.token):
            return True
        reason = "a wrong bearer token" if scheme.lower() == "bearer" else "no bearer token"
        log.warning("refused %s %s from %s: %s", request.method, request.path, request.remote, reason)
        return False


SERVICE = web.AppKey("cdp_engine_service", _Service)


def _screenshot_param(request: web.Request) -> ScreenshotSpec:
    raw = request.query.get("screenshot", "1").strip().lower()
    try:
        spec = _SCREENSHOT_VALUES[raw]
    except KeyError:
        raise web.HTTPBadRequest(reason=f"screenshot must be 0, 1 or jpeg, got {raw!r}") from None
    sizing = {name: request.query[name] for name in _SIZING if name in request.query}
    if not sizing or spec is False:
        return spec
    try:  # one checker: ScreenshotOptions refuses what no capture could use (400 before anything runs)
        values = {name: int(value) for name, value in sizing.items()}
        if "quality" in values and spec != "jpeg":
            raise ValueError("quality applies to screenshot=jpeg only")
        return ScreenshotOptions(
            format="jpeg" if spec == "jpeg" else "png",
            quality=values.get("quality"),
            max_width=values.get("max_width"),
            max_height=values.get("max_height"),
        )
    except ValueError as exc:
        raise web.HTTPBadRequest(reason=f"screenshot parameters: {exc}") from None


def _timings_header(tab: Tab) -> dict[str, str]:
    return {TIMINGS_HEADER: orjson.dumps(tab.last_timings).decode()}


def _interactive_param(request: web.Request) -> str | None:
    """`?interactive=strict|extended` (docs/extended.md); absent: the tab's set."""
    raw = request.query.get("interactive")
    if raw is None:
        return None
    if raw not in INTERACTIVE_MODES:
        raise web.HTTPBadRequest(reason=f"interactive must be strict or extended, got {raw!r}")
    return raw


def _reasons_header(tab: Tab) -> dict[str, str]:
    """The extended elements' reason codes, outside the hashed state: only when there are any."""
    reasons = ElementIndex.of(tab).reasons()
    return {REASONS_HEADER: orjson.dumps(reasons).decode()} if reasons else {}


@web.middleware
async def _middleware(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Auth first (so unknown paths leak nothing), then JSON bodies for every HTTP error and crash."""
    if request.path != "/health" and not request.app[SERVICE].authorized(request):
        return _json({"error": "missing or invalid bearer token"}, 401, {"WWW-Authenticate": "Bearer"})
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {k: v for k, v in exc.headers.items() if k.lower() in ("allow", "www-authenticate")}
        return _json({"error": exc.reason}, exc.status, headers)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.exception("request %s %s failed", request.method, request.path)
        return _json({"error": f"{type(exc).__name__}: {exc}"}, 500)


async def _health(request: web.Request) -> web.Response:
    version = request.app[SERVICE].browser.version
    return _json({"status": "ok", "browser": version.get("product", "")})


def _whole_param(request: web.Request, name: str) -> int | None:
    """A whole-number query parameter (None when absent); 400 naming it otherwise."""
    raw = request.query.get(name)
    if raw is None:
        return None
    if not raw.strip().isdigit():
        raise web.HTTPBadRequest(reason=f"{name} must be a whole number, got {raw[:40]!r}")
    return int(raw)


async def _state(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    screenshot = _screenshot_param(request)
    offset, max_chars = _whole_param(request, "offset"), _whole_param(request, "max_chars")
    try:  # checked before anything is captured (an offset past the end: after the capture, state unchanged)
        check_offset(offset)
        if max_chars is not None:
            check_budget(max_chars)
    except BudgetError as exc:
        raise web.HTTPBadRequest(reason=exc.message) from None
    interactive = _interactive_param(request)
    async with service.lock:
        tab = await service.tab()
        tab.last_timings = {}
        try:
            state = await ElementIndex.of(tab).state(
                screenshot=screenshot, offset=offset, max_chars=max_chars, interactive=interactive
            )
        except BudgetError as exc:
            raise web.HTTPBadRequest(reason=exc.message) from None
        return _json(state, headers={**_timings_header(tab), **_reasons_header(tab)})


async def _action(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    screenshot = _screenshot_param(request)
    interactive = _interactive_param(request)
    body = await request.read()  # raw bytes: the engine decodes and validates, and reports failures itself
    async with service.lock:
        tab = await service.tab()
        tab.last_timings = {}  # a failed action captures nothing: an empty header rather than stale phases
        t0 = time.perf_counter()
        state = await ElementIndex.of(tab).act(body, screenshot=screenshot, interactive=interactive)
        headers = {**_timings_header(tab), **_reasons_header(tab)}
    error = state.get("error")
    # The protocol reports action failures in the state (200); a request that is not a valid action is
    # the client's fault, so it is also a 400 while keeping the protocol's state + error body.
    status = 400 if isinstance(error, dict) and error.get("code") == VALIDATION_FAILED else 200
    log.debug("action %s in %.1f ms", status, (time.perf_counter() - t0) * 1000)
    return _json(state, status, headers)


async def _changes(request: web.Request) -> web.Response:
    """The changes extra of the latest state this service returned: beside the state, never inside it."""
    service = request.app[SERVICE]
    async with service.lock:
        tab = await service.tab()
        try:
            return _json(ElementIndex.of(tab).changes())
        except LookupError as exc:
            return _json({"error": str(exc)}, 409)


def create_app(
    browser: Browser, *, token: str, start_url: str | None = None, policies: Policies | None = None,
    storage_state: str | dict[str, Any] | None = None, result_chars: int = RESULT_CHARS,
) -> web.Application:
    """The HTTP app over one new tab (in its own context) of `browser`; the tab opens on app startup.

    `policies` default to Policies.for_service(): navigate reaches http(s), about: and data: only.
    `storage_state`: saved logins (a path or a dict) loaded into the service's context. `browser` may be
    one the caller attached to (connect()): the service's context is its own and is disposed on cleanup.
    `result_chars`: page_content's default budget in characters (a request's max_chars overrides it)."""
    check_budget(result_chars, "result_chars")
    if not token:
        raise ValueError("token must be a non-empty string")
    app = web.Application(middlewares=[_middleware], client_max_size=MAX_BODY)
    service = _Service(browser, token, start_url, policies or Policies.for_service(), storage_state, result_chars)
    app[SERVICE] = service
    app.on_startup.append(service.start)
    app.on_cleanup.append(service.stop)
    app.router.add_get("/health", _health)
    app.router.add_get("/state", _state)
    app.router.add_post("/action", _action)
    app.router.add_get("/changes", _changes)
    return app


def _check_host(host: str, allow_remote: bool) -> None:
    if host.strip("[]").lower() not in LOOPBACK_HOSTS and not allow_remote:
        raise ValueError(
            f"refusing to listen on {host!r}: the service drives a real browser; "
            "bind 127.0.0.1/localhost/::1 or pass allow_remote=True explicitly"
        )


async def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    start_url: str | None = None,
    headless: bool = True,
    *,
    allow_remote: bool = False,
    allow_schemes: tuple[str, ...] = (),
    allowed_origins: tuple[str, ...] = (),
    blocked_origins: tuple[str, ...] = (),
    sock: socket.socket | None = None,
    launch_options: dict[str, Any] | None = None,
    storage_state: str | None = None,
    result_chars: int = RESULT_CHARS,
) -> None:
    """Launch a browser and serve the protocol until cancelled; prints a generated token once to stderr.

    Everything that can be wrong with the arguments is checked before Chromium starts: the host, an
    empty token, the origins (ValueError), the port (OptionError when it is in use; `sock`: a socket
    already listening, as the command line binds it first). `launch_options` go to open_browser(): launch()'s
    arguments, or `cdp_url` (and `headers`) to attach to a running browser instead (Settings.browser_kwargs())."""
    _check_host(host, allow_remote)
    if token == "":
        raise ValueError("token must be a non-empty string")
    policies = Policies.for_service(
        allowed_schemes=SERVER_SCHEMES | set(allow_schemes),
        allowed_origins=allowed_origins,
        blocked_origins=blocked_origins,
    )
    if sock is None:
        sock = bind(host, port)
    if token is None:
        token = secrets.token_urlsafe(24)
        print(f"cdp-engine service token: {token}", file=sys.stderr, flush=True)
    try:
        options = dict(launch_options or {})
        if "cdp_url" not in options:
            options = {"headless": headless, **options}
        async with open_browser(**options) as browser:
            app = create_app(
                browser, token=token, start_url=start_url, policies=policies, storage_state=storage_state,
                result_chars=result_chars,
            )  # fmt: skip
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            # SIGTERM (service managers, `kill`) shuts down cleanly, closing Chromium, like Ctrl-C does.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signal.SIGTERM, stop.set)
            try:
                await web.SockSite(runner, sock).start()
                shown = f"[{host}]" if ":" in host else host
                print(f"cdp-engine service on http://{shown}:{sock.getsockname()[1]}", file=sys.stderr, flush=True)
                log.info("serving on http://%s:%s", shown, sock.getsockname()[1])
                await stop.wait()
            finally:
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.remove_signal_handler(signal.SIGTERM)
                await runner.cleanup()
    finally:
        sock.close()


def run(settings: Settings, args: Any = None) -> int:
    """The `serve` command (`cdp-engine serve` and `python -m cdp_engine.service` alike) from its settings."""
    assert settings.port is not None  # the option table's default for serve
    sock = bind(settings.host, settings.port)  # before Chromium: a port in use is a one-line error
    with contextlib.suppress(KeyboardInterrupt):
        main: Any = serve(
            settings.host,
            settings.port,
            settings.token,
            settings.start_url,
            allow_remote=settings.allow_remote,
            allow_schemes=settings.allow_scheme,
            allowed_origins=settings.allowed_origins,
            blocked_origins=settings.blocked_origins,
            sock=sock,
            launch_options=settings.browser_kwargs(),
            storage_state=settings.storage_state,
            result_chars=settings.result_chars,
        )
        if settings.view or settings.record:  # the live view and the recorder watch the service's browser
            from .view.command import alongside

            main = alongside(main, view=settings.view, record=settings.record)
        asyncio.run(main)
    return 0


DESCRIPTION = "serve the protocol over HTTP on 127.0.0.1 with a bearer token"  # = `cdp-engine serve`


def main(argv: list[str] | None = None) -> int:
    """`python -m cdp_engine.service`: the same command, options and code as `cdp-engine serve`."""
    return run_command("serve", sys.argv[1:] if argv is None else argv, run, prog="python -m cdp_engine.service", description=DESCRIPTION)


if __name__ == "__main__":
    sys.exit(main())
