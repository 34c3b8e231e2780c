"""Watching a browser of another process: its page targets over CDP (core/screencast.py), in a LiveView.

`cdp-engine view --attach ENDPOINT` (ws://… or http://host:port). It sees frames and URLs only: the
action log needs the viewer in the driving process (`--view`, or `cdp_engine.view.LiveView` there).
"""

from __future__ import annotations

from typing import Any

from ..cdp.connection import CDPSession
from ..core.screencast import PageWatcher
from .live import LiveView, Watched

__all__ = ["attach"]


async def attach(endpoint: str, view: LiveView, *, timeout: float = 10.0) -> PageWatcher:
    """Show the pages of the browser at `endpoint` in `view`, as they come and go; `close()` the watcher to end."""

    def on_page(key: str, session: CDPSession, info: dict[str, Any]) -> None:
        view.add(Watched(key, session, url=info.get("url", ""), title=info.get("title", "")))

    def on_info(info: dict[str, Any]) -> None:
        watched = view.watched.get(info.get("targetId", ""))
        if watched is not None:
            watched.update(info.get("url", ""), info.get("title", ""))

    return await PageWatcher(endpoint, on_page, on_info, view.remove, timeout=timeout).start()
