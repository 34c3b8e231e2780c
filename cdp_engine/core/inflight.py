"""The requests in flight on a tab, numbered as they start: what a settle waits for after an input (core/settle.py).

Why apart from the settle: the request count is a tab's own state, kept current from Network events whether or not
a settle runs; a settle only reads it (how many started since its arming are still in flight).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tab import Tab

__all__ = ["NetworkTracker"]


class NetworkTracker:
    """Requests in flight on a tab's main session (Network domain, enabled on first use), numbered in the
    order they started so a settle waits only for the ones started after its arming."""

    IGNORED_TYPES = frozenset({"WebSocket", "EventSource", "Ping", "CSPViolationReport"})

    @classmethod
    def of(cls, tab: Tab) -> NetworkTracker:
        """The tab's one tracker (created on first use; it lives as long as the tab)."""
        return tab.extension(cls)

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self.pending: dict[str, int] = {}  # request id -> its number
        self.started = 0  # requests seen so far
        self.enabled = False

    @property
    def inflight(self) -> int:
        return len(self.pending)

    def since(self, mark: int) -> int:
        """Requests in flight that started after `mark` (a value of `started`)."""
        return sum(1 for n in self.pending.values() if n > mark)

    async def enable(self) -> None:
        if self.enabled:
            return
        self.enabled = True
        s = self.tab.session
        s.on("Network.requestWillBeSent", self._on_request)
        s.on("Network.loadingFinished", self._on_done)
        s.on("Network.loadingFailed", self._on_done)
        s.on("Page.frameNavigated", lambda p: None if p["frame"].get("parentId") else self.pending.clear())
        # Small buffers: the engine never reads bodies through this session.
        await s.send("Network.enable", {"maxTotalBufferSize": 1_000_000, "maxResourceBufferSize": 100_000})

    def _on_request(self, params: dict[str, Any]) -> None:
        if params.get("type") in self.IGNORED_TYPES or params.get("request", {}).get("url", "").startswith("data:"):
            return
        if params["requestId"] not in self.pending:  # a redirect keeps its request's number
            self.started += 1
            self.pending[params["requestId"]] = self.started

    def _on_done(self, params: dict[str, Any]) -> None:
        if self.pending.pop(params["requestId"], None) is not None:
            self.tab.check_conditions()  # a settle waits for some of them: the ones since its arming
