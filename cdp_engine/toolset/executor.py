"""The 31 members of `browser_toolset_20260801` on cdp-engine, and the batch loop around them.

`BrowserToolset` owns one browser context (its own unless one is given). `execute` validates a
member's input exactly and runs it, returning an SDK-neutral outcome or raising `MemberError`
with a fixed text the model can read; `call` adds the `browser_state` block and renders the
`tool_result` content; `run_batch` answers every browser `tool_use` of an assistant message in
order and applies the halt rule. The SDK driver (`sdk.py`) reuses `execute` and `report`.

Size: the 31 toolset members and the batch loop in one module, each member a short translation to core calls,
so a reader finds every member beside the loop that runs it; the configuration and the outcomes are
toolset/driver_config.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from ..core import files as core_files
from ..core import input, keys, navigation, scripts
from ..core.inflight import NetworkTracker
from ..core.lifecycle import wait_loaded
from ..core.liveness import bounded
from ..core.marks import Mark
from ..core.policies import (
    HOST_SCHEMES,
    MAX_URL_CHARS,
    WEB_SCHEMES,
    FilePolicy,
    NavigationPolicy,
    Policies,
    PolicyError,
)
from ..core.refs import NodeRef, StaleRefError
from ..core.settle import settle
from ..core.worlds import Worlds
from ..errors import (
    CDPEngineError,
    CommandTimeoutError,
    JavaScriptError,
    NavigationError,
    NavigationTimeoutError,
    ProtocolError,
    RendererHungError,
    TargetClosedError,
)
from ..snapshot.ax_capturer import capture_ax_tree
from ..snapshot.boxes import ref_boxes, ref_marks
from ..util import activity, tracing
from ..util.text_windows import context_lines, window
from . import read_page as reader
from .diagnostics import ConsoleLog, NetworkLog
from .driver_config import ImageOutcome, MemberError, NavigateOutcome, Outcome, ToolsetConfig
from .inputs import (
    HALT_TEXT,
    MEMBER_NAMES,
    TAB_MEMBERS,
    TOOLSET_NAME,
    TOOLSET_TYPE,
    InputError,
    ack,
    validate,
)
from .state import Dismissed, ManagedTab, TabBook, merge_changes, one_line

if TYPE_CHECKING:
    from ..core.browser import Browser, BrowserContext
    from ..core.tab import Tab

log = logging.getLogger("cdp_engine.toolset")

REFUSED_SCHEME = "Error: Navigation refused. Only http and https URLs are allowed."
ORIGIN_REFUSED = "Error: Navigation refused. That site's origin is not allowed in this browser."
ORIGIN_RULES = frozenset({"navigation.blocked_origin", "navigation.origin_not_allowed"})
NO_TAB = "Error: No tab is open. Call new_tab to open one."
DIALOG_LINES_MAX = 3
DIALOG_MESSAGE_MAX = 200
LOAD_GRACE = 10.0  # seconds a navigation waits for `load` after the document is parsed
REPORT_BUDGET = 1.0  # seconds of a call's deadline kept for its browser_state report (browser-level commands)
STALE_CAUSES = {
    "unknown ref": "",
    "its frame is gone": " Its frame is gone.",
    "the page navigated since the ref was handed out": " The page navigated since it was read.",
    "the element was removed from the page": " The element was removed from the page.",
}


CONTINUATIONS_KEPT = 64  # continuation refs a tab keeps (the oldest go first)


@dataclass(frozen=True)
class Continuation:
    """What a continuation ref reads on: a read_page ("tree": its scope ref, filter, depth), get_page_text
    ("text") or find, from `offset` characters into the whole text, while the page keeps its document."""

    kind: Literal["tree", "text", "find"]
    scope: str | None = None
    filter: str | None = None
    depth: int = 15
    offset: int = 0
    loader: str = ""


def _loader(managed: ManagedTab) -> str:
    """The main frame's document id: a continuation is for the document it was handed out in."""
    frame = managed.tab.frames.get(managed.tab.main_frame_id)
    return frame.loader_id if frame is not None else ""


def text_block(text: str) -> dict[str, Any]:
    """A text block; a lone surrogate echoed from the input (a member name) becomes U+FFFD, as no JSON can hold it."""
    if not text.isascii():
        text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return {"type": "text", "text": text}


def dialog_lines(dialogs: Sequence[Dismissed]) -> list[str]:
    """One line per dismissed dialog, as the SDK writes them: `A confirm dialog "…" was dismissed.`"""
    lines = []
    for dialog in dialogs[:DIALOG_LINES_MAX]:
        kind = one_line(dialog.kind)[:20] or "dialog"
        article = "An" if kind[:1].lower() in "aeiou" else "A"
        noun = kind if kind == "dialog" else f"{kind} dialog"
        message = one_line(dialog.message)
        if len(message) > DIALOG_MESSAGE_MAX:
            message = message[:DIALOG_MESSAGE_MAX] + "…"
        quoted = f" {json.dumps(message, ensure_ascii=False)}" if message else ""
        lines.append(f"{article} {noun}{quoted} was dismissed.")
    if len(dialogs) > DIALOG_LINES_MAX:
        lines.append(f"{len(dialogs) - DIALOG_LINES_MAX} more dialogs were dismissed.")
    return lines


TOOLSET_NAVIGATION = Policies.for_toolset().navigation


