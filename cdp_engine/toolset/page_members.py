"""The toolset's members that move between pages and show them: navigate, screenshot, zoom, and the tab members
(new_tab, switch_tab, close_tab, list_tabs).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..core import files as core_files
from ..core import navigation
from ..core.lifecycle import wait_loaded
from ..core.marks import Mark
from ..core.policies import HOST_SCHEMES, MAX_URL_CHARS, WEB_SCHEMES, NavigationPolicy, Policies, PolicyError
from ..core.worlds import Worlds
from ..errors import CDPEngineError, NavigationError, NavigationTimeoutError
from ..snapshot.boxes import ref_boxes, ref_marks
from . import read_page as reader
from .driver_config import ImageOutcome, MemberError, NavigateOutcome
from .member_host import MemberHost
from .state import ManagedTab, one_line

if TYPE_CHECKING:
    from ..core.tab import Tab

REFUSED_SCHEME = "Error: Navigation refused. Only http and https URLs are allowed."
ORIGIN_REFUSED = "Error: Navigation refused. That site's origin is not allowed in this browser."
ORIGIN_RULES = frozenset({"navigation.blocked_origin", "navigation.origin_not_allowed"})
LOAD_GRACE = 10.0  # seconds a navigation waits for `load` after the document is parsed


TOOLSET_NAVIGATION = Policies.for_toolset().navigation


def normalize_url(url: str, policy: NavigationPolicy = TOOLSET_NAVIGATION) -> str:
    """No scheme means https; then the navigation policy (http(s) only by default) on the parsed URL."""
    text = url.strip()
    has_scheme = re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text) is not None
    host_port = re.match(r"^[^:/?#\s]+:\d+(?:[/?#]|$)", text) is not None
    if not has_scheme or host_port:
        text = "https://" + text.lstrip("/")
    try:
        parts = urlsplit(text)
        _ = parts.port
    except ValueError:
        raise MemberError("Error: That is not a valid URL.") from None
    try:
        policy.check(text)
    except PolicyError as exc:
        if exc.rule == "navigation.about":
            raise MemberError(
                "Error: Navigation refused. Of the about: URLs only about:blank is allowed."
            ) from None
        if exc.rule == "navigation.length":
            raise MemberError(f"Error: That URL is too long (over {MAX_URL_CHARS:,} characters).") from None
        if exc.rule in ORIGIN_RULES:
            raise MemberError(ORIGIN_REFUSED) from None
        if exc.rule != "navigation.scheme":
            raise MemberError("Error: That is not a valid URL.") from None
        if policy.schemes == WEB_SCHEMES:
            raise MemberError(REFUSED_SCHEME) from None
        allowed = ", ".join(sorted(policy.schemes))
        raise MemberError(f"Error: Navigation refused. Only {allowed} URLs are allowed.") from None
    if parts.scheme.lower() in HOST_SCHEMES and not parts.hostname:
        raise MemberError("Error: That is not a valid URL.")
    return text


class PageMembers(MemberHost):
    """navigate, screenshot, zoom and the tab members."""

    # ----- navigation and capture -------------------------------------------------------------

    async def _title(self, tab: Tab) -> str:
        try:
            value = await tab.evaluate("document.title", timeout=2.0)
        except (CDPEngineError, TimeoutError):
            return tab.title
        return value if isinstance(value, str) else tab.title

    async def _m_navigate(self, p: dict[str, Any], managed: ManagedTab) -> NavigateOutcome:
        tab = managed.tab
        url = p["url"]
        word = url.strip().lower()
        timeout = self.config.navigation_timeout
        shown = json.dumps(one_line(url, 300))
        # One deadline, navigation_timeout: a failed navigation leaves the tab on its page within it
        # (core/navigation.py).
        try:
            if word in ("back", "forward", "reload"):
                step = {"back": tab.back, "forward": tab.forward, "reload": tab.reload}[word]
                response = await step(timeout=timeout)
                if response is None:
                    where = "earlier" if word == "back" else "later"
                    raise MemberError(f"Error: There is no {where} page in this tab's history.")
                status = response.status if word == "reload" else None
            else:
                target = normalize_url(url, self.policies.navigation)
                self.book.download_seen.clear()
                try:
                    # Committed and parsed is enough to succeed; `load` gets a bounded wait on top, so a page
                    # with a hanging image or ad still navigates (the documented timeout is for no page at all).
                    response = await tab.goto(target, wait_until="domcontentloaded", timeout=timeout)
                    status = response.status
                    await wait_loaded(tab, min(LOAD_GRACE, timeout))
                except NavigationError as exc:
                    if "ERR_ABORTED" not in exc.error_text:
                        raise
                    # A URL that downloads a file aborts the navigation: that is a success, reported as a download.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.book.download_seen.wait(), 1.0)
                    if not self.book.download_seen.is_set():
                        raise
                    status = None
        except NavigationTimeoutError as exc:
            text = f"Error: Navigation to {shown} timed out after {timeout:g} seconds. The page may be unavailable."
            raise MemberError(
                text if not exc.replaced else f"{text} {one_line(navigation.where_now(exc))}"
            ) from None
        except NavigationError as exc:
            found = re.match(r"net::[A-Z_0-9]+", exc.error_text or "")
            code = found.group() if found else "net error"
            where = one_line(navigation.where_now(exc))
            if code == "net::ERR_BLOCKED_BY_CLIENT" and ":" in exc.error_text[len(code) :]:
                where = f"It was redirected to an origin that is not allowed. {where}"
            raise MemberError(f"Error: Navigation to {shown} failed ({code}). {where}") from None
        return NavigateOutcome(url=tab.url, status=status, title=await self._title(tab) or None)

    async def _capture(
        self, tab: Tab, clip: dict[str, float] | None, scale: float, marks: list[Mark] | None = None
    ) -> str:
        cfg = self.config
        options = core_files.ScreenshotOptions(
            format=cfg.screenshot_format,
            quality=cfg.screenshot_quality if cfg.screenshot_format != "png" else None,
            clip=clip,
            scale=scale if clip is not None else 1.0,
            optimize_for_speed=cfg.screenshot_optimize_for_speed,
        )
        world = await Worlds.of(tab).context(tab.main_frame_id) if marks else None
        return (await tab.capture_screenshot(options, timeout=15.0, marks=marks, world=world)).data

    async def _marks(self, managed: ManagedTab) -> list[Mark]:
        """The marks of the tab's latest read (its refs); the interactive elements are read first if none was."""
        if managed.last_tree is None:
            managed.last_tree = await self._tree(managed)
            await reader.read_page(
                managed.tab,
                managed.last_tree,
                managed.refs,
                filter="interactive",
                depth=15,
                subtree=None,
                viewport=self.image_size,
            )
        return ref_marks(managed.last_tree, managed.refs)

    def ref_boxes(self, tab_id: str | None = None) -> dict[str, dict[str, Any]]:
        """Library call (the toolset's input schema is fixed by its spec): the box of each ref of the tab's
        (default: the active tab's) latest read_page or find, keyed by ref: viewport CSS px, visible and
        viewport flags, and `screenshot` (the model's image pixels) when screenshots are scaled."""
        managed = self._tab(tab_id)
        scale = self.image_scale
        transform = core_files.ImageTransform(0.0, 0.0, scale, scale)
        return ref_boxes(managed.last_tree, managed.refs, self.viewport, transform)

    async def _scroll_offset(self, tab: Tab) -> tuple[float, float]:
        viewport = await tab.viewport()
        return float(viewport["scroll_x"]), float(viewport["scroll_y"])

    async def _m_screenshot(self, p: dict[str, Any], managed: ManagedTab) -> ImageOutcome:
        tab = managed.tab
        scale = self.image_scale
        clip = None
        if scale != 1.0:
            # Chromium does the resize: the viewport clipped at its scroll offset, captured at `scale`.
            x, y = await self._scroll_offset(tab)
            w, h = self.viewport
            clip = {"x": x, "y": y, "width": w, "height": h}
        marks = await self._marks(managed) if self.config.screenshot_marks else None
        data = await self._capture(tab, clip, scale, marks)
        iw, ih = self.image_size
        return ImageOutcome(data, f"image/{self.config.screenshot_format}", iw, ih)

    async def _m_zoom(self, p: dict[str, Any], managed: ManagedTab) -> ImageOutcome:
        x0, y0, x1, y1 = p["region"]
        iw, ih = self.image_size
        if not (0 <= x0 < x1 <= iw and 0 <= y0 < y1 <= ih):
            raise MemberError(
                f"Error: The region must lie within the {iw}x{ih} viewport, with x0 < x1 and y0 < y1."
            )
        scale = self.image_scale
        cx0, cy0, cw, ch = x0 / scale, y0 / scale, (x1 - x0) / scale, (y1 - y0) / scale
        zscale = min(iw / cw, ih / ch, 8.0)
        sx, sy = await self._scroll_offset(managed.tab)
        data = await self._capture(
            managed.tab, {"x": sx + cx0, "y": sy + cy0, "width": cw, "height": ch}, zscale
        )
        return ImageOutcome(
            data, f"image/{self.config.screenshot_format}", round(cw * zscale), round(ch * zscale)
        )

    # ----- tabs -------------------------------------------------------------------------------

    def _named_tab(self, tab_id: str) -> ManagedTab:
        managed = self.book.tabs.get(tab_id)
        if managed is None or managed.tab.closed:
            raise MemberError(
                f"Error: tab_id {json.dumps(one_line(tab_id, 100))} is not an open tab. Use list_tabs to see what is open."
            )
        return managed

    async def _m_new_tab(self, p: dict[str, Any]) -> dict[str, Any]:
        assert self.context is not None
        tab = await self.context.new_tab()
        managed = self.book.adopt(tab)
        self.book.activate(managed.tab_id)
        with contextlib.suppress(CDPEngineError):
            await tab.activate()
        entry = self.book.entry(managed)
        entry["url"] = "about:blank"
        return entry

    async def _m_switch_tab(self, p: dict[str, Any]) -> dict[str, Any]:
        managed = self._named_tab(p["tab_id"])
        self.book.activate(managed.tab_id)
        with contextlib.suppress(CDPEngineError):
            await managed.tab.activate()
        return self.book.entry(managed)

    async def _m_close_tab(self, p: dict[str, Any]) -> None:
        managed = self._named_tab(p["tab_id"])
        await managed.tab.close()
        self.book.forget(managed.tab_id)
        active = self.book.get(None)
        if active is not None:
            with contextlib.suppress(CDPEngineError):
                await active.tab.activate()

    async def _m_list_tabs(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        return self.book.inventory()
