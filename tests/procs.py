"""/proc helpers for the tests that check no Chromium process outlives its owner."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int | str) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def live_processes_with(needle: str) -> list[int]:
    """Pids of running (not zombie) processes whose command line contains needle."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = Path(entry.path, "cmdline").read_bytes()
        except OSError:
            continue
        if needle.encode() in cmdline and alive(entry.name):
            found.append(int(entry.name))
    return found
