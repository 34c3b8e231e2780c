"""Shared harness for adapter scripts: arguments, the JSON-lines protocol, a hard per-measurement timeout.

Adapters run as subprocesses (inside benchmarks/.venv-others for the other systems, so their
dependencies never enter the engine's environment). Each prints lines prefixed with PREFIX on stdout;
anything else a library prints is ignored by the runner. This module uses the standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

PREFIX = "@@BENCH "
CHROMIUM = os.environ.get("BENCH_CHROMIUM", "/usr/bin/chromium")
VIEWPORT = {"width": 800, "height": 600}
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--mute-audio",
    "--hide-scrollbars",
    f"--window-size={VIEWPORT['width']},{VIEWPORT['height']}",
]

_out_lock = threading.Lock()


def emit(event: str, **fields: Any) -> None:
    """Print one protocol line (flushed, so a killed adapter still leaves what it measured)."""
    line = PREFIX + json.dumps({"event": event, **fields}, default=str)
    with _out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def parse_args(description: str) -> argparse.Namespace:
    """The arguments every adapter takes: URLs, repetitions, warm-ups, timeout, expected markers."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("urls", nargs="+", help="pages to measure, in order")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions after the warm-up")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed for one measurement")
    ap.add_argument("--markers", default="{}", help="JSON object: url -> strings a complete state contains")
    ap.add_argument(
        "--budget", type=float, default=0, help="seconds per metric; slow metrics get fewer runs (min 3)"
    )
    ns = ap.parse_args()
    ns.markers = json.loads(ns.markers)
    return ns


class Watchdog:
    """Ends the process if one measurement outlives its timeout.

    Sync APIs (BrowserGym's) cannot be cancelled from inside, and an async call cancelled on our side
    keeps Chromium busy anyway; so on timeout we report it and exit, and the runner goes on with the next
    system or page. The runner runs each adapter in its own process group and ends that group.
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout

    @contextlib.contextmanager
    def guard(self, url: str, metric: str) -> Iterator[None]:
        """Arm the timer around one measurement."""

        def fire() -> None:
            emit("timeout", url=url, metric=metric, timeout_s=self.timeout)
            os._exit(124)

        timer = threading.Timer(self.timeout, fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


class Series:
    """Collects one metric on one page: warm-up time, samples, facts about the output."""

    def __init__(self, url: str, metric: str) -> None:
        self.url, self.metric = url, metric
        self.first_ms: float | None = None
        self.samples_ms: list[float] = []
        self.extra: dict[str, Any] = {}
        self.failures: list[str] = []  # calls that failed: never timed samples

    def fail(self, error: str) -> None:
        """Record one call that failed (raised, or answered with an error state): a failure, not a sample."""
        self.failures.append(error)

    def add(self, ms: float, warm: bool) -> None:
        """Record one run."""
        if warm:
            self.first_ms = ms if self.first_ms is None else self.first_ms
        else:
            self.samples_ms.append(ms)

    def runs(self, warmup: int, reps: int, budget_s: float | None = None) -> Iterator[bool]:
        """Yield `warm` for each run; after the warm-up, cut the timed runs to fit `budget_s` (never below 3).

        The caller must add() each run before asking for the next, so the warm-up time is known.
        """
        for _ in range(warmup):
            yield True
        n = reps_for(self.first_ms, reps, budget_s)
        if n < reps:
            self.extra["reps_reduced_from"] = reps
        for _ in range(n):
            yield False

    def done(self) -> None:
        """Emit the measurement; failed calls are counted, with their first error text, as the error."""
        error = None
        if self.failures:
            self.extra["failures"] = len(self.failures)
            self.extra["failure_errors"] = sorted(set(self.failures))[:5]
            error = f"{len(self.failures)} failed call(s): {self.failures[0]}"
        emit(
            "measure",
            url=self.url,
            metric=self.metric,
            first_ms=self.first_ms,
            samples_ms=self.samples_ms,
            extra=self.extra,
            error=error,
        )


def describe_output(text: str, markers: list[str]) -> dict[str, Any]:
    """Size of a state text and which expected markers it contains."""
    return {
        "output_chars": len(text),
        "markers_found": [m for m in markers if m in text],
        "markers_missing": [m for m in markers if m not in text],
    }


def error_text(exc: BaseException) -> str:
    """A one-line error with the innermost frame, for the report."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}{where}"


def reps_for(first_ms: float | None, reps: int, budget_s: float | None, min_reps: int = 3) -> int:
    """Timed runs that fit a time budget given the warm-up time; `reps` when there is no budget."""
    if not budget_s or not first_ms:
        return reps
    return max(min(reps, int(budget_s * 1000 // first_ms)), min(min_reps, reps))


def measure_sync(
    series: Series, wd: Watchdog, fn: Callable[[], Any], reps: int, warmup: int, budget_s: float | None = None
) -> Any:
    """Time a blocking call warm-up + reps times under the watchdog; return the last result."""
    res = None
    for warm in series.runs(warmup, reps, budget_s):
        with wd.guard(series.url, series.metric):
            t0 = time.perf_counter()
            res = fn()
            series.add((time.perf_counter() - t0) * 1000, warm)
    return res


class LaunchedChromium:
    """A headless Chromium on --remote-debugging-port=0, for systems that connect over CDP themselves."""

    def __init__(self, timeout: float = 30.0, extra_flags: list[str] | None = None) -> None:
        self.profile = tempfile.mkdtemp(prefix="bench-others-")
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                *CHROMIUM_FLAGS,
                *(extra_flags or []),
                f"--user-data-dir={self.profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(OSError), open(port_file) as f:
                lines = f.read().split("\n")
                if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                    self.port = int(lines[0])
                    self.ws_path = lines[1].strip()
                    break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("Chromium did not write DevToolsActivePort")
            time.sleep(0.01)

    @property
    def http_url(self) -> str:
        """The DevTools HTTP endpoint (what most CDP clients take as cdp_url)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """The browser websocket endpoint."""
        return f"ws://127.0.0.1:{self.port}{self.ws_path}"

    def close(self) -> None:
        """Stop this Chromium and remove its profile."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.profile, ignore_errors=True)


def quiet_browser_use(timeout: float) -> None:
    """browser-use without telemetry or cloud calls (there is no network anyway), with quiet logs and event
    budgets as large as ours. Call before importing browser_use."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")
    os.environ.setdefault("BROWSER_USE_CLOUD_SYNC", "false")
    os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "error")
    for ev in ("BrowserStateRequestEvent", "NavigateToUrlEvent", "NavigationCompleteEvent", "BrowserStartEvent"):
        os.environ.setdefault(f"TIMEOUT_{ev}", str(timeout))


def package_version(name: str) -> str | None:
    """Installed version of a distribution, or None."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


async def stop_browser_use(session: Any, chrome: LaunchedChromium | None) -> None:
    """End a browser-use session (bounded: its kill can hang) and the Chromium it was connected to."""
    import asyncio

    if session is not None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.kill(), 10)
    if chrome is not None:
        chrome.close()
