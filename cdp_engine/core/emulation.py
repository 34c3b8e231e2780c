"""Emulation: viewport (device metrics) and locale overrides of a tab or one of its sessions.

Each call returns the command's future, so a caller setting up a new session can send several
commands in one window and await them together.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from ..cdp.connection import CDPSession


class HasSession(Protocol):
    """A tab (anything with a main session)."""

    @property
    def session(self) -> CDPSession: ...


def _session(target: CDPSession | HasSession) -> CDPSession:
    return target if isinstance(target, CDPSession) else target.session


def set_viewport(
    target: CDPSession | HasSession,
    width: int,
    height: int,
    *,
    device_scale_factor: float = 1,
    mobile: bool = False,
) -> asyncio.Future[dict[str, Any]]:
    """Override the viewport to width x height CSS px (the window keeps its size)."""
    return _session(target).send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": device_scale_factor, "mobile": mobile},
    )


def set_locale(target: CDPSession | HasSession, locale: str) -> asyncio.Future[dict[str, Any]]:
    """Override the locale (navigator.language, Intl defaults) of the session's pages; "" restores it."""
    return _session(target).send("Emulation.setLocaleOverride", {"locale": locale} if locale else {})
