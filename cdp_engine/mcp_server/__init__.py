"""The MCP surface: named browser instances and the browser_* tools, served over the Model Context Protocol.

`BrowserTools` is the whole tool surface without any MCP SDK (call tools by name, get envelopes);
`server.py` serves it with the official `mcp` SDK (the optional extra `cdp-engine[mcp]`).
"""

from .envelope import ERROR_TYPES, Operation, ToolError
from .instance_manager import InstanceManager
from .instances import Instance, Page
from .server_config import Config
from .tools import BrowserTools

__all__ = [
    "ERROR_TYPES",
    "BrowserTools",
    "Config",
    "Instance",
    "InstanceManager",
    "Operation",
    "Page",
    "ToolError",
]
