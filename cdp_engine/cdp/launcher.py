"""Find, start and stop Chromium; or attach to one that is already running.

The DevTools endpoint is read from DevToolsActivePort (port 0: never a fixed or guessed
port), or spoken over --remote-debugging-pipe. Chromium gets PR_SET_PDEATHSIG so it
dies with the Python process that launched it, even on SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from ..errors import BrowserNotFoundError, LaunchError
from .transport import PipeTransport, Transport, WebSocketTransport

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
# Where the official installers put the browser when it is not on PATH (the usual case on macOS and Windows).
MAC_PATHS = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
)
# Relative to %PROGRAMFILES%, %PROGRAMFILES(X86)% and %LOCALAPPDATA% (a per-user install).
WINDOWS_PATHS = (r"Google\Chrome\Application\chrome.exe", r"Chromium\Application\chrome.exe")
INSTALL_HINT = (
    "Install Chromium (Debian/Ubuntu as root: `apt-get install -y chromium`), "
    "or pass executable=... or set CDP_ENGINE_CHROME to the browser binary."
)

# Quiet on a closed network, steady timers in background tabs, no first-run UI.
DEFAULT_FLAGS = (
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-field-trial-config",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-sync",
    "--disable-search-engine-choice-screen",
    "--disable-back-forward-cache",
    "--allow-pre-commit-input",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-service-autorun",
    "--password-store=basic",
    "--use-mock-keychain",
    "--mute-audio",
    "--hide-scrollbars",
    "--disable-quic",
    # A key or wheel scroll lands at once instead of animating for ~150 ms: the state after it shows where the
    # page went without the settle sitting out the animation (core/settle.py waits for scrollend either way).
    "--disable-smooth-scrolling",
)
DISABLED_FEATURES = (
    "Translate",
    "OptimizationHints",
    "MediaRouter",
    "DialMediaRouteProvider",
    "PaintHolding",
    "LazyFrameLoading",
    "AcceptCHFrame",
    "HttpsUpgrades",
    "CertificateTransparencyComponentUpdater",
    "AutofillServerCommunication",
    "InterestFeedContentSuggestions",
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
    "WebUIReloadButton",
    # After a discrete input (a click, a key press) Chromium holds back the page's timers and other
    # deferrable tasks until the next frame is drawn (10-16 ms headless): the settle's one task turn after
    # an input, and the page's own zero-delay timers with it, waited for that frame. Playwright turns it
    # off too; the order (timers before the frame) is the one Chromium had before the experiment shipped.
    "DeferRendererTasksAfterInput",
)

_PR_SET_PDEATHSIG = 1

TransportName = Literal["websocket", "pipe"]
# The pipe is the default for browsers this package launches: measured against the websocket
# (benchmarks/actions.py, transport section) it costs half the Python CPU per message (about 60 against
# 120 µs) and a fresh state of a small page or a raw press + release + snapshot comes back 10-30 % sooner;
# it opens no port other local processes could reach. The websocket is the way to any browser not started
# by this process (connect()), and with transport="websocket" a launched one also serves its DevTools URL
# (ChromiumProcess.ws_url) to other clients.
DEFAULT_TRANSPORT: Final[TransportName] = "pipe"


def install_paths(platform: str = sys.platform, env: dict[str, str] | None = None) -> list[str]:
    """The standard install locations of Chromium and Chrome on this platform, most specific first."""
    if platform == "darwin":
        home = os.path.expanduser("~")
        return [*MAC_PATHS, *(home + path for path in MAC_PATHS)]
    if platform == "win32":
        env = dict(os.environ) if env is None else env
        roots = [env.get(name) for name in ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")]
        return [os.path.join(root, rel) for root in roots if root for rel in WINDOWS_PATHS]
    return []


def _executable(path: str | os.PathLike[str]) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def find_chromium(executable: str | os.PathLike[str] | None = None) -> str:
    """The browser binary: the explicit path, else $CDP_ENGINE_CHROME, else the usual names on PATH, else the
    standard macOS and Windows install paths. A path that was named (argument or variable) and is no
    executable is an error, never silently replaced by another browser."""
    if executable:
        if _executable(executable):
            return str(executable)
        raise BrowserNotFoundError(f"Chromium not found at {executable!s} (not an executable file). {INSTALL_HINT}")
    env = os.environ.get("CDP_ENGINE_CHROME")
    if env:
        if _executable(env):
            return env
        raise BrowserNotFoundError(
            f"CDP_ENGINE_CHROME={env} is not an executable file: point it at a Chromium or Chrome binary, "
            "or unset it to search PATH and the standard install paths"
        )
    tried: list[str] = []
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
        tried.append(name)
    for path in install_paths():
        if _executable(path):
            return path
        tried.append(path)
    raise BrowserNotFoundError(f"No Chromium found (tried {', '.join(tried)}). {INSTALL_HINT}")


def _merge_feature_flags(args: list[str]) -> list[str]:
    """Chromium honours only the last --disable-features / --enable-features: merge them into one each."""
    merged: dict[str, list[str]] = {"--disable-features": [], "--enable-features": []}
    out: list[str] = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if key in merged and sep:
            for item in value.split(","):
                if item and item not in merged[key]:
                    merged[key].append(item)
        else:
            out.append(arg)
    out.extend(f"{key}={','.join(items)}" for key, items in merged.items() if items)
    return out


def _child_setup() -> None:  # runs in the forked child, before exec
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _pipe_child_setup(read_fd: int, write_fd: int) -> None:
    os.dup2(read_fd, 3)
    os.dup2(write_fd, 4)
    _child_setup()


@dataclass
class ChromiumProcess:
    """A launched Chromium: its process, profile folder, transport and the last lines it printed."""

    process: asyncio.subprocess.Process
    user_data_dir: Path
    transport: Transport
    executable: str
    ws_url: str | None = None
    owns_profile: bool = True  # False for a persistent profile (user_data_dir=...): it outlives the process
    output: deque[str] = field(default_factory=lambda: deque(maxlen=200))
    _drain: asyncio.Task[None] | None = None

    async def stop(self, grace: float = 3.0) -> None:
        """Wait for exit after Browser.close; terminate, then kill, after deadlines; delete the profile."""
        proc = self.process
        if proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), 2.0)
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        proc.kill()
                    await proc.wait()
        # Renderer and utility processes share the process group: take any straggler down too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(BaseException):
                await self._drain
        if self.owns_profile:
            await remove_profile(self.user_data_dir)


async def remove_profile(path: Path) -> None:
    """Delete a profile folder, retrying briefly: Chromium may still be writing while it exits."""
    for attempt in range(10):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return
        await asyncio.sleep(0.05 * (attempt + 1))  # sleep-ok: bounded retry of a filesystem delete


def build_args(
    user_data_dir: Path,
    *,
    headless: bool,
    pipe: bool,
    window_size: tuple[int, int],
    extra_args: list[str] | tuple[str, ...] = (),
) -> list[str]:
    args = list(DEFAULT_FLAGS)
    args.append("--disable-features=" + ",".join(DISABLED_FEATURES))
    if headless:
        args.append("--headless=new")
    if getattr(os, "geteuid", lambda: -1)() == 0:
        args.append("--no-sandbox")  # Chromium cannot start its sandbox as root.
    args.append("--disable-gpu")
    args.append(f"--window-size={window_size[0]},{window_size[1]}")
    args.append(f"--user-data-dir={user_data_dir}")
    args.append("--remote-debugging-pipe" if pipe else "--remote-debugging-port=0")
    args.extend(extra_args)
    args = _merge_feature_flags(args)
    args.append("about:blank")
    return args


async def launch_process(
    executable: str | None = None,
    *,
    headless: bool = True,
    transport: str = DEFAULT_TRANSPORT,
    window_size: tuple[int, int] = (1280, 720),
    extra_args: list[str] | tuple[str, ...] = (),
    timeout: float = 30.0,
    user_data_dir: str | os.PathLike[str] | None = None,
) -> ChromiumProcess:
    """Start Chromium and return it connected through the chosen transport (DEFAULT_TRANSPORT: the pipe;
    ws_url is set only for the websocket). The profile is a fresh temporary folder, deleted when the
    process stops, unless `user_data_dir` names a persistent one (made owner-only if new, never deleted)."""
    if transport not in ("websocket", "pipe"):
        raise ValueError(f"transport must be 'websocket' or 'pipe', not {transport!r}")
    binary = find_chromium(executable)
    owns_profile = user_data_dir is None
    if user_data_dir is None:
        user_data_dir = Path(tempfile.mkdtemp(prefix="cdp-engine-"))
    else:
        user_data_dir = persistent_profile(user_data_dir)
    pipe = transport == "pipe"
    args = build_args(user_data_dir, headless=headless, pipe=pipe, window_size=window_size, extra_args=extra_args)
    env = dict(os.environ)
    fds: list[int] = []
    try:
        if pipe:
            to_browser_r, to_browser_w = os.pipe()
            from_browser_r, from_browser_w = os.pipe()
            fds = [to_browser_r, to_browser_w, from_browser_r, from_browser_w]
            import fcntl  # POSIX only: imported where used, so the package imports on Windows too

            # Move the child's ends above 4 so dup2 onto 3 and 4 cannot clobber one another.
            child_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            child_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            fds += [child_r, child_w]
            proc = await asyncio.create_subprocess_exec(
                binary,
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
                start_new_session=True,
                pass_fds=(3, 4),
                preexec_fn=lambda: _pipe_child_setup(child_r, child_w),
            )
        else:
            proc = await asyncio.create_subprocess_exec(
                binary,
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=_child_setup,
            )
    except BaseException:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        if owns_profile:
            shutil.rmtree(user_data_dir, ignore_errors=True)
        raise
    output: deque[str] = deque(maxlen=200)
    exited = asyncio.get_running_loop().create_future()
    new_line = asyncio.Event()
    drain = asyncio.get_running_loop().create_task(_drain_output(proc, output, exited, new_line))
    chromium: ChromiumProcess
    try:
        if pipe:
            os.close(to_browser_r)
            os.close(from_browser_w)
            os.close(child_r)
            os.close(child_w)
            fds = []
            chromium = ChromiumProcess(
                proc, user_data_dir, PipeTransport(to_browser_w, from_browser_r), binary,
                owns_profile=owns_profile, output=output, _drain=drain,
            )  # fmt: skip
        else:
            ws_url = await _wait_for_devtools_url(user_data_dir, exited, output, new_line, timeout)
            ws = await WebSocketTransport.connect(ws_url, timeout=timeout)
            chromium = ChromiumProcess(
                proc, user_data_dir, ws, binary, ws_url=ws_url, owns_profile=owns_profile, output=output, _drain=drain
            )
    except BaseException:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        drain.cancel()
        if owns_profile:
            await remove_profile(user_data_dir)
        raise
    return chromium


def persistent_profile(path: str | os.PathLike[str]) -> Path:
    """A persistent profile folder, made owner-only when new (it will hold cookies and saved logins); a LaunchError
    when another running Chromium holds it (Chromium would hand the launch to that one and exit)."""
    folder = Path(path).expanduser().absolute()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise LaunchError(f"user_data_dir {folder}: cannot make the profile folder ({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise LaunchError(f"user_data_dir {folder}: not a folder")
    holder = _profile_holder(folder)
    if holder is not None:
        raise LaunchError(
            f"user_data_dir {folder} is in use by another running Chromium (process {holder}); close it, or "
            "attach to it with connect() instead"
        )
    return folder


def _profile_holder(folder: Path) -> int | None:
    """The pid of a live Chromium on this host holding the profile (its SingletonLock: 'host-pid'), if any."""
    try:
        target = os.readlink(folder / "SingletonLock")
    except OSError:
        return None
    host, _, pid = target.rpartition("-")
    if not pid.isdigit() or host != socket.gethostname():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return int(pid)


async def _drain_output(
    proc: asyncio.subprocess.Process, output: deque[str], exited: asyncio.Future[None], new_line: asyncio.Event
) -> None:
    """Read Chromium's output for as long as it runs so a full pipe can never block it."""
    assert proc.stdout is not None
    try:
        async for line in proc.stdout:
            output.append(line.decode(errors="replace").rstrip())
            new_line.set()
    finally:
        if not exited.done():
            exited.set_result(None)
        new_line.set()


async def _wait_for_devtools_url(
    user_data_dir: Path,
    exited: asyncio.Future[None],
    output: deque[str],
    new_line: asyncio.Event,
    timeout: float,
) -> str:
    """Chromium prints 'DevTools listening on ws://…' once it listens (DevToolsActivePort says the same)."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                for line in output:
                    if line.startswith("DevTools listening on "):
                        return line.removeprefix("DevTools listening on ").strip()
                port_file = user_data_dir / "DevToolsActivePort"
                with contextlib.suppress(OSError, ValueError):
                    lines = port_file.read_text().split("\n")
                    if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                        return f"ws://127.0.0.1:{int(lines[0])}{lines[1].strip()}"
                if exited.done():
                    raise LaunchError("Chromium exited before DevTools started:\n" + "\n".join(list(output)[-20:]))
                new_line.clear()
                await new_line.wait()
    except TimeoutError:
        raise LaunchError(
            f"Chromium did not open DevTools within {timeout:g} s:\n" + "\n".join(list(output)[-20:])
        ) from None


if sys.platform != "linux":  # PR_SET_PDEATHSIG is Linux-only; elsewhere rely on close().
    def _child_setup() -> None:
        return None
