"""Tool registration and the per-call context tools run in.

A tool is a plain async function `(ctx, **arguments) -> data`; its signature is its schema.
`Ctx` resolves explicit targets (page_id, frame_id, refs) strictly, runs actions under the
modal guard and with their observation, and records what the operation metadata reports.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..core.inflight import NetworkTracker
from ..core.liveness import check_responsive
from ..core.pipeline import Call, Settling, act
from ..core.refs import NodeRef
from ..core.settle import GUARDED_TOOL_CALL
from .caps import CAP_OF
from .envelope import Operation, ToolError
from .instance_manager import InstanceManager
from .instances import Instance, Page
from .observe import ObservationTimeout, Observer, PageGone, Target, WaitForSpec, call_in_frame
from .params import signature_schema
from .server_config import CAMOUFOX_OPTIONS, Config

ToolFunc = Callable[..., Awaitable[dict[str, Any]]]
Scope = Literal["server", "lifecycle", "instance"]

COMMON_DOCS = {
    "instance": "Instance name.",
    "page_id": "Page ID from browser_tabs (default: the selected page).",
    "frame_id": "Frame ID from browser_frames (never another frame).",
    "wait_for": "Optional observation, armed before the action and awaited after it.",
    "ref": "Ref from the latest browser_snapshot (e.g. e12).",
}


def enabled(name: str, caps: tuple[str, ...]) -> bool:
    """Whether the tool is offered under these caps (a tool in no group counts as core)."""
    return "all" in caps or CAP_OF.get(name, "core") in caps


@dataclass
class ToolSpec:
    name: str
    func: ToolFunc
    description: str
    schema: dict[str, Any]
    scope: Scope
    lock: Literal["action", "recovery", "none"]
    modal_exempt: bool
    read_only: bool

    @property
    def cap(self) -> str:
        return CAP_OF.get(self.name, "core")

    def listed_schema(self, caps: tuple[str, ...]) -> dict[str, Any]:
        """The inputSchema tools/list shows: without the always-refused parameters unless `all` is selected."""
        hidden = UNSUPPORTED_PARAMS.get(self.name, ())
        if not hidden or "all" in caps:
            return self.schema
        properties = {k: v for k, v in self.schema["properties"].items() if k not in hidden}
        return {**self.schema, "properties": properties}


REGISTRY: dict[str, ToolSpec] = {}
# Reference parameters this engine always refuses (Camoufox/Firefox options): still accepted and refused with
# unsupported_capability, but advertised only under `all` (the reference's complete surface).
UNSUPPORTED_PARAMS: dict[str, tuple[str, ...]] = {"browser_create_instance": CAMOUFOX_OPTIONS}


def tools_for(caps: tuple[str, ...]) -> list[ToolSpec]:
    """The registered tools these caps offer (registration order)."""
    return [spec for spec in REGISTRY.values() if enabled(spec.name, caps)]


def tool(
    *,
    scope: Scope = "instance",
    lock: Literal["action", "recovery", "none"] = "action",
    modal_exempt: bool = False,
    read_only: bool = False,
    docs: dict[str, str] | None = None,
) -> Callable[[ToolFunc], ToolFunc]:
    """Register an async tool function; its name, docstring and signature become the MCP tool."""

    def register(func: ToolFunc) -> ToolFunc:
        descriptions = {**COMMON_DOCS, **(docs or {})}
        prepend = (
            {"instance": {"type": "string", "description": COMMON_DOCS["instance"]}}
            if scope == "instance"
            else None
        )
        schema = signature_schema(func, descriptions, prepend=prepend)
        description = " ".join((func.__doc__ or "").split())
        REGISTRY[func.__name__] = ToolSpec(
            func.__name__,
            func,
            description,
            schema,
            scope,
            lock if scope == "instance" else "none",
            modal_exempt,
            read_only,
        )
        return func

    return register


# Errors that, raised before the tool touched the page, mean nothing happened.
PRECHECK_ERRORS = frozenset(
    {
        "invalid_params", "page_not_found", "frame_not_found", "modal_state_blocked", "instance_not_found",
        "instance_crashed", "instance_already_exists", "instance_limit_exceeded", "profile_dir_in_use",
        "binary_not_found", "stale_ref", "unsupported_capability", "download_not_found", "element_not_found",
    }
)  # fmt: skip


class Ctx:
    """What a tool call knows: its instance, its operation record, its deadline."""

    def __init__(
        self, manager: InstanceManager, op: Operation, deadline: float, owner: str | None = None
    ) -> None:
        self.manager = manager
        self.config: Config = manager.config
        self.op = op
        self.deadline = deadline
        self.owner = owner  # whose instances this call sees (None: server-level, ownership off)
        self.instance: Instance = None  # type: ignore[assignment]  # set for instance-scoped tools
        self.touched = False
        self.entered = False  # past the instance lock and the modal check
        self.completed: dict[str, Any] | None = None  # action keys once the action ran (observation pending)
        self.observing: str | None = None

    def touch(self) -> None:
        """Mark that side effects may have started (errors from here on are outcome 'unknown')."""
        self.touched = True

    def remaining(self) -> float:
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    # ----- targets ------------------------------------------------------------------------------

    async def page(self, page_id: str | None = None, *, create: bool = True) -> Page:
        """The explicit page (strict: page_not_found), else the selected one, created when there is none."""
        inst = self.instance
        if page_id is not None:
            page = inst.by_id.get(page_id)
            if page is None or not page.live:
                raise ToolError("page_not_found", f"Page '{page_id}' is not open in instance '{inst.name}'.")
        else:
            page = inst.selected
            if page is not None and page.tab.crashed:
                raise ToolError(
                    "internal_error",
                    "The selected page crashed; close it with browser_close or open a new tab.",
                )
            if page is None or not page.live:
                if not create:
                    raise ToolError("page_not_found", f"Instance '{inst.name}' has no open page.")
                self.touch()
                page = await inst.new_page()
        await page.ready
        self.op.page_id = page.page_id
        await check_responsive(page.tab)  # a page found hung fails within the probe's second
        return page

    def frame(self, page: Page, frame_id: str | None) -> tuple[str, bool]:
        """(CDP frame id, explicit?) — the main frame when omitted; frame_not_found for a detached/foreign id."""
        if frame_id is None:
            cdp = page.tab.main_frame_id
            self.op.frame_id = page.frame_id(cdp)
            return cdp, False
        explicit = page.cdp_frame(frame_id)
        if explicit is None:
            raise ToolError(
                "frame_not_found", f"Frame '{frame_id}' is not attached to page '{page.page_id}'."
            )
        self.op.frame_id = frame_id
        return explicit, True

    async def ref(self, page: Page, ref: str, cdp_frame: str | None = None) -> NodeRef:
        """The ref's node, identity-checked; stale_ref when it is gone or belongs to another frame."""
        node = await page.refs.resolve(ref)
        if cdp_frame is not None and not _frame_within(page, node.frame_id, cdp_frame):
            raise ToolError(
                "stale_ref",
                f"Ref '{ref}' belongs to another frame than '{self.op.frame_id}'. Capture a new snapshot with "
                "browser_snapshot for this frame.",
            )
        return node

    # ----- running ------------------------------------------------------------------------------

    async def guard(self, page: Page, action: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """Run the action; if a modal opens and stays open past the grace period, return modal_state_blocked.

        A concurrent browser_handle_dialog / browser_file_upload within the grace period lets the action
        finish normally. After it, the action keeps running in the background until the modal is handled.
        """
        inst = self.instance
        loop = asyncio.get_running_loop()
        await inst.bring_to_front(page)
        task: asyncio.Task[Any] = asyncio.ensure_future(action())
        detached = False
        waiters: list[asyncio.Future[None]] = []

        def changed() -> asyncio.Future[Any]:
            waiters.append(inst.modal_changed())
            return waiters[-1]

        try:
            while True:
                await asyncio.wait({task, changed()}, return_when=asyncio.FIRST_COMPLETED)
                if task.done():
                    return task.result()
                if not inst.pending_modals():
                    continue
                grace_end = loop.time() + self.config.modal_grace
                while not task.done() and inst.pending_modals() and loop.time() < grace_end:
                    await asyncio.wait(
                        {task, changed()},
                        timeout=grace_end - loop.time(),
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                if task.done():
                    return task.result()
                modals = inst.pending_modals()
                if modals:
                    detached = True
                    inst.background.add(task)
                    task.add_done_callback(_forget(inst))
                    raise ToolError(
                        "modal_state_blocked",
                        f"The action opened a modal and is waiting on it. {modals[0].blocking_message()}",
                        data={"action_completed": False, "modal_state": [m.describe() for m in modals]},
                    )
        finally:
            for waiter in waiters:
                inst.forget_waiter(waiter)
            if not detached and not task.done():
                task.cancel()

    async def run(
        self,
        page: Page,
        action: Callable[[], Awaitable[dict[str, Any]]],
        *,
        wait_for: dict[str, Any] | None = None,
        cdp_frame: str | None = None,
        explicit_frame: bool = False,
        settles: bool = False,
        scrolls: bool = True,
    ) -> dict[str, Any]:
        """Arm the observation, run the action once (modal-guarded), then wait for the observation. `settles`:
        the action is input, and the core's settle waits for what it caused (the DOM changes, transitions,
        requests and navigation it started, each bounded), as after every other surface's input, so the
        next snapshot shows what a click opened. `scrolls`: the input may scroll an element (core.settle)."""
        if settles:
            inner = action
            timeout = self.config.navigation_timeout

            async def action() -> dict[str, Any]:
                # A dialog the action opens is the modal guard's: the action waits while it is handled.
                settling = Settling(GUARDED_TOOL_CALL, network=NetworkTracker.of(page.tab), load_timeout=timeout)
                value: dict[str, Any] = (await act(page.tab, Call(inner, scrolls=scrolls), settling)).value
                return value

        spec = WaitForSpec(wait_for) if wait_for is not None else None
        frame = cdp_frame or page.tab.main_frame_id
        if spec is not None and spec.kind == "element":
            try:
                await call_in_frame(
                    page, frame, "function(s) { document.querySelector(s); return true; }", [spec.selector]
                )
            except ToolError as exc:
                raise ToolError(
                    "invalid_params", f"wait_for.selector is not a valid CSS selector: {exc.message}"
                ) from None
        observer = Observer(spec, Target(page, frame, explicit_frame)) if spec is not None else None
        if observer is not None:
            observer.arm()
        self.touch()
        try:
            result = await self.guard(page, action)
            if observer is None or spec is None:
                return result
            data = {**result, "action_completed": True}
            self.completed = data
            self.observing = spec.kind
            unmatched = {**data, "observation": {"kind": spec.kind, "matched": False}}
            try:
                facts = await observer.wait(spec.timeout_ms / 1000)
            except ObservationTimeout:
                raise ToolError(
                    "observation_timeout", "Action completed but its observation timed out", data=unmatched
                ) from None
            except PageGone:
                raise ToolError("internal_error", "Observed page closed or crashed", data=unmatched) from None
            except ToolError as exc:
                raise ToolError(exc.error_type, exc.message, data=unmatched) from None
            return {**data, "observation": facts}
        finally:
            if observer is not None:
                observer.disarm()


def _forget(inst: Instance) -> Callable[[asyncio.Future[Any]], None]:
    def done(task: asyncio.Future[Any]) -> None:
        inst.background.discard(task)  # type: ignore[arg-type]
        if not task.cancelled():
            task.exception()

    return done


def _frame_within(page: Page, frame: str, ancestor: str) -> bool:
    seen = set()
    current: str | None = frame
    while current is not None and current not in seen:
        if current == ancestor:
            return True
        seen.add(current)
        info = page.tab.frames.get(current)
        current = info.parent_id if info else None
    return False
