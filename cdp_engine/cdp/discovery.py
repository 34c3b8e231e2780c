"""Where a running browser's DevTools endpoint is: the URL given, /json/version, or DevToolsActivePort.

`connect()` takes `ws://…` as it is, resolves `http://host:port` through `/json/version` (with the
caller's HTTP headers, for hosted browsers that want a key), and for `"auto"` reads DevToolsActivePort
in the usual profile folders: Chrome writes it when it was started with --remote-debugging-port (or,
from Chrome 144, when remote debugging is switched on at chrome://inspect/#remote-debugging). Every
failure is an AttachError that says what was tried, never aiohttp's or websockets' own exception.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

import aiohttp

from ..errors import AttachError

ACTIVE_PORT_FILE = "DevToolsActivePort"
# os.pathsep-separated folders that replace the usual profile folders of the auto-connect search.
AUTO_CONNECT_DIRS_ENV = "CDP_ENGINE_AUTO_CONNECT_DIRS"
AUTO = "auto"
# Profile folders under the platform's base (Linux: $XDG_CONFIG_HOME or ~/.config; macOS: ~/Library/Application
# Support; Windows: %LOCALAPPDATA%), stable Chrome first, as chrome-devtools-mcp's autoConnect looks.
LINUX_PROFILES = ("google-chrome", "google-chrome-beta", "google-chrome-unstable", "chromium", "BraveSoftware/Brave-Browser")
MAC_PROFILES = ("Google/Chrome", "Google/Chrome Beta", "Google/Chrome Canary", "Chromium", "BraveSoftware/Brave-Browser")
WINDOWS_PROFILES = (
    r"Google\Chrome\User Data", r"Google\Chrome Beta\User Data", r"Google\Chrome SxS\User Data",
    r"Chromium\User Data", r"BraveSoftware\Brave-Browser\User Data",
)  # fmt: skip


def parse_endpoint(value: str) -> str:
    """A DevTools endpoint as the option table takes it: ws(s)://…, http(s)://host:port, or auto; ValueError."""
    text = value.strip()
    if text.lower() == AUTO:
        return AUTO
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in ("ws", "wss", "http", "https") or not rest.split("/", 1)[0]:
        raise ValueError("not a DevTools endpoint (ws://host:port/devtools/browser/…, http://host:port or auto)")
    return text


def parse_headers(value: str) -> tuple[str, ...]:
    """HTTP headers written 'Name: value', one per line; ValueError for a line that is none."""
    out = []
    for line in value.splitlines():
        if not line.strip():
            continue
        name, sep, text = line.partition(":")
        if not sep or not name.strip() or any(c in name.strip() for c in " \t"):
            raise ValueError(f"not a header 'Name: value': {line!r}")
        out.append(f"{name.strip()}: {text.strip()}")
    return tuple(out)


def profile_folders(platform: str = sys.platform, env: Mapping[str, str] | None = None) -> list[Path]:
    """The folders auto-connect reads DevToolsActivePort from: $CDP_ENGINE_AUTO_CONNECT_DIRS when set,
    else the usual Chrome, Chromium and Brave profile folders of this platform."""
    env = os.environ if env is None else env
    override = env.get(AUTO_CONNECT_DIRS_ENV)
    if override:
        return [Path(p).expanduser() for p in override.split(os.pathsep) if p]
    if platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
        return [base / rel for rel in MAC_PROFILES]
    if platform == "win32":
        local = env.get("LOCALAPPDATA")
        return [Path(local) / rel for rel in WINDOWS_PROFILES] if local else []
    xdg = env.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".config"
    folders = [base / rel for rel in LINUX_PROFILES]
    chrome_home = env.get("CHROME_CONFIG_HOME")
    return [Path(chrome_home), *folders] if chrome_home else folders


