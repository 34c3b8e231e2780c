#!/usr/bin/env python3
"""The action benchmark: an action plus the state an agent reads next, for every system side by side in one run.

    python benchmarks/actions.py                  # every system and case; 60 runs (15 for browser-use, BrowserGym)
    python benchmarks/actions.py --systems engine-pipe playwright-mouse --cases click-static click-fetch
    python benchmarks/actions.py --sections harness          # the harness's reset and step only

Cases (benchmarks/others/action_cases.py): click on a static page with 50 buttons, a click whose handler
renders after a 50 ms timer, a click whose handler fetches for 100 ms, type, select, scroll, navigate. Each
repetition causes something new, and the results say whether each system's next state showed it.
Systems: the raw CDP floor (the calls the action must make, then a bare DOMSnapshot.captureSnapshot) and
cdp-engine over websocket and pipe, screenshot off and on, run by this file as workers; Playwright (mouse
path and locator path, each + aria_snapshot), browser-use (action + browser state) and BrowserGym (env.step),
run from benchmarks/.venv-others. The harness section times BrowserEnv.reset with one and with four
environments and step on MiniWoB-like click-button and enter-text pages.

Writes benchmarks/results/actions-latest.{json,md} (the latest run); progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(HERE / "others"), str(ROOT)]

import action_cases  # noqa: E402
import floor  # noqa: E402
import pages  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402
from action_cases import CASES, Case, CaseRecord, Failed, run_case, shows  # noqa: E402
from common import Watchdog, emit, error_text  # noqa: E402

# system -> (kind, options); kind: floor / engine (this file's workers) or an adapter in others/.
SYSTEMS: dict[str, tuple[str, dict[str, Any]]] = {
    "floor-websocket": ("floor", {"transport": "websocket"}),
    "floor-pipe": ("floor", {"transport": "pipe"}),
    "engine-websocket": ("engine", {"transport": "websocket", "screenshot": False}),
    "engine-pipe": ("engine", {"transport": "pipe", "screenshot": False}),
    "engine-websocket+screenshot": ("engine", {"transport": "websocket", "screenshot": True}),
    "engine-pipe+screenshot": ("engine", {"transport": "pipe", "screenshot": True}),
    "playwright-mouse": ("playwright_actions.py", {"path": "mouse"}),
    "playwright-locator": ("playwright_actions.py", {"path": "locator"}),
    "browser-use": ("browser_use_actions.py", {}),
    "browsergym": ("browsergym_actions.py", {}),
}
SECTIONS = ("actions", "transport", "harness")
SLOW_SYSTEMS = ("browser-use", "browsergym")  # hundreds of ms per action: --slow-reps
LABELS = {
    "floor-websocket": "raw CDP floor (websocket)",
    "floor-pipe": "raw CDP floor (pipe)",
    "engine-websocket": "cdp-engine act, screenshot off (websocket)",
    "engine-pipe": "cdp-engine act, screenshot off (pipe)",
    "engine-websocket+screenshot": "cdp-engine act, screenshot on (websocket)",
    "engine-pipe+screenshot": "cdp-engine act, screenshot on (pipe)",
    "playwright-mouse": "Playwright mouse/keyboard + aria_snapshot",
    "playwright-locator": "Playwright locator + aria_snapshot",
    "browser-use": "browser-use action + browser state",
    "browsergym": "BrowserGym env.step",
}
# What each system's action is, per case kind (for the report).
CALLS = {
    "floor": {
        "click": "Input.dispatchMouseEvent press + release sent together (click-fetch: then Network.loadingFinished)",
        "type": "Runtime.evaluate(focus + select), then Input.insertText",
        "select": "Runtime.evaluate(set value, fire input + change)",
        "scroll": "Runtime.evaluate(scrollBy, then await one animation frame: scroll events fire with it)",
        "navigate": "Page.navigate, then Page.loadEventFired",
    },
    "playwright-mouse": {
        "click": "page.mouse.click(x, y)",
        "type": "keyboard.press(Control+A) + keyboard.insert_text (field focused beforehand)",
        "select": "page.select_option(selector)",
        "scroll": "page.mouse.wheel(0, 200)",
        "navigate": "page.goto(url)",
    },
    "playwright-locator": {
        "click": "locator.click()",
        "type": "locator.fill(text)",
        "select": "locator.select_option(value)",
        "scroll": "page.evaluate(scrollBy)",
        "navigate": "page.goto(url)",
    },
}


# =============================================================================================================
# Workers (this interpreter): the floor, the engine, the harness
# =============================================================================================================


def _element(state: dict[str, Any], tag: str, name: str) -> int:
    """The index of the element with this tag whose text or accessible name is `name`."""
    for key, d in state["element_index"].items():
        if d["tag"] == tag and name in (d.get("text_content"), d.get("aria-label")):
            return int(key)
    raise LookupError(f"no <{tag}> named {name!r} in the element_index")


def engine_action(case: Case, state: dict[str, Any], k: int, base: str) -> dict[str, Any]:
    """The protocol action for the k-th repetition of a case, with indices from `state`."""
    if case.kind == "click":
        return {"action": "click_element", "element_index": _element(state, case.tag, case.name)}
    if case.kind == "type":
        index = _element(state, case.tag, case.name)
        return {"action": "input_text", "element_index": index, "text": case.text(k), "overwrite": True}
    if case.kind == "select":
        index = _element(state, case.tag, case.name)
        option = _element(state, "option", case.option(k))
        return {"action": "select_option", "element_index": index, "option_index": option}
    if case.kind == "scroll":
        return {"action": "scroll", "direction": "down", "pixels": action_cases.SCROLL_PX}
    return {"action": "navigate", "url": case.url(base, k)}


def _median(values: list[float]) -> float | None:
    return report.median(values, 3)


async def engine_worker(ns: argparse.Namespace) -> None:
    """cdp-engine: act() returning the next state (screenshot off or on), per case, in one Chromium."""
    import cdp_engine

    wd = Watchdog(ns.timeout)
    name = f"engine-{ns.transport}" + ("+screenshot" if ns.screenshot else "")
    emit("system", name=name, version=cdp_engine.__version__)
    async with cdp_engine.launch(transport=ns.transport) as browser:
        tab = await browser.new_tab()
        for case in (action_cases.by_id()[c] for c in ns.cases):
            await _engine_case(tab, case, CaseRecord(name, case.id), ns, wd)
    emit("done")


async def _engine_case(tab: Any, case: Case, rec: CaseRecord, ns: argparse.Namespace, wd: Watchdog) -> None:
    state: dict[str, Any] = {}

    async def setup() -> None:
        nonlocal state
        await tab.goto(case.url(ns.base), wait_until="load")
        state = await tab.state(screenshot=False)

    async def step(k: int) -> tuple[float, bool]:
        nonlocal state
        action = engine_action(case, state, k, ns.base)
        t0 = time.perf_counter()
        result = await tab.act(action, screenshot=ns.screenshot)
        ms = (time.perf_counter() - t0) * 1000
        if "error" in result:
            raise Failed(f"{result['error'].get('code')}: {result['error'].get('message')}")
        state = result
        rec.timings(tab.last_timings)
        return ms, shows(result["page_content"], case.expected(k))

    await run_case(rec, ns, wd, setup, step)


async def floor_worker(ns: argparse.Namespace) -> None:
    """The raw CDP calls each action must make, then a bare snapshot: the floor under every system."""
    wd = Watchdog(ns.timeout)
    name = f"floor-{ns.transport}"
    emit("system", name=name, version=None)
    browser = await floor.launch(ns.transport)
    try:
        _, session = await floor.new_page_session(browser)
        await browser.conn.send("Runtime.enable", session=session)
        for case in (action_cases.by_id()[c] for c in ns.cases):
            await _floor_case(browser, session, case, CaseRecord(name, case.id), ns, wd)
    finally:
        await browser.close()
    emit("done")


async def _floor_case(
    browser: floor.Browser, session: str, case: Case, rec: CaseRecord, ns: argparse.Namespace, wd: Watchdog
) -> None:
    conn = browser.conn
    point: list[float] = []

    async def setup() -> None:
        nonlocal point
        await floor.navigate(browser, session, case.url(ns.base))
        if case.id == "click-fetch":
            await conn.send("Network.enable", session=session)
        if case.kind == "click":
            js = (
                f"(() => {{ const r = document.querySelector({case.selector!r}).getBoundingClientRect();"
                " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
            )
            res = await conn.send("Runtime.evaluate", {"expression": js, "returnByValue": True}, session)
            point = res["result"]["value"]

    async def step(k: int) -> tuple[float, bool]:
        t0 = time.perf_counter()
        await _floor_action(browser, session, case, k, ns.base, point)
        snap, _ = await floor.capture_snapshot(conn, session, [], False, False)  # a bare snapshot
        ms = (time.perf_counter() - t0) * 1000
        return ms, shows("\n".join(snap["strings"]), case.expected(k))

    await run_case(rec, ns, wd, setup, step)


async def _floor_action(
    browser: floor.Browser, session: str, case: Case, k: int, base: str, point: list[float]
) -> None:
    conn = browser.conn

    def send(method: str, params: dict[str, Any]) -> Any:
        return conn.send(method, params, session)

    if case.kind == "click":
        x, y = point
        mouse = {"x": x, "y": y, "button": "left", "clickCount": 1}
        done = conn.wait_event("Network.loadingFinished", session) if case.id == "click-fetch" else None
        await asyncio.gather(
            send("Input.dispatchMouseEvent", {"type": "mousePressed", **mouse}),
            send("Input.dispatchMouseEvent", {"type": "mouseReleased", **mouse}),
        )
        if done is not None:
            await asyncio.wait_for(done, 10)
    elif case.kind == "type":
        focus = f"(() => {{ const e = document.querySelector({case.selector!r}); e.focus(); e.select(); }})()"
        # One after the other: input travels through the browser process, script straight to the renderer,
        # so sent together the text may arrive before the focus.
        await send("Runtime.evaluate", {"expression": focus})
        await send("Input.insertText", {"text": case.text(k)})
    elif case.kind == "select":
        js = (
            f"(() => {{ const s = document.querySelector({case.selector!r}); s.value = {case.option(k)!r};"
            " s.dispatchEvent(new Event('input', {bubbles: true}));"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )
        await send("Runtime.evaluate", {"expression": js})
    elif case.kind == "scroll":
        js = f"new Promise(r => {{ scrollBy(0, {action_cases.SCROLL_PX}); requestAnimationFrame(() => r(0)); }})"
        await send("Runtime.evaluate", {"expression": js, "awaitPromise": True})
    else:
        loaded = conn.wait_event("Page.loadEventFired", session)
        await send("Page.navigate", {"url": case.url(base, k)})
        await asyncio.wait_for(loaded, 30)


EPISODE_STEPS = 3  # clicks per episode between two resets (an agent acting; the spare is made meanwhile)


async def harness_worker(ns: argparse.Namespace) -> None:
    """BrowserEnv: reset with one and with four environments (in episodes of EPISODE_STEPS clicks, and back to
    back), against the raw floor of a reset; step on MiniWoB-like click-button and enter-text pages."""
    import cdp_engine
    from cdp_engine.harness import BrowserEnv

    wd = Watchdog(ns.timeout)
    emit("system", name="harness", version=cdp_engine.__version__)
    click_url = ns.base + "/miniwob/click-button.html"
    enter_url = ns.base + "/miniwob/enter-text.html"
    options = {} if ns.transport == "default" else {"transport": ns.transport}
    await _reset_floor(click_url, CaseRecord("harness", "reset floor (raw CDP)"), ns, wd)
    async with cdp_engine.launch(**options) as browser:
        emit("facts", transport=browser_transport(browser))

        async def episodes(env: BrowserEnv, rec: CaseRecord, n: int, steps: int) -> None:
            for i in range(ns.warmup + n):
                warm = i < ns.warmup
                t0 = time.perf_counter()
                try:
                    obs = await env.reset(click_url)
                    ms = (time.perf_counter() - t0) * 1000
                    rec.timings(env.last_info["timings"], warm)
                    for _ in range(steps):
                        target = obs["page_content"].split('"', 2)[1]
                        obs, _info = await env.step(
                            {"action": "click_element", "element_index": _element(obs, "button", target)}
                        )
                except Exception as exc:
                    rec.fail(error_text(exc))
                    continue
                rec.add(ms, True, warm)

        for case, envs, steps in (
            ("reset, 1 env", 1, EPISODE_STEPS),
            ("reset, 4 envs at once", 4, EPISODE_STEPS),
            ("reset, 1 env, back to back", 1, 0),
        ):
            rec = CaseRecord("harness", case)
            rec.extra.update(environments=envs, steps_between=steps)
            with wd.guard(rec.case, "reset"):
                group = [BrowserEnv(browser) for _ in range(envs)]
                try:  # several environments reset at once, each ns.reps / envs times
                    await asyncio.gather(
                        *(episodes(env, rec, max(1, ns.reps // envs), steps) for env in group)
                    )
                finally:
                    for env in group:
                        await env.close()
            rec.done()

        for case_id, url in (("step, click-button", click_url), ("step, enter-text", enter_url)):
            async with BrowserEnv(browser) as env:
                await _harness_steps(env, url, CaseRecord("harness", case_id), ns, wd)
    emit("done")


async def _reset_floor(url: str, rec: CaseRecord, ns: argparse.Namespace, wd: Watchdog) -> None:
    """What a reset cannot do without: in a fresh browser context whose blank tab was made beforehand (as the
    pool does), navigate to the page, wait for its load event, take a bare snapshot. Raw CDP, the pipe."""
    browser = await floor.launch("pipe")
    conn, previous = browser.conn, None
    try:
        for warm in rec.runs(ns.warmup, ns.reps):
            with wd.guard(rec.case, "reset"):
                ctx = (await conn.send("Target.createBrowserContext", {}))["browserContextId"]
                target = await conn.send(
                    "Target.createTarget", {"url": "about:blank", "browserContextId": ctx}
                )
                attached = await conn.send(
                    "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
                )
                session = attached["sessionId"]
                await conn.send("Page.enable", session=session)
                await asyncio.sleep(0.3)  # the time an episode gives the spare
                loaded = conn.wait_event("Page.loadEventFired", session)
                t0 = time.perf_counter()
                await conn.send("Page.navigate", {"url": url}, session)
                await asyncio.wait_for(loaded, 30)
                snap, _ = await floor.capture_snapshot(conn, session, [], False, False)
                ms = (time.perf_counter() - t0) * 1000
                if previous is not None:  # the last episode's context, once this one's page is up
                    await conn.send("Target.disposeBrowserContext", {"browserContextId": previous})
            rec.add(ms, shows("\n".join(snap["strings"]), "Click on the"), warm)
            previous = ctx
    except Exception as exc:
        rec.fail(error_text(exc))
    finally:
        await browser.close()
    rec.done()


async def _harness_steps(env: Any, url: str, rec: CaseRecord, ns: argparse.Namespace, wd: Watchdog) -> None:
    """Steps on a MiniWoB-like page: click the button the query names, or type the word it names."""
    obs: dict[str, Any] = {}

    async def setup() -> None:
        nonlocal obs
        obs = await env.reset(url)

    async def step(k: int) -> tuple[float, bool]:
        nonlocal obs
        target = obs["page_content"].split('"', 2)[1]  # the word the query asks for
        if rec.case == "step, click-button":
            index, expected = _element(obs, "button", target), f"episode {k} reward 1"
            action = {"action": "click_element", "element_index": index}
        else:
            index, expected = _element(obs, "input", "text"), f'value="{target}"'
            action = {"action": "input_text", "element_index": index, "text": target, "overwrite": True}
        t0 = time.perf_counter()
        obs, info = await env.step(action)
        ms = (time.perf_counter() - t0) * 1000
        if info["error"]:
            raise Failed(f"{info['error']['code']}: {info['error']['message']}")
        rec.timings(info["timings"])
        shown = shows(obs["page_content"], expected)
        if rec.case == "step, enter-text":  # submit, untimed: the next problem's field is empty
            submit = _element(obs, "button", "Submit")
            obs, _ = await env.step({"action": "click_element", "element_index": submit})
        return ms, shown

    await run_case(rec, ns, wd, setup, step)


async def transport_worker(ns: argparse.Namespace) -> None:
    """Pipe against websocket, interleaved: both engines (and both raw floors) run at once and take turns
    in rounds, so that a busy machine weighs on both alike. Per transport: one CDP round trip
    (Runtime.evaluate of 1: wall time and this process's CPU per message), a fresh state() of the
    50-button page, act(click_element) + next state (screenshot off), and the raw floor's round trip
    and press + release + bare snapshot."""
    import cdp_engine

    wd = Watchdog(ns.timeout)
    emit("system", name="transport", version=cdp_engine.__version__)
    url = ns.base + "/act/buttons.html"
    transports = ("websocket", "pipe")
    recs: dict[tuple[str, str], CaseRecord] = {}
    cpu: dict[str, list[float]] = {t: [] for t in transports}

    def rec(system: str, case: str) -> CaseRecord:
        return recs.setdefault((system, case), CaseRecord(system, case))

    engines = {t: await cdp_engine.launch(transport=t) for t in transports}
    floors = {t: await floor.launch(t) for t in transports}
    try:
        tabs, sessions, points = {}, {}, {}
        for t in transports:
            tabs[t] = await engines[t].new_tab(url)
            _, sessions[t] = await floor.new_page_session(floors[t])
            await floor.navigate(floors[t], sessions[t], url)
            js = (
                "(() => { const r = document.querySelector('#count').getBoundingClientRect();"
                " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
            )
            res = await floors[t].conn.send(
                "Runtime.evaluate", {"expression": js, "returnByValue": True}, sessions[t]
            )
            points[t] = res["result"]["value"]
        rounds, per_round = 6, max(1, ns.reps // 6)
        for r in range(rounds + 1):  # round 0 warms up
            warm = r == 0
            for t in transports if r % 2 else reversed(transports):
                tab, conn, session = tabs[t], floors[t].conn, sessions[t]
                with wd.guard("transport", t):
                    for _ in range(per_round):
                        c0, t0 = time.process_time(), time.perf_counter()
                        await tab.session.send("Runtime.evaluate", {"expression": "1"})
                        rec(f"engine-{t}", "round trip").add((time.perf_counter() - t0) * 1000, True, warm)
                        if not warm:
                            cpu[t].append((time.process_time() - c0) * 1000)
                    state = await tab.state(screenshot=False)
                    for _ in range(per_round):
                        tab.element_index.capturer.invalidate()
                        t0 = time.perf_counter()
                        state = await tab.state(screenshot=False)
                        rec(f"engine-{t}", "state").add((time.perf_counter() - t0) * 1000, True, warm)
                    for _ in range(per_round):
                        action = {
                            "action": "click_element",
                            "element_index": _element(state, "button", "Count"),
                        }
                        t0 = time.perf_counter()
                        state = await tab.act(action, screenshot=False)
                        ms = (time.perf_counter() - t0) * 1000
                        r_act = rec(f"engine-{t}", "act click + state")
                        if "error" in state:
                            r_act.fail(state["error"]["message"])
                            state = await tab.state(screenshot=False)
                            continue
                        r_act.add(ms, True, warm)
                        r_act.timings(tab.last_timings, warm)
                    for _ in range(per_round):
                        t0 = time.perf_counter()
                        await floor.evaluate_rtt(conn, session)
                        rec(f"floor-{t}", "round trip").add((time.perf_counter() - t0) * 1000, True, warm)
                    mouse = {"x": points[t][0], "y": points[t][1], "button": "left", "clickCount": 1}
                    for _ in range(per_round):
                        t0 = time.perf_counter()
                        await asyncio.gather(
                            conn.send("Input.dispatchMouseEvent", {"type": "mousePressed", **mouse}, session),
                            conn.send(
                                "Input.dispatchMouseEvent", {"type": "mouseReleased", **mouse}, session
                            ),
                        )
                        await floor.capture_snapshot(conn, session, [], False, False)
                        rec(f"floor-{t}", "click + snapshot").add(
                            (time.perf_counter() - t0) * 1000, True, warm
                        )
        for t in transports:
            rec(f"engine-{t}", "round trip").extra["cpu_ms_per_message_median"] = _median(cpu[t])
    finally:
        for t in transports:
            await engines[t].close()
            await floors[t].close()
    for r in recs.values():
        r.done()
    emit("done")


def browser_transport(browser: Any) -> str:
    """Which transport a launched Browser speaks (for the results)."""
    process = getattr(browser, "process", None)
    kind = type(getattr(process, "transport", None)).__name__
    return {"PipeTransport": "pipe", "WebSocketTransport": "websocket"}.get(kind, kind)


def worker_main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", choices=["engine", "floor", "harness", "transport"], required=True)
    ap.add_argument("--transport", default="websocket")
    ap.add_argument("--screenshot", action="store_true")
    ap.add_argument("base")
    ap.add_argument("--cases", nargs="+", default=[c.id for c in CASES])
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0)
    ns = ap.parse_args(argv)
    workers = {
        "engine": engine_worker,
        "floor": floor_worker,
        "harness": harness_worker,
        "transport": transport_worker,
    }
    work = workers[ns.worker]
    try:
        asyncio.run(work(ns))
    except Exception as exc:  # import or launch failure: the runner reports it and goes on
        emit("error", error=error_text(exc))


# =============================================================================================================
# The runner
# =============================================================================================================


def p95(samples: list[float]) -> float | None:
    return report.percentile(samples, 0.95)


def summarize(rec: dict[str, Any]) -> dict[str, Any]:
    """p50, p95, count, how many states showed the effect, failures, from one worker's case record."""
    samples = rec.get("samples_ms") or []
    shown = rec.get("shows") or []
    return {
        "system": rec["system"],
        "case": rec["case"],
        "n": len(samples),
        "p50_ms": _median(samples),
        "p95_ms": None if not samples else round(p95(samples) or 0.0, 3),
        "min_ms": round(min(samples), 3) if samples else None,
        "shows": sum(1 for s in shown if s),
        "failures": len(rec.get("failures") or []),
        "first_failure": (rec.get("failures") or [None])[0],
        "first_ms": rec.get("first_ms"),
        "extra": rec.get("extra") or {},
    }


def worker_command(system: str, ns: argparse.Namespace, base: str) -> list[str]:
    kind, opts = SYSTEMS[system]
    reps = ns.slow_reps if system in SLOW_SYSTEMS else ns.reps
    common = [base, "--cases", *ns.cases, "--reps", str(reps), "--timeout", str(ns.timeout)]
    if kind in ("engine", "floor"):
        cmd = [sys.executable, str(HERE / "actions.py"), "--worker", kind, "--transport", opts["transport"]]
        return cmd + (["--screenshot"] if opts.get("screenshot") else []) + common
    extra = ["--path", opts["path"]] if "path" in opts else []
    return [str(run.VENV_PY), str(HERE / "others" / kind), *common, *extra]


def absorb(
    system: str, events: list[dict[str, Any]], tail: str, code: int | None, killed: bool
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A worker's case records and what the system reported about itself (version, errors)."""
    records, info = [], {"status": "ok", "errors": []}
    done = False
    for ev in events:
        kind = ev.get("event")
        if kind == "case":
            records.append(ev)
        elif kind == "system":
            info.update({k: v for k, v in ev.items() if k not in ("event", "name")})
        elif kind == "facts":
            info.update({k: v for k, v in ev.items() if k != "event"})
        elif kind in ("error", "timeout"):
            info["errors"].append(ev.get("error") or f"timeout in {ev.get('url')} {ev.get('metric')}")
        elif kind == "done":
            done = True
    if killed:
        info["errors"].append("worker exceeded its deadline")
    elif not done:
        last = tail.strip().splitlines()[-1] if tail.strip() else ""
        info["errors"].append(f"worker exited with code {code} before finishing: {last[:300]}")
    if info["errors"] and not records:
        info["status"] = "error"
    return records, info


async def main_async(ns: argparse.Namespace) -> int:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    started = time.time()
    env = run.worker_env()
    prog = run.Progress(
        len(ns.systems) * ("actions" in ns.sections)
        + ("transport" in ns.sections)
        + ("harness" in ns.sections)
    )
    meta: dict[str, Any] = {
        "stamp": stamp,
        "reps": ns.reps,
        "slow_reps": ns.slow_reps,
        "slow_systems": list(SLOW_SYSTEMS),
        "warmup": 1,
        "cases": ns.cases,
        "systems": ns.systems,
        "timeout_s": ns.timeout,
        "machine": run.machine_info(),
        "versions": run.versions(),
    }
    rows: list[dict[str, Any]] = []
    raw: list[dict[str, Any]] = []
    systems_info: dict[str, Any] = {}
    async with pages.serve_pages() as served:
        base = served.main
        if "actions" in ns.sections:
            prog.say(
                f"actions: {', '.join(ns.cases)} on {', '.join(ns.systems)}; {ns.reps} runs ({ns.slow_reps} slow)"
            )
            for system in ns.systems:
                prog.start("actions", system)
                t0 = time.monotonic()
                if SYSTEMS[system][0].endswith(".py") and not run.VENV_PY.exists():
                    systems_info[system] = {
                        "status": "error",
                        "errors": [f"{run.VENV_PY} missing: run setup.sh"],
                    }
                    prog.finish("actions", system, 0, "skipped: .venv-others missing")
                    continue
                deadline = ns.timeout * (len(ns.cases) + 2) + 60
                ev, tail, code, killed = await run.run_worker(worker_command(system, ns, base), deadline, env)
                records, info = absorb(system, ev, tail, code, killed)
                systems_info[system] = info
                raw += records
                rows += [{**summarize(r), "section": "actions"} for r in records]
                note = " · ".join(
                    f"{r['case']} {r['p50_ms']:.1f} ms {r['shows']}/{r['n']}"
                    if r["p50_ms"]
                    else f"{r['case']} failed"
                    for r in (summarize(x) for x in records[:3])
                )
                prog.finish("actions", system, time.monotonic() - t0, note or "; ".join(info["errors"])[:200])
        for section in ("transport", "harness"):
            if section not in ns.sections:
                continue
            prog.start(section, "engine")
            t0 = time.monotonic()
            transport = ns.harness_transport if section == "harness" else "default"
            cmd = [
                sys.executable, str(HERE / "actions.py"), "--worker", section, "--transport", transport,
                base, "--reps", str(ns.reps), "--timeout", str(ns.timeout),
            ]  # fmt: skip
            ev, tail, code, killed = await run.run_worker(cmd, ns.timeout * 6 + 60, env)
            records, info = absorb(section, ev, tail, code, killed)
            systems_info[section] = info
            raw += records
            summary = [{**summarize(r), "section": section} for r in records]
            rows += summary
            notes = " · ".join(f"{r['system']} {r['case']} {_ms(r['p50_ms'])} ms" for r in summary)
            prog.finish(section, "engine", time.monotonic() - t0, notes[:300])
    meta["duration_s"] = round(time.time() - started, 1)
    meta["load_avg_1min"] = {"max": max(prog.loads, default=None), "mean": _median(prog.loads)}
    results = {"meta": meta, "systems": systems_info, "summary": rows, "records": raw}
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=1, default=str)
    md = markdown(results)
    (out / "actions-latest.json").write_text(text)
    (out / "actions-latest.md").write_text(md)
    print(md)
    prog.say(f"done in {meta['duration_s']:.0f} s: {out / 'actions-latest.json'}")
    return 0


# ----- the report ----------------------------------------------------------------------------------------------


def _ms(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "–"
    if not r["n"]:
        return f"failed: {(r['first_failure'] or 'no samples')[:50]}"
    return f"{_ms(r['p50_ms'])} / {_ms(r['p95_ms'])}" + (f" ⚠{r['failures']} failed" if r["failures"] else "")


def markdown(results: dict[str, Any]) -> str:
    """Tables a person reads: each case per system, the transports side by side, the harness."""
    meta, everything = results["meta"], results["summary"]
    rows = [r for r in everything if r.get("section", "actions") == "actions"]
    look = {(r["system"], r["case"]): r for r in rows}
    machine = meta["machine"]
    chromium = meta["versions"].get("chromium_binary")
    out = [
        f"# Action benchmark {meta['stamp']}",
        "",
        f"Machine: {machine['cpu']}, {machine['cores']} cores; {chromium}. One Chromium per system, all "
        f"in one run. Each cell: p50 / p95 in ms of the action plus the next state, over {meta['reps']} timed "
        f"runs after one warm-up ({meta['slow_reps']} for {', '.join(meta['slow_systems'])}). A call that "
        "failed is counted as a failure, never timed.",
        "",
    ]
    load = meta.get("load_avg_1min") or {}
    if load.get("max") and machine.get("cores") and load["max"] > machine["cores"]:
        out += [
            f"⚠ The machine was busy: 1-minute load average up to {load['max']} on {machine['cores']} cores.",
            "",
        ]
    cases = [c for c in CASES if c.id in meta["cases"]]
    systems = [s for s in meta["systems"] if any((s, c.id) in look for c in cases)]
    if systems:

        def shown(r: dict[str, Any] | None) -> str:
            return "–" if r is None or not r["n"] else f"{r['shows']}/{r['n']}"

        def vs_floor(system: str, case: str) -> str:
            ref = look.get(("floor-pipe" if "pipe" in system else "floor-websocket", case))
            r = look.get((system, case))
            if not (r and ref and r["p50_ms"] and ref["p50_ms"]):
                return "–"
            return f"{r['p50_ms'] / ref['p50_ms']:.1f}×"

        ids = [c.id for c in cases]
        out += ["## Action + next state: p50 / p95 ms", ""]
        out += _grid(systems, ids, lambda s, c: _cell(look.get((s, c))))
        out += ["", "Did the next state show what the action caused (states that did / timed runs):", ""]
        out += _grid(systems, ids, lambda s, c: shown(look.get((s, c))))
        out += [
            "",
            "p50 over the raw CDP floor's p50 on the same transport (websocket for the other systems):",
            "",
        ]
        out += _grid([s for s in systems if not s.startswith("floor")], ids, vs_floor)
        out += _transport_table(look, cases)
        out += ["", "Cases:", ""]
        out += [
            f"- `{c.id}`: {c.what}; after the k-th time the next state must show “{c.pattern()}”."
            for c in cases
        ]
        out += ["", "What each system's action is:", ""]
        for s, calls in CALLS.items():
            out.append(f"- {LABELS.get(s, s)}: " + "; ".join(f"{k}: {v}" for k, v in calls.items()) + ".")
        out += [
            "- cdp-engine: `tab.act({...}, screenshot=...)`: click_element, input_text (overwrite), select_option, "
            "scroll (200 px), navigate; the returned state is the next state.",
            "- browser-use: `Tools.registry.execute_action` click / input / select_dropdown / scroll (1/3 page) / "
            "navigate, then `get_browser_state_summary(include_screenshot=False)` + `llm_representation()`.",
            "- BrowserGym: `BrowserEnv.step` with click / fill / select_option / scroll / goto (its default "
            "pre_observation_delay of 0.5 s, a screenshot and the AX tree in every observation) + "
            "`flatten_axtree_to_str`.",
            "- raw CDP floor: the calls above, then a bare `DOMSnapshot.captureSnapshot` (no styles).",
        ]
    out += _transport_section([r for r in everything if r.get("section") == "transport"])
    harness = [r for r in everything if r.get("section") == "harness"]
    if harness:
        info = results["systems"].get("harness", {})
        out += [
            "",
            f"## Harness (BrowserEnv, transport {info.get('transport', '?')})",
            "",
            "| measurement | p50 ms | p95 ms | n | phases (p50 ms) |",
            "|---|---:|---:|---:|---|",
        ]
        for r in harness:
            phases = r["extra"].get("phases_median_ms") or {}
            ph = ", ".join(f"{k} {_ms(v)}" for k, v in phases.items() if v is not None and k != "total_ms")
            fail = f" ⚠{r['failures']} failed: {r['first_failure']}" if r["failures"] else ""
            out.append(f"| {r['case']} | {_ms(r['p50_ms'])} | {_ms(r['p95_ms'])} | {r['n']}{fail} | {ph} |")
    errors = {s: i["errors"] for s, i in results["systems"].items() if i.get("errors")}
    if errors:
        out += ["", "Errors:", ""] + [f"- {s}: {'; '.join(e)[:400]}" for s, e in errors.items()]
    out += ["", f"Run took {meta['duration_s']:.0f} s. Raw samples: actions-latest.json (run {meta['stamp']})."]
    return "\n".join(out) + "\n"


def _grid(systems: list[str], cases: list[str], cell: Any) -> list[str]:
    """A table: a row per system, a column per case, cell(system, case) in each."""
    out = ["| system | " + " | ".join(cases) + " |", "|---|" + "---:|" * len(cases)]
    out += [f"| {LABELS.get(s, s)} | " + " | ".join(cell(s, c) for c in cases) + " |" for s in systems]
    return out


def _transport_section(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = [
        "",
        "## Pipe against websocket, interleaved (cdp-engine and the raw floor, one Chromium each, taking turns)",
        "",
        "| measurement | websocket p50 / p95 ms | pipe p50 / p95 ms | pipe / websocket (p50) |",
        "|---|---:|---:|---:|",
    ]
    look = {(r["system"], r["case"]): r for r in rows}
    for who in ("engine", "floor"):
        for case in dict.fromkeys(r["case"] for r in rows if r["system"].startswith(who)):
            ws, pipe = look.get((f"{who}-websocket", case)), look.get((f"{who}-pipe", case))
            ratio = (
                f"{pipe['p50_ms'] / ws['p50_ms']:.2f}"
                if ws and pipe and ws["p50_ms"] and pipe["p50_ms"]
                else "–"
            )
            out.append(f"| {who} {case} | {_cell(ws)} | {_cell(pipe)} | {ratio} |")
    cpu = {
        t: (look.get((f"engine-{t}", "round trip")) or {}).get("extra", {}).get("cpu_ms_per_message_median")
        for t in ("websocket", "pipe")
    }
    if all(cpu.values()):
        out += [
            "",
            f"Python CPU per round trip (engine, median): websocket {cpu['websocket'] * 1000:.0f} µs, "
            f"pipe {cpu['pipe'] * 1000:.0f} µs.",
        ]
    return out


def _transport_table(look: dict[tuple[str, str], dict[str, Any]], cases: list[Case]) -> list[str]:
    pairs = [("floor-websocket", "floor-pipe"), ("engine-websocket", "engine-pipe")]
    pairs += [("engine-websocket+screenshot", "engine-pipe+screenshot")]
    pairs = [p for p in pairs if any((p[0], c.id) in look and (p[1], c.id) in look for c in cases)]
    if not pairs:
        return []
    out = ["", "## Pipe against websocket, per case", ""]
    out += ["p50 ms in the runs above (one after the other), websocket → pipe (ratio pipe / websocket):", ""]
    out += ["| case | " + " | ".join(f"{a} → pipe" for a, _ in pairs) + " |", "|---|" + "---:|" * len(pairs)]
    for c in cases:
        cells = []
        for a, b in pairs:
            ra, rb = look.get((a, c.id)), look.get((b, c.id))
            if ra and rb and ra["p50_ms"] and rb["p50_ms"]:
                cells.append(f"{_ms(ra['p50_ms'])} → {_ms(rb['p50_ms'])} ({rb['p50_ms'] / ra['p50_ms']:.2f})")
            else:
                cells.append("–")
        out.append(f"| {c.id} | " + " | ".join(cells) + " |")
    return out


def main() -> int:
    if "--worker" in sys.argv[1:]:
        worker_main(sys.argv[1:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS))
    ap.add_argument("--cases", nargs="+", choices=[c.id for c in CASES], default=[c.id for c in CASES])
    ap.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--reps", type=int, default=60, help="timed runs per case after one warm-up (default 60)")
    ap.add_argument(
        "--slow-reps", type=int, default=15, help=f"timed runs for {', '.join(SLOW_SYSTEMS)} (default 15)"
    )
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds for one case (default 180)")
    ap.add_argument(
        "--harness-transport",
        default="default",
        help="transport of the harness's browser (default: launch()'s)",
    )
    ap.add_argument("--out", default=str(HERE / "results"), help="results folder")
    ns = ap.parse_args()
    if ns.reps < 1 or ns.slow_reps < 1:
        ap.error("--reps and --slow-reps must be at least 1")
    return asyncio.run(main_async(ns))


if __name__ == "__main__":
    sys.exit(main())
