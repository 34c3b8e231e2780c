"""The Element Index protocol on a tab: `AgentTab` adds state() and act(); launch() and connect() make them.

The core's `Tab` knows nothing of the protocol (layers point one way); this layer hands its
subclass to the core's Browser, so every tab the browser reports (popups included) has them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..cdp.launcher import DEFAULT_TRANSPORT, TransportName
from ..core import browser as core
from ..core import files
from ..core.files import ScreenshotOptions, ScreenshotSpec
from ..core.marks import Mark
from ..core.policies import origin_policy
from ..core.settle import observe
from ..core.tab import DialogPolicy, Tab
from ..core.worlds import Worlds
from ..snapshot.extended import check_mode
from .element_index import ElementIndex

# False, True (png), "png", "jpeg", "webp" or core.files.ScreenshotOptions (clip, scale, maximum size).
Screenshot = ScreenshotSpec


class AgentTab(Tab):
    """A tab with the protocol's state object and actions."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Each document observed from its commit (before any state() made the element index), so the settle
        # after the first action on a page knows whether the page was changing by itself.
        observe(self)

    @property
    def element_index(self) -> ElementIndex:
        """The Element Index protocol on this tab (state capture, cache and actions)."""
        return ElementIndex.of(self)

    # The interactive set of this tab's states unless a call says otherwise (docs/extended.md).
    default_interactive = "strict"

    async def state(
        self,
        *,
        screenshot: Screenshot = True,
        jpeg_quality: int = 80,
        offset: int | None = None,
        max_chars: int | None = None,
        interactive: str | None = None,
    ) -> dict[str, Any]:
        """The protocol's state object: url, page_content, element_index, screenshot, state_hash.
        `jpeg_quality` is the quality of a "jpeg" or "webp" screenshot. `offset` / `max_chars`: the part of the
        page's text page_content holds (default: from the start, 40,000 characters; a cut one ends with a
        marker naming the next offset). `interactive`: "strict" or "extended" for this call (docs/extended.md)."""
        return await self.element_index.state(
            screenshot=screenshot, jpeg_quality=jpeg_quality, offset=offset, max_chars=max_chars, interactive=interactive
        )

    def changes(self) -> dict[str, Any]:
        """What changed between the last two states this tab returned (docs/changes.md): an extra beside the
        state, with every current index; the state object and its state_hash are untouched."""
        return self.element_index.changes()

    async def boxes(self) -> dict[int, dict[str, Any]]:
        """Each indexed element's box for the state last returned, keyed by index: x, y, width, height in
        viewport CSS px, `visible`, `in_viewport`, `fully_in_viewport`, and `screenshot` (image px) when the
        state's screenshot was scaled or clipped. Never part of the state (its hash is unchanged); {} before
        the first state. See docs/marks.md."""
        return self.element_index.boxes()

    async def screenshot_base64(self, *, marks: bool | Sequence[Mark] | None = False, **options: Any) -> str:
        """A new screenshot (core Tab.screenshot_base64 options); `marks=True` outlines and labels each
        indexed element of the state last returned with its index (a state is captured first when there is
        none), composited on the image in the engine's isolated world: the page and the state see nothing.
        The boxes are the state's: call state() first if the page may have moved since. When the state has a
        screenshot with these options and the page provably painted nothing since (the state cache's test),
        that image is marked instead of taking a new one. tab.screenshot() takes the same arguments (bytes)."""
        if marks is True:  # the state's marks, measured in the state's viewport
            index = self.element_index
            chosen = await index.marks()
            current = index.current
            if current is not None and current.state.get("screenshot"):
                wanted = ScreenshotOptions(**{k: v for k, v in options.items() if k not in ("timeout", "viewport")})
                if await index.capturer.screenshot_current(current, wanted):  # the state's image is the page now
                    marked = await index.marked_state_screenshot(timeout=options.get("timeout"))
                    if marked is not None:
                        return marked.data
            options.setdefault("viewport", current.viewport if current is not None else None)
            return await super().screenshot_base64(marks=chosen, **options)  # drawn by capture_screenshot below
        return await super().screenshot_base64(marks=marks or None, **options)

    async def capture_screenshot(
        self,
        options: ScreenshotOptions | None = None,
        *,
        timeout: float | None = None,
        marks: Sequence[Mark] | None = None,
        world: int | None = None,
        viewport: tuple[float, float, float, float] | None = None,
    ) -> files.Screenshot:
        """core Tab.capture_screenshot; `marks`' labels are drawn in the engine's isolated world unless `world` says."""
        if marks and world is None:
            world = await Worlds.of(self).context(self.main_frame_id)
        return await super().capture_screenshot(options, timeout=timeout, marks=marks, world=world, viewport=viewport)

    async def act(self, action: Any, *, screenshot: Screenshot = True, interactive: str | None = None) -> dict[str, Any]:
        """Run one protocol action (dict or JSON text); the next state, or the previous one plus `error`."""
        return await self.element_index.act(action, screenshot=screenshot, interactive=interactive)


