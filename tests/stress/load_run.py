#!/usr/bin/env python3
"""The load run of issue 14: many clients at once on one Chromium, each checking it only ever sees its own page.

    python tests/stress/load_run.py                       # 1-16 agents, 8 MCP sessions, 8 HTTP clients
    python tests/stress/load_run.py --agents 1 4 --seconds 5 --out benchmarks/results/load.json

Three parts, one process, one Chromium, pages served from 127.0.0.1 (port 0) by this module:

- agents: 1, 2, 4, 8, 16 concurrent AgentTabs, each in its own browser context, each playing a scripted
  episode in a loop (navigate, state, input_text, select_option, click_element, scroll) through
  `ElementIndex.act` / `state`;
- MCP sessions: the real streamable HTTP server (the ASGI app `cdp-engine mcp --http` serves, under uvicorn, with
  a bearer token), driven by the official `mcp` SDK client, one stateful session per client; with per-session
  instance ownership (the default here) every session names its instance "main", so a mix-up between sessions
  would show; without it (the server's default semantics) each session has its own name;
- HTTP clients: the HTTP service (`service.create_app`), one app (one tab in its own context) per client, each on
  its own loopback port, driven by aiohttp with the bearer token.

Every client owns a page carrying a unique token (title, heading, button text, output). Each step's result is
checked: an error result the script did not expect, an expected effect missing, an exception or a step over its
deadline counts as an error (hangs are also counted on their own); an HTTP status 500 is counted; any other
client's token in what a client reads (url, title, page content, snapshot) counts as cross-talk. Each part is
bounded by steps per client and by seconds, so the whole run stops by itself. A benchmark, not a timed test
(tests/stress/test_load_smoke.py runs a small one); benchmarks/reliability.py imports load_run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import secrets
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp import ClientSession, ClientTimeout, web

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import cdp_engine  # noqa: E402
from cdp_engine.index.element_index import ElementIndex  # noqa: E402
from cdp_engine.service import create_app  # noqa: E402

__all__ = ["load_run"]

TOKEN_RE = re.compile(r"LT[0-9a-f]{12}")
STEP_TIMEOUT = 45.0  # a step slower than this is a hang (every engine deadline is shorter)
MAX_SAMPLES = 5  # error messages kept per part, to say what went wrong

PAGE = """<!doctype html><html><head><title>Load {token}</title></head><body>
<h1>Client {token}</h1>
<label for="name">Name</label> <input id="name" name="name">
<label for="color">Color</label>
<select id="color" name="color"><option value="red">Red</option><option value="green">Green</option>
<option value="blue">Blue</option></select>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked {token} ' + (++window.n)">Press</button>
<p id="out">idle {token}</p>
<div style="height: 2500px">filler</div>
<p>Bottom of {token}</p>
<script>window.n = 0</script>
</body></html>"""


def new_token() -> str:
    return "LT" + secrets.token_hex(6)


# ----- measuring ---------------------------------------------------------------------------------


@dataclass
class Tally:
    """What one part's clients did: step latencies and everything that went wrong."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    hangs: int = 0
    http_500: int = 0
    cross_talk: int = 0
    samples: list[str] = field(default_factory=list)

    def error(self, client: str, what: str) -> None:
        self.errors += 1
        if len(self.samples) < MAX_SAMPLES:
            self.samples.append(f"{client}: {what}"[:300])

    def check_own(self, client: str, token: str, *texts: Any) -> None:
        """Cross-talk: any other client's token in what this client read."""
        seen = {t for text in texts if isinstance(text, str) for t in TOKEN_RE.findall(text)}
        if seen - {token}:
            self.cross_talk += 1
            if len(self.samples) < MAX_SAMPLES:
                self.samples.append(f"{client}: cross-talk, saw {sorted(seen - {token})}")

    async def step(self, client: str, name: str, call: Awaitable[Any], *, timed: bool = True) -> Any:
        """Time one step within its deadline; None (and counted as an error, not a latency) when it raised or hung.
        A result that is a failure (None, or a state with `error`) is returned untimed for the caller to report.

        `timed=False`: setup (an MCP instance's creation), checked but not a step of the figures."""
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(STEP_TIMEOUT):
                result = await call
        except TimeoutError:
            self.hangs += 1
            self.error(client, f"{name}: no answer within {STEP_TIMEOUT:.0f} s")
            return None
        except Exception as exc:  # the run reports every failure rather than stopping at the first
            self.error(client, f"{name}: {type(exc).__name__}: {exc}")
            return None
        # A call that failed is a failure, never a timed sample: None (an MCP error envelope, reported by the
        # caller) and a protocol state carrying `error` (reported by its check) are not timed.
        failed = result is None or (isinstance(result, dict) and "error" in result)
        if timed and not failed:
            self.latencies.append((time.perf_counter() - t0) * 1000)
        return result

    def summary(self, seconds: float, **extra: Any) -> dict[str, Any]:
        lat = sorted(self.latencies)

        def pct(p: float) -> float:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))], 1) if lat else 0.0

        return {
            **extra,
            "steps": len(lat),
            "seconds": round(seconds, 2),
            "steps_per_s": round(len(lat) / seconds, 2) if seconds > 0 else 0.0,
            "p50_ms": pct(0.50),
            "p95_ms": pct(0.95),
            "errors": self.errors,
            "hangs": self.hangs,
            "http_500": self.http_500,
            "cross_talk": self.cross_talk,
            "error_samples": self.samples,
        }


