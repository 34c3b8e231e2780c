"""The response envelope, its error types and the operation metadata every tool call carries.

Success: {status, instance, data, operation}; error: {status, instance, error_type, message,
[data], operation}. `operation` tells a client whether side effects may have happened
(`outcome`) and what to do next (`retry`), so it never has to guess from the message text.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from ..core.policies import MCP_MAX_RESULT_BYTES, MCP_MIN_RESULT_BYTES
from ..index.actions import json_safe

ERROR_TYPES = frozenset(
    {
        "instance_not_found", "instance_already_exists", "instance_limit_exceeded", "instance_crashed",
        "profile_dir_in_use", "binary_not_found", "element_not_found", "stale_ref", "navigation_failed",
        "navigation_timeout", "wait_timeout", "dialog_not_present", "evaluation_failed", "verification_failed",
        "invalid_params", "modal_state_blocked", "internal_error", "operation_timeout", "result_too_large",
        "unsupported_capability", "page_not_found", "frame_not_found", "observation_timeout",
        "download_not_found", "download_failed",
    }
)  # fmt: skip

# Tools whose failure after starting still means "nothing changed": retry is `read_only`, not `inspect_state`.
READ_ONLY_TOOLS = frozenset(
    {
        "browser_health", "browser_list_instances", "browser_snapshot", "browser_frames", "browser_downloads",
        "browser_get_cookies", "browser_generate_locator", "browser_console_messages", "browser_network_requests",
        "browser_screenshot", "browser_verify_element_visible", "browser_verify_list_visible",
        "browser_verify_text_visible", "browser_verify_value",
    }
)  # fmt: skip

DEFAULT_MAX_RESULT_BYTES = MCP_MAX_RESULT_BYTES  # the result-bound policy's values (core/policies.py)
MIN_MAX_RESULT_BYTES = MCP_MIN_RESULT_BYTES


class ToolError(Exception):
    """A failure with an `error_type` from the vocabulary; `data` rides along (e.g. an action that completed)."""

    def __init__(self, error_type: str, message: str, *, data: dict[str, Any] | None = None) -> None:
        if error_type not in ERROR_TYPES:
            raise ValueError(f"unknown error_type {error_type!r}")
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.data = data


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Operation:
    """The metadata of one tool call; `outcome` moves not_started -> unknown -> completed as the call proceeds."""

    tool: str | None
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    instance_id: str | None = None
    page_id: str | None = None
    frame_id: str | None = None
    started_at: str = field(default_factory=_now)
    outcome: str = "not_started"
    artifacts: list[dict[str, str]] = field(default_factory=list)
    artifact_write_started: bool = False
    _t0: float = field(default_factory=time.monotonic)

    def to_dict(self, *, forced_retry: str | None = None) -> dict[str, Any]:
        if forced_retry is not None:
            retry = forced_retry
        elif self.outcome == "completed":
            retry = "not_needed"
        elif self.outcome == "not_started":
            retry = "after_correction"
        elif self.tool in READ_ONLY_TOOLS and not self.artifact_write_started:
            retry = "read_only"
        else:
            retry = "inspect_state"
        return {
            "id": self.id,
            "tool": self.tool,
            "instance_id": self.instance_id,
            "page_id": self.page_id,
            "frame_id": self.frame_id,
            "started_at": self.started_at,
            "finished_at": _now(),
            "duration_ms": round((time.monotonic() - self._t0) * 1000, 3),
            "outcome": self.outcome,
            "retry": retry,
            "artifacts": list(self.artifacts),
        }


def success(instance: str | None, data: dict[str, Any], op: Operation) -> dict[str, Any]:
    op.outcome = "completed"
    return {"status": "success", "instance": instance, "data": data, "operation": op.to_dict()}


def error(instance: str | None, exc: ToolError, op: Operation) -> dict[str, Any]:
    env: dict[str, Any] = {
        "status": "error",
        "instance": instance,
        "error_type": exc.error_type,
        "message": exc.message,
    }
    if exc.data is not None:
        env["data"] = exc.data
    env["operation"] = op.to_dict()
    return env


def dumps(envelope: dict[str, Any]) -> bytes:
    """The envelope's JSON; a message echoing a lone surrogate (a tool or instance name no JSON text can
    hold) gets it replaced, and integers beyond 64 bits become text, so a call never fails to answer."""
    try:
        return orjson.dumps(envelope, default=str)
    except TypeError:
        return orjson.dumps(json_safe(envelope), default=str)


def bound(envelope: dict[str, Any], op: Operation, limit: int) -> tuple[dict[str, Any], bytes]:
    """The envelope and its JSON, or a result_too_large error in its place when the JSON exceeds `limit` bytes."""
    raw = dumps(envelope)
    if len(raw) <= limit:
        return envelope, raw
    message = (
        f"Result has {len(raw)} bytes; limit is {limit}. Use a smaller scope, pagination or file output; "
        "do not blindly repeat a mutation."
    )
    meta = op.to_dict(forced_retry="inspect_state")
    fallback: dict[str, Any] = {
        "status": "error",
        "instance": envelope.get("instance"),
        "error_type": "result_too_large",
        "message": message,
        "operation": meta,
    }
    raw = dumps(fallback)
    if len(raw) > limit:  # even the references are too big: drop them
        meta.update(tool=None, artifacts=[], references_omitted=True)
        fallback["instance"] = None
        raw = dumps(fallback)
    return fallback, raw
