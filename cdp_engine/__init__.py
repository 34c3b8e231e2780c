"""cdp-engine: a fast, exact view of a web page and precise hands on it, over raw CDP.

    async with cdp_engine.launch() as browser:
        tab = await browser.new_tab("http://127.0.0.1:8000/")
        state = await tab.state()
        state = await tab.act({"action": "click_element", "element_index": 1})
"""

from .cdp.connection import CDPSession, Connection
from .cdp.launcher import find_chromium
from .core.browser import Browser, BrowserContext
from .core.event_records import Dialog, Download, Frame, Response
from .core.tab import Tab
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
    RendererHungError,
    TargetClosedError,
)
from .index.agent_tab import AgentTab, connect, launch
from .index.element_index import ElementIndex
from .version import __version__

__all__ = [
    "AgentTab",
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
    "ElementIndex",
    "Frame",
    "JavaScriptError",
    "LaunchError",
    "NavigationError",
    "NavigationTimeoutError",
    "ProtocolError",
    "RendererHungError",
    "Response",
    "Tab",
    "TargetClosedError",
    "__version__",
    "connect",
    "find_chromium",
    "launch",
]