def read_active_port(folder: Path) -> str | None:
    """The browser websocket URL a profile folder's DevToolsActivePort names (port, then path), or None."""
    try:
        lines = (folder / ACTIVE_PORT_FILE).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if len(lines) < 2 or not lines[0].strip().isdigit() or not lines[1].strip().startswith("/devtools/browser/"):
        return None
    port = int(lines[0])
    return f"ws://127.0.0.1:{port}{lines[1].strip()}" if 0 < port < 65536 else None


def auto_endpoints(folders: list[Path] | None = None) -> list[str]:
    """Candidate websocket URLs for auto-connect, the most recently written DevToolsActivePort first (a file
    left by a browser that crashed may be stale: connect() tries the next one)."""
    found: list[tuple[float, str]] = []
    for folder in profile_folders() if folders is None else folders:
        url = read_active_port(folder)
        if url is not None:
            try:
                mtime = (folder / ACTIVE_PORT_FILE).stat().st_mtime
            except OSError:
                continue
            found.append((mtime, url))
    return [url for _, url in sorted(found, reverse=True)]


def no_browser_found(folders: list[Path] | None = None) -> AttachError:
    searched = profile_folders() if folders is None else folders
    return AttachError(
        "auto-connect found no running browser: no usable DevToolsActivePort in "
        + (", ".join(str(f) for f in searched) or "no folder")
        + f". Start Chrome with --remote-debugging-port=9222 (and its own --user-data-dir), or switch remote "
        f"debugging on at chrome://inspect/#remote-debugging; or set {AUTO_CONNECT_DIRS_ENV} to its profile folder"
    )


async def discover_ws_url(endpoint: str, timeout: float = 10.0, headers: Mapping[str, str] | None = None) -> str:
    """ws:// endpoints are used as given; http://host:port is resolved through /json/version (AttachError when
    nothing answers there, or the answer names no browser websocket)."""
    if endpoint.startswith(("ws://", "wss://")):
        return endpoint
    if not endpoint.startswith(("http://", "https://")):
        raise AttachError(f"cannot attach to {endpoint!r}: the endpoint must be ws://…, http://host:port or 'auto'")
    url = endpoint.rstrip("/") + "/json/version"
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout), headers=dict(headers or {})) as http,
            http.get(url) as response,
        ):
            if response.status != 200:
                raise AttachError(f"cannot attach to {endpoint}: {url} answered HTTP {response.status} {response.reason or ''}".rstrip())
            info = await response.json(content_type=None)
    except AttachError:
        raise
    except TimeoutError:
        raise AttachError(f"cannot attach to {endpoint}: {url} did not answer within {timeout:g} s") from None
    except (aiohttp.ClientError, OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise AttachError(
            f"cannot attach to {endpoint}: no DevTools endpoint answered at {url} ({reason}); is the browser "
            "running with --remote-debugging-port?"
        ) from None
    ws_url = info.get("webSocketDebuggerUrl") if isinstance(info, dict) else None
    if not isinstance(ws_url, str) or not ws_url.startswith(("ws://", "wss://")):
        raise AttachError(f"cannot attach to {endpoint}: {url} names no webSocketDebuggerUrl (not a DevTools endpoint?)")
    return ws_url



async def candidate_urls(
    endpoint: str | None,
    timeout: float = 10.0,
    headers: Mapping[str, str] | None = None,
    folders: list[Path] | None = None,
) -> list[str]:
    """The websocket URLs to try, in order: the one the endpoint names, or (endpoint None or "auto") those
    of every DevToolsActivePort found; AttachError when there is none."""
    if endpoint is None or endpoint.strip().lower() == AUTO:
        urls = auto_endpoints(folders)
        if not urls:
            raise no_browser_found(folders)
        return urls
    return [await discover_ws_url(endpoint.strip(), timeout, headers)]


def refusal(url: str, exc: BaseException) -> str:
    """Why a websocket to a browser failed, in one line (no library's exception type)."""
    if isinstance(exc, TimeoutError):
        return f"{url}: no answer within the deadline"
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        return f"{url}: the handshake was refused with HTTP {status}"
    return f"{url}: {getattr(exc, 'strerror', None) or exc or type(exc).__name__}"
