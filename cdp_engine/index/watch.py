"""The element index's calls as Activities for the watchers (util/activity.py): a live view, a recorder.

ElementIndex.state()/act() come here only when somebody watches; otherwise they skip it with one check.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

from ..util import activity

if TYPE_CHECKING:
    from ..core.tab import Tab

Boxes = Callable[[], tuple[dict[int, dict[str, Any]], tuple[float, ...] | None]]


def decoded(raw_action: Any) -> Any:
    """The action as an object for the watchers (the HTTP service passes the request body's bytes)."""
    if isinstance(raw_action, bytes | str):
        try:
            return orjson.loads(raw_action)
        except orjson.JSONDecodeError:
            return raw_action
    return raw_action


STATE = object()  # observed()'s raw_action for a state() call


async def observed(tab: Tab, raw_action: Any, call: Awaitable[dict[str, Any]], boxes: Boxes) -> dict[str, Any]:
    """Run a state() (raw_action STATE) or act() call between activity.begin() and end(), then report it;
    a browser fault that state() raises is reported too, and raised."""
    t0, started = time.perf_counter(), time.time()
    action = None if raw_action is STATE else decoded(raw_action)
    name = "state" if raw_action is STATE else str((action.get("action") if isinstance(action, dict) else None) or "?")
    activity.begin()
    try:
        state = await call
    except Exception as exc:
        activity.end()
        _report(tab, name, action, {"error": {"code": type(exc).__name__}}, t0, started, boxes)
        raise
    activity.end()
    _report(tab, name, action, state, t0, started, boxes)
    return state


def _report(
    tab: Tab, name: str, action: Any, state: dict[str, Any], t0: float, started: float, boxes: Boxes
) -> None:
    error = state.get("error")
    activity.emit(
        activity.Activity(
            "index", name, started, activity.since(t0), tab=tab, url=tab.url,
            ok=not isinstance(error, dict), error=str(error.get("code")) if isinstance(error, dict) else None,
            arguments=action, timings=dict(tab.last_timings), state=state, boxes=boxes,
        )
    )  # fmt: skip
