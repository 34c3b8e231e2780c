"""A minimal raw CDP client that times the bare calls a state capture is built from: the floor.

It launches Chromium itself over either transport (websocket on --remote-debugging-port=0, or
--remote-debugging-pipe on fds 3/4 with \\0-terminated JSON), keeps one flat session per tab, and does
nothing between send and parse, so what it measures is what Chromium and the wire cost.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from websockets.asyncio.client import connect as ws_connect

CHROMIUM = os.environ.get("BENCH_CHROMIUM", "/usr/bin/chromium")
VIEWPORT = (800, 600)
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
    f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}",
]

# captureSnapshot variants: name -> (computedStyles, includeDOMRects, includePaintOrder).
SNAPSHOT_VARIANTS: dict[str, tuple[list[str], bool, bool]] = {
    "snapshot.none": ([], False, False),
    "snapshot.styles3+rects+paint": (["display", "visibility", "opacity"], True, True),
}

JS_WALK = (
    "(() => { let n = 0; const w = document.createTreeWalker(document.body, NodeFilter.SHOW_ALL);"
    " while (w.nextNode()) n++; return n; })()"
)


class CDPError(RuntimeError):
    """An error answer from Chromium."""


class Connection:
    """Request/response matching and event waiters over any transport that delivers whole messages."""

    def __init__(self, write: Callable[[bytes], Awaitable[None]]) -> None:
        self._write = write
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[tuple[dict[str, Any], int]]] = {}
        self._waiters: list[tuple[str, str | None, asyncio.Future[dict[str, Any]]]] = []
        self.closed: BaseException | None = None

    def on_message(self, data: bytes | str) -> None:
        """Route one raw message: answers resolve their request, events wake their waiters."""
        msg = orjson.loads(data)
        mid = msg.get("id")
        if mid is not None:
            fut = self._pending.pop(mid, None)
            if fut is not None and not fut.done():
                if "error" in msg:
                    fut.set_exception(CDPError(f"{msg['error'].get('message')} ({msg['error'].get('code')})"))
                else:
                    fut.set_result((msg.get("result", {}), len(data)))
            return
        method, session = msg.get("method"), msg.get("sessionId")
        for w in list(self._waiters):
            if w[0] == method and (w[1] is None or w[1] == session) and not w[2].done():
                w[2].set_result(msg.get("params", {}))
                self._waiters.remove(w)

    def fail_all(self, exc: BaseException) -> None:
        """Fail every outstanding request (the transport closed)."""
        self.closed = exc
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(exc)
        self._pending.clear()

    async def send_sized(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> tuple[dict[str, Any], int]:
        """Send one command; return its result and the size in bytes of the raw answer."""
        if self.closed is not None:
            raise ConnectionError(f"CDP connection closed: {self.closed!r}")
        self._next_id += 1
        mid = self._next_id
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut: asyncio.Future[tuple[dict[str, Any], int]] = asyncio.get_running_loop().create_future()
        self._pending[mid] = fut
        await self._write(orjson.dumps(msg))
        return await fut

    async def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        """Send one command and return its result."""
        return (await self.send_sized(method, params, session))[0]

    def wait_event(self, method: str, session: str | None = None) -> asyncio.Future[dict[str, Any]]:
        """A future for the next event of that name (registered before the command that triggers it)."""
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((method, session, fut))
        return fut


@dataclass
class Browser:
    """A Chromium this module launched, with its connection and the launch phase times."""

    proc: subprocess.Popen[bytes]
    conn: Connection
    transport: str
    profile_dir: str
    phases_ms: dict[str, float] = field(default_factory=dict)
    _closers: list[Callable[[], Awaitable[None] | None]] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None  # the task feeding conn; close() cancels it

    async def close(self) -> None:
        """Ask Chromium to exit, then make sure it did, and remove its profile."""
        if self.conn.closed is None and self.proc.poll() is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.send("Browser.close"), 3)
        for closer in self._closers:
            with contextlib.suppress(Exception):
                res = closer()
                if res is not None:
                    await res
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        try:
            await asyncio.to_thread(self.proc.wait, 5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait, 5)
        shutil.rmtree(self.profile_dir, ignore_errors=True)


def _pipe_preexec(cmd_read: int, resp_write: int) -> Callable[[], None]:
    """Put our pipe ends on fds 3 (commands in) and 4 (answers out) in the child, as Chromium expects."""

    def move() -> None:
        a, b = os.dup(cmd_read), os.dup(resp_write)
        os.dup2(a, 3)
        os.dup2(b, 4)
        os.set_inheritable(3, True)
        os.set_inheritable(4, True)

    return move


async def launch(
    transport: str = "websocket", timeout: float = 30.0, extra_flags: list[str] | None = None
) -> Browser:
    """Launch headless Chromium and connect over `transport` ("websocket" or "pipe"); phases in phases_ms."""
    t0 = time.perf_counter()
    profile = tempfile.mkdtemp(prefix="bench-floor-")
    args = [CHROMIUM, *CHROMIUM_FLAGS, *(extra_flags or []), f"--user-data-dir={profile}"]
    loop = asyncio.get_running_loop()
    phases: dict[str, float] = {}
    if transport == "websocket":
        proc = subprocess.Popen(  # noqa: ASYNC220 - returns once forked; the launch is what we time
            [*args, "--remote-debugging-port=0", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = t0 + timeout
        lines: list[str] = []
        while True:
            with contextlib.suppress(OSError):
                with open(port_file) as f:  # noqa: ASYNC230 - a few bytes, polled
                    lines = f.read().split("\n")
            if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
                break
            if proc.poll() is not None or time.perf_counter() > deadline:
                proc.kill()
                shutil.rmtree(profile, ignore_errors=True)
                raise RuntimeError(f"Chromium did not write DevToolsActivePort (exit {proc.poll()})")
            await asyncio.sleep(0.005)
        phases["devtools_port"] = (time.perf_counter() - t0) * 1000
        ws = await ws_connect(
            f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}",
            max_size=None,
            compression=None,
            ping_interval=None,
            open_timeout=timeout,
        )

        async def write_ws(data: bytes) -> None:
            await ws.send(data.decode())

        conn = Connection(write_ws)

        async def read_ws() -> None:
            try:
                async for data in ws:
                    conn.on_message(data)
            except Exception as exc:  # the browser went away
                conn.fail_all(exc)
            else:
                conn.fail_all(ConnectionError("websocket closed"))

        browser = Browser(proc, conn, transport, profile, phases, [ws.close])
        browser.reader = asyncio.create_task(read_ws())
    elif transport == "pipe":
        cmd_r, cmd_w = os.pipe()
        resp_r, resp_w = os.pipe()
        proc = subprocess.Popen(  # noqa: ASYNC220 - returns once forked; the launch is what we time
            [*args, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=_pipe_preexec(cmd_r, resp_w),
        )
        os.close(cmd_r)
        os.close(resp_w)
        reader = asyncio.StreamReader(limit=2**31 - 1)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(resp_r, "rb", buffering=0)
        )
        write_transport, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(cmd_w, "wb", buffering=0)
        )

        async def write_pipe(data: bytes) -> None:
            write_transport.write(data + b"\0")

        conn = Connection(write_pipe)

        async def read_pipe() -> None:
            try:
                while True:
                    msg = await reader.readuntil(b"\0")
                    conn.on_message(msg[:-1])
            except Exception as exc:
                conn.fail_all(exc)

        browser = Browser(
            proc, conn, transport, profile, phases, [read_transport.close, write_transport.close]
        )
        browser.reader = asyncio.create_task(read_pipe())
    else:
        raise ValueError(f"unknown transport {transport!r}")
    phases["connected"] = (time.perf_counter() - t0) * 1000
    return browser


async def first_page_session(browser: Browser, timeout: float = 30.0) -> tuple[str, str]:
    """Attach (flat) to the tab Chromium opened at launch; return (targetId, sessionId)."""
    deadline = time.perf_counter() + timeout
    while True:
        targets = (await browser.conn.send("Target.getTargets"))["targetInfos"]
        pages = [t for t in targets if t["type"] == "page"]
        if pages:
            target_id = pages[0]["targetId"]
            break
        if time.perf_counter() > deadline:
            raise TimeoutError("no page target appeared")
        await asyncio.sleep(0.01)
    res = await browser.conn.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
    return target_id, res["sessionId"]


async def new_page_session(browser: Browser) -> tuple[str, str]:
    """Open a fresh tab and attach to it (flat); return (targetId, sessionId)."""
    target_id = (await browser.conn.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
    res = await browser.conn.send("Target.attachToTarget", {"targetId": target_id, "flatten": True})
    return target_id, res["sessionId"]


async def navigate(browser: Browser, session: str, url: str, timeout: float = 60.0) -> float:
    """Set an 800×600 viewport, navigate and wait for the load event; return the ms it took."""
    conn = browser.conn
    await conn.send("Page.enable", session=session)
    await conn.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    t0 = time.perf_counter()
    loaded = conn.wait_event("Page.loadEventFired", session)
    res = await conn.send("Page.navigate", {"url": url}, session=session)
    if res.get("errorText"):
        raise RuntimeError(f"navigation failed: {res['errorText']}")
    await asyncio.wait_for(loaded, timeout)
    return (time.perf_counter() - t0) * 1000


async def browser_version(browser: Browser) -> dict[str, Any]:
    """Browser.getVersion: product, protocol version, revision, user agent."""
    return await browser.conn.send("Browser.getVersion")


# ----- the timed calls -------------------------------------------------------------------------------------


async def evaluate_rtt(conn: Connection, session: str) -> int:
    """One Runtime.evaluate("1") round trip."""
    return (await conn.send_sized("Runtime.evaluate", {"expression": "1"}, session))[1]


async def js_walk(conn: Connection, session: str) -> int:
    """An in-page TreeWalker over the whole body, result by value."""
    params = {"expression": JS_WALK, "returnByValue": True}
    return (await conn.send_sized("Runtime.evaluate", params, session))[1]


async def get_document(conn: Connection, session: str) -> int:
    """DOM.getDocument with depth -1."""
    return (await conn.send_sized("DOM.getDocument", {"depth": -1}, session))[1]


async def capture_snapshot(
    conn: Connection,
    session: str,
    computed_styles: list[str] | None = None,
    include_dom_rects: bool = False,
    include_paint_order: bool = False,
) -> tuple[dict[str, Any], int]:
    """DOMSnapshot.captureSnapshot with the given computed-style whitelist and optional rects / paint order."""
    params = {
        "computedStyles": computed_styles or [],
        "includeDOMRects": include_dom_rects,
        "includePaintOrder": include_paint_order,
    }
    return await conn.send_sized("DOMSnapshot.captureSnapshot", params, session)


async def full_ax_tree(conn: Connection, session: str) -> int:
    """Accessibility.getFullAXTree of the main frame."""
    return (await conn.send_sized("Accessibility.getFullAXTree", {}, session))[1]


async def partial_ax_trees(conn: Connection, session: str, backend_ids: list[int]) -> int:
    """Accessibility.getPartialAXTree(fetchRelatives=false) for every id, all in flight at once."""
    results = await asyncio.gather(
        *(
            conn.send_sized(
                "Accessibility.getPartialAXTree", {"backendNodeId": b, "fetchRelatives": False}, session
            )
            for b in backend_ids
        ),
        return_exceptions=True,
    )
    return sum(r[1] for r in results if isinstance(r, tuple))


async def screenshot(conn: Connection, session: str) -> int:
    """Page.captureScreenshot, PNG of the viewport."""
    return (await conn.send_sized("Page.captureScreenshot", {"format": "png"}, session))[1]


def dom_node_count(snapshot: dict[str, Any]) -> int:
    """Nodes in a captureSnapshot answer, all documents (frames) together."""
    return sum(len(d["nodes"].get("nodeType", [])) for d in snapshot["documents"])


def viewport_backend_ids(
    snapshot: dict[str, Any], width: int = VIEWPORT[0], height: int = VIEWPORT[1]
) -> list[int]:
    """backendNodeIds of the main document's layout nodes whose box meets the viewport (scrolled to top)."""
    doc = snapshot["documents"][0]
    backend = doc["nodes"]["backendNodeId"]
    ids: list[int] = []
    seen: set[int] = set()
    for node_index, (x, y, w, h) in zip(doc["layout"]["nodeIndex"], doc["layout"]["bounds"], strict=False):
        if x < width and y < height and x + w > 0 and y + h > 0:
            b = backend[node_index]
            if b not in seen:
                seen.add(b)
                ids.append(b)
    return ids


