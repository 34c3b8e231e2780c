"""A Chromium started by the test itself, as a user would start theirs: its own profile, a debugging port.

The engine never launched it, so attaching to it (connect, --cdp-url, auto-connect) is tested the way users
attach to their own browser; `stop()` kills its whole process group and checks nothing is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from procs import alive, live_processes_with

from cdp_engine.cdp.discovery import read_active_port
from cdp_engine.cdp.launcher import find_chromium


@dataclass
class UserChrome:
    process: subprocess.Popen[bytes]
    profile: Path
    ws_url: str

    @property
    def port(self) -> int:
        return int(self.ws_url.split(":")[2].split("/")[0])

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def pages(self) -> list[dict[str, str]]:
        """The browser's page targets, read over its HTTP endpoint (not through the engine)."""
        async with aiohttp.ClientSession() as http, http.get(self.http_url + "/json/list") as response:
            targets = await response.json(content_type=None)
        return [t for t in targets if t.get("type") == "page"]

    def running(self) -> bool:
        return self.process.poll() is None and alive(self.process.pid)

    def stop(self) -> None:
        """Kill the whole process group and check no process of this profile is left."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        deadline = time.monotonic() + 10
        while live_processes_with(f"--user-data-dir={self.profile}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not live_processes_with(f"--user-data-dir={self.profile}"), "a Chromium process outlived the test"


async def start_user_chrome(profile: Path, *urls: str, timeout: float = 30.0) -> UserChrome:
    """Chromium headless with its own --user-data-dir and --remote-debugging-port=0; its URL from
    DevToolsActivePort once it listens."""
    profile.mkdir(parents=True, exist_ok=True)
    args = [
        find_chromium(), "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--password-store=basic", "--use-mock-keychain", f"--user-data-dir={profile}", "--remote-debugging-port=0",
        "--window-size=900,700",
    ]  # fmt: skip
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    process = _spawn([*args, *(urls or ("about:blank",))])
    chrome = UserChrome(process, profile, "")
    try:
        async with asyncio.timeout(timeout):
            while (url := read_active_port(profile)) is None:
                assert process.poll() is None, "Chromium exited before it listened"
                await asyncio.sleep(0.02)
    except BaseException:
        chrome.stop()
        raise
    chrome.ws_url = url
    return chrome


def _spawn(args: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
