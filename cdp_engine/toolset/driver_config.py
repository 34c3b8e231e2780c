"""What an application decides for the browser toolset (ToolsetConfig), and what a member answers: a text, an
image or a navigation (the outcomes), or MemberError with the fixed text the model reads.

Why its own module: the driver (toolset/sdk.py), the executor and the tests construct and read these; the
executor (toolset/executor.py, with the member groups toolset/*_members.py) is the members themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core import files as core_files
from ..core.policies import TOOLSET_TEXT_CAP, WEB_SCHEMES
from ..util.text_windows import check_budget
from .inputs import DEFAULT_DISABLED


class MemberError(Exception):
    """A member failed; `text` is what the model reads (fixed phrases, no page content)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass
class NavigateOutcome:
    """Where a navigation ended up (rendered `Navigated to {url} — {title} (HTTP {status})`)."""

    url: str
    status: int | None = None
    title: str | None = None


@dataclass
class ImageOutcome:
    data: str
    media_type: str = "image/png"
    width: int = 0
    height: int = 0


Outcome = str | None | NavigateOutcome | ImageOutcome | dict[str, Any] | list[dict[str, Any]]


@dataclass
class ToolsetConfig:
    """What the application decides; everything has a safe default.

    - `configs`: the wire `configs` (`{"javascript_exec": {"enabled": True}}`); members off by
      default stay off unless enabled here.
    - `upload_roots`: folders file_upload may read from (resolved; never the downloads folder);
      `upload_documents`: document id → file, for `document_ids`.
    - `allowed_schemes`: the URL schemes navigate may reach (http and https; see docs/policies.md);
      `allowed_origins` / `blocked_origins`: the origins it may (none: any) and may not reach, checked
      on redirects and popups too (a context given to the toolset gets them as its navigation policy).
    - `max_image_long_edge` / `max_image_pixels`: screenshots are scaled (by Chromium, with the
      capture clip's scale) to fit; coordinates from the model are scaled back.
      `max_image_width` / `max_image_height` (None: no bound of their own) cap each side too: the
      toolset's input is fixed by its spec, so these are the driver's options, never input fields.
    - `screenshot_format` / `screenshot_quality` (jpeg and webp) / `screenshot_optimize_for_speed`
      (Chromium's fast encoders: the same pixels, a png about 1.3x larger, about 20 ms sooner at 1280x720
      on a loaded 2-core machine, benchmarks/results/screenshot.md).
    - `screenshot_marks`: the screenshot member's image outlines and labels each visible interactive
      element with its ref (from the tab's latest read_page or find; the interactive elements are read
      first when there was none), drawn on the image only (docs/marks.md). The member's input schema is
      the spec's, so this is the driver's choice; zoom is never marked.
    - `call_timeout`: one overall deadline per call, waiting for the call before it included; the
      member gets all of it but REPORT_BUDGET, which the `browser_state` report keeps.
    - `text_chars`: the budget of read_page, get_page_text and find output (50,000 characters, the spec's cap;
      about 12,500 tokens); a longer text is cut after a whole line, and the marker names a continuation ref
      that read_page takes as `ref` to read the next part (docs/toolset.md "Long pages").
    - `interactive`: "strict" (default) or "extended": read_page's interactive filter and find also give
      refs to the extended set (click-handler divs, tabs, pointer rows; docs/extended.md). The members'
      input schemas are the spec's, so this is the driver's switch, not a member parameter.
    """

    configs: Mapping[str, Mapping[str, Any] | None] | None = None
    upload_roots: Sequence[str | Path] = ()
    allowed_schemes: Sequence[str] = tuple(sorted(WEB_SCHEMES))
    allowed_origins: Sequence[str] = ()
    blocked_origins: Sequence[str] = ()
    upload_documents: Mapping[str, str | Path] = field(default_factory=dict)
    max_image_long_edge: int = 1568
    max_image_pixels: int = 1_150_000
    max_image_width: int | None = None
    max_image_height: int | None = None
    screenshot_format: Literal["png", "jpeg", "webp"] = "png"
    screenshot_quality: int = 80
    screenshot_optimize_for_speed: bool = True
    screenshot_marks: bool = False
    pixels_per_notch: int = 100
    navigation_timeout: float = 30.0
    script_timeout: float = 10.0
    call_timeout: float = 60.0
    expose_download_paths: bool = False
    follow_popups: bool = False
    text_chars: int = TOOLSET_TEXT_CAP
    interactive: Literal["strict", "extended"] = "strict"

    def __post_init__(self) -> None:
        check_budget(self.text_chars, "text_chars")  # a BudgetError (ValueError) naming it
        # A format or quality no capture could use is refused here, not at the first screenshot.
        core_files.ScreenshotOptions(
            format=self.screenshot_format,
            quality=self.screenshot_quality,
            max_width=self.max_image_width,
            max_height=self.max_image_height,
        )

    def enabled(self, name: str) -> bool:
        entry = (self.configs or {}).get(name)
        if isinstance(entry, Mapping) and isinstance(entry.get("enabled"), bool):
            return bool(entry["enabled"])
        return name not in DEFAULT_DISABLED
