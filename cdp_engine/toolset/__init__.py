"""Claude's client-side browser toolset (`browser_toolset_20260801`) on cdp-engine.

`BrowserToolset` runs the 31 members against a cdp-engine browser and answers an assistant
message's tool_use blocks (`run_batch`). `cdp_engine.toolset.sdk.CdpEngineBrowserToolset` is the
same executor behind the official `anthropic` SDK's abstract browser toolset (optional extra
`cdp-engine[anthropic]`); it is imported on first use so the package works without `anthropic`.
"""

from __future__ import annotations

from typing import Any

from .driver_config import ImageOutcome, MemberError, NavigateOutcome, ToolsetConfig
from .executor import BrowserToolset
from .inputs import DEFAULT_DISABLED, HALT_TEXT, MEMBER_NAMES, TOOLSET_NAME, TOOLSET_TYPE
from .page_members import normalize_url

__all__ = [
    "DEFAULT_DISABLED",
    "HALT_TEXT",
    "MEMBER_NAMES",
    "TOOLSET_NAME",
    "TOOLSET_TYPE",
    "BrowserToolset",
    "ImageOutcome",
    "MemberError",
    "NavigateOutcome",
    "ToolsetConfig",
    "normalize_url",
]


def __getattr__(name: str) -> Any:
    # `from cdp_engine.toolset import CdpEngineBrowserToolset` works with the extra installed; not in __all__,
    # so a star import never needs anthropic.
    if name == "CdpEngineBrowserToolset":
        from .sdk import CdpEngineBrowserToolset

        return CdpEngineBrowserToolset
    raise AttributeError(name)