def normalize_url(url: str, policy: NavigationPolicy = TOOLSET_NAVIGATION) -> str:
    """No scheme means https; then the navigation policy (http(s) only by default) on the parsed URL."""
    text = url.strip()
    has_scheme = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text) is not None
    host_port = re.match(r"^[^:/?#\s]+:\d+(?:[/?#]|$)", text) is not None
    if not has_scheme or host_port:
        text = "https://" + text.lstrip("/")
    try:
        parts = urlsplit(text)
        _ = parts.port
    except ValueError:
        raise MemberError("Error: That is not a valid URL.") from None
    try:
        policy.check(text)
    except PolicyError as exc:
        if exc.rule == "navigation.about":
            raise MemberError(
                "Error: Navigation refused. Of the about: URLs only about:blank is allowed."
            ) from None
        if exc.rule == "navigation.length":
            raise MemberError(f"Error: That URL is too long (over {MAX_URL_CHARS:,} characters).") from None
        if exc.rule in ORIGIN_RULES:
            raise MemberError(ORIGIN_REFUSED) from None
        if exc.rule != "navigation.scheme":
            raise MemberError("Error: That is not a valid URL.") from None
        if policy.schemes == WEB_SCHEMES:
            raise MemberError(REFUSED_SCHEME) from None
        allowed = ", ".join(sorted(policy.schemes))
        raise MemberError(f"Error: Navigation refused. Only {allowed} URLs are allowed.") from None
    if parts.scheme.lower() in HOST_SCHEMES and not parts.hostname:
        raise MemberError("Error: That is not a valid URL.")
    return text


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class BrowserToolset:
    """cdp-engine as the executor of Claude's browser toolset; see the module doc."""

    def __init__(
        self,
        browser: Browser,
        *,
        context: BrowserContext | None = None,
        config: ToolsetConfig | None = None,
    ) -> None:
        self.browser = browser
        self.config = config or ToolsetConfig()
        self.context = context
        self._own_context = context is None
        self._book: TabBook | None = None
        self._lock = asyncio.Lock()
        self._carried: list[dict[str, Any]] = []
        self._dialogs_pending: list[Dismissed] = []
        # One policy object for what navigate may reach, what file_upload may read and how long texts get.
        self.policies = Policies.for_toolset(
            upload_roots=self.config.upload_roots,
            allowed_schemes=self.config.allowed_schemes,
            downloads_dir=browser.downloads_dir,
            allowed_origins=self.config.allowed_origins,
            blocked_origins=self.config.blocked_origins,
        )
        self._members = {name: getattr(self, f"_m_{name}") for name in MEMBER_NAMES}

    # ----- lifecycle --------------------------------------------------------------------------

    async def start(self) -> BrowserToolset:
        """Create the context if none was given, adopt its tabs, and open one if it has none."""
        guard = self.policies.navigation.request_guard
        if self.context is None:
            self.context = await self.browser.new_context(navigation_policy=guard)
        elif guard is not None:
            await self.context.set_navigation_policy(guard)
        book = TabBook(
            self.browser,
            self.context,
            expose_download_paths=self.config.expose_download_paths,
            on_adopt=self._on_adopt,
        )
        self._book = book
        book.start()
        if not book.tabs:
            tab = await self.context.new_tab()
            book.adopt(tab, report=False)
        book.drain()  # tabs that exist before the first call were not opened by a call
        return self

    async def close(self) -> None:
        """Stop following the browser; close the context when the toolset created it."""
        if self._book is not None:
            for managed in self._book.tabs.values():
                for diag in (managed.console, managed.network):
                    if diag is not None:
                        diag.detach()
            self._book.stop()
        if self._own_context and self.context is not None:
            await self.context.close()

    async def __aenter__(self) -> BrowserToolset:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def book(self) -> TabBook:
        if self._book is None:
            raise RuntimeError("call start() first")
        return self._book

    def _on_adopt(self, managed: ManagedTab) -> None:
        tab = managed.tab
        if self.config.enabled("read_console"):
            managed.console = ConsoleLog(tab)
            managed.console.attach_all()
        if self.config.enabled("read_network"):
            managed.network = NetworkLog(tab)
            managed.network.attach_all()
        if managed.console is not None or managed.network is not None:

            def on_frame(kind: str, frame_id: Any) -> None:
                session = tab.frame_sessions.get(frame_id) if kind == "frame" else None
                if session is not None:
                    for diag in (managed.console, managed.network):
                        if diag is not None:
                            diag.attach(session)

            managed.unsubscribe.append(tab.add_listener(on_frame))
        if self.config.follow_popups and tab.opener_id and self._book is not None and self._book.active:
            self._book.activate(managed.tab_id)

    def to_dict(self) -> dict[str, Any]:
        """The `tools[]` entry for a request made with this toolset's configs."""
        entry: dict[str, Any] = {"type": TOOLSET_TYPE}
        if self.config.configs:
            entry["configs"] = {k: dict(v) if v is not None else None for k, v in self.config.configs.items()}
        return entry

    # ----- geometry ---------------------------------------------------------------------------

    @property
    def viewport(self) -> tuple[int, int]:
        """The CSS viewport every tab is emulated at (one constant size)."""
        w, h = self.browser.viewport_size
        return int(w), int(h)

    @property
    def image_size(self) -> tuple[int, int]:
        """The screenshot size the model sees; its coordinates are in this space."""
        w, h = self.viewport
        scale = self.image_scale
        return (w, h) if scale == 1.0 else (round(w * scale), round(h * scale))

    @property
    def image_scale(self) -> float:
        """Image pixels per CSS pixel: fits the long edge, the pixel budget and the visual-token budget."""
        w, h = self.viewport
        cfg = self.config
        scale = min(1.0, cfg.max_image_long_edge / max(w, h), math.sqrt(cfg.max_image_pixels / (w * h)))
        if cfg.max_image_width is not None:
            scale = min(scale, cfg.max_image_width / w)
        if cfg.max_image_height is not None:
            scale = min(scale, cfg.max_image_height / h)
        while scale > 0.05 and math.ceil(w * scale / 28) * math.ceil(h * scale / 28) > 4784:
            scale *= 0.98
        if scale >= 1.0:
            return 1.0
        # One whole-pixel width, so the size is the same on every capture.
        return max(1, math.floor(w * scale)) / w

    def _point(self, target: Mapping[str, Any]) -> tuple[float, float]:
        x, y = target["x"], target["y"]
        iw, ih = self.image_size
        if not (0 <= x < iw and 0 <= y < ih):
            raise MemberError(f"Error: ({x}, {y}) is outside the {iw}x{ih} viewport.")
        scale = self.image_scale
        return x / scale, y / scale

    # ----- tabs and refs ----------------------------------------------------------------------

    def _tab(self, tab_id: str | None) -> ManagedTab:
        book = self.book
        managed = book.get(tab_id)
        if managed is None or managed.tab.closed:
            if managed is not None:
                book.forget(managed.tab_id)
            if tab_id:
                raise MemberError(
                    f"Error: tab_id {json.dumps(one_line(tab_id, 100))} is not an open tab. Use list_tabs to see what is open."
                )
            raise MemberError(NO_TAB)
        if managed.tab.crashed:
            raise MemberError(
                f"Error: The tab {managed.tab_id} crashed. Close it with close_tab and open a new one."
            )
        return managed

    async def _resolve(self, managed: ManagedTab, ref: str) -> NodeRef:
        try:
            return await managed.refs.resolve(ref)
        except StaleRefError as exc:
            raise MemberError(self._stale_text(ref, exc.reason)) from None
        except CDPEngineError:
            raise MemberError(self._stale_text(ref, "unknown ref")) from None

    @staticmethod
    def _stale_text(ref: str, reason: str) -> str:
        shown = ref if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", ref) else "That ref"
        cause = STALE_CAUSES.get(reason, " The element changed since it was read.")
        return f"Error: {shown} is stale or not found on the current page. Re-read the page to get fresh references.{cause}"

    async def _element_point(
        self,
        managed: ManagedTab,
        ref: str,
        *,
        check_hit: bool = True,
        arm: bool = False,
        node: NodeRef | None = None,
    ) -> tuple[float, float]:
        node = node or await self._resolve(managed, ref)
        try:
            return await input.point_of(managed.tab, node, check_hit=check_hit, arm=arm)
        except input.NotClickableError as exc:
            raise MemberError(self._refused(ref, exc)) from None
        except CDPEngineError:
            raise MemberError(f"Error: The element {ref} is not visible.") from None

    async def _target_point(
        self, managed: ManagedTab, target: Mapping[str, Any], **kw: Any
    ) -> tuple[float, float]:
        if target["type"] == "ref":
            return await self._element_point(managed, target["ref"], **kw)
        return self._point(target)

    # ----- settling ---------------------------------------------------------------------------

    async def _settled(self, managed: ManagedTab, action: Any, *, scrolls: bool = True) -> Any:
        """Run an input action, then wait for what it caused (core.settle): a navigation (to load, or until
        it turns into a download or stops), else the DOM changes, transitions and requests it started (each
        bounded). No fixed sleeps. `scrolls`: the input may scroll an element (core.settle)."""
        tab = managed.tab
        self.book.download_seen.clear()
        report = await settle(
            tab, action, load_timeout=self.config.navigation_timeout, network=NetworkTracker.of(tab),
            quiet_after_load=False, stop_ends=True, until=self.book.download_seen, raise_closed=False, scrolls=scrolls,
        )  # fmt: skip
        if not report.loaded and report.navigated and not report.closed:
            log.debug("navigation after an action did not reach load")
        await self.book.settle_new_tabs(timeout=2.0)
        return report.value

    # ----- the call pipeline ------------------------------------------------------------------

    async def execute(self, name: str, raw_input: Any, *, deadline: float | None = None) -> Outcome:
        """Validate and run one member within its deadline (loop time; default: call_timeout less the
        report's budget from now); MemberError with the model-readable text on failure."""
        if name not in self._members:
            shown = one_line(str(name), 100).replace("'", "")
            raise MemberError(f"Error: unknown browser toolset member '{shown}'")
        if not self.config.enabled(name):
            raise MemberError(f"Error: {name} is not enabled in this environment.")
        try:
            params = validate(name, raw_input)
        except InputError as exc:
            raise MemberError(str(exc)) from None
        loop = asyncio.get_running_loop()
        end = deadline if deadline is not None else loop.time() + self.config.call_timeout - REPORT_BUDGET
        member = self._members[name]
        if name in TAB_MEMBERS:
            try:
                async with asyncio.timeout_at(end):
                    return await member(params)
            except TimeoutError:
                raise MemberError(self._overran(name)) from None
        managed = self._tab(params.get("tab_id"))
        try:
            return await bounded(managed.tab, member(params, managed), name, end - loop.time())
        except MemberError:
            raise
        except RendererHungError:
            raise MemberError(
                f"Error: The page in tab {managed.tab_id} is not responding (a script is busy). Close it with"
                " close_tab, or wait for the script to end and try again."
            ) from None
        except CommandTimeoutError as exc:
            if exc.method == name:  # the call's own deadline, not one command's
                raise MemberError(self._overran(name)) from None
            raise
        except TargetClosedError:
            if managed.tab.crashed:
                raise MemberError(
                    f"Error: The tab {managed.tab_id} crashed. Close it with close_tab and open a new one."
                ) from None
            raise MemberError(f"Error: The tab {managed.tab_id} was closed during {name}.") from None

    def _overran(self, name: str) -> str:
        return f"Error: {name} did not finish within {self.config.call_timeout:g} seconds."

    def collect(self, *, success: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Dismissed]]:
        """(tabs, state changes, dismissed dialogs) since the last report; drains the queue.

        A tab opened during a failed call gets no tab_opened (API rule): it just appears in the inventory.
        """
        book = self.book
        events = book.drain()
        changes = [e for e in events if isinstance(e, dict)]
        dialogs = [e for e in events if isinstance(e, Dismissed)]
        if not success:
            changes = [c for c in changes if c["type"] != "tab_opened"]
        return book.inventory(), changes, dialogs

    async def report(
        self, *, success: bool
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[Dismissed]]:
        """collect() after letting new tabs finish attaching and reading current titles (browser-level
        commands, which a hung renderer does not stop), within REPORT_BUDGET."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(REPORT_BUDGET):
                await self.book.settle_new_tabs(timeout=REPORT_BUDGET / 2)
                await self.book.refresh_titles()
        return self.collect(success=success)

    async def call(self, name: str, raw_input: Any) -> tuple[list[dict[str, Any]], bool]:
        """One member call as `tool_result` content: (content, is_error), within call_timeout in all
        (the wait for the call before it included)."""
        end = asyncio.get_running_loop().time() + self.config.call_timeout
        try:
            async with asyncio.timeout_at(end - REPORT_BUDGET):
                await self._lock.acquire()
        except TimeoutError:
            text = f"Error: {one_line(str(name), 100)} did not start within {self.config.call_timeout:g} seconds: the call before it is still running."
            return [text_block(text)], True
        try:
            if activity.watching():
                t0, started = time.perf_counter(), time.time()
                activity.begin()
                try:
                    content, is_error = await self._traced_call(name, raw_input, end - REPORT_BUDGET)
                finally:
                    activity.end()
                self._report(str(name), raw_input, content, is_error, t0, started)
                return content, is_error
            return await self._traced_call(name, raw_input, end - REPORT_BUDGET)
        finally:
            self._lock.release()

    async def _traced_call(
        self, name: str, raw_input: Any, deadline: float
    ) -> tuple[list[dict[str, Any]], bool]:
        if not tracing.enabled():
            return await self._call(name, raw_input, deadline)
        with tracing.span("cdp_engine.toolset.call", {"toolset.member": str(name)}) as current:
            content, is_error = await self._call(name, raw_input, deadline)
            if current is not None:
                current.set_attribute("toolset.is_error", is_error)
            return content, is_error

    def _report(
        self,
        name: str,
        raw_input: Any,
        content: list[dict[str, Any]],
        is_error: bool,
        t0: float,
        started: float,
    ) -> None:
        """The call as an Activity for the watchers (util/activity.py), on the tab it left active."""
        managed = self.book.get(None)
        tab = managed.tab if managed is not None else None
        text = next((b.get("text") for b in content if b.get("type") == "text"), None) if is_error else None
        activity.emit(
            activity.Activity(
                "toolset", name, started, activity.since(t0), tab=tab, url=tab.url if tab is not None else "",
                ok=not is_error, error=text, arguments=raw_input,
                boxes=(lambda: (ref_boxes(managed.last_tree, managed.refs), None)) if managed is not None else None,
            )
        )  # fmt: skip

    async def _call(self, name: str, raw_input: Any, deadline: float) -> tuple[list[dict[str, Any]], bool]:
        self.book.call_number += 1
        error: str | None = None
        outcome: Outcome = None
        try:
            outcome = await self.execute(name, raw_input, deadline=deadline)
        except MemberError as exc:
            error = exc.text
        except Exception as exc:  # a bug or a browser failure: a fixed text, the details to the log
            log.exception("browser toolset member %s failed", name)
            error = f"Error: {name} failed ({type(exc).__name__})."
        tabs, changes, dialogs = await self.report(success=error is None)
        if error is not None:
            self._carried += changes
            lines = dialog_lines([*self._dialogs_pending, *dialogs])
            self._dialogs_pending = []
            return [text_block(error), *[text_block(line) for line in lines]], True
        live = {t["tab_id"] for t in tabs}
        merged = merge_changes([*self._carried, *changes], live)
        self._carried = []
        if name == "new_tab" and isinstance(outcome, dict):
            opened = outcome["tab_id"]
            held = [c for c in merged if c["type"] == "tab_opened" and c["tab_id"] != opened]
            merged = [c for c in merged if not (c["type"] == "tab_opened" and c["tab_id"] != opened)]
            if not any(c["type"] == "tab_opened" for c in merged):
                merged.append({"type": "tab_opened", "tab_id": opened})
            self._carried = held
        block: dict[str, Any] = {"type": "browser_state", "tabs": tabs}
        if merged:
            block["state_changes"] = merged
        if name in TAB_MEMBERS:
            self._dialogs_pending += dialogs  # a tab result is exactly one block: the lines wait
            return [block], False
        lines = dialog_lines([*self._dialogs_pending, *dialogs])
        self._dialogs_pending = []
        content = self.render(name, raw_input, outcome)
        return [*content, *[text_block(line) for line in lines], block], False

    def render(self, name: str, raw_input: Any, outcome: Outcome) -> list[dict[str, Any]]:
        """A successful outcome as content blocks (the SDK renders its own the same way)."""
        if isinstance(outcome, NavigateOutcome):
            line = f"Navigated to {one_line(outcome.url)}"
            if outcome.title:
                line += f" — {one_line(outcome.title)}"
            if outcome.status is not None:
                line += f" (HTTP {outcome.status})"
            return [text_block(line)]
        if isinstance(outcome, ImageOutcome):
            return [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": outcome.media_type, "data": outcome.data},
                }
            ]
        if name in ("read_page", "find", "get_page_text", "read_console", "read_network", "javascript_exec"):
            return [text_block(str(outcome) or "(empty)")]
        blocks = [text_block(ack(name, raw_input if isinstance(raw_input, Mapping) else {}))]
        if isinstance(outcome, str) and outcome:
            blocks.append(text_block(one_line(outcome)))
        return blocks

    async def tool_result(self, block: Any) -> dict[str, Any]:
        """The tool_result answering one browser tool_use block (a dict or an SDK object)."""
        name, input_, block_id = _field(block, "name"), _field(block, "input"), _field(block, "id")
        content, is_error = await self.call(str(name), input_ if input_ is not None else {})
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": block_id,
            "toolset_name": TOOLSET_NAME,
            "content": content,
        }
        if is_error:
            result["is_error"] = True
        return result

    async def run_batch(self, content: Any) -> list[dict[str, Any]]:
        """Answer every browser tool_use of an assistant message's content, in order, halting after a failure.

        Dispatch is on (toolset_name, name): blocks of other tools are left to the caller.
        """
        results: list[dict[str, Any]] = []
        failed = False
        for block in content:
            if _field(block, "type") != "tool_use" or _field(block, "toolset_name") != TOOLSET_NAME:
                continue
            if failed:
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": _field(block, "id"),
                        "toolset_name": TOOLSET_NAME,
                        "content": HALT_TEXT,
                        "is_error": True,
                    }
                )
                continue
            result = await self.tool_result(block)
            failed = bool(result.get("is_error"))
            results.append(result)
        return results

    # ----- navigation and capture -------------------------------------------------------------

    async def _title(self, tab: Tab) -> str:
        try:
            value = await tab.evaluate("document.title", timeout=2.0)
        except (CDPEngineError, TimeoutError):
            return tab.title
        return value if isinstance(value, str) else tab.title

    async def _m_navigate(self, p: dict[str, Any], managed: ManagedTab) -> NavigateOutcome:
        tab = managed.tab
        url = p["url"]
        word = url.strip().lower()
        timeout = self.config.navigation_timeout
        shown = json.dumps(one_line(url, 300))
        # One deadline, navigation_timeout: a failed navigation leaves the tab on its page within it
        # (core/navigation.py).
        try:
            if word in ("back", "forward", "reload"):
                step = {"back": tab.back, "forward": tab.forward, "reload": tab.reload}[word]
                response = await step(timeout=timeout)
                if response is None:
                    where = "earlier" if word == "back" else "later"
                    raise MemberError(f"Error: There is no {where} page in this tab's history.")
                status = response.status if word == "reload" else None
            else:
                target = normalize_url(url, self.policies.navigation)
                self.book.download_seen.clear()
                try:
                    # Committed and parsed is enough to succeed; `load` gets a bounded wait on top, so a page
                    # with a hanging image or ad still navigates (the documented timeout is for no page at all).
                    response = await tab.goto(target, wait_until="domcontentloaded", timeout=timeout)
                    status = response.status
                    await wait_loaded(tab, min(LOAD_GRACE, timeout))
                except NavigationError as exc:
                    if "ERR_ABORTED" not in exc.error_text:
                        raise
                    # A URL that downloads a file aborts the navigation: that is a success, reported as a download.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.book.download_seen.wait(), 1.0)
                    if not self.book.download_seen.is_set():
                        raise
                    status = None
        except NavigationTimeoutError as exc:
            text = f"Error: Navigation to {shown} timed out after {timeout:g} seconds. The page may be unavailable."
            raise MemberError(
                text if not exc.replaced else f"{text} {one_line(navigation.where_now(exc))}"
            ) from None
        except NavigationError as exc:
            found = re.match(r"net::[A-Z_0-9]+", exc.error_text or "")
            code = found.group() if found else "net error"
            where = one_line(navigation.where_now(exc))
            if code == "net::ERR_BLOCKED_BY_CLIENT" and ":" in exc.error_text[len(code) :]:
                where = f"It was redirected to an origin that is not allowed. {where}"
            raise MemberError(f"Error: Navigation to {shown} failed ({code}). {where}") from None
        return NavigateOutcome(url=tab.url, status=status, title=await self._title(tab) or None)

    async def _capture(
        self, tab: Tab, clip: dict[str, float] | None, scale: float, marks: list[Mark] | None = None
    ) -> str:
        cfg = self.config
        options = core_files.ScreenshotOptions(
            format=cfg.screenshot_format,
            quality=cfg.screenshot_quality if cfg.screenshot_format != "png" else None,
            clip=clip,
            scale=scale if clip is not None else 1.0,
            optimize_for_speed=cfg.screenshot_optimize_for_speed,
        )
        world = await Worlds.of(tab).context(tab.main_frame_id) if marks else None
        return (await tab.capture_screenshot(options, timeout=15.0, marks=marks, world=world)).data

    async def _marks(self, managed: ManagedTab) -> list[Mark]:
        """The marks of the tab's latest read (its refs); the interactive elements are read first if none was."""
        if managed.last_tree is None:
            managed.last_tree = await self._tree(managed)
            await reader.read_page(
                managed.tab,
                managed.last_tree,
                managed.refs,
                filter="interactive",
                depth=15,
                subtree=None,
                viewport=self.image_size,
            )
        return ref_marks(managed.last_tree, managed.refs)

    def ref_boxes(self, tab_id: str | None = None) -> dict[str, dict[str, Any]]:
        """Library call (the toolset's input schema is fixed by its spec): the box of each ref of the tab's
        (default: the active tab's) latest read_page or find, keyed by ref: viewport CSS px, visible and
        viewport flags, and `screenshot` (the model's image pixels) when screenshots are scaled."""
        managed = self._tab(tab_id)
        scale = self.image_scale
        transform = core_files.ImageTransform(0.0, 0.0, scale, scale)
        return ref_boxes(managed.last_tree, managed.refs, self.viewport, transform)

    async def _scroll_offset(self, tab: Tab) -> tuple[float, float]:
        viewport = await tab.viewport()
        return float(viewport["scroll_x"]), float(viewport["scroll_y"])

    async def _m_screenshot(self, p: dict[str, Any], managed: ManagedTab) -> ImageOutcome:
        tab = managed.tab
        scale = self.image_scale
        clip = None
        if scale != 1.0:
            # Chromium does the resize: the viewport clipped at its scroll offset, captured at `scale`.
            x, y = await self._scroll_offset(tab)
            w, h = self.viewport
            clip = {"x": x, "y": y, "width": w, "height": h}
        marks = await self._marks(managed) if self.config.screenshot_marks else None
        data = await self._capture(tab, clip, scale, marks)
        iw, ih = self.image_size
        return ImageOutcome(data, f"image/{self.config.screenshot_format}", iw, ih)

    async def _m_zoom(self, p: dict[str, Any], managed: ManagedTab) -> ImageOutcome:
        x0, y0, x1, y1 = p["region"]
        iw, ih = self.image_size
        if not (0 <= x0 < x1 <= iw and 0 <= y0 < y1 <= ih):
            raise MemberError(
                f"Error: The region must lie within the {iw}x{ih} viewport, with x0 < x1 and y0 < y1."
            )
        scale = self.image_scale
        cx0, cy0, cw, ch = x0 / scale, y0 / scale, (x1 - x0) / scale, (y1 - y0) / scale
        zscale = min(iw / cw, ih / ch, 8.0)
        sx, sy = await self._scroll_offset(managed.tab)
        data = await self._capture(
            managed.tab, {"x": sx + cx0, "y": sy + cy0, "width": cw, "height": ch}, zscale
        )
        return ImageOutcome(
            data, f"image/{self.config.screenshot_format}", round(cw * zscale), round(ch * zscale)
        )

    # ----- pointer ----------------------------------------------------------------------------

    def _modifiers(self, p: Mapping[str, Any]) -> str:
        text = p.get("modifiers") or ""
        if text.strip():
            try:
                keys.parse_modifiers(text)
            except keys.UnknownKeyError:
                raise MemberError(
                    "Error: modifiers takes modifier keys only, such as shift or ctrl+shift."
                ) from None
        return text.strip()

    async def _click(self, p: dict[str, Any], managed: ManagedTab, button: str, count: int) -> None:
        modifiers = self._modifiers(p)
        tab = managed.tab
        target = p["target"]
        if target["type"] != "ref":
            x, y = self._point(target)

            async def at_point() -> None:
                async with input.hold(
                    tab, modifiers
                ):  # the modifier keys go down, and the click carries them
                    await input.click_at(tab, x, y, button=button, click_count=count)

            await self._settled(managed, at_point())
            return
        ref = target["ref"]
        node = await self._resolve(managed, ref)

        async def on_element() -> None:  # the core's one click: actionability, keys held, delivery checked
            try:
                await input.click_element(tab, node, button=button, click_count=count, hold_keys=modifiers)
            except input.NotClickableError as exc:
                raise MemberError(self._refused(ref, exc)) from None
            except ProtocolError:
                raise MemberError(f"Error: The element {ref} is not visible.") from None

        await self._settled(managed, on_element())

    @staticmethod
    def _refused(ref: str, exc: input.NotClickableError) -> str:
        """The toolset's words for input that cannot land on a ref's element (the core's reason, input.refusal)."""
        if exc.reason == input.NOT_VISIBLE:
            return f"Error: The element {ref} is not visible."
        if exc.reason == input.COVERED:
            cover = f" ({exc.by})" if exc.by else ""
            return (
                f"Error: The element {ref} is covered by another element{cover}; close or scroll away what"
                " covers it, or click by coordinate."
            )
        hint = (
            " Read the page again: something covers the element." if exc.reason == input.INTERCEPTED else ""
        )
        return f"Error: The element {ref} {input.refusal(exc)}.{hint}"

    async def _m_left_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "left", 1)

    async def _m_right_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "right", 1)

    async def _m_middle_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "middle", 1)

    async def _m_double_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "left", 2)

    async def _m_triple_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "left", 3)

    async def _m_hover(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = await self._target_point(managed, p["target"], check_hit=False)
        await self._settled(managed, input.move(managed.tab, x, y))

    async def _m_left_click_drag(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x0, y0 = self._point(p["from"])
        x1, y1 = self._point(p["target"])
        await self._settled(managed, input.drag(managed.tab, x0, y0, x1, y1, steps=10))

    async def _m_left_mouse_down(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._settled(managed, input.down(managed.tab, "left", x=x, y=y, moving=True))

    async def _m_left_mouse_up(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._settled(managed, input.up(managed.tab, "left", x=x, y=y, moving=True))

    async def _m_mouse_move(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._settled(managed, input.move(managed.tab, x, y))

    async def _m_scroll(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        pixels = p.get("scroll_amount", 3) * self.config.pixels_per_notch
        dx, dy = {"up": (0, -pixels), "down": (0, pixels), "left": (-pixels, 0), "right": (pixels, 0)}[
            p["scroll_direction"]
        ]
        await self._settled(managed, input.wheel(managed.tab, x, y, dx, dy))

    async def _m_scroll_to(self, p: dict[str, Any], managed: ManagedTab) -> None:
        ref = p["target"]["ref"]
        node = await self._resolve(managed, ref)
        try:
            await input.scroll_into_view(node)
        except CDPEngineError:
            raise MemberError(f"Error: The element {ref} is not visible.") from None
        await self._settled(managed, asyncio.sleep(0))

    # ----- keyboard and timing ----------------------------------------------------------------

    async def _m_type(self, p: dict[str, Any], managed: ManagedTab) -> None:
        text = p["text"]  # text alone goes into the focused field; Enter and Tab are keys that may scroll
        await self._settled(managed, input.type_text(managed.tab, text), scrolls=not text or "\n" in text or "\t" in text)

    async def _m_key(self, p: dict[str, Any], managed: ManagedTab) -> None:
        text, repeat = p["text"], p.get("repeat", 1)
        try:
            keys.parse_sequence(text)  # validate the whole sequence before pressing anything
        except keys.UnknownKeyError as exc:
            raise MemberError(f"Error: {exc}") from None
        await self._settled(managed, input.press(managed.tab, text, repeat=repeat))

    async def _m_hold_key(self, p: dict[str, Any], managed: ManagedTab) -> None:
        text, duration = p["text"], float(p["duration"])
        try:
            keys.parse_chord(text)  # an unknown key fails before anything is pressed
        except keys.UnknownKeyError as exc:
            raise MemberError(f"Error: {exc}") from None

        async def hold() -> None:
            async with input.hold(managed.tab, text):
                await asyncio.sleep(duration)  # holding for the requested time is the member's job

        await self._settled(managed, hold())

    async def _m_wait(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await asyncio.sleep(float(p["duration"]))

    # ----- reading ----------------------------------------------------------------------------

    async def _tree(self, managed: ManagedTab) -> Any:
        try:
            return await capture_ax_tree(managed.tab, interactive=self.config.interactive)
        except TargetClosedError:
            raise
        except CDPEngineError:
            raise MemberError(
                "Error: The page could not be read; try again after it finishes loading."
            ) from None

    def _window(self, managed: ManagedTab, text: str, read: Continuation) -> str:
        """The part of a whole read_page / get_page_text / find text that fits ToolsetConfig.text_chars, from
        `read.offset` (util.text_windows): an outline's part repeats the ancestors of its first line, and a cut part
        ends with the marker naming a continuation ref that read_page takes as its `ref` to read on."""
        limit = self.config.text_chars
        if read.offset == 0 and len(text) <= limit:
            return text
        start = window(text, limit, min(read.offset, len(text))).start
        head = context_lines(text, start) if read.kind == "tree" else []
        reserve = sum(len(line) + 1 for line in head) + 200  # the ancestors and the marker
        part = window(text, max(limit - reserve, limit // 2), start)
        token = None
        if part.more and read.kind != "find":
            token = managed.refs.mint()
            managed.continuations[token] = replace(read, offset=part.end, loader=_loader(managed))
            while len(managed.continuations) > CONTINUATIONS_KEPT:
                managed.continuations.pop(next(iter(managed.continuations)))
        how = "Narrow the query." if read.kind == "find" else reader.read_on(token, tree=read.kind == "tree")
        body = part.text.rstrip("\n")
        return "\n".join([*head, *([body] if body else []), part.marker(reader.WHAT, how)])

    async def _continue(self, managed: ManagedTab, ref: str) -> str:
        """The next part of a cut read_page / get_page_text, read from the page as it is now."""
        read: Continuation = managed.continuations[ref]
        if read.loader != _loader(managed):
            raise MemberError(self._stale_text(ref, "navigated"))
        if read.kind == "text":
            return self._window(managed, await self._page_text(managed), read)
        text = await self._read_tree(managed, read.scope, read.filter, read.depth)
        return self._window(managed, text, read)

    async def _m_read_page(self, p: dict[str, Any], managed: ManagedTab) -> str:
        subtree_ref = p.get("ref")
        if subtree_ref in managed.continuations:
            return await self._continue(managed, subtree_ref)
        filter, depth = p.get("filter"), p.get("depth", 15)
        text = await self._read_tree(managed, subtree_ref, filter, depth)
        return self._window(managed, text, Continuation("tree", subtree_ref, filter, depth))

    async def _read_tree(
        self, managed: ManagedTab, subtree_ref: str | None, filter: str | None, depth: int
    ) -> str:
        """The whole read_page text of the page or of one element's subtree."""
        node = await self._resolve(managed, subtree_ref) if subtree_ref else None
        root = managed.last_tree = await self._tree(managed)
        subtree = None
        if node is not None:
            subtree = reader.find_node(root, node.session.id or "", node.backend_node_id) if root else None
            if subtree is None:
                raise MemberError(self._stale_text(subtree_ref or "", "unknown ref"))
        return await reader.read_page(
            managed.tab,
            root,
            managed.refs,
            filter=filter,
            depth=depth,
            subtree=subtree,
            viewport=self.image_size,
        )

    async def _m_find(self, p: dict[str, Any], managed: ManagedTab) -> str:
        root = managed.last_tree = await self._tree(managed)
        return self._window(managed, reader.find(root, managed.refs, p["query"]), Continuation("find"))

    async def _m_get_page_text(self, p: dict[str, Any], managed: ManagedTab) -> str:
        return self._window(managed, await self._page_text(managed), Continuation("text"))

    async def _page_text(self, managed: ManagedTab) -> str:
        try:
            return await reader.page_text(managed.tab)
        except (JavaScriptError, TimeoutError):
            raise MemberError(
                "Error: The page text could not be read; try again after it finishes loading."
            ) from None

    async def _m_read_console(self, p: dict[str, Any], managed: ManagedTab) -> str:
        if managed.console is None:
            managed.console = ConsoleLog(managed.tab)
            managed.console.attach_all()
        await managed.console.settle()
        return managed.console.read()

    async def _m_read_network(self, p: dict[str, Any], managed: ManagedTab) -> str:
        if managed.network is None:
            managed.network = NetworkLog(managed.tab)
            managed.network.attach_all()
        return managed.network.read()

    async def _m_javascript_exec(self, p: dict[str, Any], managed: ManagedTab) -> str:
        limit = self.config.script_timeout
        started = asyncio.get_running_loop().time()
        managed.tab.scroll_epoch += 1  # the agent's script may change anything, scrolls included
        try:
            value = await scripts.evaluate(
                managed.tab.session,
                p["text"],
                user_gesture=True,
                repl_mode=True,
                script_timeout=limit,
                timeout=limit + 1,
            )
        except TimeoutError:
            raise MemberError(f"Error: The script did not finish within {limit:g} seconds.") from None
        except JavaScriptError as exc:
            text = scripts.exception_text(exc.details or {}, "Uncaught exception")
            if "terminated" in text.lower() and "execution" in text.lower():
                raise MemberError(f"Error: The script did not finish within {limit:g} seconds.") from None
            first = one_line(text.splitlines()[0] if text else "", 500)
            raise MemberError(f"Error: The script threw an exception: {first}") from None
        except CDPEngineError:
            if asyncio.get_running_loop().time() - started >= limit * 0.9:
                # Chromium terminates a script past `timeout` and answers with an internal error.
                raise MemberError(f"Error: The script did not finish within {limit:g} seconds.") from None
            raise MemberError("Error: The script could not be run on this page.") from None
        if "value" in value:
            v = value["value"]
            text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
        elif "unserializableValue" in value:
            text = str(value["unserializableValue"])
        elif value.get("type") == "undefined":
            text = "undefined"
        else:
            text = str(value.get("description") or value.get("type") or "")
        cap = self.policies.result.limit or reader.OUTPUT_CAP
        if len(text) > cap:
            text = text[: cap - 60] + f"\n{reader.TEXT_TRUNCATED}"
        return text

    # ----- forms and files --------------------------------------------------------------------

    async def _m_form_input(self, p: dict[str, Any], managed: ManagedTab) -> None:
        ref = p["target"]["ref"]
        node = await self._resolve(managed, ref)
        value = p["value"]
        try:
            outcome = await self._settled(managed, input.call_on(node, FORM_INPUT_JS, value))
        except CDPEngineError:
            raise MemberError(self._stale_text(ref, "the element was removed from the page")) from None
        errors = {
            "file": f"Error: {ref} is a file input; use file_upload.",
            "needs_bool": f"Error: {ref} is a checkbox or radio button; set it to true or false.",
            "radio_false": f"Error: {ref} is a radio button and cannot be cleared; set the one you want in its group to true instead.",
            "not_checkbox": f"Error: {ref} is not a checkbox; give it a text or number value.",
            "no_option": f"Error: The select {ref} has no option with that value or text.",
            "option_disabled": f"Error: That option of {ref} is disabled.",
            "disabled": f"Error: {ref} is disabled.",
            "readonly": f"Error: {ref} is read-only.",
            "rejected": f"Error: {ref} did not accept that value; check the format the field expects.",
            "refused": f"Error: {ref} did not change; the page may be preventing it.",
            "not_field": f"Error: {ref} is not a form field.",
        }
        if outcome != "ok":
            raise MemberError(errors.get(str(outcome), f"Error: {ref} is not a form field."))

    def _upload_paths(self, p: Mapping[str, Any]) -> list[str]:
        """The files to upload, each checked by the file policy (read only inside the upload roots)."""
        files: list[str] = []
        policy = self.policies.files
        texts = {
            "files.invalid_path": "is not a valid path",
            "files.no_upload_roots": "",
            "files.outside_upload_roots": "is outside the allowed upload folders",
            "files.not_a_file": "is not an existing file",
        }
        for i, raw in enumerate(p.get("paths") or []):
            try:
                files.append(str(policy.upload_path(raw)))
            except PolicyError as exc:
                if exc.rule == "files.no_upload_roots":
                    raise MemberError("Error: file_upload has no configured upload folders.") from None
                raise MemberError(f"Error: paths[{i}] {texts.get(exc.rule, 'is not allowed')}.") from None
        for i, doc in enumerate(p.get("document_ids") or []):
            mapped = self.config.upload_documents.get(doc)
            if mapped is None:
                raise MemberError(f"Error: document_ids[{i}] is not in the upload allowlist.")
            resolved = Path(os.path.realpath(mapped))
            if not resolved.is_file():
                raise MemberError(f"Error: document_ids[{i}] does not name an existing file.")
            files.append(str(resolved))
        return files

    async def _m_file_upload(self, p: dict[str, Any], managed: ManagedTab) -> str | None:
        ref = p["target"]["ref"]
        files = self._upload_paths(p)
        # The application's allowlist of documents is allowed as configured; paths only inside the roots.
        allowed = self.policies.files.listing(files)
        node = await self._resolve(managed, ref)
        try:
            target = await core_files.file_input(node.session, node.backend_node_id)
        except CDPEngineError:
            raise MemberError(self._stale_text(ref, "the element was removed from the page")) from None
        if target is not None:
            if len(files) > 1 and not target.multiple:
                raise MemberError(f"Error: {ref} takes one file.")
            if target.disabled:
                raise MemberError(f"Error: {ref} is disabled.")
            await self._settled(managed, target.set_files(files, allowed))
            return None
        await self._settled(managed, self._upload_through_chooser(managed, node, ref, files, allowed))
        return None

    async def _upload_through_chooser(
        self, managed: ManagedTab, node: NodeRef, ref: str, files: list[str], policy: FilePolicy
    ) -> None:
        """A button that opens a file chooser: intercept the chooser, click, and fill the input it names."""
        tab = managed.tab
        async with core_files.ChooserWatch([tab.session, node.session]) as watch:
            try:
                await input.click_element(tab, node)
            except input.NotClickableError as exc:
                raise MemberError(self._refused(ref, exc)) from None
            try:
                chooser = await watch.next(2.0)
            except TimeoutError:
                raise MemberError(
                    f"Error: {ref} is not a file input, and clicking it opened no file chooser."
                ) from None
            if len(files) > 1 and not chooser.multiple:
                raise MemberError(f"Error: The file chooser {ref} opened takes one file.")
            if chooser.backend_node_id is None:
                raise MemberError(f"Error: {ref} opened a file chooser that cannot be filled.")
            await chooser.set_files(files, policy)

    # ----- tabs -------------------------------------------------------------------------------

    def _named_tab(self, tab_id: str) -> ManagedTab:
        managed = self.book.tabs.get(tab_id)
        if managed is None or managed.tab.closed:
            raise MemberError(
                f"Error: tab_id {json.dumps(one_line(tab_id, 100))} is not an open tab. Use list_tabs to see what is open."
            )
        return managed

    async def _m_new_tab(self, p: dict[str, Any]) -> dict[str, Any]:
        assert self.context is not None
        tab = await self.context.new_tab()
        managed = self.book.adopt(tab)
        self.book.activate(managed.tab_id)
        with contextlib.suppress(CDPEngineError):
            await tab.activate()
        entry = self.book.entry(managed)
        entry["url"] = "about:blank"
        return entry

    async def _m_switch_tab(self, p: dict[str, Any]) -> dict[str, Any]:
        managed = self._named_tab(p["tab_id"])
        self.book.activate(managed.tab_id)
        with contextlib.suppress(CDPEngineError):
            await managed.tab.activate()
        return self.book.entry(managed)

    async def _m_close_tab(self, p: dict[str, Any]) -> None:
        managed = self._named_tab(p["tab_id"])
        await managed.tab.close()
        self.book.forget(managed.tab_id)
        active = self.book.get(None)
        if active is not None:
            with contextlib.suppress(CDPEngineError):
                await active.tab.activate()

    async def _m_list_tabs(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        return self.book.inventory()


def _field(block: Any, name: str) -> Any:
    if isinstance(block, Mapping):
        return block.get(name)
    return getattr(block, name, None)


FORM_INPUT_JS = """function(value) {
  let el = this;
  if (el.tagName === 'LABEL' && el.control) el = el.control;
  const tag = el.tagName;
  const type = (el.type || '').toLowerCase();
  const fire = () => {
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.dispatchEvent(new Event('change', {bubbles: true}));
  };
  if (tag === 'INPUT' && type === 'file') return 'file';
  if (el.disabled || (el.getAttribute && el.getAttribute('aria-disabled') === 'true')) return 'disabled';
  if (tag === 'INPUT' && (type === 'checkbox' || type === 'radio')) {
    if (typeof value !== 'boolean') return 'needs_bool';
    if (type === 'radio' && value === false && el.checked) return 'radio_false';
    if (el.checked !== value) el.click();
    return el.checked === value ? 'ok' : 'refused';
  }
  const role = (el.getAttribute && el.getAttribute('role')) || '';
  if (['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {
    if (typeof value !== 'boolean') return 'needs_bool';
    const current = () => el.getAttribute('aria-checked') === 'true';
    if (role.endsWith('radio') && value === false && current()) return 'radio_false';
    if (current() !== value) el.click();
    return current() === value ? 'ok' : 'refused';
  }
  if (typeof value === 'boolean') {
    return (tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'INPUT' || el.isContentEditable) ? 'not_checkbox' : 'not_field';
  }
  const text = String(value);
  if (tag === 'SELECT') {
    const options = Array.from(el.options);
    const norm = s => s.replace(/\\s+/g, ' ').trim();
    const option = options.find(o => o.value === text) || options.find(o => norm(o.text) === norm(text))
      || options.find(o => norm(o.text).toLowerCase() === norm(text).toLowerCase());
    if (!option) return 'no_option';
    if (option.disabled) return 'option_disabled';
    if (!el.multiple) el.value = option.value;
    option.selected = true;
    fire();
    return 'ok';
  }
  const textual = tag === 'TEXTAREA' || (tag === 'INPUT' && !['button', 'submit', 'reset', 'image', 'hidden'].includes(type));
  if (textual) {
    if (el.readOnly) return 'readonly';
    const proto = tag === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    el.focus();
    setter.call(el, text);
    fire();
    if (el.value !== text && !(type === 'number' && Number(el.value) === Number(text))) return 'rejected';
    return 'ok';
  }
  if (el.isContentEditable) {
    el.focus();
    el.textContent = text;
    el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertReplacementText', data: text}));
    return 'ok';
  }
  return 'not_field';
}"""
