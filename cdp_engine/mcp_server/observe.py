"""Action observations (`wait_for` on actions) and the page-side text/element conditions.

An Observer is armed before the action runs — its event listeners are attached
synchronously, so an event during the action counts — and waited on after it, with the
timeout starting only then. element/text conditions are checked after the action (they
may already hold). Nothing here retries the action or infers business success.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession
from ..core import observers, scripts
from ..core.event_records import Download
from ..core.tab import Tab
from ..core.worlds import Worlds
from ..errors import CDPEngineError, JavaScriptError
from .envelope import ToolError

if TYPE_CHECKING:
    from .instances import Page

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_KINDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "response": (frozenset({"url"}), frozenset({"method", "status"})),
    "url": (frozenset({"url"}), frozenset()),
    "element": (frozenset({"selector"}), frozenset({"state"})),
    "text": (frozenset({"text"}), frozenset({"state"})),
    "popup": (frozenset(), frozenset()),
    "download": (frozenset(), frozenset()),
}
_STATES = {"element": ("attached", "detached", "visible", "hidden"), "text": ("visible", "hidden")}


class WaitForSpec:
    """One observation: a `kind` and its fields (unknown fields are rejected)."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        kind = raw.get("kind")
        if kind not in _KINDS:
            raise ToolError("invalid_params", f"wait_for.kind must be one of {', '.join(_KINDS)}.")
        required, optional = _KINDS[kind]
        unknown = set(raw) - required - optional - {"kind", "timeout_ms"}
        if unknown:
            raise ToolError(
                "invalid_params", f"wait_for (kind '{kind}') does not accept: {', '.join(sorted(unknown))}."
            )
        for name in required:
            value = raw.get(name)
            if not isinstance(value, str) or not value:
                raise ToolError(
                    "invalid_params", f"wait_for.{name} is required for kind '{kind}' (a non-empty string)."
                )
        self.kind: str = kind
        self.url: str | None = raw.get("url")
        self.selector: str | None = raw.get("selector")
        self.text: str | None = raw.get("text")
        method = raw.get("method")
        if method is not None and (not isinstance(method, str) or not _TOKEN.match(method)):
            raise ToolError("invalid_params", "wait_for.method must be an HTTP method token such as POST.")
        self.method: str | None = method.upper() if isinstance(method, str) else None
        status = raw.get("status")
        if status is not None and (
            not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599
        ):
            raise ToolError("invalid_params", "wait_for.status must be an integer from 100 to 599.")
        self.status: int | None = status
        state = raw.get("state")
        if kind in _STATES:
            if state is None:
                state = "visible"
            if state not in _STATES[kind]:
                raise ToolError(
                    "invalid_params", f"wait_for.state must be one of {', '.join(_STATES[kind])}."
                )
        self.state: str | None = state
        timeout = raw.get("timeout_ms", 10000)
        if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1:
            raise ToolError(
                "invalid_params", "wait_for.timeout_ms must be a positive integer (milliseconds)."
            )
        self.timeout_ms: int = timeout

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        return {
            "type": "object",
            "description": (
                "Observation armed before the action and awaited after it: kind response (url, method?, status?), "
                "url (url), element (selector, state?), text (text, state?), popup, download; timeout_ms (default 10000)."
            ),
            "properties": {
                "kind": {"type": "string", "enum": list(_KINDS)},
                "url": {"type": "string"},
                "method": {"type": "string"},
                "status": {"type": "integer", "minimum": 100, "maximum": 599},
                "selector": {"type": "string"},
                "text": {"type": "string"},
                "state": {"type": "string", "enum": ["attached", "detached", "visible", "hidden"]},
                "timeout_ms": {"type": "integer", "minimum": 1},
            },
            "required": ["kind"],
            "additionalProperties": False,
        }


class ObservationTimeout(Exception):
    """The condition did not hold within timeout_ms after the action."""


class PageGone(Exception):
    """The observed page closed or crashed."""


@dataclass
class Target:
    page: Page
    cdp_frame: str  # resolved frame (main frame when none was given)
    explicit_frame: bool


