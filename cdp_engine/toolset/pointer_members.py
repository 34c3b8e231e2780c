"""The toolset's pointer members: the clicks, hover, drag, the mouse button and move, scroll and scroll_to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import input, keys
from ..core.pipeline import Call, Click, ClickAt, Drag, Hover, MouseButton, MoveTo, Wheel
from ..errors import CDPEngineError
from .driver_config import MemberError
from .member_host import MemberHost
from .state import ManagedTab


async def _scrolled() -> None:
    """scroll_to's input: the element was scrolled into view just before (what the settle then waits for)."""


class PointerMembers(MemberHost):
    """The clicks, hover, drag, mouse down, up and move, scroll and scroll_to."""

    # ----- pointer ----------------------------------------------------------------------------

    def _modifiers(self, p: Mapping[str, Any]) -> str:
        text = p.get("modifiers") or ""
        if text.strip():
            try:
                keys.parse_modifiers(text)
            except keys.UnknownKeyError:
                raise MemberError(
                    "Error: modifiers takes modifier keys only, such as shift or ctrl+shift."
                ) from None
        return text.strip()

    async def _click(self, p: dict[str, Any], managed: ManagedTab, button: str, count: int) -> None:
        """The core's one click: on a ref's element with actionability, the keys held and delivery checked; at a
        point, with the modifier keys down as a person holds them."""
        modifiers = self._modifiers(p)
        target = p["target"]
        if target["type"] != "ref":
            x, y = self._point(target)
            await self._apply(managed, ClickAt(x, y, button=button, count=count, keys=modifiers))
            return
        ref = target["ref"]
        node = await self._resolve(managed, ref)
        await self._apply(managed, Click(node, button=button, count=count, keys=modifiers), ref=ref)

    async def _m_left_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "left", 1)

    async def _m_right_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "right", 1)

    async def _m_middle_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "middle", 1)

    async def _m_double_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "left", 2)

    async def _m_triple_click(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await self._click(p, managed, "left", 3)

    async def _m_hover(self, p: dict[str, Any], managed: ManagedTab) -> None:
        target = p["target"]  # as MCP's and the harness's hover: the element must receive the pointer
        if target["type"] != "ref":
            x, y = self._point(target)
            await self._apply(managed, MoveTo(x, y))
            return
        await self._apply(managed, Hover(await self._resolve(managed, target["ref"])), ref=target["ref"])

    async def _m_left_click_drag(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x0, y0 = self._point(p["from"])
        x1, y1 = self._point(p["target"])
        await self._apply(managed, Drag((x0, y0), (x1, y1), steps=10))

    async def _m_left_mouse_down(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._apply(managed, MouseButton(True, "left", x=x, y=y, moving=True))

    async def _m_left_mouse_up(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._apply(managed, MouseButton(False, "left", x=x, y=y, moving=True))

    async def _m_mouse_move(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._apply(managed, MoveTo(x, y))

    async def _m_scroll(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        pixels = p.get("scroll_amount", 3) * self.config.pixels_per_notch
        dx, dy = {"up": (0, -pixels), "down": (0, pixels), "left": (-pixels, 0), "right": (pixels, 0)}[
            p["scroll_direction"]
        ]
        await self._apply(managed, Wheel(x, y, dx, dy))

    async def _m_scroll_to(self, p: dict[str, Any], managed: ManagedTab) -> None:
        ref = p["target"]["ref"]
        node = await self._resolve(managed, ref)
        try:
            await input.scroll_into_view(node)
        except CDPEngineError:
            raise MemberError(f"Error: The element {ref} is not visible.") from None
        await self._apply(managed, Call(_scrolled))
