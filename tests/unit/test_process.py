"""Process hygiene: a Python process that launched Chromium and is then killed with SIGKILL
(no atexit, no finally, no close()) leaves no Chromium running behind it.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import alive, live_processes_with

import cdp_engine

CHILD = """
import asyncio, json, sys
import cdp_engine

async def main():
    browser = await cdp_engine.launch(transport=sys.argv[1])
    tab = await browser.new_tab("data:text/html,<iframe srcdoc='<p>child</p>'></iframe><p>parent</p>")
    assert await tab.evaluate("document.querySelector('p').textContent") == "parent"
    print(json.dumps({
        "pid": browser.process.process.pid,
        "profile": str(browser.process.user_data_dir),
        "downloads": str(browser.downloads_dir),
    }), flush=True)
    await asyncio.sleep(120)  # until the test kills us; the deadline only guards against a stray child

asyncio.run(main())
"""


def _read_line(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"the child printed nothing within {timeout:g} s")
        ready, _, _ = select.select([proc.stdout], [], [], remaining)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                raise AssertionError("the child exited before it printed the browser's pid")
            line += chunk
    return line


@pytest.mark.parametrize("transport", ["websocket", "pipe"])
def test_sigkilled_launcher_leaves_no_chromium(transport: str, tmp_path: Path) -> None:
    root = Path(cdp_engine.__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
    }
    stderr = (tmp_path / "stderr").open("wb")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, transport], stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=tmp_path
    )
    info: dict[str, object] = {}
    try:
        try:
            info = json.loads(_read_line(child, 60))
        except AssertionError as exc:
            child.kill()
            child.wait(10)
            raise AssertionError(f"{exc}\n{(tmp_path / 'stderr').read_text(errors='replace')}") from None
        pid = int(info["pid"])  # type: ignore[call-overload]
        profile = str(info["profile"])
        assert alive(pid)
        assert pid in live_processes_with(f"--user-data-dir={profile}")
        assert len(live_processes_with(profile)) > 1, "expected renderer/utility processes too"

        child.send_signal(signal.SIGKILL)
        child.wait(10)
        assert child.returncode == -signal.SIGKILL

        deadline = time.monotonic() + 10
        while live_processes_with(profile):
            assert time.monotonic() < deadline, (
                f"Chromium processes outlived their launcher by 10 s: {live_processes_with(profile)}"
            )
            time.sleep(0.05)
        assert not alive(pid) or pid not in live_processes_with(profile)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        stderr.close()
        # Nobody is left to delete the folders of a SIGKILLed launcher; and any straggler is ours to stop.
        for straggler in live_processes_with(str(info.get("profile", "\0"))):
            os.kill(straggler, signal.SIGKILL)
        for key in ("profile", "downloads"):
            if key in info:
                shutil.rmtree(str(info[key]), ignore_errors=True)