@dataclass
class Budget:
    """Steps per client and a shared end time: every client loop stops at whichever comes first."""

    steps: int
    end: float

    def more(self, done: int) -> bool:
        return done < self.steps and time.perf_counter() < self.end


# ----- the pages ---------------------------------------------------------------------------------


@asynccontextmanager
async def serve_pages() -> AsyncIterator[str]:
    """Every client's page at /c/<token>?visit=<n>; yields the base URL."""

    async def page(request: web.Request) -> web.Response:
        token = request.match_info["token"]
        if not TOKEN_RE.fullmatch(token):
            raise web.HTTPNotFound()
        return web.Response(text=PAGE.format(token=token), content_type="text/html")

    app = web.Application()
    app.router.add_get("/c/{token}", page)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


def _find(state: dict[str, Any], tag: str, value: str | None = None) -> int | None:
    for key, el in (state.get("element_index") or {}).items():
        if el.get("tag") == tag and (value is None or (el.get("attributes") or {}).get("value") == value):
            return int(key)
    return None


# ----- agents: the Element Index protocol in this process ------------------------------------------


async def _protocol_episodes(
    client: str,
    token: str,
    base: str,
    budget: Budget,
    tally: Tally,
    get_state: Callable[[], Awaitable[dict[str, Any] | None]],
    act: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]],
) -> None:
    """The scripted episode, looped within the budget, over any transport of the protocol (library or HTTP)."""
    done, visit = 0, 0

    def check(state: dict[str, Any] | None, name: str, expect: str | None = None) -> dict[str, Any] | None:
        if state is None:
            return None
        tally.check_own(client, token, state.get("url"), state.get("page_content"))
        if "error" in state:
            tally.error(client, f"{name}: {state['error'].get('code')}: {state['error'].get('message')}")
            return None
        if token not in str(state.get("url")) or (expect is not None and expect not in state.get("page_content", "")):
            tally.error(client, f"{name}: expected {expect or token!r} on {state.get('url')}")
            return None
        return state

    while budget.more(done):
        visit += 1
        url, text = f"{base}/c/{token}?visit={visit}", f"name {visit}"
        steps: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any] | None], str | None]] = [
            ("input_text", lambda s, t=text: _act_on(s, "input", {"action": "input_text", "text": t}), None),
            ("select_option", lambda s: _select(s, "blue"), None),
            ("click_element", lambda s: _act_on(s, "button", {"action": "click_element"}), f"clicked {token} 1"),
            ("scroll", lambda s: {"action": "scroll", "direction": "down"}, None),
        ]
        state = check(await tally.step(client, "navigate", act({"action": "navigate", "url": url})), "navigate")
        done += 1
        if state is None or not budget.more(done):
            continue
        state = check(await tally.step(client, "state", get_state()), "state", f"idle {token}")
        done += 1
        for name, make, expect in steps:
            if state is None or not budget.more(done):
                break
            action = make(state)
            if action is None:
                tally.error(client, f"{name}: element not in the state")
                break
            state = check(await tally.step(client, name, act(action)), name, expect)
            done += 1


