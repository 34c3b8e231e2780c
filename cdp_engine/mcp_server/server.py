"""Serve the tool surface with the official `mcp` SDK (low-level `Server`): stdio, or streamable HTTP.

Each tool result carries the envelope once, as JSON text content (what every client shows the model);
`isError` is set when the envelope's status is "error". The tools declare no outputSchema, so the spec
asks for no structuredContent; Config.structured_content adds the envelope again as structured content
(docs/mcp.md "Result content"). A screenshot's bytes travel only as image content: the envelope's
`image_base64` is null there and `image_content_index` names the content block holding the image.

HTTP listens on 127.0.0.1 and requires `Authorization: Bearer <token>` on every request.
Each call carries its transport session (sessions.py), which decides the instances it sees under
per-session ownership; the end of a session destroys the instances it owns.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..app.process import bind
from .envelope import dumps
from .instance_manager import InstanceManager
from .registry import REGISTRY
from .server_config import Config
from .sessions import SessionWatch, session_of
from .tools import BrowserTools

log = logging.getLogger("cdp_engine.mcp")

INSTRUCTIONS = (
    "Browser automation over Chromium. Create an instance (browser_create_instance), navigate, take a "
    "browser_snapshot and act on its [ref=eN] elements. Every result is an envelope {status, instance, data | "
    "error_type, message, operation}; read operation.outcome/retry before repeating a mutation."
)

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def _require_sdk() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise SystemExit("The MCP server needs the optional extra: pip install 'cdp-engine[mcp]'") from None


def build_server(tools: BrowserTools) -> Any:
    """A low-level `mcp.server.Server` whose tools are the BrowserTools surface."""
    _require_sdk()
    import mcp_types as types
    from mcp.server import Server

    from ..version import __version__

    listing = [
        types.Tool(
            name=spec["name"],
            description=spec["description"],
            input_schema=spec["inputSchema"],
            annotations=types.ToolAnnotations(read_only_hint=spec["annotations"]["readOnlyHint"]),
        )
        for spec in tools.list_tools()
    ]
    schemas = {tool.name: tool.input_schema for tool in listing}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listing)

    structured = tools.config.structured_content

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in REGISTRY:
            # The MCP specification's tools section answers an unknown tool with JSON-RPC error -32602 (Invalid
            # params), not a tool result; a known tool outside the selected caps still gets its error envelope,
            # which names the caps that enable it.
            from mcp.shared.exceptions import MCPError

            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        session = session_of(ctx.request)
        envelope, raw = await tools.call_raw(params.name, dict(params.arguments or {}), session=session)
        envelope, raw, image = lift_image(envelope, raw)
        content: list[Any] = [types.TextContent(type="text", text=raw.decode())]
        if image is not None:
            content.append(types.ImageContent(type="image", data=image[0], mime_type=image[1]))
        return types.CallToolResult(
            content=content,
            structured_content=envelope if structured else None,
            is_error=envelope["status"] == "error",
        )

    return Server(
        "cdp-engine",
        version=__version__,
        instructions=INSTRUCTIONS,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def lift_image(
    envelope: dict[str, Any], raw: bytes
) -> tuple[dict[str, Any], bytes, tuple[str, str] | None]:
    """A screenshot's base64 moved out of the envelope: (envelope with `image_base64: null` and
    `image_content_index: 1`, its JSON, (base64, MIME type)); other envelopes pass through unchanged."""
    data = envelope.get("data")
    if envelope["status"] != "success" or not isinstance(data, dict) or not isinstance(data.get("image_base64"), str):
        return envelope, raw, None
    mime = f"image/{data.get('image_format')}" if data.get("image_format") in ("png", "webp") else "image/jpeg"
    lifted = {**envelope, "data": {**data, "image_base64": None, "image_content_index": 1}}
    return lifted, dumps(lifted), (data["image_base64"], mime)


async def serve_stdio(config: Config) -> None:
    """Serve over stdin/stdout until the client closes it."""
    _require_sdk()
    from mcp.server.stdio import stdio_server

    config.transport = "stdio"
    async with InstanceManager(config) as manager:
        server = build_server(BrowserTools(manager))
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


class BearerAuth:
    """ASGI middleware: every HTTP request needs `Authorization: Bearer <token>` (constant-time compare)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            sent = headers.get(b"authorization", b"")
            if not hmac.compare_digest(sent, self.expected):
                client = scope.get("client") or ("?", 0)
                reason = "a wrong bearer token" if sent[:7].lower() == b"bearer " else "no bearer token"
                # Never the credential sent: it may be a near miss of the real token.
                log.warning("refused %s %s from %s: %s", scope.get("method"), scope.get("path"), client[0], reason)
                body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(tools: BrowserTools, token: str, host: str = "127.0.0.1") -> Any:
    """The streamable HTTP ASGI app at /mcp, behind the bearer token; ended sessions end their instances."""
    server = build_server(tools)
    idle = tools.config.session_idle_timeout
    app = server.streamable_http_app(host=host, session_idle_timeout=idle)
    return BearerAuth(SessionWatch(app, tools.manager.end_session, idle), token)


async def serve_http(
    config: Config,
    *,
    host: str = "127.0.0.1",
    port: int = 8931,
    token: str | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Serve streamable HTTP at http://host:port/mcp; prints the URL (and a generated token) to stderr.

    `sock`: a socket already listening (the command line binds it before anything starts, so a port in
    use is a one-line error); otherwise host:port is bound here."""
    _require_sdk()
    import uvicorn

    if token == "":
        raise ValueError("token must be a non-empty string")
    if sock is None:
        sock = bind(host, port)
    if not token:
        token = secrets.token_urlsafe(32)
        print(f"cdp-engine mcp: bearer token (generated): {token}", file=sys.stderr, flush=True)
    actual = sock.getsockname()[1]
    config.transport, config.host, config.port = "streamable-http", host, actual
    shown = f"[{host}]" if ":" in host else host
    async with InstanceManager(config) as manager:
        app = http_app(BrowserTools(manager), token, host)
        # log_config=None: uvicorn keeps its hands off logging (the command line set it up, --log-level).
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", log_config=None))
        print(f"cdp-engine mcp: listening on http://{shown}:{actual}/mcp", file=sys.stderr, flush=True)
        log.info("listening on http://%s:%s/mcp", shown, actual)
        try:
            await server.serve(sockets=[sock])
        finally:
            with contextlib.suppress(OSError):
                sock.close()
