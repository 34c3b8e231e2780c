"""Real Python web apps as real servers for the real-web suite: each its own process on a free loopback port,
its own SQLite database in a temporary folder, stopped at the end. The test reads results from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APPS = Path(__file__).parent / "apps"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class App:
    name: str
    url: str
    db: Path

    def rows(self, table: str) -> list[dict[str, Any]]:
        with contextlib.closing(sqlite3.connect(self.db)) as conn:
            conn.row_factory = sqlite3.Row
            return [dict(r) for r in conn.execute(f"select * from {table}")]


async def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}")
        try:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)  # the server process is still starting: nothing to await but its port
            continue
        writer.close()
        return
    raise TimeoutError(f"the app did not listen on {port} within {timeout} s")


def _spawn(args: list[str], env: dict[str, str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """The app's process, its output in `log` (read it when a start fails)."""
    with log.open("wb") as out:
        return subprocess.Popen(args, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def _run(args: list[str], env: dict[str, str], cwd: Path) -> None:
    subprocess.run(args, env=env, cwd=cwd, check=True, capture_output=True, timeout=120)


@contextlib.asynccontextmanager
async def start(name: str, tmp: Path) -> AsyncIterator[App]:
    """Start app `name` (django, flask, nicegui) with a fresh database; its URL and database."""
    port = free_port()
    db = tmp / f"{name}.db"
    env = {**os.environ, "ORDERS_DB": str(db), "PYTHONUNBUFFERED": "1"}
    env.pop("PYTEST_CURRENT_TEST", None)  # NiceGUI runs its own test mode when it sees pytest
    cwd = APPS
    if name == "django":
        cwd = APPS / "django_orders"
        env.update(DJANGO_SETTINGS_MODULE="settings", PYTHONPATH=str(cwd))
        await asyncio.to_thread(_run, [sys.executable, "-m", "django", "migrate", "-v", "0"], env, cwd)
        await asyncio.to_thread(
            _run,
            [sys.executable, "-c", "import django; django.setup(); from django.contrib.auth.models import User;"
             " User.objects.create_superuser('admin', 'admin@example.com', 'orders-admin-1')"],
            env, cwd,
        )  # fmt: skip
        args = [sys.executable, "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload", "--insecure"]
        url = f"http://127.0.0.1:{port}/admin/"
    elif name == "flask":
        args = [sys.executable, "flask_orders.py", str(port)]
        url = f"http://127.0.0.1:{port}/"
    elif name == "nicegui":
        args = [sys.executable, "nicegui_orders.py", str(port)]
        url = f"http://127.0.0.1:{port}/"
    else:
        raise ValueError(name)
    proc = await asyncio.to_thread(_spawn, args, env, cwd, tmp / f"{name}.log")
    try:
        await _wait_listening(port, proc, 60.0)
        yield App(name, url, db)
    finally:
        proc.terminate()
        try:
            await asyncio.to_thread(proc.wait, 10)
        except subprocess.TimeoutExpired:
            proc.kill()
