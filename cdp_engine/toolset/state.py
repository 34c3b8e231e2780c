"""Tabs, downloads and dialogs as the browser toolset reports them in `browser_state`.

The toolset owns one browser context. Every tab in it (popups included) gets a caller-assigned
id `tab-N` from a counter that never goes back, so an id is never reused while an earlier result
still lists it. Events (tabs opened, downloads, dialogs) are queued as they happen and drained
once per member call: onto that call's result when it succeeds, carried to the next successful
result when it fails (the API forbids a block on an error result).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..core.refs import RefRegistry
from ..core.settle import observe
from ..errors import CDPEngineError

if TYPE_CHECKING:
    from ..core.browser import Browser, BrowserContext
    from ..core.event_records import Download
    from ..core.tab import Tab

log = logging.getLogger("cdp_engine.toolset")

FIELD_MAX = 4096
MAX_TABS = 100
MAX_CHANGES = 200
REFS_MAX = 20_000
DOWNLOAD_FAILED_TEXT = "The download was cancelled or failed."
# Query parameters that carry credentials or signatures: dropped from reported download URLs,
# redacted in read_network.
SECRET_PARAM = re.compile(
    r"(^|[-_.])(sig|signature|token|access[-_]?token|id[-_]?token|key|api[-_]?key|secret|password|passwd|pwd|"
    r"auth|authorization|credential|credentials|session|sessionid|sid|code|expires|policy|jwt)($|[-_.])"
    r"|^x-(amz|goog)-",
    re.IGNORECASE,
)


def one_line(text: str, limit: int = FIELD_MAX) -> str:
    """Control characters, line and paragraph separators and bidi controls become spaces; bounded."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Zl", "Zp") or (cat == "Cf" and ch not in "\u200d"):
            out.append(" ")
        else:
            out.append(ch)
    folded = "".join(out)
    return folded if len(folded) <= limit else folded[: limit - 1] + "…"


