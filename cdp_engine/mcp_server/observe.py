"""Action observations (`wait_for` on actions): MCP's vocabulary and error envelopes on the core's expectations.

The conditions themselves, their arming before the action and their wait with a deadline, are the core's
(core/expectations.py). Here: `WaitForSpec` checks a `wait_for` object in MCP's words; an Observer arms a core
Expectation for it (the instance keeps Network enabled on every page session, and its modal guard answers
dialogs, so neither is the expectation's job) and words what it met as MCP facts (page and frame ids, the
adopted popup's page, the retained download); the page-side helpers the inspection tools share word the core's
errors as ToolErrors. Nothing here retries the action or infers business success.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession
from ..core import expectations
from ..core.expectations import ELEMENT_CHECK, TEXT_CHECK, Condition, Expectation
from ..errors import JavaScriptError
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


__all__ = [
    "ELEMENT_CHECK",
    "TEXT_CHECK",
    "ObservationTimeout",
    "Observer",
    "PageGone",
    "Target",
    "WaitForSpec",
    "call_in_frame",
    "frame_world",
    "poll",
]


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
        condition = Condition(
            spec.kind,
            url=spec.url,
            method=spec.method,
            status=spec.status,
            selector=spec.selector,
            text=spec.text,
            state=spec.state,
            # Responses count from every frame unless one was named; url, element and text are checked in the
            # resolved frame.
            frame_id=target.cdp_frame if target.explicit_frame or spec.kind != "response" else None,
        )
        self.expectation = Expectation(
            target.page.tab, condition, dialog_ends=False, enable_network=False, on_match=self._facts
        )

    def arm(self) -> None:
        self.expectation.arm()

    def disarm(self) -> None:
        self.expectation.disarm()

    def _facts(self, kind: str, met: dict[str, Any]) -> dict[str, Any]:
        """What the core met, as MCP facts, at the moment it was met (a popup adopted as a page then)."""
        page = self.target.page
        if kind == "response":
            frame_id = met["frame_id"]
            return {
                "kind": kind,
                "matched": True,
                "url": met["url"],
                "method": met["method"],
                "status": met["status"],
                "page_id": page.page_id,
                "frame_id": page.frame_id(frame_id) if frame_id else None,
                "request_id": met["request_id"],
            }
        if kind == "url":
            return {
                "kind": kind, "matched": True, "url": met["url"], "page_id": page.page_id,
                "frame_id": page.frame_id(met["frame_id"]),
            }  # fmt: skip
        if kind == "popup":
            tab = met["tab"]
            popup = page.instance.by_target.get(tab.target_id) or page.instance.adopt(tab)
            return {"kind": kind, "matched": True, "page_id": popup.page_id}
        if kind == "download":
            download = met["download"]
            if page.instance.downloads.get(download.id) is None:
                raise ToolError(
                    "download_not_found", "The download was detected but its handle could not be retained."
                )
            return {
                "kind": kind, "matched": True, "download_id": download.id,
                "suggested_filename": download.suggested_filename,
            }  # fmt: skip
        return {"kind": kind, "matched": True, **met}  # element {state, selector}, text {state, text}

    async def wait(self, timeout: float) -> dict[str, Any]:
        """The observed facts; ObservationTimeout, PageGone or ToolError otherwise."""
        try:
            return await _in_mcp_words(self.expectation.wait(timeout))
        except TimeoutError:
            raise ObservationTimeout() from None


async def _in_mcp_words(work: Any) -> Any:
    """Await core work, its errors worded as this surface's: PageGone, ToolError (TimeoutError passes)."""
    try:
        return await work
    except expectations.PageClosedError:
        raise PageGone() from None
    except expectations.FrameNotFoundError:
        raise ToolError("frame_not_found", "The frame is no longer attached.") from None
    except JavaScriptError as exc:
        raise ToolError("invalid_params", str(exc)) from None


async def frame_world(page: Page, cdp_frame: str) -> tuple[CDPSession, int]:
    """The engine's isolated world in the frame (sees the DOM, not page scripts; core.worlds): session, context."""
    result: tuple[CDPSession, int] = await _in_mcp_words(expectations.frame_world(page.tab, cdp_frame))
    return result


async def call_in_frame(
    page: Page, cdp_frame: str, function: str, args: list[Any], timeout: float = 10.0
) -> Any:
    """Call `function(...args)` in the frame's isolated world and return its JSON value."""
    return await _in_mcp_words(expectations.call_in_frame(page.tab, cdp_frame, function, args, timeout))


async def poll(
    page: Page,
    cdp_frame: str,
    check: str,
    args: list[Any],
    timeout: float,
    abort: asyncio.Future[Any] | None = None,
) -> None:
    """Re-check a page-side condition until it holds (core.expectations.poll).

    TimeoutError when it never held; PageGone when the page went away.
    """
    await _in_mcp_words(expectations.poll(page.tab, cdp_frame, check, args, timeout, abort))
