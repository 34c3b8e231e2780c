"""The engine's execution contexts in a tab's frames: one isolated world per document, and the page's own.

Why one owner: the state capture (change probes, style checks) and the MCP surface (selectors,
waits) both run scripts the page must not see. One isolated world per frame document, created on
first use (or as the document commits), kept until its document or context goes away and then
created again, means no world leaks per call and no two copies of the bookkeeping. In the documents
of the tab's own session Chromium makes the world as the document is created and runs the init
scripts there before the page's own (Page.addScriptToEvaluateOnNewDocument with the world's name), so
the observers see the page from its start and handing the world out costs one call, not one per script. The page's
default contexts (its own scripts' world) are followed here too, from Runtime events on the
sessions a surface enabled Runtime on (`watch`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError

if TYPE_CHECKING:
    from .tab import Tab

__all__ = ["WORLD_NAME", "WorldUnavailableError", "Worlds"]

WORLD_NAME = "cdp-engine"


class WorldUnavailableError(CDPEngineError):
    """The frame is gone, or its document could not get an isolated world."""


class Worlds:
    """One tab's isolated worlds, keyed by (frame id, loader id): `Worlds.of(tab)` is the tab's one instance."""

    @classmethod
    def of(cls, tab: Tab) -> Worlds:
        """The tab's worlds (created on first use; they live as long as the tab)."""
        return tab.extension(cls)

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        self._worlds: dict[tuple[str, str], tuple[CDPSession, int]] = {}
        self._pending: dict[tuple[str, str], asyncio.Future[int | None]] = {}
        self._main: dict[str, tuple[CDPSession, int]] = {}  # frame id -> the page's default context
        self._init_scripts: list[str] = []
        # Init scripts are also registered to run in the world as each new document of the tab's own session
        # is created (Page.addScriptToEvaluateOnNewDocument with the world's name: Chromium makes the world
        # then, before the page's scripts run, and createIsolatedWorld later hands out that same world). A
        # document first seen (its commit) after a registration was answered has that script already; one
        # seen before (or there when it was sent) may not.
        self._registered: dict[str, set[str]] = {}  # session id -> scripts whose registration was answered
        self._preinstalled: dict[tuple[str, str], frozenset[str]] = {}  # document -> scripts it ran at creation
        self._watched: set[str] = set()
        # Each new document gets its world as soon as it commits, off any caller's critical path.
        tab.add_listener(self._on_tab_event)

    # ----- public ------------------------------------------------------------------------------

    def add_init_script(self, expression: str) -> None:
        """An expression run in every world created from now on, before the world is handed out, and in the
        worlds that exist already: sent to them now, so it is in place before anything sent after it (a
        session runs its commands in order)."""
        if expression in self._init_scripts:
            return
        self._init_scripts.append(expression)
        self._register(self.tab.session, expression)
        for session, ctx in list(self._worlds.values()):
            if not session.closed:
                session.send(
                    "Runtime.evaluate", {"expression": expression, "contextId": ctx, "returnByValue": True}
                ).add_done_callback(_retrieve)

    def get(self, frame_id: str, loader_id: str | None = None) -> int | None:
        """The isolated world's context id in the frame's current document (or `loader_id`'s); None if none yet."""
        world = self._worlds.get((frame_id, self._loader(frame_id) if loader_id is None else loader_id))
        return world[1] if world is not None else None

    async def context(self, frame_id: str) -> int:
        """The isolated world in the frame's current document, created if needed; WorldUnavailableError."""
        ctx = await self.ensure(frame_id)
        if ctx is None:
            raise WorldUnavailableError(f"no isolated world in frame {frame_id}")
        return ctx

    async def ensure(self, frame_id: str) -> int | None:
        """Like context(), None instead of an error (one creation in flight per document, shared)."""
        key = (frame_id, self._loader(frame_id))
        world = self._worlds.get(key)
        if world is not None and not world[0].closed:
            return world[1]
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = asyncio.ensure_future(self._create(key))

            def done(_f: asyncio.Future[int | None], key: tuple[str, str] = key) -> None:
                self._pending.pop(key, None)

            pending.add_done_callback(done)
        return await asyncio.shield(pending)

    def pending(self, frame_id: str) -> bool:
        """Whether a world for the frame's current document is being created."""
        return (frame_id, self._loader(frame_id)) in self._pending

    def forget(self, frame_id: str, loader_id: str | None = None) -> None:
        """Forget the world of a document a call found gone (before any event said so); the next use recreates it."""
        self._worlds.pop((frame_id, self._loader(frame_id) if loader_id is None else loader_id), None)

    def main_context(self, frame_id: str) -> tuple[CDPSession, int] | None:
        """The page's own (default) context in a frame, as reported on a watched session; None if unknown."""
        return self._main.get(frame_id)

    def watch(self, session: CDPSession) -> None:
        """Follow the session's Runtime context events (seen only where Runtime is enabled): a destroyed
        or cleared context is dropped, and the page's default contexts are recorded."""
        sid = session.id or ""
        if sid in self._watched:
            return
        self._watched.add(sid)
        session.on("Runtime.executionContextCreated", lambda p: self._on_created(session, p))
        session.on("Runtime.executionContextDestroyed", lambda p: self._on_destroyed(session, p))
        session.on("Runtime.executionContextsCleared", lambda _p: self._on_cleared(session))

    # ----- internals ---------------------------------------------------------------------------

    def _loader(self, frame_id: str) -> str:
        frame = self.tab.frames.get(frame_id)
        return frame.loader_id if frame else ""

    async def _create(self, key: tuple[str, str]) -> int | None:
        frame = self.tab.frames.get(key[0])
        if frame is None or frame.session.closed:
            return None
        session = frame.session
        self.watch(session)
        try:
            result = await session.send(
                "Page.createIsolatedWorld",
                {"frameId": key[0], "worldName": WORLD_NAME, "grantUniveralAccess": False},
            )
            ctx: int = result["executionContextId"]
            ran = self._preinstalled.get(key, frozenset())
            # Sent together (the session runs them in order): one round trip for all.
            sent = [
                session.send("Runtime.evaluate", {"expression": expression, "contextId": ctx, "returnByValue": True})
                for expression in self._init_scripts
                if expression not in ran
            ]
            for future in sent:
                future.add_done_callback(_retrieve)  # one failing leaves the others unread
            for future in sent:
                await future
        except CDPEngineError:
            return None
        self._worlds[key] = (session, ctx)
        return ctx

    def _first_seen(self, frame_id: str, loader_id: str, session: CDPSession) -> None:
        """Note what a document can have run at its creation, the first time it is seen (a same-document
        navigation later sees it again and changes nothing)."""
        self._preinstalled.setdefault((frame_id, loader_id), frozenset(self._registered.get(session.id or "", ())))

    def _register(self, session: CDPSession, expression: str) -> None:
        """Run `expression` in the world of each document the session creates from now on (see __init__)."""
        for fid, frame in list(self.tab.frames.items()):  # documents there now: seen before it was answered
            self._first_seen(fid, frame.loader_id, frame.session)
        sent = session.send("Page.addScriptToEvaluateOnNewDocument", {"source": expression, "worldName": WORLD_NAME})

        def done(future: asyncio.Future[Any]) -> None:
            if not future.cancelled() and future.exception() is None:
                self._registered.setdefault(session.id or "", set()).add(expression)

        sent.add_done_callback(done)

    def _on_tab_event(self, kind: str, payload: Any) -> None:
        if kind != "navigated" or not isinstance(payload, str):
            return
        frame = self.tab.frames.get(payload)
        if frame is None or frame.session.closed:
            return
        loader = frame.loader_id
        for old in [k for k in self._worlds if k[0] == payload and k[1] != loader]:
            del self._worlds[old]  # that document is gone
        for old in [k for k in self._preinstalled if (k[0] == payload and k[1] != loader) or k[0] not in self.tab.frames]:
            del self._preinstalled[old]
        self._first_seen(payload, loader, frame.session)
        if (payload, loader) not in self._worlds and (payload, loader) not in self._pending:
            future = asyncio.ensure_future(self.ensure(payload))
            future.add_done_callback(lambda f: f.cancelled() or f.exception())

    def _on_created(self, session: CDPSession, params: dict[str, Any]) -> None:
        context = params["context"]
        aux = context.get("auxData") or {}
        if aux.get("isDefault") and aux.get("frameId"):
            self._main[aux["frameId"]] = (session, context["id"])

    def _on_destroyed(self, session: CDPSession, params: dict[str, Any]) -> None:
        gone = params.get("executionContextId")
        _drop(self._worlds, lambda sess, ctx: sess is session and ctx == gone)
        _drop(self._main, lambda sess, ctx: sess is session and ctx == gone)

    def _on_cleared(self, session: CDPSession) -> None:
        _drop(self._worlds, lambda sess, _ctx: sess is session)
        _drop(self._main, lambda sess, _ctx: sess is session)


_K = TypeVar("_K")


def _drop(table: dict[_K, tuple[CDPSession, int]], gone: Callable[[CDPSession, int], bool]) -> None:
    """Remove the contexts `gone` picks from one of the tables (both map a key to (session, context id))."""
    for key, (sess, ctx) in list(table.items()):
        if gone(sess, ctx):
            table.pop(key, None)


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark a fire-and-forget command's failure as seen (a world that went away needs nothing)."""
    if not future.cancelled():
        future.exception()