def clean_url(url: str, *, drop_secrets: bool = False, redact: bool = False) -> str:
    """A URL safe to show: no userinfo; credential-like query values dropped or redacted."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return one_line(url)
    netloc = parts.netloc.rsplit("@", 1)[-1] if "@" in parts.netloc else parts.netloc
    query = parts.query
    if (drop_secrets or redact) and query:
        pairs = parse_qsl(query, keep_blank_values=True)
        kept = []
        for key, value in pairs:
            if SECRET_PARAM.search(key):
                if redact:
                    kept.append((key, "REDACTED"))
                continue
            kept.append((key, value))
        query = urlencode(kept)
    return one_line(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


@dataclass
class ManagedTab:
    """One tab of the toolset, with its refs and per-tab diagnostics."""

    tab_id: str
    tab: Tab
    refs: RefRegistry
    opened_at: int = 0  # call number during which it appeared
    unsubscribe: list[Callable[[], Any]] = field(default_factory=list)
    console: Any = None
    network: Any = None
    # Continuation refs handed out in cut read_page / get_page_text output (reading_members._window): ref -> what it reads.
    continuations: dict[str, Any] = field(default_factory=dict)
    last_tree: Any = None  # the accessibility tree of the latest read_page / find (its refs' boxes and marks)


@dataclass
class Dismissed:
    """A dialog the page opened and the toolset dismissed (beforeunload is accepted instead)."""

    kind: str
    message: str


class TabBook:
    """The toolset's tabs and pending state changes; see the module doc."""

    def __init__(
        self,
        browser: Browser,
        context: BrowserContext,
        *,
        expose_download_paths: bool = False,
        on_adopt: Callable[[ManagedTab], None] | None = None,
    ) -> None:
        self.browser = browser
        self.context = context
        self.expose_download_paths = expose_download_paths
        self.on_adopt = on_adopt
        self.tabs: dict[str, ManagedTab] = {}
        self.by_target: dict[str, str] = {}
        self.active: str | None = None
        self._mru: list[str] = []
        self._tab_counter = 0
        self._download_counter = 0
        self._download_ids: dict[str, str] = {}  # guid -> dl-N
        self.events: list[dict[str, Any] | Dismissed] = []
        self.call_number = 0
        self._unsubscribe: list[Callable[[], Any]] = []
        self._closed = False
        self._titles: dict[str, tuple[str, str]] = {}
        self.download_seen = asyncio.Event()  # set when one of our tabs starts a download; callers clear it

    # ----- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        """Adopt the context's tabs and follow new ones, downloads included."""
        self._unsubscribe.append(self.browser.on_tab(self._on_tab))
        # The core browser keeps the download records (and moves finished files into place) first.
        self._unsubscribe.append(self.browser.on_download(self._on_download))
        for tab in list(self.browser.tabs.values()):
            if self.belongs(tab) and tab.ready.done() and not tab.closed:
                self.adopt(tab, report=False)

    def stop(self) -> None:
        self._closed = True
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        for managed in self.tabs.values():
            for unsubscribe in managed.unsubscribe:
                unsubscribe()
            managed.unsubscribe.clear()

    def belongs(self, tab: Tab) -> bool:
        if self.context.id is not None:
            return tab.context_id == self.context.id
        return tab.context_id == self.browser.default_context_id or tab.context_id is None

    # ----- tabs -------------------------------------------------------------------------------

    def _on_tab(self, tab: Tab) -> None:
        if not self._closed and self.belongs(tab) and not tab.closed:
            self.adopt(tab)

    def adopt(self, tab: Tab, *, report: bool = True) -> ManagedTab:
        """Give a tab its id (once), its ref registry and its listeners; queue tab_opened."""
        existing = self.by_target.get(tab.target_id)
        if existing is not None:
            return self.tabs[existing]
        self._tab_counter += 1
        tab_id = f"tab-{self._tab_counter}"
        managed = ManagedTab(tab_id, tab, RefRegistry(tab, prefix="ref_"), opened_at=self.call_number)
        tab.dialog_policy = "dismiss"  # dialogs never hang a call; beforeunload is accepted by the engine
        observe(tab)  # the settle after its actions knows what each page did before them
        self.tabs[tab_id] = managed
        self.by_target[tab.target_id] = tab_id
        self._mru.append(tab_id)
        if self.active is None:
            self.active = tab_id
        managed.unsubscribe.append(
            tab.add_listener(lambda kind, payload: self._on_tab_event(managed, kind, payload))
        )
        if report:
            self.events.append({"type": "tab_opened", "tab_id": tab_id})
        if self.on_adopt is not None:
            self.on_adopt(managed)
        return managed

    def _on_tab_event(self, managed: ManagedTab, kind: str, payload: Any) -> None:
        if kind == "dialog":
            # beforeunload is accepted so requested navigations and closes proceed; not a dismissal.
            if payload.type != "beforeunload":
                self.events.append(Dismissed(payload.type, payload.message))
        elif kind == "navigated" and managed.refs.count() > REFS_MAX:
            # Refs of old documents are kept so a stale one can say the page navigated; bounded.
            managed.refs.drop_document(payload)
        elif kind == "closed":
            self.forget(managed.tab_id)

    def forget(self, tab_id: str) -> None:
        managed = self.tabs.pop(tab_id, None)
        if managed is None:
            return
        self.by_target.pop(managed.tab.target_id, None)
        for unsubscribe in managed.unsubscribe:
            unsubscribe()
        if tab_id in self._mru:
            self._mru.remove(tab_id)
        if self.active == tab_id:
            self.active = self._mru[-1] if self._mru else None

    def activate(self, tab_id: str) -> None:
        self.active = tab_id
        if tab_id in self._mru:
            self._mru.remove(tab_id)
        self._mru.append(tab_id)

    def get(self, tab_id: str | None) -> ManagedTab | None:
        """The named tab, or the active one for None / ''."""
        if not tab_id:
            return self.tabs.get(self.active) if self.active else None
        return self.tabs.get(tab_id)

    async def settle_new_tabs(self, timeout: float = 2.0) -> None:
        """Wait briefly for tabs of our context that are attached but not yet configured (popups)."""
        pending = [
            t for t in list(self.browser.tabs.values())
            if self.belongs(t) and t.target_id not in self.by_target and not t.closed and not t.ready.done()
        ]  # fmt: skip
        if pending:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await asyncio.gather(*[t.ready for t in pending], return_exceptions=True)
        for t in list(self.browser.tabs.values()):
            if self.belongs(t) and t.target_id not in self.by_target and not t.closed and t.ready.done():
                if t.ready.exception() is None:
                    self.adopt(t)

    async def refresh_titles(self) -> None:
        """Current titles and URLs for every tab in one browser-level round trip (works under an open dialog)."""
        try:
            infos = await self.browser.targets(timeout=2.0)
        except (CDPEngineError, TimeoutError):
            return
        for info in infos:
            tab_id = self.by_target.get(info.get("targetId", ""))
            if tab_id is not None:
                self._titles[tab_id] = (info.get("title", ""), info.get("url", ""))

    def entry(self, managed: ManagedTab) -> dict[str, Any]:
        title, url = self._titles.get(managed.tab_id, (managed.tab.title, managed.tab.url))
        if managed.tab.url and managed.tab.url != url and not url:
            url = managed.tab.url
        entry: dict[str, Any] = {"tab_id": managed.tab_id, "title": one_line(title), "url": clean_url(url)}
        if managed.tab_id == self.active:
            entry["active"] = True
        return entry

    def inventory(self) -> list[dict[str, Any]]:
        """Every open tab (at most 100, the active one always kept), exactly one marked active."""
        managed = [m for m in self.tabs.values() if not m.tab.closed]
        if len(managed) > MAX_TABS:
            active = [m for m in managed if m.tab_id == self.active]
            managed = [*active, *[m for m in managed if m.tab_id != self.active][: MAX_TABS - len(active)]]
        return [self.entry(m) for m in managed]

    # ----- state changes ----------------------------------------------------------------------

    def drain(self) -> list[dict[str, Any] | Dismissed]:
        events, self.events = self.events, []
        return events

    def _download_tab(self, download: Download) -> bool:
        """Whether a download comes from one of our tabs (a popup not adopted yet included)."""
        tab = self.browser.tabs.get(download.tab_id or "")
        return tab is not None and (tab.target_id in self.by_target or self.belongs(tab))

    def _on_download(self, download: Download) -> None:
        if download.state == "inProgress":
            if download.id not in self._download_ids:
                self._on_download_begin(download)
        elif download.state in ("completed", "canceled"):
            self._on_download_end(download)

    def _on_download_begin(self, download: Download) -> None:
        if self._closed or not self._download_tab(download):
            return
        self._download_counter += 1
        download_id = f"dl-{self._download_counter}"
        self._download_ids[download.id] = download_id
        self.download_seen.set()
        self.events.append(
            {
                "type": "download_started",
                "download_id": download_id,
                "url": clean_url(download.url, drop_secrets=True),
            }
        )

    def _on_download_end(self, download: Download) -> None:
        download_id = self._download_ids.pop(download.id, None)
        if download_id is None:
            return
        url = clean_url(download.url, drop_secrets=True)
        if download.state == "completed":
            change: dict[str, Any] = {"type": "download_completed", "download_id": download_id, "url": url}
            if download.size is not None:
                change["size_bytes"] = int(download.size)
            if self.expose_download_paths and download.path:
                path = download.path
                if one_line(path) == path:
                    change["path"] = path
            self.events.append(change)
        else:
            self.events.append(
                {
                    "type": "download_failed",
                    "download_id": download_id,
                    "url": url,
                    "error": DOWNLOAD_FAILED_TEXT,
                }
            )


def merge_changes(changes: Iterable[dict[str, Any]], live_tabs: set[str]) -> list[dict[str, Any]]:
    """One block's state_changes: the latest entry per download_id, the first tab_opened per tab still open."""
    items = list(changes)
    latest = {c["download_id"]: i for i, c in enumerate(items) if c["type"].startswith("download_")}
    kept: list[dict[str, Any]] = []
    opened: set[str] = set()
    for i, change in enumerate(items):
        if change["type"] == "tab_opened":
            if change["tab_id"] not in live_tabs or change["tab_id"] in opened:
                continue
            opened.add(change["tab_id"])
        elif change["type"].startswith("download_") and latest[change["download_id"]] != i:
            continue
        kept.append(change)
    return kept[-MAX_CHANGES:]
