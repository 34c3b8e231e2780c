"""How a command's process starts from its options: the listening socket, the logs, one run with one way to fail.

The command line (cli.py), `python -m cdp_engine.service` and the live view run their commands through
run_command, so a bad value is the same one line and exit status 2 everywhere, before anything starts, and
a port in use is an OptionError naming --port (bind, called before Chromium launches). The option table
itself is app/options.py; this module only puts it to work.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..errors import CDPEngineError
from .options import OptionError, Settings, add_arguments, resolve

__all__ = ["bind", "configure_logging", "run_command"]


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, made before anything starts, so a port in use is an OptionError
    (naming --port) instead of a traceback after Chromium launched."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if sys.platform != "win32":  # SO_REUSEADDR on Windows would let two servers share the port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if isinstance(exc, socket.gaierror):
            raise OptionError("--host", f"--host {host}: not an address of this machine ({exc.strerror})") from None
        reason = "is in use" if exc.errno in (98, 48, 10048) else f"cannot be used ({exc.strerror or exc})"
        raise OptionError("--port", f"--port {port}: {host}:{port} {reason}; pick another port, or 0 for any free one") from None
    sock.setblocking(False)
    return sock


class _Redact(logging.Filter):
    """Replaces secrets (a server's token) in every record written, whatever logged it."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "[redacted]")
            record.msg, record.args = message, None
        return True


def configure_logging(level: str = "warning", file: str | None = None, *, secrets: Iterable[str] = ()) -> logging.Handler:
    """Send the engine's loggers (`cdp_engine.*`) at `level` to `file` (appended) or stderr, never stdout (the
    MCP stdio transport owns it). CDP traffic is `cdp_engine.cdp.traffic` at debug. Returns the handler.
    Other libraries' loggers (aiohttp, uvicorn, the MCP SDK) are left as the application set them."""
    handler: logging.Handler
    if file:
        Path(file).expanduser().parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(Path(file).expanduser(), encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_Redact(secrets))
    logger = logging.getLogger("cdp_engine")
    for old in list(logger.handlers):
        if getattr(old, "cdp_engine_handler", False):
            logger.removeHandler(old)
            old.close()
    setattr(handler, "cdp_engine_handler", True)  # noqa: B010 - marks the handler this function owns
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    return handler


Runner = Callable[[Settings, Any], int]


def run_command(
    command: str,
    argv: list[str],
    runner: Runner,
    *,
    prog: str,
    description: str,
    extra: Callable[[Any], None] | None = None,
) -> int:
    """Parse `argv` for `command` (the option table plus `extra` arguments), check every value, set up logs
    and tracing, then `runner(settings, args)`. The command line and `python -m cdp_engine.service` both
    run their commands through here, so they take the same options and report errors the same way: a bad
    value is one line on stderr and exit status 2, before anything starts; an engine error at run time is
    one line and status 1."""
    parser = _one_line_parser(prog, description)
    add_arguments(parser, command)
    if extra is not None:
        extra(parser)
    try:
        args = parser.parse_args(argv)
        names = {f.name for f in fields(Settings)}
        settings = resolve(command, {k: v for k, v in vars(args).items() if k in names})
        configure_logging(settings.log_level, settings.log_file, secrets=[settings.token or ""])
        if settings.otel:
            from ..util import tracing

            try:
                tracing.enable()
            except CDPEngineError as exc:
                raise OptionError("--otel", str(exc)) from None
        return runner(settings, args)
    except _UsageError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except OptionError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except CDPEngineError as exc:
        print(f"{prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 1


class _UsageError(Exception):
    """argparse's own complaint (an unknown flag, a missing argument), reported as one line."""


def _one_line_parser(prog: str, description: str) -> Any:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:  # one line, not usage plus message
            raise _UsageError(f"{message} (see {self.prog} --help)")

    return Parser(prog=prog, description=description)
