"""The `cdp-engine` command: demo, state, serve, mcp."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

import orjson

if TYPE_CHECKING:
    from .core.lifecycle import WaitUntil


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cdp-engine",
        description="A fast, exact view of a web page and precise hands on it for AI agents, over raw CDP.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run an agent loop against an embedded local site (no network needed)")
    demo.add_argument("--headed", action="store_true", help="show the browser window")
    state = sub.add_parser("state", help="print the Element Index protocol state of URL as JSON")
    state.add_argument("url")
    state.add_argument("--screenshot", choices=["none", "png", "jpeg", "webp"], default="none")
    state.add_argument("--wait-until", default="load", choices=["commit", "domcontentloaded", "load", "networkidle"])
    serve = sub.add_parser("serve", help="serve the protocol over HTTP on 127.0.0.1 with a bearer token")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--token", help="bearer token (default: generated and printed once)")
    serve.add_argument("--start-url")
    serve.add_argument("--allow-remote", action="store_true", help="allow a host beyond loopback (still needs the token)")
    mcp = sub.add_parser(
        "mcp", help="serve the browser_* tools over the Model Context Protocol (stdio by default)"
    )
    mcp.add_argument(
        "--http", action="store_true", help="streamable HTTP at http://HOST:PORT/mcp instead of stdio"
    )
    mcp.add_argument("--host", default="127.0.0.1")
    mcp.add_argument("--port", type=int, default=8931, help="HTTP port (0: any free port, printed to stderr)")
    mcp.add_argument(
        "--token", help="HTTP bearer token (default: $CDP_ENGINE_MCP_TOKEN, else generated and printed)"
    )
    mcp.add_argument("--allow-remote", action="store_true", help="allow an HTTP host beyond loopback")
    mcp.add_argument("--headed", action="store_true", help="show browser windows")
    mcp.add_argument(
        "--isolation",
        choices=["context", "process"],
        help="per instance: a browser context (default) or a process",
    )
    mcp.add_argument("--max-instances", type=int)
    mcp.add_argument("--executable", help="Chromium binary (default: $CDP_ENGINE_CHROME or discovery)")
    return parser


def _mcp(args: argparse.Namespace) -> int:
    import logging
    import os

    from .mcp_server.instances import Config
    from .mcp_server.server import serve_http, serve_stdio

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # stdout belongs to the protocol
    if args.http and args.host not in ("127.0.0.1", "localhost", "::1") and not args.allow_remote:
        print("refusing a non-loopback host without --allow-remote", file=sys.stderr)
        return 2
    config = Config.from_env(
        headless=False if args.headed else None,
        isolation=args.isolation,
        max_instances=args.max_instances,
        executable=args.executable,
    )
    if args.http:
        token = args.token or os.environ.get("CDP_ENGINE_MCP_TOKEN")
        asyncio.run(serve_http(config, host=args.host, port=args.port, token=token))
    else:
        asyncio.run(serve_stdio(config))
    # Everything is closed (browser included); skip the interpreter's slow teardown of the SDK's modules so a
    # client, which waits only briefly after closing stdin or signalling, sees a clean exit instead of killing us.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


async def _state(url: str, screenshot: str, wait_until: WaitUntil) -> None:
    from .index.element_index import ElementIndex
    from .index.tab import launch

    async with launch() as browser:
        tab = await browser.new_tab()
        await tab.goto(url, wait_until=wait_until)
        shot: bool | str = False if screenshot == "none" else screenshot
        state = await ElementIndex.of(tab).state(screenshot=shot)
        sys.stdout.buffer.write(orjson.dumps(state, option=orjson.OPT_INDENT_2) + b"\n")
        print(orjson.dumps(tab.last_timings).decode(), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from .demo import run_demo

        state = asyncio.run(run_demo(headless=not args.headed))
        return 0 if "Region: us" in state["page_content"] else 1
    if args.command == "state":
        asyncio.run(_state(args.url, args.screenshot, args.wait_until))
        return 0
    if args.command == "serve":
        from .service import serve

        asyncio.run(
            serve(args.host, args.port, token=args.token, start_url=args.start_url, allow_remote=args.allow_remote)
        )
        return 0
    if args.command == "mcp":
        return _mcp(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
