"""cdp-engine: a fast, exact view of a web page and precise hands on it, over raw CDP.

    async with cdp_engine.launch() as browser:
        tab = await browser.new_tab("http://127.0.0.1:8000/")
        state = await tab.state()
        state = await tab.act({"action": "click_element", "element_index": 1})
"""

from .browser import Browser, BrowserContext, Dialog, Download, Frame, Response, Tab, connect, launch
from .connection import CDPSession, Connection
from .errors import (
    BrowserNotFoundError,
    CDPEngineError,
    CommandTimeoutError,
    ConnectionClosedError,
    JavaScriptError,
    LaunchError,
    NavigationError,
    NavigationTimeoutError,
    ProtocolError,
    TargetClosedError,
)
from .launcher import find_chromium

__version__ = "0.1.0"

__all__ = [
    "Browser",
    "BrowserContext",
    "BrowserNotFoundError",
    "CDPEngineError",
    "CDPSession",
    "CommandTimeoutError",
    "Connection",
    "ConnectionClosedError",
    "Dialog",
    "Download",
    "Frame",
    "JavaScriptError",
    "LaunchError",
    "NavigationError",
    "NavigationTimeoutError",
    "ProtocolError",
    "Response",
    "Tab",
    "TargetClosedError",
    "__version__",
    "connect",
    "find_chromium",
    "launch",
]
