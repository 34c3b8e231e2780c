"""What an MCP server is configured with (Config: every option, from arguments or CDP_ENGINE_* variables) and the
constants the instances share (session names, the idle time of an HTTP session's instances).

Why its own module: the command line, the servers and the tool registry read the configuration; the instance
model (mcp_server/instances.py) only uses it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..app.options import parse_flag
from ..core.policies import RESULT_CHARS, SERVER_SCHEMES, Policies
from ..util.text_windows import BudgetError, check_budget
from .caps import DEFAULT_CAPS, parse_caps
from .envelope import DEFAULT_MAX_RESULT_BYTES, MIN_MAX_RESULT_BYTES

# Options upstream passes to Camoufox (Firefox): a value other than None/False asks for something Chromium
# here does not do, so it is refused with unsupported_capability rather than silently ignored.
CAMOUFOX_OPTIONS = (
    "humanize", "block_webrtc", "block_webgl", "camoufox_os", "geoip", "firefox_user_prefs", "camoufox_args",
    "enable_cache", "ff_version",
)  # fmt: skip
ATTACHED_NO_PROCESS = (
    "This server is attached to a running browser (cdp_url): every instance is a context in it, so profile_dir and "
    "another headless mode are not available."
)
STATIC_RESOURCE_TYPES = frozenset({"image", "font", "stylesheet", "media", "manifest"})
# Idle time-to-live of an instance over streamable HTTP when BROWSER_MCP_IDLE_TTL_SECONDS is not set: several
# clients share the server there and one that goes away without destroying must not hold its slots forever. The
# value is the SDK's own idle timeout of an HTTP session (30 minutes). stdio keeps the reference's default (off):
# its one client's instances end with the process.
HTTP_IDLE_TTL = 1800.0
# The owner of instances created without a transport session (stdio is one session: the process; a
# stateless HTTP request of the 2026-07-28 protocol has none) under per-session ownership.
STDIO_SESSION = "stdio"
SESSIONLESS = "sessionless"


def default_profile_root(env: Mapping[str, str] | None = None) -> Path:
    """Where persistent profiles are made when BROWSER_MCP_PROFILE_ROOT is not set: a per-user folder
    that outlives the server, in the user's cache folder as playwright-mcp keeps its profile
    ($XDG_CACHE_HOME or ~/.cache; ~/Library/Caches on macOS; %LOCALAPPDATA% on Windows)."""
    env = os.environ if env is None else env
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        cache = Path(env["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        cache = Path.home() / "Library" / "Caches"
    else:
        xdg = env.get("XDG_CACHE_HOME", "")
        cache = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # a relative one is ignored (XDG)
    return cache / "cdp-engine" / "mcp-profiles"


def _env(env: Mapping[str, str], name: str, default: Any, kind: Callable[[str], Any]) -> Any:
    raw = env.get(f"BROWSER_MCP_{name}")
    if raw is None or raw == "":
        return default
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"BROWSER_MCP_{name}={raw!r} is not a valid value") from None


@dataclass
class Config:
    """Server limits; the environment names are upstream's `BROWSER_MCP_*`."""

    max_instances: int = 10
    operation_timeout: float = 60.0
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    event_buffer_size: int = 1000
    close_timeout: float = 10.0
    navigation_timeout: float = 30.0
    # One CDP command's deadline; a page command that overruns it is followed by a 1 s liveness probe, so a hung
    # renderer is reported within command_timeout + 1 s (keep it below operation_timeout).
    command_timeout: float = 30.0
    wait_timeout: float = 30.0  # browser_wait_for text conditions
    # How long an action that opened a dialog may keep waiting for a concurrent browser_handle_dialog
    # before the call returns modal_state_blocked (the action keeps running and finishes once it is handled).
    modal_grace: float = 1.0
    # Instances idle longer than this are destroyed by the reaper; None: the transport's default (off for stdio,
    # HTTP_IDLE_TTL for streamable HTTP); 0: off.
    idle_ttl: float | None = None
    reaper_interval: float = 30.0
    # Per-session ownership (opt-in): an instance belongs to the MCP session that created it; other sessions
    # neither see, drive nor destroy it, and it is destroyed when its session ends. Off: instances are
    # server-level, as in the reference.
    session_ownership: bool = False
    # The SDK's idle timeout of a streamable HTTP session (its ID then answers 404): the moment that session ends.
    session_idle_timeout: float = 1800.0
    headless: bool = True
    isolation: Literal["context", "process"] = "context"
    # The interactive set of browser_snapshot's refs when a call does not name one (docs/extended.md).
    interactive: Literal["strict", "extended"] = "strict"
    executable: str | None = None
    window: tuple[int, int] = (1280, 720)
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int | None = None
    # Policies (docs/policies.md): where screenshots, PDFs, exports and saved downloads are written
    # (None: a temporary folder per server; relative paths land inside it), which folders uploads may
    # read (none: uploads refused), which URL schemes navigations may reach, and where persistent
    # profiles (browser_create_instance's profile_dir) are made (None: default_profile_root()).
    output_dir: str | None = None
    upload_roots: tuple[str, ...] = ()
    allowed_schemes: tuple[str, ...] = tuple(sorted(SERVER_SCHEMES))
    profile_root: str | None = None
    # browser_screenshot's encoding (its parameters are the reference's): the quality of a jpeg, and Chromium's
    # fast encoders for a viewport (the same pixels; a png about 1.3x larger, benchmarks/results/screenshot.md).
    # A full page always gets the compact encoder: it is the image the result-size bound meets.
    screenshot_quality: int = 80
    screenshot_optimize_for_speed: bool = True
    # The budget in characters of a result that grows with the page (browser_snapshot; util/text_windows.py): a longer
    # one is cut after a whole line with a marker naming the offset to read on. Per call: max_chars.
    result_chars: int = RESULT_CHARS
    # browser_screenshot's image size when a call names none (its max_width / max_height): the long side the
    # models' image limits name; a full page comes in tiles of the page's width at most this size.
    screenshot_max_width: int = 1568
    screenshot_max_height: int = 1568
    # The tool sets tools/list offers and tools/call accepts (caps.py, docs/mcp.md "Tool sets"): `core` plus these
    # groups; ("all",) is every tool with every reference parameter. The server (from_env) defaults to the small
    # DEFAULT_CAPS; a Config built in Python offers every tool (its definitions reach no model).
    caps: tuple[str, ...] = ("all",)
    # Also send each result envelope as structuredContent beside its JSON text (off: the text alone; the tools
    # declare no outputSchema, and clients that see structuredContent may drop the text and image blocks).
    structured_content: bool = False
    # The origins navigations may reach (none: any) and may not (checked first), on redirects and popups too.
    allowed_origins: tuple[str, ...] = ()
    blocked_origins: tuple[str, ...] = ()
    # Attaching and logins (docs/mcp.md "Attaching to your browser"): the shared browser is the one at cdp_url
    # (ws://, http://host:port or "auto") instead of a launched one, reached with cdp_headers; with
    # default_context every instance works in the browser's own context (the user's tabs and logins; one such
    # instance at a time) instead of a fresh one. user_data_dir: the launched shared browser's persistent
    # profile (its instances then work in its default context too). storage_state: logins loaded into every
    # fresh instance context.
    cdp_url: str | None = None
    cdp_headers: Mapping[str, str] | None = None
    default_context: bool = False
    user_data_dir: str | None = None
    storage_state: str | None = None

    def __post_init__(self) -> None:
        self.caps = parse_caps(self.caps)
        self.max_result_bytes = max(MIN_MAX_RESULT_BYTES, self.max_result_bytes)
        self.upload_roots = tuple(str(r) for r in self.upload_roots)
        self.allowed_schemes = tuple(self.allowed_schemes)
        try:
            check_budget(self.result_chars, "result_chars")
        except BudgetError as exc:
            raise ValueError(f"BROWSER_MCP_RESULT_CHARS={self.result_chars!r}: {exc.message}") from None
        if not 0 <= self.screenshot_quality <= 100:
            raise ValueError(f"screenshot_quality must be 0-100, not {self.screenshot_quality}")
        for side in ("screenshot_max_width", "screenshot_max_height"):
            if not 16 <= getattr(self, side) <= 16384:
                raise ValueError(f"{side} must be 16-16384, not {getattr(self, side)}")
        self.allowed_origins = tuple(self.allowed_origins)
        self.blocked_origins = tuple(self.blocked_origins)
        if self.cdp_url is not None and (self.isolation == "process" or self.user_data_dir is not None):
            raise ValueError("cdp_url: an attached browser cannot give instances processes or profiles of their own")

    @property
    def in_default_context(self) -> bool:
        """Whether instances work in the shared browser's default context instead of fresh ones."""
        return self.default_context or self.user_data_dir is not None

    @property
    def reap_after(self) -> float:
        """The idle time-to-live in effect (0 = no reaping): the configured one, else the transport's default."""
        if self.idle_ttl is not None:
            return self.idle_ttl
        return HTTP_IDLE_TTL if self.transport == "streamable-http" else 0.0

    def policies(self, output_dir: str) -> Policies:
        """This configuration's policies, writing to output_dir when none is configured."""
        return Policies.for_mcp(
            output_dir=self.output_dir or output_dir,
            upload_roots=self.upload_roots,
            allowed_schemes=self.allowed_schemes,
            max_result_bytes=self.max_result_bytes,
            profile_root=self.profile_root or default_profile_root(),
            allowed_origins=self.allowed_origins,
            blocked_origins=self.blocked_origins,
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Config:
        env = os.environ if env is None else env
        values = {
            "max_instances": _env(env, "MAX_INSTANCES", 10, int),
            "operation_timeout": _env(env, "OPERATION_TIMEOUT_SECONDS", 60.0, float),
            "max_result_bytes": _env(env, "MAX_RESULT_BYTES", DEFAULT_MAX_RESULT_BYTES, int),
            "event_buffer_size": _env(env, "EVENT_BUFFER_SIZE", 1000, int),
            "close_timeout": _env(env, "CLOSE_TIMEOUT_SECONDS", 10.0, float),
            "navigation_timeout": _env(env, "NAVIGATION_TIMEOUT_SECONDS", 30.0, float),
            "command_timeout": _env(env, "COMMAND_TIMEOUT_SECONDS", 30.0, float),
            "wait_timeout": _env(env, "WAIT_TIMEOUT_SECONDS", 30.0, float),
            "modal_grace": _env(env, "MODAL_GRACE_SECONDS", 1.0, float),
            "idle_ttl": _env(env, "IDLE_TTL_SECONDS", None, float),
            "session_ownership": _env(env, "SESSION_OWNERSHIP", False, parse_flag),
            "session_idle_timeout": _env(env, "SESSION_IDLE_TIMEOUT_SECONDS", 1800.0, float),
            "reaper_interval": _env(env, "REAPER_INTERVAL_SECONDS", 30.0, float),
            "isolation": _env(env, "ISOLATION", "context", str),
            "output_dir": _env(env, "OUTPUT_DIR", None, str),
            "profile_root": _env(env, "PROFILE_ROOT", None, str),
            "screenshot_quality": _env(env, "SCREENSHOT_QUALITY", 80, int),
            "screenshot_optimize_for_speed": _env(env, "SCREENSHOT_OPTIMIZE_FOR_SPEED", True, parse_flag),
            "screenshot_max_width": _env(env, "SCREENSHOT_MAX_WIDTH", 1568, int),
            "screenshot_max_height": _env(env, "SCREENSHOT_MAX_HEIGHT", 1568, int),
            "caps": _env(env, "CAPS", DEFAULT_CAPS, parse_caps),
            "result_chars": _env(env, "RESULT_CHARS", RESULT_CHARS, int),
            "structured_content": _env(env, "STRUCTURED_CONTENT", False, parse_flag),
            "upload_roots": _env(env, "UPLOAD_ROOTS", (), lambda v: tuple(p for p in v.split(os.pathsep) if p)),
            "allowed_schemes": _env(
                env, "ALLOWED_SCHEMES", tuple(sorted(SERVER_SCHEMES)),
                lambda v: tuple(s.strip().lower().rstrip(":") for s in v.split(",") if s.strip()),
            ),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values["isolation"] not in ("context", "process"):
            raise ValueError(f"BROWSER_MCP_ISOLATION={values['isolation']!r}: isolation must be 'context' or 'process'")
        return cls(**values)
