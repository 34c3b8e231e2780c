"""Just enough of Chromium, on MockTransport, for core.browser.Browser to start and a tab to attach.

The core's logic (lifecycle watcher, settle, goto) is then driven by scripted events in
milliseconds, without a browser:

    fake = await FakeBrowser.start()
    fake.answer("Page.navigate", lambda params: {"frameId": fake.frame_id, "loaderId": "L1"})
    going = asyncio.ensure_future(fake.tab.goto("http://x.test/", wait_until="load"))
    await fake.sent("Page.navigate")           # the command is on the wire
    fake.commit("L1", "http://x.test/")        # Page.frameNavigated + lifecycle init/commit
    fake.lifecycle("load", "L1")
    response = await going
    await fake.close()

What Browser.start and Tab.configure send is answered as Chromium does (setAutoAttach attaches the
one about:blank page, getFrameTree names its main frame, the enable commands answer {}); a test
overrides any command with answer(method, fn) and emits the events Chromium would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cdp_engine.cdp.connection import Connection
from cdp_engine.cdp.mock import Answer, MockTransport
from cdp_engine.core.browser import Browser
from cdp_engine.core.settle import ARM_FUNCTION, LOOK_FUNCTION
from cdp_engine.core.tab import DialogPolicy, Tab

SESSION = "S1"
TARGET = "T1"  # Chromium's main frame id is its page's target id
FIRST_LOADER = "L0"
DEFAULT_CONTEXT = "CTX0"

Script = Callable[[dict[str, Any]], Answer]


class FakeBrowser:
    """A Browser over a MockTransport whose handler plays Chromium for one page target."""

    def __init__(self, downloads_dir: Path | None = None, dialog_policy: DialogPolicy = "dismiss") -> None:
        self.transport = MockTransport(self._handle)
        self.connection = Connection(self.transport, default_timeout=5.0)
        self.browser = Browser(
            self.connection, None, dialog_policy=dialog_policy, navigation_timeout=5.0, downloads_dir=downloads_dir
        )
        self.frame_id = TARGET
        self.tab: Tab
        self.status: int | None = 200  # what the page's navigation entry reports (Tab._main_status)
        self.changes = 0  # the settle observer's change count (what ARM_FUNCTION answers)
        self.look: dict[str, Any] = {"changed": False, "continued": False, "deadline": False, "ms": 0.0}
        self.scripts: dict[str, Script] = {}
        self._sent_waiters: list[tuple[str, asyncio.Future[dict[str, Any]]]] = []
        self._consumed: dict[str, int] = {}  # how many commands of each method sent() has handed out

    @classmethod
    async def start(cls, **kw: Any) -> FakeBrowser:
        fake = cls(**kw)
        await asyncio.wait_for(fake.browser.start(), 2.0)
        fake.tab = fake.browser.tabs[TARGET]  # kept after it closes, for the test to look at
        return fake

    # ----- the browser's side -------------------------------------------------------------------

    def answer(self, method: str, script: Script) -> None:
        """Answer `method` with script(params) from now on (it may emit events first, or return NO_ANSWER)."""
        self.scripts[method] = script

    def _handle(self, method: str, params: dict[str, Any], session_id: str | None) -> Answer:
        for waited, future in list(self._sent_waiters):
            if waited == method and not future.done():
                self._consumed[method] = self._consumed.get(method, 0) + 1
                future.set_result(params)
                self._sent_waiters.remove((waited, future))
                break
        script = self.scripts.get(method)
        if script is not None:
            return script(params)
        if method == "Browser.getVersion":
            return {"product": "HeadlessChrome/0.0 (fake)", "protocolVersion": "1.3"}
        if method == "Target.getBrowserContexts":
            return {"browserContextIds": [], "defaultBrowserContextId": DEFAULT_CONTEXT}
        if method == "Target.setAutoAttach" and session_id is None:
            # Chromium attaches the existing page right away, before it answers.
            self.transport.attach(
                SESSION,
                {"targetId": TARGET, "type": "page", "url": "about:blank", "browserContextId": DEFAULT_CONTEXT},
                waiting_for_debugger=True,
            )
            return {}
        if method == "Page.getFrameTree":
            return {"frameTree": {"frame": {"id": self.frame_id, "loaderId": FIRST_LOADER, "url": "about:blank"}}}
        if method == "Runtime.evaluate":
            return self._evaluate(params["expression"])
        if method == "Page.createIsolatedWorld":
            return {"executionContextId": 100}
        if method == "Runtime.callFunctionOn" and params.get("functionDeclaration") == ARM_FUNCTION:
            return {"result": {"type": "number", "value": self.changes}}
        if method == "Runtime.callFunctionOn" and params.get("functionDeclaration") == LOOK_FUNCTION:
            return {"result": {"type": "object", "value": {"n": self.changes, **self.look}}}
        return {}

    def _evaluate(self, expression: str) -> Answer:
        if "getEntriesByType('navigation')" in expression:
            if self.status is None:
                return {"result": {"type": "object", "subtype": "null", "value": None}}
            return {"result": {"type": "number", "value": self.status}}
        return {"result": {"type": "undefined"}}

    async def sent(self, method: str, timeout: float = 1.0) -> dict[str, Any]:
        """The params of the next `method` command not yet handed out by sent(): one already sent, or the
        next one the engine sends (within `timeout`)."""
        seen = self.commands(method)
        consumed = self._consumed.get(method, 0)
        if len(seen) > consumed:
            self._consumed[method] = consumed + 1
            params: dict[str, Any] = seen[consumed].get("params", {})
            return params
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._sent_waiters.append((method, future))
        return await asyncio.wait_for(future, timeout)

    def commands(self, method: str) -> list[dict[str, Any]]:
        """Every `method` command sent so far (decoded, with id, params and sessionId)."""
        return [c for c in self.transport.sent if c["method"] == method]

    # ----- events ---------------------------------------------------------------------------------

    def emit(self, method: str, params: dict[str, Any] | None = None) -> None:
        """An event on the page's session."""
        self.transport.emit(method, params or {}, session_id=SESSION)

    def started_navigating(self, url: str, navigation_type: str = "differentDocument", loader: str = "") -> None:
        self.emit(
            "Page.frameStartedNavigating",
            {"frameId": self.frame_id, "url": url, "loaderId": loader, "navigationType": navigation_type},
        )

    def requested(self, url: str) -> None:
        self.emit(
            "Page.frameRequestedNavigation",
            {"frameId": self.frame_id, "reason": "anchorClick", "url": url, "disposition": "currentTab"},
        )

    def commit(self, loader: str, url: str) -> None:
        """A new main document: lifecycle init, frameNavigated, then commit (Chromium's order)."""
        self.lifecycle("init", loader)
        self.emit(
            "Page.frameNavigated",
            {"frame": {"id": self.frame_id, "loaderId": loader, "url": url, "securityOrigin": url, "mimeType": "text/html"},
             "type": "Navigation"},
        )  # fmt: skip
        self.lifecycle("commit", loader)

    def lifecycle(self, name: str, loader: str) -> None:
        self.emit("Page.lifecycleEvent", {"frameId": self.frame_id, "loaderId": loader, "name": name, "timestamp": 1.0})

    def load(self, loader: str, *names: str) -> None:
        """The lifecycle events a loading document sends (by default DOMContentLoaded and load)."""
        for name in names or ("DOMContentLoaded", "load"):
            self.lifecycle(name, loader)

    def same_document(self, url: str) -> None:
        self.emit("Page.navigatedWithinDocument", {"frameId": self.frame_id, "url": url, "navigationType": "historyApi"})

    def stopped_loading(self) -> None:
        self.emit("Page.frameStoppedLoading", {"frameId": self.frame_id})

    def dialog(self, message: str, kind: str = "alert") -> None:
        self.emit(
            "Page.javascriptDialogOpening",
            {"url": "", "frameId": self.frame_id, "message": message, "type": kind, "hasBrowserHandler": False,
             "defaultPrompt": ""},
        )  # fmt: skip

    def detach(self) -> None:
        """The page target went away (Target.detachedFromTarget on the browser session)."""
        self.transport.detach(SESSION)

    def crash(self) -> None:
        self.emit("Inspector.targetCrashed")

    async def close(self) -> None:
        await self.browser.close()