class ExtendedAgentTab(AgentTab):
    """A tab of launch(interactive="extended"): its states hold the extended interactive set."""

    default_interactive = "extended"


def _tab_class(interactive: str) -> type[AgentTab]:
    return ExtendedAgentTab if check_mode(interactive) == "extended" else AgentTab


def launch(
    executable: str | None = None,
    *,
    headless: bool = True,
    transport: TransportName = DEFAULT_TRANSPORT,
    viewport: tuple[int, int] | None = None,
    window_size: tuple[int, int] = (1280, 720),
    args: list[str] | tuple[str, ...] = (),
    timeout: float = 30.0,
    command_timeout: float = 30.0,
    navigation_timeout: float = 30.0,
    dialog_policy: DialogPolicy = "dismiss",
    downloads_dir: str | Path | None = None,
    allowed_origins: Iterable[str] = (),
    blocked_origins: Iterable[str] = (),
    user_data_dir: str | os.PathLike[str] | None = None,
    interactive: str = "strict",
) -> core.Starter:
    """Launch Chromium headless with a fresh profile: `async with launch() as browser:` (or `await launch()`).

    `allowed_origins` / `blocked_origins` restrict what every tab may reach, redirects and popups included
    (docs/policies.md); an invalid entry is a ValueError before Chromium starts. `user_data_dir`: a
    persistent profile (its default context keeps cookies and storage across launches).
    `interactive="extended"` makes every tab's states hold the extended interactive set (docs/extended.md).
    `viewport=(w, h)`: the window and viewport size, the `--viewport` option's name (`window_size` is the same,
    kept for programs written before)."""
    return core.launch(
        executable,
        headless=headless,
        transport=transport,
        window_size=viewport or window_size,
        args=args,
        timeout=timeout,
        command_timeout=command_timeout,
        navigation_timeout=navigation_timeout,
        dialog_policy=dialog_policy,
        downloads_dir=downloads_dir,
        tab_class=_tab_class(interactive),
        navigation_policy=origin_policy(allowed_origins, blocked_origins),
        user_data_dir=user_data_dir,
    )


def connect(
    endpoint: str | None = None,
    *,
    headers: Mapping[str, str] | None = None,
    profile_dirs: Iterable[str | os.PathLike[str]] | None = None,
    viewport: tuple[int, int] | None = None,
    window_size: tuple[int, int] = (1280, 720),
    timeout: float = 10.0,
    command_timeout: float = 30.0,
    navigation_timeout: float = 30.0,
    dialog_policy: DialogPolicy = "dismiss",
    downloads_dir: str | Path | None = None,
    allowed_origins: Iterable[str] = (),
    blocked_origins: Iterable[str] = (),
    interactive: str = "strict",
) -> core.Starter:
    """Attach to a running Chromium: a ws:// URL, http://host:port (through /json/version, with `headers`), or
    None / "auto": a local Chrome started with --remote-debugging-port, found by its DevToolsActivePort (see
    core.browser.connect). Closing detaches; the browser and the user's tabs stay as they were. `viewport`: the
    size of the tabs it opens (`window_size` is the same)."""
    return core.connect(
        endpoint,
        headers=headers,
        profile_dirs=profile_dirs,
        window_size=viewport or window_size,
        timeout=timeout,
        command_timeout=command_timeout,
        navigation_timeout=navigation_timeout,
        dialog_policy=dialog_policy,
        downloads_dir=downloads_dir,
        tab_class=_tab_class(interactive),
        navigation_policy=origin_policy(allowed_origins, blocked_origins),
    )


def open_browser(*, cdp_url: str | None = None, headers: Mapping[str, str] | None = None, **options: Any) -> core.Starter:
    """connect(cdp_url, headers=...) when cdp_url is given, else launch(**options): what a surface whose
    user may attach or launch calls (Settings.browser_kwargs() gives its arguments)."""
    if cdp_url is not None:
        return connect(cdp_url, headers=headers, **options)
    return launch(**options)
