"""`cdp-engine view` (replay a trajectory, export it, or watch a browser over CDP) and the servers' `--view`.

The options are the option table's (app/options.py: --host, --port, --token, --allow-remote, checked
before anything starts, a bad one is one line and exit status 2); the command's own arguments are the
trajectory to open, `--export FILE` and `--attach ENDPOINT`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from ..app.options import OptionError, Settings
from ..app.process import bind
from ..errors import CDPEngineError
from .live import LiveView
from .record import Recorder, export_html, load_run

__all__ = ["add_arguments", "alongside", "beside", "run"]

HELP = "watch a running browser (--attach), or replay a recorded trajectory in the browser (or --export it)"


def add_arguments(parser: Any) -> None:
    parser.add_argument("trajectory", nargs="?", help="a trajectory (.jsonl) recorded by the harness or --record")
    parser.add_argument("--export", metavar="FILE", help="write the replay as one self-contained HTML file and exit")
    parser.add_argument("--attach", metavar="ENDPOINT", help="watch the browser at ws://… or http://host:port over CDP")


def run(settings: Settings, args: Any) -> int:
    """The `view` command from its checked settings."""
    if args.trajectory is None and args.export:
        raise OptionError("--export", "--export needs the TRAJECTORY to export")
    if args.trajectory is not None and args.attach:
        raise OptionError("--attach", "give a TRAJECTORY to replay or --attach ENDPOINT, not both")
    if args.trajectory is None and not args.attach:
        raise OptionError(
            "--attach",
            "nothing to show: give a TRAJECTORY to replay, or --attach ENDPOINT to watch a running browser "
            "(a server's own browsers: its --view option; a program's: cdp_engine.view.LiveView)",
        )
    run_data = None
    if args.trajectory is not None:
        try:
            run_data = load_run(args.trajectory)
        except OSError as exc:
            raise OptionError("trajectory", f"{args.trajectory}: cannot read it ({exc.strerror or exc})") from None
        if args.export:
            out = export_html(args.trajectory, args.export)
            print(f"wrote {out} ({len(run_data['steps'])} steps)", file=sys.stderr)
            return 0
    assert settings.port is not None  # the option table's default for view
    sock = bind(settings.host, settings.port)  # a port in use is a one-line error, before anything starts
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(settings, sock, run_data, args.attach))
    return 0


async def _serve(settings: Settings, sock: Any, run_data: dict[str, Any] | None, endpoint: str | None) -> None:
    view = LiveView(
        host=settings.host, token=settings.token, allow_remote=settings.allow_remote, sock=sock, replay=run_data,
        browsers=[] if endpoint else None,
    )  # fmt: skip
    await view.start()
    attached = None
    try:
        if endpoint:
            from .attach import attach

            attached = await attach(endpoint, view)
        what = f"replay of {run_data['source']}" if run_data else f"live view of {endpoint}"
        print(f"cdp-engine view: {what} at {view.url}", file=sys.stderr, flush=True)
        if attached is None:
            await asyncio.Event().wait()  # serve the replay until interrupted
        else:
            await attached.gone
            raise CDPEngineError(f"the browser at {endpoint} closed the connection")
    finally:
        if attached is not None:
            await attached.close()
        await view.close()


@contextlib.asynccontextmanager
async def beside(*, view: bool, record: str | None) -> AsyncIterator[LiveView | None]:
    """What a server's --view and --record start in its event loop, around it; their URL/path on stderr."""
    live = await LiveView().start() if view else None
    recorder = Recorder(record) if record else None
    try:
        if live is not None:
            print(f"cdp-engine: live view at {live.url}", file=sys.stderr, flush=True)
        if recorder is not None:
            print(f"cdp-engine: recording to {recorder.start()}", file=sys.stderr, flush=True)
        yield live
    finally:
        if recorder is not None:
            await recorder.stop()
        if live is not None:
            await live.close()


async def alongside(main: Coroutine[Any, Any, Any], *, view: bool, record: str | None) -> Any:
    """Run a server's main coroutine with the live view and/or the recorder beside it."""
    async with beside(view=view, record=record):
        return await main