class Observer:
    """Arm with arm() before the action; wait() after it; always disarm()."""

    def __init__(self, spec: WaitForSpec, target: Target) -> None:
        self.spec = spec
        self.target = target
        self.loop = asyncio.get_running_loop()
        self.result: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self._unsubs: list[Callable[[], None]] = []
        self._started: dict[str, tuple[str, str | None]] = {}  # requestId -> (method, frameId)

    # ----- arming -------------------------------------------------------------------------------

    def arm(self) -> None:
        tab = self.target.page.tab
        self._unsubs.append(tab.add_listener(self._on_tab_event))
        kind = self.spec.kind
        if kind == "response":
            for session in [tab.session, *tab.frame_sessions.values()]:
                self._watch_network(session)
        elif kind == "url":
            pass  # 'navigated' tab events

    def _watch_network(self, session: CDPSession) -> None:
        # The instance enabled Network on every page session (instances.py): only listen here.
        watch = observers.watch_network(session, on_request=self._on_request, on_response=self._on_response, enable=False)
        self._unsubs.append(watch.close)

    def disarm(self) -> None:
        for unsub in self._unsubs:
            unsub()
        self._unsubs.clear()
        if not self.result.done():
            self.result.cancel()

    def _match(self, facts: dict[str, Any]) -> None:
        if not self.result.done():
            self.result.set_result({"kind": self.spec.kind, "matched": True, **facts})

    def _fail(self, exc: BaseException) -> None:
        if not self.result.done():
            self.result.set_exception(exc)

    def _on_tab_event(self, kind: str, payload: Any) -> None:
        page = self.target.page
        if kind in ("closed", "crashed"):
            self._fail(PageGone())
        elif kind == "navigated" and self.spec.kind == "url" and payload == self.target.cdp_frame:
            frame = page.tab.frames.get(payload)
            if frame is not None and frame.url == self.spec.url:
                self._match({"url": frame.url, "page_id": page.page_id, "frame_id": page.frame_id(payload)})
        elif kind == "frame" and self.spec.kind == "response":
            session = page.tab.frame_sessions.get(payload)
            if session is not None:
                self._watch_network(session)
        elif kind == "popup" and self.spec.kind == "popup" and isinstance(payload, Tab):
            popup = page.instance.by_target.get(payload.target_id) or page.instance.adopt(payload)
            self._match({"page_id": popup.page_id})
        elif kind == "download" and self.spec.kind == "download" and isinstance(payload, Download):
            record = page.instance.downloads.get(payload.id)
            if record is None:
                self._fail(
                    ToolError(
                        "download_not_found",
                        "The download was detected but its handle could not be retained.",
                    )
                )
            else:
                self._match({"download_id": payload.id, "suggested_filename": payload.suggested_filename})

    def _frame_ok(self, frame_id: str | None) -> bool:
        return not self.target.explicit_frame or frame_id == self.target.cdp_frame

    def _check_response(self, rid: str, url: str, status: int | None, frame_id: str | None) -> None:
        started = self._started.get(rid)
        if started is None:
            return
        method = started[0]
        spec = self.spec
        if url != spec.url or (spec.method and method.upper() != spec.method):
            return
        if spec.status is not None and status != spec.status:
            return
        if not self._frame_ok(frame_id):
            return
        page = self.target.page
        self._match(
            {
                "url": url,
                "method": method.upper(),
                "status": status,
                "page_id": page.page_id,
                "frame_id": page.frame_id(frame_id) if frame_id else None,
                "request_id": rid,
            }
        )

    def _on_request(self, params: dict[str, Any]) -> None:
        rid = params["requestId"]
        redirect = params.get("redirectResponse")
        if redirect is not None and rid in self._started:
            self._check_response(rid, redirect.get("url", ""), redirect.get("status"), params.get("frameId"))
        request = params.get("request") or {}
        self._started[rid] = (request.get("method", "GET"), params.get("frameId"))

    def _on_response(self, params: dict[str, Any]) -> None:
        response = params.get("response") or {}
        self._check_response(
            params["requestId"], response.get("url", ""), response.get("status"), params.get("frameId")
        )

    # ----- waiting ------------------------------------------------------------------------------

    async def wait(self, timeout: float) -> dict[str, Any]:
        """The observed facts; ObservationTimeout, PageGone or ToolError otherwise."""
        spec = self.spec
        if spec.kind in ("element", "text"):
            return await self._wait_condition(timeout)
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self.result)
        except TimeoutError:
            raise ObservationTimeout() from None

    async def _wait_condition(self, timeout: float) -> dict[str, Any]:
        spec = self.spec
        page = self.target.page
        if spec.kind == "element":
            check = ELEMENT_CHECK
            args: list[Any] = [spec.selector, spec.state]
        else:
            check = TEXT_CHECK
            args = [spec.text, spec.state == "visible"]
        try:
            await poll(page, self.target.cdp_frame, check, args, timeout, self.result)
        except TimeoutError:
            raise ObservationTimeout() from None
        facts: dict[str, Any] = {"state": spec.state}
        facts["selector" if spec.kind == "element" else "text"] = (
            spec.selector if spec.kind == "element" else spec.text
        )
        return {"kind": spec.kind, "matched": True, **facts}


