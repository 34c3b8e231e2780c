"""The `cdp-engine` command: demo, state, serve."""

from __future__ import annotations

import argparse
import asyncio
import sys

import orjson


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
    state.add_argument("--screenshot", choices=["none", "png", "jpeg"], default="none")
    state.add_argument("--wait-until", default="load", choices=["commit", "domcontentloaded", "load", "networkidle"])
    serve = sub.add_parser("serve", help="serve the protocol over HTTP on 127.0.0.1 with a bearer token")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--token", help="bearer token (default: generated and printed once)")
    serve.add_argument("--start-url")
    serve.add_argument("--allow-remote", action="store_true", help="allow a host beyond loopback (still needs the token)")
    return parser


async def _state(url: str, screenshot: str, wait_until: str) -> None:
    from .browser import launch

    async with launch() as browser:
        tab = await browser.new_tab()
        await tab.goto(url, wait_until=wait_until)  # type: ignore[arg-type]
        shot: bool | str = False if screenshot == "none" else screenshot
        state = await tab.state(screenshot=shot)
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
    return 2


if __name__ == "__main__":
    sys.exit(main())
