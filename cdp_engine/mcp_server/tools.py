"""The tool surface, independent of any MCP SDK: `await BrowserTools(manager).call(name, arguments)` -> envelope.

Every call: validate arguments against the tool's schema (invalid_params), resolve the
instance, take its action lock (or the separate recovery lock for browser_handle_dialog and
browser_file_upload) within the operation deadline, refuse while a modal is pending, run, and
wrap the result or error in the envelope with operation metadata, bounded in size.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from ..core.input import NotInteractableError
from ..core.keys import UnknownKeyError
from ..core.liveness import diagnose
from ..core.policies import PolicyError
from ..core.refs import StaleRefError
from ..errors import (
    CDPEngineError,
    CommandTimeoutError,
    ConnectionClosedError,
    JavaScriptError,
    RendererHungError,
)
from ..snapshot.boxes import ref_boxes
from ..util import activity, tracing
from . import inspection, instance_tools, interaction, navigation_tools, pages  # noqa: F401  (they register tools)
from .envelope import Operation, ToolError, bound, error, success
from .instance_manager import InstanceManager
from .instances import Instance
from .observe import PageGone
from .params import validate
from .registry import PRECHECK_ERRORS, REGISTRY, Ctx, ToolSpec, enabled, tools_for
from .server_config import Config

log = logging.getLogger("cdp_engine.mcp")


class BrowserTools:
    """Dispatches tool calls by name; `list_tools()` describes them (name, description, inputSchema)."""

    def __init__(self, manager: InstanceManager | None = None, config: Config | None = None) -> None:
        self.manager = manager or InstanceManager(config or Config())
        self.config = self.manager.config

    def list_tools(self) -> list[dict[str, Any]]:
        """The tools the configured caps offer (Config.caps), in the reference's order."""
        caps = self.config.caps
        return [
            {
                "name": spec.name,
                "description": spec.description,
                "inputSchema": spec.listed_schema(caps),
                "annotations": {"readOnlyHint": spec.read_only},
            }
            for spec in sorted(tools_for(caps), key=_order)
        ]

    async def call(
        self, name: str, arguments: dict[str, Any] | None = None, *, session: str | None = None
    ) -> dict[str, Any]:
        """The envelope of one tool call (never raises for tool failures).

        `session` is the MCP transport session the call came in on; with per-session ownership it decides
        which instances the call sees (None: a call without a session).
        """
        envelope, _ = await self.call_raw(name, arguments, session=session)
        return envelope

    async def call_raw(
        self, name: str, arguments: dict[str, Any] | None = None, *, session: str | None = None
    ) -> tuple[dict[str, Any], bytes]:
        """The envelope and its JSON bytes (already bounded by max_result_bytes); a span when tracing is on,
        an Activity for the watchers when any (reported by _call_raw, which knows the page)."""
        if activity.watching():
            activity.begin()
            try:
                return await self._traced_call_raw(name, arguments, session)
            finally:
                activity.end()
        return await self._traced_call_raw(name, arguments, session)

    async def _traced_call_raw(
        self, name: str, arguments: dict[str, Any] | None, session: str | None
    ) -> tuple[dict[str, Any], bytes]:
        if not tracing.enabled():
            return await self._call_raw(name, arguments, session=session)
        with tracing.span("cdp_engine.mcp.tool", {"mcp.tool": str(name)}) as current:
            envelope, raw = await self._call_raw(name, arguments, session=session)
            if current is not None:
                current.set_attribute("mcp.status", str(envelope.get("status")))
                if envelope.get("error_type"):
                    current.set_attribute("mcp.error_type", str(envelope["error_type"]))
                if envelope.get("instance"):
                    current.set_attribute("mcp.instance", str(envelope["instance"]))
            return envelope, raw

    async def _call_raw(
        self, name: str, arguments: dict[str, Any] | None = None, *, session: str | None = None
    ) -> tuple[dict[str, Any], bytes]:
        arguments = dict(arguments or {})
        t0, started = time.perf_counter(), time.time()
        spec = REGISTRY.get(name)
        op = Operation(tool=name)
        instance_name = _instance_name(spec, arguments)
        loop = asyncio.get_running_loop()
        owner = self.manager.owner_for(session)
        ctx = Ctx(self.manager, op, loop.time() + self.config.operation_timeout, owner)
        try:
            if spec is None:
                raise ToolError("invalid_params", f"Unknown tool '{name}'.")
            if not enabled(name, self.config.caps):
                raise ToolError(
                    "invalid_params",
                    f"Tool '{name}' is not enabled on this server: it belongs to the '{spec.cap}' caps; start the "
                    f"server with caps '{spec.cap}' (BROWSER_MCP_CAPS={spec.cap}) or 'all'.",
                )
            args = validate(_without_element(arguments, spec), spec.schema)
            async with asyncio.timeout(self.config.operation_timeout) as deadline:
                try:
                    data = await self._run(spec, args, ctx)
                except TimeoutError as exc:
                    if deadline.expired():
                        raise
                    if isinstance(exc, CommandTimeoutError):  # one command overran: is the page hung?
                        raise self._map(await self._diagnose(exc, ctx), ctx) from None
                    raise ToolError("internal_error", "A browser command timed out.") from None
            envelope = success(instance_name, data, op)
        except ToolError as exc:
            envelope = self._error(instance_name, exc, ctx)
        except TimeoutError:
            data = None
            if ctx.completed is not None:
                data = {**ctx.completed, "observation": {"kind": ctx.observing, "matched": False}}
            if ctx.entered:
                ctx.touch()
            timed_out = ToolError(
                "operation_timeout", "The tool exceeded the server operation deadline.", data=data
            )
            envelope = self._error(instance_name, timed_out, ctx)
        except Exception as exc:  # every other failure is reported, never raised into the transport
            envelope = self._error(instance_name, self._map(exc, ctx), ctx)
        if activity.watching():
            self._report(name, arguments, envelope, ctx, t0, started)
        limit = self.manager.policies.result.limit
        return bound(envelope, op, limit if limit is not None else self.config.max_result_bytes)

    @staticmethod
    def _report(
        name: str, arguments: dict[str, Any], envelope: dict[str, Any], ctx: Ctx, t0: float, started: float
    ) -> None:
        """The call as an Activity for the watchers (a live view, a recorder: util/activity.py)."""
        page = ctx.instance.by_id.get(ctx.op.page_id or "") if ctx.instance is not None else None
        tab = page.tab if page is not None else None
        activity.emit(
            activity.Activity(
                "mcp", name, started, activity.since(t0), tab=tab, url=tab.url if tab is not None else "",
                ok=envelope.get("status") != "error", error=envelope.get("error_type"), arguments=arguments,
                boxes=(lambda: (ref_boxes(page.last_tree, page.refs), None)) if page is not None else None,
            )
        )  # fmt: skip

    def _error(self, instance: str | None, exc: ToolError, ctx: Ctx) -> dict[str, Any]:
        # Nothing happened when the call was refused before it entered the instance, or failed a pre-check
        # before touching anything; otherwise side effects may have happened.
        started = ctx.touched or (ctx.entered and exc.error_type not in PRECHECK_ERRORS)
        ctx.op.outcome = "unknown" if started else "not_started"
        return error(instance, exc, ctx.op)

    async def _diagnose(self, exc: CommandTimeoutError, ctx: Ctx) -> CommandTimeoutError:
        """A command of a page tool that overran: one liveness probe of the page tells a hung renderer."""
        page = ctx.instance.by_id.get(ctx.op.page_id or "") if ctx.instance is not None else None
        if page is None or not page.live:
            return exc
        return await diagnose(page.tab, exc)

    def _map(self, exc: Exception, ctx: Ctx) -> ToolError:
        inst: Instance | None = ctx.instance
        if isinstance(exc, PageGone):
            return ToolError("internal_error", "The page closed or crashed during the operation.")
        if isinstance(exc, StaleRefError):
            return ToolError(
                "stale_ref",
                f"Ref '{exc.ref}' not found in current page snapshot ({exc.reason}). "
                "Capture a new snapshot with browser_snapshot.",
            )
        if isinstance(exc, PolicyError):
            return ToolError("invalid_params", f"{exc} [rule {exc.rule}]")
        if isinstance(exc, NotInteractableError):
            return ToolError("invalid_params", str(exc))
        if isinstance(exc, UnknownKeyError):
            return ToolError("invalid_params", str(exc))
        if isinstance(exc, ConnectionClosedError):
            if inst is not None and inst.crashed:
                return ToolError("instance_crashed", f"Instance '{inst.name}' crashed during the operation.")
            return ToolError("internal_error", f"The page closed or crashed during the operation: {exc}")
        if isinstance(exc, RendererHungError):
            return ToolError(
                "internal_error",
                "The page is not responding: its renderer is busy in a script and answers nothing while the "
                f"browser answers ({exc.method} got no answer within {exc.timeout:g} s). Close the page with "
                "browser_close, or wait for the script to end and try again.",
            )
        if isinstance(exc, CommandTimeoutError):
            return ToolError("internal_error", f"The browser did not answer in time: {exc}")
        if isinstance(exc, JavaScriptError):
            return ToolError("internal_error", f"Page script failed: {exc}")
        if isinstance(exc, CDPEngineError):
            return ToolError("internal_error", str(exc))
        log.exception("tool %s failed", ctx.op.tool)
        return ToolError("internal_error", f"{type(exc).__name__}: {exc}")

    async def _run(self, spec: ToolSpec, args: dict[str, Any], ctx: Ctx) -> dict[str, Any]:
        if spec.scope != "instance":
            ctx.entered = True
            return await spec.func(ctx, **args)
        name = args.pop("instance")
        inst = self.manager.resolve(name, ctx.owner)
        ctx.instance = inst
        ctx.op.instance_id = inst.instance_id
        lock = inst.recovery_lock if spec.lock == "recovery" else inst.lock
        inst.busy += 1
        try:
            async with lock if spec.lock != "none" else contextlib.nullcontext():
                if inst.closing or self.manager.get(name, ctx.owner) is not inst:
                    raise ToolError(
                        "instance_not_found", f"Instance '{name}' was destroyed while the call was queued."
                    )
                if inst.crashed:
                    self.manager.resolve(name, ctx.owner)  # raises instance_crashed and schedules eviction
                if not spec.modal_exempt:
                    modals = inst.pending_modals()
                    if modals:
                        raise ToolError("modal_state_blocked", modals[0].blocking_message())
                ctx.entered = True
                return await spec.func(ctx, **args)
        finally:
            inst.busy -= 1
            inst.last_used = time.monotonic()


_MODULE_ORDER = ["instance_tools", "navigation_tools", "interaction", "inspection", "pages"]


def _order(spec: ToolSpec) -> int:
    module = spec.func.__module__.rsplit(".", 1)[-1]
    return _MODULE_ORDER.index(module) if module in _MODULE_ORDER else len(_MODULE_ORDER)


def _without_element(arguments: dict[str, Any], spec: ToolSpec) -> dict[str, Any]:
    """playwright-mcp's habit: a human-readable `element` description beside `ref`; accepted and ignored on the
    tools that take a ref and have no `element` parameter of their own."""
    properties = spec.schema["properties"]
    if "element" in arguments and "element" not in properties and ("ref" in properties or "source_ref" in properties):
        return {k: v for k, v in arguments.items() if k != "element"}
    return arguments


def _instance_name(spec: ToolSpec | None, arguments: dict[str, Any]) -> str | None:
    if spec is None:
        value = arguments.get("instance", arguments.get("name"))
    elif spec.scope == "server":
        return None
    elif spec.scope == "lifecycle":
        value = arguments.get("name")
    else:
        value = arguments.get("instance")
    return value if isinstance(value, str) else None
