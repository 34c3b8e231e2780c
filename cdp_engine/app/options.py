"""The one option table: every setting of the command line, the servers and the library, under one name.

Each option has one name, spelled `--kebab-case` on the command line and in the config file, `snake_case`
in Python (the `Settings` field, and the library parameter where the library has one), and
`CDP_ENGINE_SNAKE_CASE` in the environment. Values come from, highest first: the command line, the
environment, the config file (TOML: `--config PATH` or $CDP_ENGINE_CONFIG; top-level keys for every
command, a `[serve]`, `[mcp]`, ... table for one), then the default. `resolve()` parses and checks them
all before anything starts and raises `OptionError` naming the flag; the command line prints it as one
line and exits with status 2. docs/configuration.md is the table in prose (a test keeps the two equal).

It lives in core because every surface that has a command (the HTTP service, the MCP server) reads it
and the command line above them does too; it imports only the launcher (to check an executable) and the
policies (to check origins), and starts nothing.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..cdp.discovery import parse_endpoint, parse_headers
from ..cdp.launcher import find_chromium
from ..core import storage
from ..core.policies import parse_origins
from ..errors import BrowserNotFoundError, CDPEngineError, StorageStateError
from ..util.text_windows import MAX_RESULT_CHARS, MIN_RESULT_CHARS, RESULT_CHARS

__all__ = [
    "COMMANDS",
    "ENV_PREFIX",
    "LOOPBACK_HOSTS",
    "OptionError",
    "Settings",
    "add_arguments",
    "option_table",
    "parse_flag",
    "resolve",
]

COMMANDS = ("demo", "state", "serve", "mcp", "doctor", "view")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
BROWSER_COMMANDS = frozenset({"demo", "state", "serve", "mcp", "doctor"})
SERVERS = frozenset({"serve", "mcp"})
LISTENERS = SERVERS | {"view"}  # the commands that listen on a port (the live view too: cli.py `view`)
ENV_PREFIX = "CDP_ENGINE_"
LOG_LEVELS = ("debug", "info", "warning", "error")
# Planned options: named here so that nobody takes their names for something else, and refused with a clear
# message until a command supports them (none at present).
RESERVED: dict[str, str] = {}


class OptionError(CDPEngineError):
    """An option's value is invalid; `flag` names it as the command line spells it."""

    def __init__(self, flag: str, message: str) -> None:
        super().__init__(message if message.startswith(flag) else f"{flag}: {message}")
        self.flag = flag


def _text(value: str) -> str:
    return value


