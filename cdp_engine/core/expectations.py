"""What an agent waits for after an action: a response, a URL, an element, a text, a popup, a download.

Why in the core: every surface that acts may need to wait for what the action should cause, and such a wait is
right only when it is armed before the action (an event during the action counts) and bounded after it. An
`Expectation` attaches its listeners synchronously in `arm()`, before the action is sent; `wait(timeout)` starts
its deadline only after the action. Element and text conditions are checked in the page (the engine's isolated
world, core/worlds.py) after the action, since they may already hold, and re-checked on every page event and at
most every 200 ms. A page that closes or crashes ends the wait (PageClosedError), and so does a dialog held on the
tab (DialogOpenedError) unless the caller answers dialogs itself (`dialog_ends=False`: the MCP server's modal
guard). Nothing here retries the action or infers business success.

`expect(tab, action, url=..., text=..., ...)` is the library's form: the conditions armed, the action awaited, each
condition waited for within one deadline. The MCP server's `wait_for` (mcp_server/observe.py) only translates its
vocabulary and error envelopes onto an Expectation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, JavaScriptError, TargetClosedError
from . import observers, scripts
from .event_records import Dialog, Download
from .page_rules import VISIBLE_JS
from .tab import Tab
from .worlds import Worlds

__all__ = [
    "ELEMENT_CHECK",
    "ELEMENT_STATES",
    "KINDS",
    "TEXT_CHECK",
    "TEXT_STATES",
    "Condition",
    "DialogOpenedError",
    "Expectation",
    "ExpectationTimeout",
    "Expected",
    "FrameNotFoundError",
    "PageClosedError",
    "call_in_frame",
    "expect",
    "frame_world",
    "poll",
]

KINDS = ("response", "url", "element", "text", "popup", "download")
ELEMENT_STATES = ("attached", "detached", "visible", "hidden")
TEXT_STATES = ("visible", "hidden")
POLL_EVERY = 0.2  # seconds at most between two checks of an element or text condition
# Small buffers when an expectation turns the Network domain on itself (the same as core/inflight.py's):
# it reads no bodies.
NETWORK_BUFFERS = {"maxTotalBufferSize": 1_000_000, "maxResourceBufferSize": 100_000}


class ExpectationTimeout(CDPEngineError, TimeoutError):
    """The condition did not hold within its timeout after the action."""


class PageClosedError(TargetClosedError):
    """The page closed or crashed while a condition was awaited."""


class DialogOpenedError(CDPEngineError):
    """A dialog is held on the tab: nothing the page does comes before it is answered (`dialog`)."""

    def __init__(self, dialog: Dialog | None) -> None:
        super().__init__("a dialog is open on the page: answer it (Tab.handle_dialog) before waiting again")
        self.dialog = dialog


class FrameNotFoundError(CDPEngineError):
    """The frame a condition is checked in is no longer attached."""


@dataclass(frozen=True)
class Condition:
    """One thing to wait for. kind "response": `url` (exact), `method`, `status`; "url": the frame's URL becomes
    `url` (exact); "element": `selector` reaches `state` (attached, detached, visible, hidden; default visible);
    "text": `text` becomes `state` (visible, hidden); "popup"; "download". `frame_id` (a CDP frame id): where
    element, text and url are checked (default the main frame), and the only frame whose responses count."""

    kind: str
    url: str | None = None
    method: str | None = None
    status: int | None = None
    selector: str | None = None
    text: str | None = None
    state: str | None = None
    frame_id: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Condition.kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        required = {"response": "url", "url": "url", "element": "selector", "text": "text"}.get(self.kind)
        if required is not None and not getattr(self, required):
            raise ValueError(f"a {self.kind} condition needs {required}")
        states = {"element": ELEMENT_STATES, "text": TEXT_STATES}.get(self.kind)
        if states is not None:
            if self.state is None:
                object.__setattr__(self, "state", "visible")
            if self.state not in states:
                raise ValueError(f"a {self.kind} condition's state is one of {', '.join(states)}")
        if self.method is not None:
            object.__setattr__(self, "method", self.method.upper())


# What a condition met reports, by kind: response {url, method, status, frame_id, request_id}; url {url, frame_id};
# element {state, selector}; text {state, text}; popup {tab}; download {download}. `on_match` may turn it into a
# surface's own facts at the moment of the match (or raise to fail the wait).
Facts = dict[str, Any]
OnMatch = Callable[[str, Facts], Facts]


class Expectation:
    """One condition on a tab: arm() before the action, wait() after it, always disarm() (or use expect())."""

    def __init__(
        self,
        tab: Tab,
        condition: Condition,
        *,
        dialog_ends: bool = True,
        enable_network: bool = True,
        on_match: OnMatch | None = None,
    ) -> None:
        self.tab = tab
        self.condition = condition
        self.frame_id = condition.frame_id or tab.main_frame_id
        self.dialog_ends = dialog_ends
        self.enable_network = enable_network  # False: the caller keeps Network enabled on every page session
        self.on_match = on_match
        self.result: asyncio.Future[Facts] = asyncio.get_running_loop().create_future()
        self._enabled: list[asyncio.Future[Any]] = []
        self._unsubs: list[Callable[[], None]] = []
        self._started: dict[str, tuple[str, str | None]] = {}  # requestId -> (method, frameId)

    # ----- arming -------------------------------------------------------------------------------

    def arm(self) -> None:
        """Attach the listeners now (synchronously), so an event the action causes is seen."""
        self._unsubs.append(self.tab.add_listener(self._on_tab_event))
        if self.condition.kind == "response":
            for session in [self.tab.session, *self.tab.frame_sessions.values()]:
                self._watch_network(session)
        if self.dialog_ends and self.tab.pending_dialog is not None:
            self._fail(DialogOpenedError(self.tab.pending_dialog))

    async def ready(self) -> None:
        """Wait for the Network domain this expectation turned on (a response condition), before the action."""
        for enabled in self._enabled:
            with contextlib.suppress(CDPEngineError):
                await enabled

    def _watch_network(self, session: CDPSession) -> None:
        watch = observers.watch_network(
            session, on_request=self._on_request, on_response=self._on_response, enable=False
        )
        self._unsubs.append(watch.close)
        if self.enable_network:
            enabled = session.send("Network.enable", NETWORK_BUFFERS)
            enabled.add_done_callback(scripts.retrieve_quietly)
            self._enabled.append(enabled)

    def disarm(self) -> None:
        for unsub in self._unsubs:
            unsub()
        self._unsubs.clear()
        if not self.result.done():
            self.result.cancel()
        elif not self.result.cancelled():
            self.result.exception()  # a failure a condition's own wait reported in its words is retrieved

    def _match(self, facts: Facts) -> None:
        if self.result.done():
            return
        if self.on_match is not None:
            try:
                facts = self.on_match(self.condition.kind, facts)
            except Exception as exc:
                self.result.set_exception(exc)
                return
        self.result.set_result(facts)

    def _fail(self, exc: BaseException) -> None:
        if not self.result.done():
            self.result.set_exception(exc)

    def _on_tab_event(self, kind: str, payload: Any) -> None:
        wanted = self.condition.kind
        if kind in ("closed", "crashed"):
            self._fail(PageClosedError(f"the page {kind} while waiting for a {wanted} condition"))
        elif kind == "dialog" and self.dialog_ends and self.tab.pending_dialog is not None:
            self._fail(DialogOpenedError(self.tab.pending_dialog))
        elif kind == "navigated" and wanted == "url" and payload == self.frame_id:
            frame = self.tab.frames.get(payload)
            if frame is not None and frame.url == self.condition.url:
                self._match({"url": frame.url, "frame_id": payload})
        elif kind == "frame" and wanted == "response":
            session = self.tab.frame_sessions.get(payload)
            if session is not None:
                self._watch_network(session)
        elif kind == "popup" and wanted == "popup" and isinstance(payload, Tab):
            self._match({"tab": payload})
        elif kind == "download" and wanted == "download" and isinstance(payload, Download):
            self._match({"download": payload})

    def _check_response(self, rid: str, url: str, status: int | None, frame_id: str | None) -> None:
        started = self._started.get(rid)
        if started is None:
            return
        method = started[0].upper()
        c = self.condition
        if url != c.url or (c.method and method != c.method):
            return
        if c.status is not None and status != c.status:
            return
        if c.frame_id is not None and frame_id != c.frame_id:
            return
        self._match({"url": url, "method": method, "status": status, "frame_id": frame_id, "request_id": rid})

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

    async def wait(self, timeout: float) -> Facts:
        """The facts of the condition met within `timeout` seconds from now; ExpectationTimeout,
        PageClosedError or DialogOpenedError otherwise (or what `on_match` raised)."""
        c = self.condition
        if c.kind in ("element", "text"):
            args: list[Any]
            if c.kind == "element":
                check, args = ELEMENT_CHECK, [c.selector, c.state]
            else:
                check, args = TEXT_CHECK, [c.text, c.state == "visible"]
            await poll(self.tab, self.frame_id, check, args, timeout, self.result)
            facts: Facts = {"state": c.state}
            facts["selector" if c.kind == "element" else "text"] = c.selector if c.kind == "element" else c.text
            if self.on_match is not None:
                facts = self.on_match(c.kind, facts)
            return facts
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self.result)
        except TimeoutError:
            if self.result.done() and not self.result.cancelled() and self.result.exception() is not None:
                raise self.result.exception() from None  # type: ignore[misc]
            raise ExpectationTimeout(f"the {c.kind} condition did not hold within {timeout:g} s") from None


@dataclass
class Expected:
    """What expect() saw: the action's own result (`value`) and the facts of each condition met (`met`, by
    kind; popup: {"tab": the popup's Tab}, download: {"download": its Download record})."""

    value: Any
    met: dict[str, Facts] = field(default_factory=dict)

    def __getitem__(self, kind: str) -> Facts:
        return self.met[kind]


async def expect(
    tab: Tab,
    action: Awaitable[Any] | Callable[[], Awaitable[Any]] | None = None,
    *,
    url: str | None = None,
    text: str | None = None,
    text_state: str = "visible",
    selector: str | None = None,
    state: str = "visible",
    response: str | None = None,
    method: str | None = None,
    status: int | None = None,
    popup: bool = False,
    download: bool = False,
    frame_id: str | None = None,
    timeout: float = 10.0,
    dialog_ends: bool = True,
) -> Expected:
    """Arm every condition given, run the action (a coroutine not yet started, or a function returning one),
    then wait until all of them held, within `timeout` seconds counted from the action's end.

    `url`: the frame navigates to exactly this URL; `text` reaches `text_state` (visible/hidden); `selector`
    reaches `state` (attached/detached/visible/hidden); `response`: a response from exactly this URL (with
    `method`, `status` when given); `popup`, `download`: the action opens one. ExpectationTimeout names the
    first condition that did not hold; PageClosedError and DialogOpenedError end the wait at once.

        seen = await expect(tab, tab.click("#save"), response=api_url, text="Saved")
        seen["response"]["status"]
    """
    conditions: list[Condition] = []
    if response is not None:
        conditions.append(Condition("response", url=response, method=method, status=status, frame_id=frame_id))
    if url is not None:
        conditions.append(Condition("url", url=url, frame_id=frame_id))
    if selector is not None:
        conditions.append(Condition("element", selector=selector, state=state, frame_id=frame_id))
    if text is not None:
        conditions.append(Condition("text", text=text, state=text_state, frame_id=frame_id))
    if popup:
        conditions.append(Condition("popup"))
    if download:
        conditions.append(Condition("download"))
    expectations = [Expectation(tab, c, dialog_ends=dialog_ends) for c in conditions]
    loop = asyncio.get_running_loop()
    try:
        for expectation in expectations:
            expectation.arm()
        for expectation in expectations:
            await expectation.ready()
        if callable(action):
            action = action()
        value = await action if action is not None else None
        end = loop.time() + timeout
        met: dict[str, Facts] = {}
        for expectation in expectations:
            met[expectation.condition.kind] = await expectation.wait(max(0.0, end - loop.time()))
        return Expected(value, met)
    finally:
        for expectation in expectations:
            expectation.disarm()


# ----- page-side conditions ----------------------------------------------------------------------

_TEXT_HELPERS = r"""
let norm = s => (s || '').replace(/\s+/g, ' ');
VISIBLE_JS
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
""".replace("VISIBLE_JS", VISIBLE_JS)

# function(needle, wantVisible, caseInsensitive): whether some element showing the text is visible (or none is).
TEXT_CHECK = (
    "function(needle, wantVisible, ci) {"
    + _TEXT_HELPERS
    + """
  const els = textMatches(needle, ci);
  const anyVisible = els.some(visible);
  return wantVisible ? anyVisible : !anyVisible;
}"""
)

# function(selector, state): whether the first element the selector matches is in the state.
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


async def frame_world(tab: Tab, frame_id: str) -> tuple[CDPSession, int]:
    """The engine's isolated world in the frame (sees the DOM, not page scripts): its session and context;
    FrameNotFoundError when the frame is no longer attached."""
    frame = tab.frames.get(frame_id)
    if frame is None:
        raise FrameNotFoundError(f"frame {frame_id} is no longer attached")
    return frame.session, await Worlds.of(tab).context(frame_id)


async def call_in_frame(tab: Tab, frame_id: str, function: str, args: list[Any], timeout: float = 10.0) -> Any:
    """`function(...args)` in the frame's isolated world: its JSON value. JavaScriptError when it throws (an
    invalid selector); any other CDPEngineError forgets the world (its document went: the next call gets a new one)."""
    session, context_id = await frame_world(tab, frame_id)
    expression = f"({function}).apply(null, {orjson.dumps(args).decode()})"
    try:
        return await scripts.evaluate_value(session, expression, context_id=context_id, timeout=timeout)
    except JavaScriptError:
        raise
    except CDPEngineError:
        Worlds.of(tab).forget(frame_id)
        raise


async def poll(
    tab: Tab,
    frame_id: str,
    check: str,
    args: list[Any],
    timeout: float,
    abort: asyncio.Future[Any] | None = None,
) -> None:
    """Re-check a page-side condition until it holds: on every page event, and at most every POLL_EVERY.

    ExpectationTimeout when it never held; PageClosedError when the page went away; FrameNotFoundError; a
    JavaScriptError for an invalid selector; `abort`'s exception as soon as it has one (a dialog, the page gone).
    Other errors of one check (a document being replaced mid-check) only mean: check again."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    delay = 0.02
    while True:
        if tab.closed or tab.crashed:
            raise PageClosedError("the page closed or crashed while a condition was awaited")
        _raise_aborted(abort)
        try:
            held = await _unless_aborted(
                call_in_frame(tab, frame_id, check, args, timeout=max(0.5, deadline - loop.time())), abort
            )
            if held:
                return
        except (FrameNotFoundError, PageClosedError, DialogOpenedError):
            raise
        except JavaScriptError as exc:
            if "not a valid selector" in str(exc):
                raise
        except CDPEngineError:
            if tab.closed or tab.crashed:
                raise PageClosedError("the page closed or crashed while a condition was awaited") from None
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise ExpectationTimeout(f"the condition did not hold within {timeout:g} s")
        changed: asyncio.Future[None] = loop.create_future()
        unsub = tab.add_listener(_setter(changed))
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(delay, remaining)):
                    await changed
        finally:
            unsub()
        delay = min(delay * 2, POLL_EVERY)


def _setter(future: asyncio.Future[None]) -> Callable[[str, Any], None]:
    return lambda kind, payload: None if future.done() else future.set_result(None)


def _raise_aborted(abort: asyncio.Future[Any] | None) -> None:
    if abort is not None and abort.done() and not abort.cancelled() and abort.exception() is not None:
        raise abort.exception()  # type: ignore[misc]


async def _unless_aborted(check: Awaitable[Any], abort: asyncio.Future[Any] | None) -> Any:
    """The check's answer, unless `abort` fails first (then its exception; the check is cancelled)."""
    task = asyncio.ensure_future(check)
    if abort is None:
        return await task
    try:
        await asyncio.wait({task, abort}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    if not task.done() and not abort.cancelled() and abort.exception() is not None:
        task.cancel()
        task.add_done_callback(lambda t: None if t.cancelled() else t.exception())
        raise abort.exception()  # type: ignore[misc]
    return await task  # done, or `abort` ended without a failure (disarmed): the check's own answer
