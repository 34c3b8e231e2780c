"""Plain records the core keeps from CDP events: frames, dialogs, downloads, navigation responses.

A leaf of the core (no behaviour, no imports from the rest of it), so the modules that wait on a
tab (lifecycle.py) can name these types without importing the tab itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cdp.connection import CDPSession


@dataclass
class Frame:
    """A frame of a tab; `session` is the CDP session that owns its document (differs for OOPIFs)."""

    id: str
    parent_id: str | None
    session: CDPSession
    url: str = ""
    name: str = ""
    loader_id: str = ""
    lifecycle: set[str] = field(default_factory=set)


@dataclass
class Dialog:
    """A JavaScript dialog the page opened, and what happened to it."""

    type: str
    message: str
    default_prompt: str
    url: str
    frame_id: str | None = None
    handled: bool = False
    accepted: bool | None = None
    prompt_text: str | None = None
    session: CDPSession | None = field(default=None, repr=False)


@dataclass
class Download:
    """A file download: id is Chromium's guid; path and size are set once it completes."""

    id: str
    url: str
    suggested_filename: str
    state: str = "inProgress"
    path: str | None = None
    size: int | None = None
    received_bytes: int = 0
    total_bytes: int = 0
    frame_id: str | None = None
    tab_id: str | None = None


@dataclass
class Response:
    """What goto() learned about the main document."""

    url: str
    status: int | None
    loader_id: str | None
    same_document: bool = False
    dialog: bool = False  # a held dialog ended the wait before the lifecycle point