def _act_on(state: dict[str, Any], tag: str, action: dict[str, Any]) -> dict[str, Any] | None:
    index = _find(state, tag)
    return None if index is None else {**action, "element_index": index}


def _select(state: dict[str, Any], value: str) -> dict[str, Any] | None:
    select, option = _find(state, "select"), _find(state, "option", value)
    if select is None or option is None:
        return None
    return {"action": "select_option", "element_index": select, "option_index": option}


async def _agents(
    browser: cdp_engine.Browser, base: str, n: int, budget_for: Callable[[], Budget], screenshot: bool
) -> tuple[Tally, float]:
    tally = Tally()
    contexts = [await browser.new_context() for _ in range(n)]
    try:
        tabs = [await c.new_tab() for c in contexts]
        budget = budget_for()

        async def agent(i: int) -> None:
            index, token = ElementIndex.of(tabs[i]), new_token()

            async def get_state() -> dict[str, Any]:
                return await index.state(screenshot=screenshot)

            async def act(action: dict[str, Any]) -> dict[str, Any]:
                return await index.act(action, screenshot=screenshot)

            await _protocol_episodes(f"agent{i}", token, base, budget, tally, get_state, act)

        t0 = time.perf_counter()
        await asyncio.gather(*(agent(i) for i in range(n)))
        return tally, time.perf_counter() - t0
    finally:
        for c in contexts:
            with contextlib.suppress(Exception):
                await c.close()


# ----- HTTP clients: the HTTP service, one app per client --------------------------------------------


async def _http_clients(
    browser: cdp_engine.Browser, base: str, n: int, budget_for: Callable[[], Budget], screenshot: bool
) -> tuple[Tally, float]:
    tally = Tally()
    auth_token = secrets.token_urlsafe(16)
    headers = {"Authorization": f"Bearer {auth_token}"}
    shot = "1" if screenshot else "0"
    runners: list[web.AppRunner] = []
    try:
        ports = []
        for _ in range(n):
            runner = web.AppRunner(create_app(browser, token=auth_token), access_log=None)
            await runner.setup()
            runners.append(runner)
            await web.TCPSite(runner, "127.0.0.1", 0).start()
            ports.append(runner.addresses[0][1])
        budget = budget_for()

        async def client(i: int, http: ClientSession) -> None:
            service = f"http://127.0.0.1:{ports[i]}"

            async def answer(method: str, path: str, body: bytes | None = None) -> dict[str, Any] | None:
                async with http.request(method, service + path, data=body, headers=headers) as resp:
                    raw = await resp.read()
                if resp.status == 500:
                    tally.http_500 += 1
                if resp.status != 200:
                    tally.error(f"http{i}", f"{method} {path}: HTTP {resp.status} {raw[:200]!r}")
                    return None
                state: dict[str, Any] = orjson.loads(raw)
                return state

            async def get_state() -> dict[str, Any] | None:
                return await answer("GET", f"/state?screenshot={shot}")

            async def act(action: dict[str, Any]) -> dict[str, Any] | None:
                return await answer("POST", f"/action?screenshot={shot}", orjson.dumps(action))

            await _protocol_episodes(f"http{i}", new_token(), base, budget, tally, get_state, act)

        t0 = time.perf_counter()
        async with ClientSession(timeout=ClientTimeout(total=STEP_TIMEOUT + 5)) as http:
            await asyncio.gather(*(client(i, http) for i in range(n)))
        return tally, time.perf_counter() - t0
    finally:
        for runner in runners:
            with contextlib.suppress(Exception):
                await runner.cleanup()


# ----- MCP sessions: the streamable HTTP server through the SDK client ----------------------------------

REF_RE = r'{role}[^\n]*\[ref=(e\d+)\]'


