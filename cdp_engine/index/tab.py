"""The Element Index protocol on a tab: `AgentTab` adds state() and act(); launch() and connect() make them.

The core's `Tab` knows nothing of the protocol (layers point one way); this layer hands its
subclass to the core's Browser, so every tab the browser reports (popups included) has them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from ..cdp.launcher import DEFAULT_TRANSPORT, TransportName
from ..core import browser as core
from .element_index import ElementIndex

Screenshot = bool | Literal["png", "jpeg"]


class AgentTab(core.Tab):
    """A tab with the protocol's state object and actions."""

    @property
    def element_index(self) -> ElementIndex:
        """The Element Index protocol on this tab (state capture, cache and actions)."""
        return ElementIndex.of(self)

    async def state(self, *, screenshot: Screenshot = True, jpeg_quality: int = 80) -> dict[str, Any]:
        """The protocol's state object: url, page_content, element_index, screenshot, state_hash."""
        return await self.element_index.state(screenshot=screenshot, jpeg_quality=jpeg_quality)

    async def act(self, action: Any, *, screenshot: Screenshot = True) -> dict[str, Any]:
        """Run one protocol action (dict or JSON text); the next state, or the previous one plus `error`."""
        return await self.element_index.act(action, screenshot=screenshot)


def launch(
    executable: str | None = None,
    *,
    headless: bool = True,
    transport: TransportName = DEFAULT_TRANSPORT,
    window_size: tuple[int, int] = (1280, 720),
    args: list[str] | tuple[str, ...] = (),
    timeout: float = 30.0,
    command_timeout: float = 30.0,
    navigation_timeout: float = 30.0,
    dialog_policy: core.DialogPolicy = "dismiss",
    downloads_dir: str | Path | None = None,
) -> core.Starter:
    """Launch Chromium headless with a fresh profile: `async with launch() as browser:` (or `await launch()`)."""
    return core.launch(
        executable,
        headless=headless,
        transport=transport,
        window_size=window_size,
        args=args,
        timeout=timeout,
        command_timeout=command_timeout,
        navigation_timeout=navigation_timeout,
        dialog_policy=dialog_policy,
        downloads_dir=downloads_dir,
        tab_class=AgentTab,
    )


def connect(
    endpoint: str,
    *,
    timeout: float = 10.0,
    command_timeout: float = 30.0,
    navigation_timeout: float = 30.0,
    dialog_policy: core.DialogPolicy = "dismiss",
    downloads_dir: str | Path | None = None,
) -> core.Starter:
    """Attach to a running Chromium: a ws:// URL, or http://host:port resolved through /json/version."""
    return core.connect(
        endpoint,
        timeout=timeout,
        command_timeout=command_timeout,
        navigation_timeout=navigation_timeout,
        dialog_policy=dialog_policy,
        downloads_dir=downloads_dir,
        tab_class=AgentTab,
    )
