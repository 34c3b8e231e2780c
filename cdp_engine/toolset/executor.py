"""The 31 members of `browser_toolset_20260801` on cdp-engine, and the batch loop around them.

`BrowserToolset` owns one browser context (its own unless one is given). `execute` validates a
member's input exactly and runs it, returning an SDK-neutral outcome or raising `MemberError`
with a fixed text the model can read; `call` adds the `browser_state` block and renders the
`tool_result` content; `run_batch` answers every browser `tool_use` of an assistant message in
order and applies the halt rule. The SDK driver (`sdk.py`) reuses `execute` and `report`.

The members are in groups, each a short translation to core calls: page_members.py (navigate, screenshot, zoom,
the tabs), pointer_members.py (clicks, drag, scroll), input_members.py (keys, typing, forms, uploads),
reading_members.py (read_page, find, page text, console, network, scripts); member_host.py holds what they
share (tabs and refs, geometry, the settle). The configuration and the outcomes are toolset/driver_config.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.liveness import bounded
from ..core.policies import Policies
from ..errors import CommandTimeoutError, RendererHungError, TargetClosedError
from ..snapshot.boxes import ref_boxes
from ..util import activity, tracing
from .diagnostics import ConsoleLog, NetworkLog
from .driver_config import ImageOutcome, MemberError, NavigateOutcome, Outcome, ToolsetConfig
from .input_members import InputMembers
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
from .page_members import PageMembers
from .pointer_members import PointerMembers
from .reading_members import ReadingMembers
from .state import Dismissed, ManagedTab, TabBook, merge_changes, one_line

if TYPE_CHECKING:
    from ..core.browser import Browser, BrowserContext

log = logging.getLogger("cdp_engine.toolset")

DIALOG_LINES_MAX = 3
DIALOG_MESSAGE_MAX = 200
REPORT_BUDGET = 1.0  # seconds of a call's deadline kept for its browser_state report (browser-level commands)


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


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class BrowserToolset(PageMembers, PointerMembers, InputMembers, ReadingMembers):
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

def _field(block: Any, name: str) -> Any:
    if isinstance(block, Mapping):
        return block.get(name)
    return getattr(block, name, None)
