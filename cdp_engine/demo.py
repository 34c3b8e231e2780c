"""The demo: an agent loop against a small embedded site, served from 127.0.0.1, no network needed.

A scripted policy (standing in for a model) reads each state, finds elements by label in the
element index (never by remembered numbers), guards against repeating an action on an unchanged
state, and acts until it can call finish_task.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import orjson
from aiohttp import web

from .index.actions import IdempotencyGuard, find_element
from .index.agent_tab import open_browser
from .index.element_index import ElementIndex

LOGIN = """<!doctype html><html><head><title>Acme login</title></head><body>
<h1>Acme Console</h1>
<form method="post" action="/login">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" placeholder="Enter your email" aria-label="Email Address">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" placeholder="Enter your password">
  <button>Sign In</button>
</form></body></html>"""

DASHBOARD = """<!doctype html><html><head><title>Dashboard</title></head><body>
<h1>Dashboard</h1><p>Signed in as {user}.</p>
<table><tr><th>Order</th><th>Status</th></tr>
<tr><td>1001</td><td>shipped</td></tr><tr><td>1002</td><td>pending</td></tr></table>
<label for="region">Region</label>
<select id="region" name="region"><option value="eu">Europe</option><option value="us">United States</option>
<option value="apac">Asia-Pacific</option></select>
<p id="chosen">Region: eu</p>
<script>document.getElementById('region').addEventListener('change', e =>
  document.getElementById('chosen').textContent = 'Region: ' + e.target.value);</script>
</body></html>"""


async def _site() -> tuple[web.AppRunner, str]:
    async def login(request: web.Request) -> web.Response:
        if request.method == "POST":
            form = await request.post()
            raise web.HTTPFound(f"/dashboard?user={form.get('email', '')}")
        return web.Response(text=LOGIN, content_type="text/html")

    async def dashboard(request: web.Request) -> web.Response:
        user = request.query.get("user", "").replace("<", "&lt;")
        return web.Response(text=DASHBOARD.format(user=user), content_type="text/html")

    app = web.Application()
    app.router.add_route("*", "/", login)
    app.router.add_route("*", "/login", login)
    app.router.add_get("/dashboard", dashboard)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}/"


def _policy(state: dict[str, Any]) -> dict[str, Any]:
    """Stands in for the model: decide the next action from the element index alone."""
    index = state["element_index"]

    def first(*, aria_label: str | None = None, text: str | None = None, placeholder: str | None = None) -> int | None:
        found = find_element(index, aria_label=aria_label, text=text, placeholder=placeholder)
        return found[0] if found else None

    if "Dashboard" in state["page_content"]:
        region = first(aria_label="Region") or next(
            (int(k) for k, v in index.items() if v["tag"] == "select"), None
        )
        target = next((int(k) for k, v in index.items() if v["tag"] == "option" and v["attributes"]["value"] == "us"), None)
        if region and target and index[str(region)]["attributes"]["value"] != "us":
            return {"action": "select_option", "element_index": region, "option_index": target}
        return {"action": "finish_task", "message": "Signed in and set the region to United States."}
    email, password = first(aria_label="Email Address"), first(placeholder="Enter your password")
    if email and index[str(email)]["attributes"]["value"] != "agent@example.com":
        return {"action": "input_text", "element_index": email, "text": "agent@example.com", "overwrite": True}
    if password and not index[str(password)]["attributes"]["value"]:
        return {"action": "input_text", "element_index": password, "text": "hunter2", "overwrite": True}
    sign_in = first(text="Sign In")
    if sign_in:
        return {"action": "click_element", "element_index": sign_in}
    return {"action": "fail_task", "message": "No sign-in button on the page."}


async def run_demo(
    *, headless: bool = True, out: Any = sys.stdout, launch_options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run the agent loop end to end and print each step with its timings; returns the final state.

    `launch_options` go to open_browser() (the command line's executable, viewport, transport; or cdp_url)."""
    runner, url = await _site()
    guard = IdempotencyGuard()
    try:
        t0 = time.perf_counter()
        options = dict(launch_options or {})
        if "cdp_url" not in options:  # attached, the browser keeps its own mode
            options["headless"] = headless
        async with open_browser(**options) as browser:
            print(f"launched Chromium {browser.version.get('product', '')} in {(time.perf_counter() - t0) * 1000:.0f} ms", file=out)
            tab = await browser.new_tab()
            state = await ElementIndex.of(tab).act({"action": "navigate", "url": url}, screenshot=False)
            print(f"navigate {url}: {_timing(tab.last_timings)}", file=out)
            for step in range(1, 11):
                action = _policy(state)
                if not guard.check(state["state_hash"], action):
                    action = {"action": "fail_task", "message": "Would repeat an action on an unchanged state."}
                guard.record(state["state_hash"], action)
                state = await ElementIndex.of(tab).act(action, screenshot=False)
                error = state.get("error")
                print(
                    f"step {step}: {orjson.dumps(action).decode()} -> {tab.url} "
                    f"({len(state['element_index'])} elements, hash {state['state_hash'][:12]}) "
                    f"{_timing(tab.last_timings)}" + (f" ERROR {error['code']}: {error['message']}" if error else ""),
                    file=out,
                )
                if action["action"] in ("finish_task", "fail_task"):
                    print(f"{action['action']}: {action['message']}", file=out)
                    break
            cached_t = time.perf_counter()
            await ElementIndex.of(tab).state(screenshot=False)
            print(f"unchanged page state again: {(time.perf_counter() - cached_t) * 1000:.1f} ms (cached)", file=out)
            print("final page content:\n" + state["page_content"], file=out)
            return state
    finally:
        await runner.cleanup()


def _timing(t: dict[str, float]) -> str:
    keys = ("action_ms", "snapshot_ms", "ax_ms", "total_ms", "total_action_ms")
    return " ".join(f"{k}={t[k]:.1f}" for k in keys if k in t)