@asynccontextmanager
async def _mcp_server(
    browser: cdp_engine.Browser, token: str, sessions: int, ownership: bool
) -> AsyncIterator[str]:
    """The MCP streamable HTTP app on a free loopback port, on `browser`; yields its /mcp URL."""
    import uvicorn

    from cdp_engine.mcp_server import BrowserTools, Config, InstanceManager
    from cdp_engine.mcp_server.server import http_app

    config = Config(session_ownership=ownership, max_instances=max(10, sessions))
    config.transport = "streamable-http"  # as serve_http sets it
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    async with InstanceManager(config, browser=browser) as manager:
        server = uvicorn.Server(uvicorn.Config(http_app(BrowserTools(manager), token), log_level="warning"))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            async with asyncio.timeout(10):
                while not server.started:  # noqa: ASYNC110 - uvicorn has no started event
                    await asyncio.sleep(0.01)
            yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
        finally:
            server.should_exit = True
            await asyncio.wait_for(task, 15)
            sock.close()


async def _mcp_sessions(
    browser: cdp_engine.Browser, base: str, n: int, budget_for: Callable[[], Budget], ownership: bool
) -> tuple[Tally, float]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    tally = Tally()
    auth_token = secrets.token_urlsafe(16)
    async with _mcp_server(browser, auth_token, n, ownership) as url:
        budget = budget_for()

        async def session(i: int) -> None:
            name, token = f"mcp{i}", new_token()
            instance = "main" if ownership else name
            async with AsyncExitStack() as stack:
                http = await stack.enter_async_context(
                    create_mcp_http_client(headers={"Authorization": f"Bearer {auth_token}"})
                )

                async def count_500(response: Any) -> None:  # the SDK would report it only as an exception
                    if response.status_code >= 500:
                        tally.http_500 += 1

                http.event_hooks["response"].append(count_500)
                client = await stack.enter_async_context(
                    Client(streamable_http_client(url, http_client=http), read_timeout_seconds=STEP_TIMEOUT, mode="legacy")
                )

                async def call(tool: str, **arguments: Any) -> dict[str, Any] | None:
                    result = await client.call_tool(tool, {"instance": instance, **arguments})
                    envelope: dict[str, Any] = json.loads(result.content[0].text)
                    data = envelope.get("data") or {}
                    tally.check_own(name, token, data.get("url"), data.get("title"), data.get("snapshot"))
                    if envelope.get("status") != "success":
                        tally.error(name, f"{tool}: {envelope.get('error_type')}: {envelope.get('message')}")
                        return None
                    return data

                create = client.call_tool("browser_create_instance", {"name": instance})
                created = await tally.step(name, "create", create, timed=False)
                if created is None or json.loads(created.content[0].text).get("status") != "success":
                    tally.error(name, "browser_create_instance failed")
                    return
                await _mcp_episodes(name, token, base, budget, tally, call)
                destroy = client.call_tool("browser_destroy_instance", {"name": instance})
                await tally.step(name, "destroy", destroy, timed=False)

        t0 = time.perf_counter()
        await asyncio.gather(*(session(i) for i in range(n)))
        return tally, time.perf_counter() - t0


async def _mcp_episodes(
    name: str, token: str, base: str, budget: Budget, tally: Tally, call: Callable[..., Awaitable[dict[str, Any] | None]]
) -> None:
    """The same episode in MCP's vocabulary: navigate, snapshot, type, select, click, wheel, snapshot."""
    done, visit = 0, 0

    def ref(snapshot: str, role: str) -> str | None:
        found = re.search(REF_RE.format(role=role), snapshot)
        return found.group(1) if found else None

    while budget.more(done):
        visit += 1
        nav = await tally.step(name, "navigate", call("browser_navigate", url=f"{base}/c/{token}?visit={visit}"))
        done += 1
        if nav is None or not budget.more(done):
            continue
        if nav.get("title") != f"Load {token}":
            tally.error(name, f"navigate: title {nav.get('title')!r}")
            continue
        snap = await tally.step(name, "snapshot", call("browser_snapshot"))
        done += 1
        if snap is None:
            continue
        yaml = str(snap.get("snapshot", ""))
        refs = {role: ref(yaml, role) for role in ("textbox", "combobox", "button")}
        if f"idle {token}" not in yaml or None in refs.values():
            tally.error(name, f"snapshot: not the expected page: {yaml[:200]!r}")
            continue
        steps: list[tuple[str, dict[str, Any]]] = [
            ("browser_type", {"ref": refs["textbox"], "text": f"name {visit}"}),
            ("browser_select_option", {"ref": refs["combobox"], "value": "blue"}),
            ("browser_click", {"ref": refs["button"]}),
            ("browser_mouse_wheel", {"delta_y": 400}),
        ]
        ok = True
        for tool, args in steps:
            if not budget.more(done):
                ok = False
                break
            ok = await tally.step(name, tool, call(tool, **args)) is not None
            done += 1
            if not ok:
                break
        if ok and budget.more(done):
            after = await tally.step(name, "snapshot", call("browser_snapshot"))
            done += 1
            if after is not None and f"clicked {token} 1" not in str(after.get("snapshot", "")):
                tally.error(name, "snapshot after click: the click's effect is missing")