# ----- measuring ---------------------------------------------------------------------------------------------


@dataclass
class Timed:
    """One metric on one page: the warm-up time, the timed samples, extra facts or an error."""

    metric: str
    first_ms: float | None = None
    samples_ms: list[float] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The measurement record the runner stores."""
        return {
            "metric": self.metric,
            "first_ms": self.first_ms,
            "samples_ms": self.samples_ms,
            "extra": self.extra,
            "error": self.error,
        }


def reps_for(first_ms: float | None, reps: int, budget_s: float | None, min_reps: int = 3) -> int:
    """Timed runs that fit a time budget given the warm-up time; `reps` when there is no budget."""
    if not budget_s or not first_ms:
        return reps
    return max(min(reps, int(budget_s * 1000 // first_ms)), min(min_reps, reps))


async def time_call(
    metric: str,
    call: Callable[[], Awaitable[Any]],
    reps: int,
    warmup: int = 1,
    timeout: float = 60.0,
    budget_s: float | None = None,
) -> Timed:
    """Run `call` warm-up + reps times, each under `timeout`; a timeout or error ends the metric.

    With `budget_s`, a metric whose warm-up shows it cannot do `reps` runs in that time gets fewer (at least 3).
    """
    out = Timed(metric)
    i, total = 0, warmup + reps
    while i < total:
        t0 = time.perf_counter()
        try:
            res = await asyncio.wait_for(call(), timeout)
        except TimeoutError:
            out.error = f"timeout after {timeout:g} s"
            break
        except Exception as exc:
            out.error = f"{type(exc).__name__}: {exc}"
            break
        ms = (time.perf_counter() - t0) * 1000
        if isinstance(res, int):
            out.extra["response_bytes"] = res
        if i < warmup:
            out.first_ms = ms if out.first_ms is None else out.first_ms
            if i == warmup - 1:
                n = reps_for(out.first_ms, reps, budget_s)
                if n < reps:
                    out.extra["reps_reduced_from"] = reps
                total = warmup + n
        else:
            out.samples_ms.append(ms)
        i += 1
    return out


DEFAULT_METRICS = (
    "evaluate_rtt",
    "js_walk",
    "getDocument",
    *SNAPSHOT_VARIANTS,
    "screenshot",
    "partialAX.viewport",
    "fullAX",
)


async def measure_page(
    browser: Browser,
    url: str,
    reps: int = 5,
    warmup: int = 1,
    timeout: float = 60.0,
    metrics: tuple[str, ...] = DEFAULT_METRICS,
    budget_s: float | None = None,
) -> tuple[dict[str, Any], list[Timed]]:
    """Open a fresh tab on `url` and time each floor metric in blocks; return (page facts, measurements).

    The accessibility calls run last: once Chromium has built its AX tree, later DOM work may pay for
    keeping it, and the other numbers should not carry that cost.
    """
    conn = browser.conn
    target_id, session = await new_page_session(browser)
    facts: dict[str, Any] = {}
    results: list[Timed] = []
    try:
        facts["load_ms"] = await navigate(browser, session, url, timeout)
        snap, _ = await asyncio.wait_for(capture_snapshot(conn, session, [], True, False), timeout)
        facts["dom_nodes"] = dom_node_count(snap)
        facts["documents"] = len(snap["documents"])
        viewport_ids = viewport_backend_ids(snap)
        facts["viewport_layout_nodes"] = len(viewport_ids)
        del snap
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "evaluate_rtt": lambda: evaluate_rtt(conn, session),
            "js_walk": lambda: js_walk(conn, session),
            "getDocument": lambda: get_document(conn, session),
            "screenshot": lambda: screenshot(conn, session),
            "partialAX.viewport": lambda: partial_ax_trees(conn, session, viewport_ids),
            "fullAX": lambda: full_ax_tree(conn, session),
        }
        for name, (styles, rects, paint) in SNAPSHOT_VARIANTS.items():

            async def snap_call(styles: list[str] = styles, rects: bool = rects, paint: bool = paint) -> int:
                return (await capture_snapshot(conn, session, styles, rects, paint))[1]

            calls[name] = snap_call
        for metric in metrics:
            t = await time_call(metric, calls[metric], reps, warmup, timeout, budget_s)
            if metric == "partialAX.viewport":
                t.extra["backend_ids"] = len(viewport_ids)
            if metric in SNAPSHOT_VARIANTS:
                styles, rects, paint = SNAPSHOT_VARIANTS[metric]
                t.extra.update(computedStyles=styles, includeDOMRects=rects, includePaintOrder=paint)
            results.append(t)
            if t.error and "timeout" in t.error:
                break  # Chromium is still busy with the call: later numbers would be wrong
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.send("Target.closeTarget", {"targetId": target_id}), 5)
    return facts, results


async def measure_launch(
    transport: str, reps: int = 5, warmup: int = 1, timeout: float = 60.0
) -> list[Timed]:
    """Launch → attached page session → first evaluate answered, `warmup + reps` times, per phase."""
    phases = ["devtools_port", "connected", "first_session", "first_evaluate"]
    out = {p: Timed(f"launch.{p}") for p in phases if transport == "websocket" or p != "devtools_port"}
    for i in range(warmup + reps):
        browser: Browser | None = None
        try:
            t0 = time.perf_counter()
            browser = await asyncio.wait_for(launch(transport, timeout), timeout)
            _, session = await asyncio.wait_for(first_page_session(browser, timeout), timeout)
            t_session = (time.perf_counter() - t0) * 1000
            await asyncio.wait_for(
                browser.conn.send("Runtime.evaluate", {"expression": "1"}, session), timeout
            )
            t_eval = (time.perf_counter() - t0) * 1000
            got = {**browser.phases_ms, "first_session": t_session, "first_evaluate": t_eval}
            for p, t in out.items():
                if i < warmup:
                    t.first_ms = got[p]
                else:
                    t.samples_ms.append(got[p])
        except Exception as exc:
            for t in out.values():
                t.error = f"{type(exc).__name__}: {exc}"
            break
        finally:
            if browser is not None:
                await browser.close()
    return list(out.values())


async def measure_pages(
    transport: str,
    urls: list[str],
    reps: int = 5,
    warmup: int = 1,
    timeout: float = 60.0,
    metrics: tuple[str, ...] = DEFAULT_METRICS,
    budget_s: float | None = None,
) -> list[dict[str, Any]]:
    """One fresh Chromium per page (like the other systems): its facts and measurements, or its error."""
    out: list[dict[str, Any]] = []
    for url in urls:
        browser: Browser | None = None
        rec: dict[str, Any] = {"url": url, "transport": transport}
        try:
            browser = await launch(transport, timeout)
            rec["browser"] = await browser_version(browser)
            facts, timed = await measure_page(browser, url, reps, warmup, timeout, metrics, budget_s)
            rec["facts"] = facts
            rec["measurements"] = [t.as_dict() for t in timed]
        except Exception as exc:
            rec["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            if browser is not None:
                await browser.close()
        out.append(rec)
    return out


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(description="Time the bare CDP calls on the given URLs.")
    ap.add_argument("urls", nargs="*")
    ap.add_argument("--transport", choices=["websocket", "pipe"], default="websocket")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--launch", action="store_true", help="also time launch to first session")
    ns = ap.parse_args()

    async def _main() -> None:
        res: dict[str, Any] = {"pages": await measure_pages(ns.transport, ns.urls, ns.reps, 1, ns.timeout)}
        if ns.launch:
            res["launch"] = [t.as_dict() for t in await measure_launch(ns.transport, ns.reps, 1, ns.timeout)]
        print(json.dumps(res, indent=1))

    asyncio.run(_main())
