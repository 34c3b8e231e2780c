"""Typed errors: every failure a caller can act on has its own class."""

from __future__ import annotations

from typing import Any


class CDPEngineError(Exception):
    """Base class of every error cdp-engine raises on purpose."""


class BrowserNotFoundError(CDPEngineError):
    """No Chromium executable could be found."""


class LaunchError(CDPEngineError):
    """Chromium started but never became reachable over CDP."""


class ConnectionClosedError(CDPEngineError):
    """The connection to the browser is gone; pending and future commands fail with this."""


class AttachError(ConnectionClosedError):
    """No browser could be reached at the endpoint given to connect() (or none was found to auto-connect to).

    A ConnectionClosedError too: connect() raised that for a refused websocket before this class existed."""


class StorageStateError(CDPEngineError):
    """A storage state (saved cookies and storage) is malformed or cannot be read or written; nothing changed."""


class TargetClosedError(ConnectionClosedError):
    """The tab, frame or worker the session was attached to has closed or crashed."""


class CommandTimeoutError(CDPEngineError, TimeoutError):
    """A CDP command got no answer before its deadline."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method} got no answer within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class RendererHungError(CommandTimeoutError):
    """The page's renderer answers nothing (a script is busy, e.g. `while(true){}`) while the browser does.

    A CommandTimeoutError too, so callers that caught timeouts keep working; its own text says why."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(method, timeout)
        self.args = (
            f"the page's renderer is not responding (a script is busy): {method} got no answer within "
            f"{timeout:g} s while the browser answers; close the tab (or wait for the script to end)",
        )


class ProtocolError(CDPEngineError):
    """Chromium answered a command with an error."""

    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        detail = f" ({data})" if data else ""
        super().__init__(f"{method}: {message}{detail} [code {code}]")
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class NavigationError(CDPEngineError):
    """A navigation failed; error_text is Chromium's own (for example net::ERR_CONNECTION_REFUSED)."""

    def __init__(self, url: str, error_text: str) -> None:
        super().__init__(f"navigation to {url} failed: {error_text}")
        self.url = url
        self.error_text = error_text
        # Where the failure left the tab, set by core/navigation.py (a failed navigation leaves the tab on its
        # page); the raw Tab.goto/back/forward/reload leave these at their defaults.
        self.replaced = False  # the old document is gone: the page was loaded again, or the tab shows another
        self.on_page = True  # the tab is on the page (history entry) it was on before the navigation
        self.page_url: str | None = None  # the tab's URL afterwards


class NavigationTimeoutError(NavigationError, TimeoutError):
    """A navigation did not reach the requested lifecycle point before its deadline."""

    def __init__(self, url: str, wait_until: str, timeout: float) -> None:
        super().__init__(url, f"timed out after {timeout:g} s waiting for '{wait_until}'")
        self.wait_until = wait_until
        self.timeout = timeout


class JavaScriptError(CDPEngineError):
    """Script evaluated in the page threw."""

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.details = details or {}
