"""What an observation holds beyond the state, and how it is built.

Why here: reset, step and observe return the same kind of observation, and what it carries (the
screenshot or an empty one, `read_page`, `changes`, BrowserGym's set-of-marks) is one job with its
own options; BrowserEnv runs the episodes and asks this for each observation. See docs/harness.md.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from ..core.tab import Tab
from ..errors import CDPEngineError
from ..index.element_index import ElementIndex
from .tabs import Screenshot

__all__ = ["Observations", "snapshot_title"]


@dataclass
class Observations:
    """The observation options of one environment: ``screenshot`` keeps the state's image in the observation
    (else it is ""); ``read_page`` adds the state's page_content; ``changes`` what changed since the tab's last
    observation (docs/changes.md); ``som`` adds ``screenshot_som`` and ``element_boxes`` (docs/marks.md).
    ``recorded_screenshots``: a trajectory recorder keeps screenshots, so the state captures one."""

    screenshot: Screenshot = False
    read_page: bool = False
    changes: bool = False
    som: bool = False
    recorded_screenshots: bool = False

    def capture_format(self) -> Screenshot:
        """The screenshot each state is captured with: the observation's, else png when the recorder or the
        set-of-marks needs an image, else none."""
        if self.screenshot:
            return self.screenshot
        return "png" if self.recorded_screenshots or self.som else False

    async def build(self, state: dict[str, Any], active: Tab | None) -> dict[str, Any]:
        """The observation of `state`, the active tab's latest one (its `error` is the info's, not here)."""
        obs = {k: v for k, v in state.items() if k != "error"}
        if not self.screenshot:
            obs["screenshot"] = ""
        if self.read_page:
            obs["read_page"] = state.get("page_content", "")
        if self.changes and active is not None:
            obs["changes"] = ElementIndex.of(active).changes(state)
        return await _add_marks(active if active is not None and not active.closed else None, obs) if self.som else obs


async def _add_marks(active: Tab | None, obs: dict[str, Any]) -> dict[str, Any]:
    """obs plus screenshot_som and element_boxes of the active tab's state last returned (the one observed)."""
    index = ElementIndex.of(active) if active is not None else None
    marked = None
    if index is not None:
        with contextlib.suppress(CDPEngineError, TimeoutError):  # a faulted page: the observation without
            marked = await index.marked_state_screenshot(timeout=5.0)
    obs["screenshot_som"] = marked.data if marked is not None else ""
    obs["element_boxes"] = {str(i): box for i, box in index.boxes().items()} if index is not None else {}
    return obs


def snapshot_title(active: Tab | None, state: dict[str, Any]) -> str | None:
    """The active tab's title as the snapshot of `state` read it, when `state` is its latest capture
    (spares reading document.title for the tab list)."""
    if active is None or active.closed:
        return None
    capture = ElementIndex.of(active).current
    if capture is None or capture.state.get("state_hash") != state.get("state_hash"):
        return None
    return capture.title
