"""The in-process activity hook: every state, action and tool call of every surface, for whoever watches.

The one place the engine's actions pass through, beside util/tracing.py's spans: the element index's
state()/act(), the MCP server's tool calls and the browser toolset's member calls each report one
`Activity` here when they end. Watchers (the live view, a recorder: cdp_engine/view) subscribe; with none
subscribed, `watching()` is one list check and nothing else happens, so the hook costs nothing.

It also keeps a weak registry of the Browsers of this process (each registers when created), so a viewer
started beside an MCP server, the HTTP service, the harness or a library program finds their browsers
without any of them knowing about it.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Activity", "begin", "browsers", "emit", "end", "on_activity", "on_browser", "on_running", "register_browser",
    "running", "watching",
]

log = logging.getLogger("cdp_engine.activity")

_listeners: list[Callable[[Activity], None]] = []
# Browsers and tabs are typed Any here: core/browser.py imports this module, and even a type-only import
# back would be a circle (tests/unit/test_architecture.py).
Browser = Any
_browser_listeners: list[Callable[[Browser], None]] = []
_browsers: weakref.WeakSet[Browser] = weakref.WeakSet()


@dataclass
class Activity:
    """One finished call: which surface, what it was, on which tab, how long, and how it ended."""

    surface: str  # "index" (state/act, also under the HTTP service and the harness), "mcp", "toolset"
    name: str  # the action ("click", "state"), the tool or the member
    started: float  # wall-clock seconds (time.time()) when it began
    ms: float  # how long it took
    tab: Any = None  # the core Tab it ran on, when the surface knows it
    url: str = ""  # the tab's URL after it
    ok: bool = True
    error: str | None = None  # the error code or text when not ok
    arguments: Any = None  # the action object or tool arguments (not copied: watchers must not keep it mutable)
    timings: Mapping[str, float] = field(default_factory=dict)
    state: Mapping[str, Any] | None = None  # the state object an index call returned (its screenshot too)
    # The element boxes of the tab's last read (the state's indices, the snapshot's or read_page's refs), computed
    # only when a watcher asks: (boxes keyed by index or ref, in the box format of snapshot/boxes.py; the
    # viewport (width, height, scroll x, scroll y) they were measured in, when known).
    boxes: Callable[[], tuple[Mapping[Any, Mapping[str, Any]], tuple[float, ...] | None]] | None = None


def watching() -> bool:
    """Whether anybody listens: surfaces skip building an Activity when not."""
    return bool(_listeners)


_running = 0  # calls begun and not yet ended (counted only while somebody watches)
_running_listeners: list[Callable[[bool], None]] = []


def begin() -> None:
    """A surface's call starts (called only when watching(); end() must follow, in a finally)."""
    global _running
    _running += 1
    if _running == 1:
        _tell_running(True)


def end() -> None:
    global _running
    if _running > 0:
        _running -= 1
        if _running == 0:
            _tell_running(False)


def running() -> bool:
    """Whether a call of some surface is under way: a live view pauses its screencast then, so the
    browser does not draw frames for it beside the call's own work (core/screencast.py)."""
    return _running > 0


def on_running(listener: Callable[[bool], None]) -> Callable[[], None]:
    """listener(True) when a first call begins, listener(False) when the last one running ends."""
    _running_listeners.append(listener)
    return lambda: _running_listeners.remove(listener) if listener in _running_listeners else None


def _tell_running(value: bool) -> None:
    for listener in list(_running_listeners):
        try:
            listener(value)
        except Exception:
            log.exception("running listener failed")


def on_activity(listener: Callable[[Activity], None]) -> Callable[[], None]:
    """listener(activity) after every call of every surface (on the event loop, so it must be quick)."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def emit(activity: Activity) -> None:
    """Tell every watcher; a failing watcher is logged, never raised into the agent's call."""
    for listener in list(_listeners):
        try:
            listener(activity)
        except Exception:
            log.exception("activity listener failed")


def since(start: float) -> float:
    """Milliseconds since a time.perf_counter() reading."""
    return (time.perf_counter() - start) * 1000


def register_browser(browser: Browser) -> None:
    """A new Browser of this process (Browser.__init__ calls it)."""
    _browsers.add(browser)
    for listener in list(_browser_listeners):
        try:
            listener(browser)
        except Exception:
            log.exception("browser listener failed")


def browsers() -> list[Browser]:
    """The Browsers of this process that are still open."""
    return [b for b in list(_browsers) if not b.closed]


def on_browser(listener: Callable[[Browser], None]) -> Callable[[], None]:
    """listener(browser) for each Browser created from now on."""
    _browser_listeners.append(listener)
    return lambda: _browser_listeners.remove(listener) if listener in _browser_listeners else None