# ----- page-side conditions ----------------------------------------------------------------------

_TEXT_HELPERS = r"""
let norm = s => (s || '').replace(/\s+/g, ' ');
const visible = el => {
  if (!el.isConnected) return false;
  if (el.checkVisibility && !el.checkVisibility({checkVisibilityCSS: true, checkOpacity: true})) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
};
const textMatches = (needle, ci) => {
  if (ci) { const plain = norm; norm = s => plain(s).toLowerCase(); }
  needle = norm(needle);
  const out = new Set();
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE']);
  const roots = [document];
  while (roots.length) {
    const root = roots.pop();
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    let split = false;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 1) { if (n.shadowRoot) roots.push(n.shadowRoot); continue; }
      const parent = n.parentElement;
      if (!parent || skip.has(parent.tagName)) continue;
      if (norm(n.data).includes(needle)) out.add(parent);
      else split = true;
    }
    if (!out.size && split && root.querySelectorAll) {
      // Text split across inline elements: the innermost elements whose text contains it.
      for (const el of root.querySelectorAll('*')) {
        if (skip.has(el.tagName) || !norm(el.textContent).includes(needle)) continue;
        if (![...el.children].some(c => norm(c.textContent).includes(needle))) out.add(el);
      }
    }
  }
  return [...out];
};
"""

TEXT_CHECK = (
    "function(needle, wantVisible, ci) {"
    + _TEXT_HELPERS
    + """
  const els = textMatches(needle, ci);
  const anyVisible = els.some(visible);
  return wantVisible ? anyVisible : !anyVisible;
}"""
)

ELEMENT_CHECK = (
    "function(selector, state) {"
    + _TEXT_HELPERS
    + """
  const el = document.querySelector(selector);
  if (state === 'attached') return !!el;
  if (state === 'detached') return !el;
  if (state === 'visible') return !!el && visible(el);
  return !el || !visible(el);
}"""
)


async def frame_world(page: Page, cdp_frame: str) -> tuple[CDPSession, int]:
    """The engine's isolated world in the frame (sees the DOM, not page scripts; core.worlds): session, context."""
    tab = page.tab
    frame = tab.frames.get(cdp_frame)
    if frame is None:
        raise ToolError("frame_not_found", "The frame is no longer attached.")
    return frame.session, await Worlds.of(tab).context(cdp_frame)


async def call_in_frame(
    page: Page, cdp_frame: str, function: str, args: list[Any], timeout: float = 10.0
) -> Any:
    """Call `function(...args)` in the frame's isolated world and return its JSON value."""
    session, context_id = await frame_world(page, cdp_frame)
    expression = f"({function}).apply(null, {_json(args)})"
    try:
        return await scripts.evaluate_value(session, expression, context_id=context_id, timeout=timeout)
    except JavaScriptError as exc:
        raise ToolError("invalid_params", str(exc)) from None
    except CDPEngineError:
        Worlds.of(page.tab).forget(cdp_frame)  # its document went: the next call gets a fresh world
        raise


def _json(value: Any) -> str:
    import orjson

    return orjson.dumps(value).decode()


async def poll(
    page: Page,
    cdp_frame: str,
    check: str,
    args: list[Any],
    timeout: float,
    abort: asyncio.Future[Any] | None = None,
) -> None:
    """Re-check a page-side condition until it holds; re-checks on page events and at most every 200 ms.

    TimeoutError when it never held; PageGone when the page went away.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay = 0.02
    tab = page.tab
    while True:
        if tab.closed or tab.crashed:
            raise PageGone()
        if abort is not None and abort.done() and abort.exception() is not None:
            raise abort.exception()  # type: ignore[misc]
        try:
            if await call_in_frame(page, cdp_frame, check, args, timeout=max(0.5, deadline - loop.time())):
                return
        except ToolError as exc:
            if exc.error_type != "invalid_params" or "not a valid selector" in exc.message:
                raise
            # Anything else thrown mid-check (a document being replaced): try again.
        except CDPEngineError:
            if tab.closed or tab.crashed:
                raise PageGone() from None
            # A navigation destroyed the world mid-check: try again in the new document.
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise TimeoutError()
        changed: asyncio.Future[None] = loop.create_future()
        unsub = tab.add_listener(_setter(changed))
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(delay, remaining)):
                    await changed
        finally:
            unsub()
        delay = min(delay * 2, 0.2)


def _setter(future: asyncio.Future[None]) -> Callable[[str, Any], None]:
    return lambda kind, payload: None if future.done() else future.set_result(None)
