"""The toolset's pointer members: the clicks, hover, drag, the mouse button and move, scroll and scroll_to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ..core import input, keys
from ..errors import CDPEngineError, ProtocolError
from .driver_config import MemberError
from .member_host import MemberHost
from .state import ManagedTab


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
        modifiers = self._modifiers(p)
        tab = managed.tab
        target = p["target"]
        if target["type"] != "ref":
            x, y = self._point(target)

            async def at_point() -> None:
                async with input.hold(
                    tab, modifiers
                ):  # the modifier keys go down, and the click carries them
                    await input.click_at(tab, x, y, button=button, click_count=count)

            await self._settled(managed, at_point())
            return
        ref = target["ref"]
        node = await self._resolve(managed, ref)

        async def on_element() -> None:  # the core's one click: actionability, keys held, delivery checked
            try:
                await input.click_element(tab, node, button=button, click_count=count, hold_keys=modifiers)
            except input.NotClickableError as exc:
                raise MemberError(self._refused(ref, exc)) from None
            except ProtocolError:
                raise MemberError(f"Error: The element {ref} is not visible.") from None

        await self._settled(managed, on_element())

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
        x, y = await self._target_point(managed, p["target"])  # as MCP's and the harness's hover: it must receive the pointer
        await self._settled(managed, input.move(managed.tab, x, y))

    async def _m_left_click_drag(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x0, y0 = self._point(p["from"])
        x1, y1 = self._point(p["target"])
        await self._settled(managed, input.drag(managed.tab, x0, y0, x1, y1, steps=10))

    async def _m_left_mouse_down(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._settled(managed, input.down(managed.tab, "left", x=x, y=y, moving=True))

    async def _m_left_mouse_up(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._settled(managed, input.up(managed.tab, "left", x=x, y=y, moving=True))

    async def _m_mouse_move(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        await self._settled(managed, input.move(managed.tab, x, y))

    async def _m_scroll(self, p: dict[str, Any], managed: ManagedTab) -> None:
        x, y = self._point(p["target"])
        pixels = p.get("scroll_amount", 3) * self.config.pixels_per_notch
        dx, dy = {"up": (0, -pixels), "down": (0, pixels), "left": (-pixels, 0), "right": (pixels, 0)}[
            p["scroll_direction"]
        ]
        await self._settled(managed, input.wheel(managed.tab, x, y, dx, dy))

    async def _m_scroll_to(self, p: dict[str, Any], managed: ManagedTab) -> None:
        ref = p["target"]["ref"]
        node = await self._resolve(managed, ref)
        try:
            await input.scroll_into_view(node)
        except CDPEngineError:
            raise MemberError(f"Error: The element {ref} is not visible.") from None
        await self._settled(managed, asyncio.sleep(0))
