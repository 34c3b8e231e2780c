"""What every group of the toolset's members needs (toolset/executor.py's BrowserToolset is made of the groups):
the tabs and refs, the image geometry, an input through the core's pipeline and its settle, the accessibility tree.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core import input
from ..core.inflight import NetworkTracker
from ..core.pipeline import Action, Settling, act
from ..core.policies import Policies
from ..core.refs import NodeRef, StaleRefError
from ..core.settle import TOOL_CALL
from ..errors import CDPEngineError, ProtocolError, TargetClosedError
from ..snapshot.ax_capturer import capture_ax_tree
from .driver_config import MemberError, ToolsetConfig
from .state import ManagedTab, TabBook, one_line

if TYPE_CHECKING:
    from ..core.browser import Browser, BrowserContext

log = logging.getLogger("cdp_engine.toolset")

NO_TAB = "Error: No tab is open. Call new_tab to open one."
STALE_CAUSES = {
    "unknown ref": "",
    "its frame is gone": " Its frame is gone.",
    "the page navigated since the ref was handed out": " The page navigated since it was read.",
    "the element was removed from the page": " The element was removed from the page.",
}


class MemberHost:
    """The toolset's state and the helpers its member groups share; BrowserToolset sets the attributes."""

    browser: Browser
    config: ToolsetConfig
    context: BrowserContext | None
    policies: Policies
    _book: TabBook | None

    @property
    def book(self) -> TabBook:
        if self._book is None:
            raise RuntimeError("call start() first")
        return self._book

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

    # ----- acting -----------------------------------------------------------------------------

    async def _apply(self, managed: ManagedTab, action: Action, *, ref: str | None = None) -> Any:
        """Run an input through the core's one pipeline (core.pipeline.act: aim, keys held, dispatch, delivery
        check), then the settle for a tool call: a navigation (to load, or until it turns into a download or
        stops), else the DOM changes, transitions and requests it started (each bounded). No fixed sleeps.
        `ref`: the element the action aims at, named in a refusal (the toolset's words, _refused)."""
        tab = managed.tab
        self.book.download_seen.clear()
        settling = Settling(
            TOOL_CALL, network=NetworkTracker.of(tab), load_timeout=self.config.navigation_timeout,
            until=self.book.download_seen,
        )  # fmt: skip
        try:
            report = (await act(tab, action, settling)).report
        except input.NotClickableError as exc:
            if ref is None:
                raise
            raise MemberError(self._refused(ref, exc)) from None
        except ProtocolError:
            if ref is None:
                raise
            raise MemberError(f"Error: The element {ref} is not visible.") from None
        if not report.loaded and report.navigated and not report.closed:
            log.debug("navigation after an action did not reach load")
        await self.book.settle_new_tabs(timeout=2.0)
        return report.value

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

    async def _tree(self, managed: ManagedTab) -> Any:
        try:
            return await capture_ax_tree(managed.tab, interactive=self.config.interactive)
        except TargetClosedError:
            raise
        except CDPEngineError:
            raise MemberError(
                "Error: The page could not be read; try again after it finishes loading."
            ) from None