# ----- the run -----------------------------------------------------------------------------------------


async def load_run(
    agents: Sequence[int] = (1, 2, 4, 8, 16),
    mcp_sessions: int = 8,
    http_clients: int = 8,
    *,
    seconds: float = 10.0,
    steps: int = 400,
    browser: cdp_engine.Browser | None = None,
    screenshot: bool = False,
    mcp_ownership: bool = True,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run every part on one Chromium (`browser`, else one launched here) and return the figures.

    Each agent level, the MCP part and the HTTP part stop after `steps` steps per client or `seconds` of
    driving, whichever comes first (a step in flight finishes, within STEP_TIMEOUT). 0 skips a part.
    `mcp_ownership`: the MCP server's per-session instance ownership (off: its server-level default)."""
    say = log or (lambda _msg: None)
    async with AsyncExitStack() as stack:
        if browser is None:
            browser = await stack.enter_async_context(cdp_engine.launch())
        base = await stack.enter_async_context(serve_pages())

        def budget() -> Budget:
            return Budget(steps, time.perf_counter() + seconds)

        out: dict[str, Any] = {"agents": [], "mcp_sessions": None, "http_clients": None}
        for n in agents:
            tally, took = await _agents(browser, base, n, budget, screenshot)
            out["agents"].append(tally.summary(took, n=n))
            say(f"agents n={n}: {_line(out['agents'][-1])}")
        if mcp_sessions:
            tally, took = await _mcp_sessions(browser, base, mcp_sessions, budget, mcp_ownership)
            out["mcp_sessions"] = tally.summary(took, n=mcp_sessions, session_ownership=mcp_ownership)
            say(f"mcp sessions n={mcp_sessions}: {_line(out['mcp_sessions'])}")
        if http_clients:
            tally, took = await _http_clients(browser, base, http_clients, budget, screenshot)
            out["http_clients"] = tally.summary(took, n=http_clients)
            say(f"http clients n={http_clients}: {_line(out['http_clients'])}")
        out["browser"] = browser.version.get("product", "")
        out["settings"] = {"seconds": seconds, "steps_per_client": steps, "screenshot": screenshot}
        return out


def _line(part: dict[str, Any]) -> str:
    return (
        f"{part['steps']} steps, {part['steps_per_s']}/s, p50 {part['p50_ms']} ms, p95 {part['p95_ms']} ms, "
        f"errors {part['errors']}, hangs {part['hangs']}, 500s {part['http_500']}, cross-talk {part['cross_talk']}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, nargs="*", default=[1, 2, 4, 8, 16])
    parser.add_argument("--mcp", type=int, default=8, help="MCP sessions (0: skip)")
    parser.add_argument("--http", type=int, default=8, help="HTTP clients (0: skip)")
    parser.add_argument("--seconds", type=float, default=10.0, help="driving time per part (per agent level)")
    parser.add_argument("--steps", type=int, default=400, help="steps per client per part")
    parser.add_argument("--screenshot", action="store_true", help="states with screenshots")
    parser.add_argument("--server-level", action="store_true", help="MCP without per-session ownership")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    result = asyncio.run(
        load_run(
            args.agents,
            args.mcp,
            args.http,
            seconds=args.seconds,
            steps=args.steps,
            screenshot=args.screenshot,
            mcp_ownership=not args.server_level,
            log=lambda msg: print(msg, file=sys.stderr, flush=True),
        )
    )
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
