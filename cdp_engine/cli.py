"""The `cdp-engine` command: demo, state, serve, mcp, doctor, view.

Every command takes its options from the one option table (app/options.py; docs/configuration.md): the
same names on the command line, in the environment and in a config file, checked before anything starts
(a bad value is one line on stderr and exit status 2). `serve` is the HTTP service's own command
(`service.run`, also `python -m cdp_engine.service`).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from .app.options import OptionError, Settings
from .app.process import bind, run_command
from .version import __version__


@dataclass(frozen=True)
class Command:
    help: str
    runner: Callable[[Settings, Any], int]
    extra: Callable[[Any], None] | None = None


def _demo(settings: Settings, _args: Any) -> int:
    from .demo import run_demo

    state = asyncio.run(run_demo(headless=settings.headless, launch_options=settings.browser_kwargs()))
    return 0 if "Region: us" in state["page_content"] else 1


def _state_arguments(parser: Any) -> None:
    parser.add_argument("url")
    parser.add_argument("--screenshot", choices=["none", "png", "jpeg", "webp"], default="none")
    parser.add_argument("--wait-until", default="load", choices=["commit", "domcontentloaded", "load", "networkidle"])


def _state(settings: Settings, args: Any) -> int:
    asyncio.run(_print_state(args.url, args.screenshot, args.wait_until, settings))
    return 0


async def _print_state(url: str, screenshot: str, wait_until: Any, settings: Settings) -> None:
    from .index.agent_tab import open_browser
    from .index.element_index import ElementIndex

    # Attached (--cdp-url), the tab opens in the browser's own context, with the user's logins, and is closed
    # again on exit; --storage-state loads saved logins into a fresh context instead.
    async with open_browser(**settings.browser_kwargs()) as browser:
        if settings.storage_state is not None:
            context = await browser.new_context(storage_state=settings.storage_state)
            tab = await context.new_tab()
        else:
            tab = await browser.new_tab()
        await tab.goto(url, wait_until=wait_until)
        shot: bool | str = False if screenshot == "none" else screenshot
        state = await ElementIndex.of(tab).state(screenshot=shot, max_chars=settings.result_chars)
        sys.stdout.buffer.write(orjson.dumps(state, option=orjson.OPT_INDENT_2) + b"\n")
        print(orjson.dumps(tab.last_timings).decode(), file=sys.stderr)


def _serve(settings: Settings, args: Any) -> int:
    from .service import run

    return run(settings, args)


def _mcp(settings: Settings, _args: Any) -> int:
    from .core.policies import SERVER_SCHEMES
    from .mcp_server.caps import parse_caps
    from .mcp_server.server import serve_http, serve_stdio
    from .mcp_server.server_config import Config

    try:
        caps = parse_caps(settings.caps) if settings.caps is not None else None  # None: BROWSER_MCP_CAPS, else core
    except ValueError as exc:
        raise OptionError("--caps", f"{settings.sources['caps']}: {exc}") from None
    try:
        config = Config.from_env(
            headless=settings.headless,
            isolation=settings.isolation,
            max_instances=settings.max_instances,
            executable=settings.executable,
            window=settings.viewport,
            output_dir=settings.output_dir,
            caps=caps,
            result_chars=settings.result_chars if "result_chars" in settings.given else None,
            screenshot_max_width=settings.screenshot_max_width,
            screenshot_max_height=settings.screenshot_max_height,
            screenshot_quality=settings.screenshot_quality,
            allowed_origins=settings.allowed_origins,
            blocked_origins=settings.blocked_origins,
            allowed_schemes=tuple(sorted(SERVER_SCHEMES | set(settings.allow_scheme))) if settings.allow_scheme else None,
            cdp_url=settings.endpoint,
            cdp_headers=settings.browser_kwargs().get("headers"),
            default_context=settings.default_context,
            user_data_dir=settings.user_data_dir,
            storage_state=settings.storage_state,
        )
    except ValueError as exc:  # a BROWSER_MCP_* variable (the reference's names) with a bad value
        raise OptionError(str(exc).split("=", 1)[0], str(exc)) from None
    if settings.http:
        assert settings.port is not None  # the option table's default for mcp
        sock = bind(settings.host, settings.port)
        main: Any = serve_http(config, host=settings.host, port=settings.port, token=settings.token, sock=sock)
    else:
        main = serve_stdio(config)
    if settings.view or settings.record:  # the live view and the recorder watch the server's browsers
        from .view.command import alongside

        main = alongside(main, view=settings.view, record=settings.record)
    asyncio.run(main)
    # Everything is closed (browser included); skip the interpreter's slow teardown of the SDK's modules so a
    # client, which waits only briefly after closing stdin or signalling, sees a clean exit instead of killing us.
    from .util import tracing

    tracing.flush()  # os._exit runs no exit handlers: buffered spans would be lost
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _doctor_arguments(parser: Any) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--no-launch", action="store_true", help="do not start Chromium to check it runs")


def _doctor(settings: Settings, args: Any) -> int:
    from .doctor import report, show

    result = report(settings, launch=not args.no_launch)
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        print(show(result))
    return 1 if result["problems"] else 0


def _view_arguments(parser: Any) -> None:
    from .view.command import add_arguments

    add_arguments(parser)


def _view(settings: Settings, args: Any) -> int:
    from .view.command import run

    return run(settings, args)


COMMANDS: dict[str, Command] = {
    "demo": Command("run an agent loop against an embedded local site (no network needed)", _demo),
    "state": Command("print the Element Index protocol state of URL as JSON", _state, _state_arguments),
    "serve": Command("serve the protocol over HTTP on 127.0.0.1 with a bearer token", _serve),
    "mcp": Command("serve the browser_* tools over the Model Context Protocol (stdio by default)", _mcp),
    "doctor": Command("report Python, package and Chromium versions, settings, and what is missing", _doctor, _doctor_arguments),
    "view": Command("watch a browser live (--attach), or replay a recorded trajectory (--export: one HTML file)", _view, _view_arguments),
}


def _usage() -> str:
    lines = [
        "usage: cdp-engine [--version] COMMAND [OPTIONS]",
        "",
        "A fast, exact view of a web page and precise hands on it for AI agents, over raw CDP.",
        "",
        "commands:",
        *(f"  {name:<8} {command.help}" for name, command in COMMANDS.items()),
        "",
        "Options: `cdp-engine COMMAND --help`; every option also comes from CDP_ENGINE_* variables and a",
        "TOML file (--config), as docs/configuration.md lists.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_usage(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    if args[0] in ("--version", "-V"):
        print(f"cdp-engine {__version__}")
        return 0
    name, rest = args[0], args[1:]
    command = COMMANDS.get(name)
    if command is None:
        print(f"cdp-engine: error: unknown command {name!r} (commands: {', '.join(COMMANDS)}; see cdp-engine --help)", file=sys.stderr)
        return 2
    return run_command(name, rest, command.runner, prog=f"cdp-engine {name}", description=command.help, extra=command.extra)


if __name__ == "__main__":
    sys.exit(main())