def _nonempty(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def parse_flag(value: str) -> bool:
    """A boolean as people write one in the environment or a file; ValueError otherwise."""
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError("not a boolean (true/false, 1/0, yes/no, on/off)")


def _port(value: str) -> int:
    if not value.strip().isdigit() or not 0 <= int(value) <= 65535:
        raise ValueError("not a port number (0-65535; 0: any free port)")
    return int(value)


def _positive(value: str) -> int:
    if not value.strip().isdigit() or int(value) < 1:
        raise ValueError("not a positive whole number")
    return int(value)


def _result_chars(value: str) -> int:
    if not value.strip().isdigit() or not MIN_RESULT_CHARS <= int(value) <= MAX_RESULT_CHARS:
        raise ValueError(f"not a whole number from {MIN_RESULT_CHARS:,} to {MAX_RESULT_CHARS:,}")
    return int(value)
def _in_range(low: int, high: int, unit: str = "") -> Callable[[str], int]:
    def parse(value: str) -> int:
        if not value.strip().isdigit() or not low <= int(value) <= high:
            raise ValueError(f"not a whole number {low}-{high}{unit}")
        return int(value)

    return parse


def _viewport(value: str) -> tuple[int, int]:
    width, sep, height = value.lower().replace(",", "x").partition("x")
    if not sep or not width.strip().isdigit() or not height.strip().isdigit():
        raise ValueError("not WIDTHxHEIGHT (e.g. 1280x720)")
    size = (int(width), int(height))
    if not all(1 <= n <= 16384 for n in size):
        raise ValueError("width and height must be 1-16384 pixels")
    return size


def _words(value: str) -> tuple[str, ...]:
    return tuple(word for word in value.replace(";", ",").replace(" ", ",").split(",") if word)


def _origins(value: str) -> tuple[str, ...]:
    return tuple(pattern.text for pattern in parse_origins(value))


def _schemes(value: str) -> tuple[str, ...]:
    return tuple(word.lower().rstrip(":") for word in _words(value))


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if value.lower() not in choices:
            raise ValueError(f"not one of {', '.join(choices)}")
        return value.lower()

    return parse


def _opt(
    default: Any,
    help: str,
    parse: Callable[[str], Any],
    commands: Iterable[str],
    *,
    flags: tuple[str, ...] = (),
    negations: tuple[str, ...] = (),
    env: str | None = "",
    metavar: str | None = None,
    library: str = "",
    defaults: Mapping[str, Any] | None = None,
    kind: str = "value",
    env_aliases: Mapping[str, tuple[str, ...]] | None = None,
) -> Any:
    """A Settings field with its row of the option table in the field's metadata."""
    meta = {
        "help": help,
        "parse": parse,
        "commands": frozenset(commands),
        "flags": flags,
        "negations": negations,
        "env": env,
        "metavar": metavar,
        "library": library,
        "defaults": dict(defaults or {}),
        "kind": kind,  # "value", "flag" (no argument) or "list"
        "env_aliases": dict(env_aliases or {}),  # command -> older variable names still read
    }
    return field(default=default, metadata=meta)


ALL = COMMANDS


@dataclass(frozen=True)
class Settings:
    """Every option's value for one command, checked. `given` names the options set anywhere (not defaults)."""

    config: str | None = _opt(None, "TOML file of options (top-level keys, or a [command] table)", _text, ALL, metavar="PATH", env="CDP_ENGINE_CONFIG")
    executable: str | None = _opt(
        None, "Chromium or Chrome binary (default: PATH, then the standard macOS and Windows install paths)",
        _nonempty, BROWSER_COMMANDS, metavar="PATH", env="CDP_ENGINE_CHROME", library="launch(executable=...)",
    )
    headless: bool = _opt(
        True, "run Chromium without a window (--headed: show it)", parse_flag, BROWSER_COMMANDS,
        negations=("--headed", "--headful"), kind="flag", library="launch(headless=...)",
    )
    viewport: tuple[int, int] = _opt(
        (1280, 720), "window and viewport size, WIDTHxHEIGHT", _viewport, BROWSER_COMMANDS,
        metavar="WxH", library="launch(viewport=(w, h))",
    )
    transport: str | None = _opt(
        None, "how the engine speaks to Chromium: websocket or pipe", _choice("websocket", "pipe"),
        BROWSER_COMMANDS - {"mcp"}, library="launch(transport=...)",
    )
    cdp_url: str | None = _opt(
        None, "attach to a running browser instead of launching one: ws://…, http://host:port, or auto (a local "
        "Chrome started with --remote-debugging-port)", parse_endpoint, BROWSER_COMMANDS, metavar="URL",
        library="connect(url)",
    )
    auto_connect: bool = _opt(
        False, "attach to a local Chrome started with --remote-debugging-port (as --cdp-url auto)", parse_flag,
        BROWSER_COMMANDS, kind="flag", library="connect()",
    )
    cdp_header: tuple[str, ...] = _opt(
        (), "an HTTP header 'Name: value' for --cdp-url (a hosted browser's key); repeatable", parse_headers,
        BROWSER_COMMANDS, metavar="HEADER", kind="list", library="connect(url, headers={...})",
    )
    user_data_dir: str | None = _opt(
        None, "persistent profile folder for the launched Chromium (cookies and storage kept across runs)", _nonempty,
        BROWSER_COMMANDS - {"doctor"}, metavar="PATH", library="launch(user_data_dir=...)",
    )
    storage_state: str | None = _opt(
        None, "logins saved by context.storage_state(path=...), loaded into each new context", _nonempty,
        ("state", "serve", "mcp"), metavar="PATH", library="new_context(storage_state=...)",
    )
    default_context: bool = _opt(
        False, "instances work in the browser's default context (with --cdp-url: the user's tabs and logins) "
        "instead of fresh ones", parse_flag, ("mcp",), kind="flag", library="mcp Config(default_context=True)",
    )
    allowed_origins: tuple[str, ...] = _opt(
        (), "origins navigations may reach, ';'-separated (none: any); see docs/policies.md", _origins,
        ("state", "serve", "mcp"), metavar="ORIGINS", kind="list", library="launch(allowed_origins=[...])",
    )
    blocked_origins: tuple[str, ...] = _opt(
        (), "origins navigations may not reach, ';'-separated (checked first)", _origins,
        ("state", "serve", "mcp"), metavar="ORIGINS", kind="list", library="launch(blocked_origins=[...])",
    )
    allow_scheme: tuple[str, ...] = _opt(
        (), "let navigations also reach SCHEME: URLs (e.g. file); http, https, about and data always",
        _schemes, SERVERS, metavar="SCHEME", kind="list", flags=("--allow-scheme",),
    )
    output_dir: str | None = _opt(
        None, "folder screenshots, PDFs and saved downloads are written to (default: a temporary one)",
        _nonempty, ("mcp",), metavar="PATH", library="mcp Config(output_dir=...)",
    )
    caps: tuple[str, ...] | None = _opt(
        None, "tool groups to offer besides core, ','-separated, or all (default: $BROWSER_MCP_CAPS, else core)",
        _words, ("mcp",), metavar="CAPS", library="mcp Config(caps=...)",
    )
    result_chars: int = _opt(
        RESULT_CHARS, "budget in characters of a result that grows with the page (page_content, browser_snapshot; "
        f"default {RESULT_CHARS:,}, about {RESULT_CHARS // 4:,} tokens); a longer one is cut with a marker naming the "
        "offset to read on", _result_chars, ("state", "serve", "mcp"), metavar="N",
        library="tab.state(max_chars=...), mcp Config(result_chars=...)",
    )
    log_level: str = _opt("warning", "debug, info, warning or error (debug includes the CDP traffic)", _choice(*LOG_LEVELS), ALL, metavar="LEVEL")
    log_file: str | None = _opt(None, "append logs to this file instead of stderr", _nonempty, ALL, metavar="PATH")
    otel: bool = _opt(False, "emit an OpenTelemetry span per tool call and action (pip install 'cdp-engine[otel]')", parse_flag, ALL, kind="flag")
    host: str = _opt("127.0.0.1", "address to listen on (beyond loopback needs --allow-remote)", _nonempty, LISTENERS)
    port: int | None = _opt(None, "port to listen on (0: any free port)", _port, LISTENERS, defaults={"serve": 8765, "mcp": 8931, "view": 8940})
    token: str | None = _opt(
        None, "bearer token every request must carry (default: generated and printed once)", _nonempty,
        LISTENERS, env_aliases={"mcp": ("CDP_ENGINE_MCP_TOKEN",)},
    )
    allow_remote: bool = _opt(False, "allow a --host beyond loopback (the token is still required)", parse_flag, LISTENERS, kind="flag")
    start_url: str | None = _opt(None, "the page the service's tab opens first", _nonempty, ("serve",), metavar="URL")
    http: bool = _opt(False, "streamable HTTP at http://HOST:PORT/mcp instead of stdio", parse_flag, ("mcp",), kind="flag")
    isolation: str | None = _opt(None, "per instance: a browser context (default) or a process", _choice("context", "process"), ("mcp",))
    max_instances: int | None = _opt(None, "most instances at once (default 10)", _positive, ("mcp",), metavar="N")
    # Screenshots sized for models (issue 16, Build 5): the MCP server's defaults when a call names none.
    screenshot_max_width: int | None = _opt(
        None, "largest browser_screenshot width in image px (default 1568)", _in_range(16, 16384, " px"), ("mcp",),
        metavar="PX", library="mcp Config(screenshot_max_width=...)",
    )
    screenshot_max_height: int | None = _opt(
        None, "largest browser_screenshot height in image px, a full-page tile's too (default 1568)",
        _in_range(16, 16384, " px"), ("mcp",), metavar="PX", library="mcp Config(screenshot_max_height=...)",
    )
    screenshot_quality: int | None = _opt(
        None, "jpeg and webp browser_screenshot quality (default 80)", _in_range(0, 100), ("mcp",), metavar="Q",
        library="mcp Config(screenshot_quality=...)",
    )
    # The live view and recording (issue 19; cdp_engine/view, docs/view.md).
    view: bool = _opt(
        False, "serve a live view of the browser on 127.0.0.1 beside the server (its URL, with a token, on stderr)",
        parse_flag, SERVERS, kind="flag", library="cdp_engine.view.LiveView()",
    )
    record: str | None = _opt(
        None, "record every call (with screenshots) as a trajectory in this folder; replay: cdp-engine view FILE",
        _nonempty, SERVERS, metavar="PATH", library="cdp_engine.view.Recorder(path)",
    )
    given: frozenset[str] = field(default=frozenset(), metadata={"internal": True})
    sources: Mapping[str, str] = field(default_factory=dict, metadata={"internal": True})  # name -> where it was set

    def launch_kwargs(self) -> dict[str, Any]:
        """The library's launch() arguments these settings stand for."""
        kwargs: dict[str, Any] = {
            "executable": self.executable,
            "headless": self.headless,
            "viewport": self.viewport,
            "allowed_origins": self.allowed_origins,
            "blocked_origins": self.blocked_origins,
        }
        if self.transport is not None:
            kwargs["transport"] = self.transport
        if self.user_data_dir is not None:
            kwargs["user_data_dir"] = self.user_data_dir
        return kwargs

    @property
    def endpoint(self) -> str | None:
        """The browser to attach to (--cdp-url, or "auto" for --auto-connect); None: launch one."""
        return self.cdp_url or ("auto" if self.auto_connect else None)

    def browser_kwargs(self) -> dict[str, Any]:
        """The arguments of index.agent_tab.open_browser(): launch()'s, or connect()'s when attaching."""
        if self.endpoint is None:
            return self.launch_kwargs()
        headers = dict(header.split(": ", 1) for header in self.cdp_header)
        origins = {"allowed_origins": self.allowed_origins, "blocked_origins": self.blocked_origins}
        return {"cdp_url": self.endpoint, "headers": headers, "viewport": self.viewport, **origins}


def option_table() -> list[dict[str, Any]]:
    """Every option's row: name, flag(s), environment variable, default, commands, library name, help."""
    rows = []
    for f in fields(Settings):
        meta = f.metadata
        if meta.get("internal"):
            continue
        rows.append(
            {
                "name": f.name,
                "flag": _flag_of(f.name),
                "flags": meta["flags"] or (_flag_of(f.name),),
                "negations": meta["negations"],
                "env": _env_of(f.name, meta),
                "default": meta["defaults"] or f.default,
                "commands": [c for c in COMMANDS if c in meta["commands"]],
                "library": meta["library"],
                "help": meta["help"],
                "kind": meta["kind"],
                "metavar": meta["metavar"],
            }
        )
    return rows


def _flag_of(name: str) -> str:
    return "--" + name.replace("_", "-")


def _env_of(name: str, meta: Mapping[str, Any]) -> str:
    env: str | None = meta["env"]
    return env if env else ENV_PREFIX + name.upper()


def add_arguments(parser: Any, command: str) -> None:
    """The command's options as argparse arguments (values kept as text: resolve() parses and checks them)."""
    import argparse

    for row in option_table():
        dest = row["name"]
        if dest in RESERVED:  # taken, so that resolve() can say it is not available yet
            parser.add_argument(*row["flags"], dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
            continue
        if command not in row["commands"]:
            continue
        if row["kind"] == "flag":
            parser.add_argument(*row["flags"], dest=dest, action="store_const", const="true", default=argparse.SUPPRESS, help=row["help"])
            for negation in row["negations"]:
                parser.add_argument(negation, dest=dest, action="store_const", const="false", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        elif row["kind"] == "list":
            parser.add_argument(*row["flags"], dest=dest, action="append", default=argparse.SUPPRESS, metavar=row["metavar"] or "VALUE", help=row["help"])
        else:
            parser.add_argument(*row["flags"], dest=dest, default=argparse.SUPPRESS, metavar=row["metavar"] or dest.upper(), help=row["help"])


def resolve(
    command: str,
    given: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """The settings of `command` from the command line (`given`: option name -> text or list of texts, as
    add_arguments leaves them), the environment and the config file; OptionError for the first bad value."""
    env = os.environ if env is None else env
    given = dict(given or {})
    table = {f.name: f for f in fields(Settings) if not f.metadata.get("internal")}
    for name in given:
        if name not in table:
            raise OptionError(_flag_of(name), "unknown option")
    config_path = given.get("config") or env.get("CDP_ENGINE_CONFIG") or None
    file_values = _read_config(str(config_path), command, table) if config_path else {}
    values: dict[str, Any] = {}
    explicit: dict[str, str] = {}
    for name, f in table.items():
        meta = f.metadata
        flag = _flag_of(name)
        raw, source = _pick(command, name, meta, given, env, file_values, str(config_path))
        if raw is None:
            values[name] = meta["defaults"].get(command, f.default)
            continue
        if name in RESERVED:
            raise OptionError(flag, f"{source}: {flag} ({RESERVED[name]}) is not available yet in this version")
        if command not in meta["commands"]:
            if source.startswith("--"):  # argparse refuses these first; a direct call may not
                raise OptionError(flag, f"{flag} does not apply to `{command}`")
            continue  # a shared config file or environment may carry options of other commands
        values[name] = _parse(meta, raw, source, flag)
        explicit[name] = source
    values["given"] = frozenset(explicit)
    values["sources"] = explicit
    settings = Settings(**values)
    _check(command, settings)
    return settings


def _pick(
    command: str, name: str, meta: Mapping[str, Any], given: Mapping[str, Any], env: Mapping[str, str],
    file_values: Mapping[str, Any], config_path: str,
) -> tuple[Any, str]:  # fmt: skip
    """The highest-ranked raw value of an option and where it came from (for the message)."""
    flag = _flag_of(name)
    if name in given:
        value = given[name]
        shown = " ".join(value) if isinstance(value, list) else value
        return value, f"{flag} {shown!r}" if meta["kind"] != "flag" else flag
    for var in (_env_of(name, meta), *meta["env_aliases"].get(command, ())):
        value = env.get(var)
        if value:  # an empty variable counts as unset, as shells leave them
            return value, f"{var}={value!r}"
    if name in file_values:
        return file_values[name], f"{config_path}: {name.replace('_', '-')} = {file_values[name]!r}"
    return None, ""


def _parse(meta: Mapping[str, Any], raw: Any, source: str, flag: str) -> Any:
    parse: Callable[[str], Any] = meta["parse"]
    try:
        if meta["kind"] == "list":
            items = raw if isinstance(raw, list) else [raw]
            out: list[Any] = []
            for item in items:
                out.extend(parse(str(item)))
            return tuple(out)
        if isinstance(raw, bool):
            raw = "true" if raw else "false"
        elif isinstance(raw, list) and meta["parse"] is _viewport:
            raw = "x".join(str(n) for n in raw)
        elif isinstance(raw, list):
            raw = ",".join(str(item) for item in raw)
        return parse(str(raw))
    except ValueError as exc:
        raise OptionError(flag, f"{source}: {exc}") from None


def _read_config(path: str, command: str, table: Mapping[str, Any]) -> dict[str, Any]:
    """The config file's values for `command`: its [command] table over the top-level keys."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise OptionError("--config", f"--config {path!r}: cannot read it ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise OptionError("--config", f"--config {path!r}: not valid TOML ({exc})") from None
    top: dict[str, Any] = {}
    section: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            if key not in COMMANDS:
                raise OptionError("--config", f"--config {path!r}: unknown section [{key}] (sections: {', '.join(COMMANDS)})")
            if key == command:
                section = {_key(path, k, table, key): v for k, v in value.items()}
            else:
                for k in value:
                    _key(path, k, table, key)
            continue
        top[_key(path, key, table, None)] = value
    for key in section:
        if command not in table[key].metadata["commands"] and key not in RESERVED:
            raise OptionError(_flag_of(key), f"--config {path!r}: {key.replace('_', '-')} does not apply to `{command}`")
    return {**top, **section}


def _key(path: str, key: str, table: Mapping[str, Any], section: str | None) -> str:
    name = key.replace("-", "_")
    if name not in table or name == "config":
        where = f"[{section}] " if section else ""
        raise OptionError("--config", f"--config {path!r}: unknown option {where}{key!r}")
    return name


def _check(command: str, settings: Settings) -> None:
    """Cross-option checks that need no browser: an executable that was named must exist; a server's host."""
    if "executable" in settings.given and command in BROWSER_COMMANDS and command != "doctor" and not settings.endpoint:
        try:
            find_chromium(settings.executable)
        except BrowserNotFoundError as exc:
            raise OptionError("--executable", f"{settings.sources['executable']}: {exc}") from None
    if settings.endpoint is not None:
        for name in ("user_data_dir", "executable", "transport", "isolation"):
            source = settings.sources.get(name, "")
            # A profile or process of its own is refused from anywhere; a browser named in the environment is
            # only passed over (it may be set for every command), one named on the command line is refused.
            if source and (name in ("user_data_dir", "isolation") or source.startswith("--")):
                if name == "isolation" and settings.isolation != "process":
                    continue
                raise OptionError(
                    _flag_of(name), f"{source}: does not apply to an attached browser (--cdp-url or --auto-connect): "
                    "it keeps its own executable, profile and transport",
                )  # fmt: skip
    if settings.cdp_header and settings.endpoint is None:
        raise OptionError("--cdp-header", f"{settings.sources['cdp_header']}: only applies with --cdp-url")
    if settings.storage_state is not None:
        try:
            storage.load(settings.storage_state)  # checked whole now: a malformed file stops nothing half-started
        except StorageStateError as exc:
            raise OptionError("--storage-state", str(exc)) from None
    if command in LISTENERS and (command != "mcp" or settings.http):
        host = settings.host.strip("[]").lower()
        if host not in LOOPBACK_HOSTS and not settings.allow_remote:
            raise OptionError(
                "--host",
                f"--host {settings.host}: not a loopback address; pass --allow-remote to listen beyond this "
                "machine (every request still needs the bearer token)",
            )
