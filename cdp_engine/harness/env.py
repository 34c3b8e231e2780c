"""Harness mode: isolated episodes, a gym-style environment, parallel runs, trajectories and replay.

Why: benchmark harnesses run thousands of web-agent episodes. Relaunching Chromium per episode
costs seconds; a fresh browser context (own cookies, storage, cache, permissions) costs
milliseconds, so each worker keeps one Chromium and every episode gets its own context.

- `BrowserEnv`: ``reset(start_url, seed=None)`` → observation, ``step(action)`` → (observation,
  info), ``close()``. The observation is the element index state; ``step`` takes protocol
  action objects and BrowserGym-style strings (see `cdp_engine.actions_bgym` for the mapping).
- `TaskSpec`: start URL, ``setup_js`` (run once the page loaded), ``reward_js`` (read after each
  step), ``init_scripts`` (run at the start of every document in every frame of the episode).
- `run_episode`, `run_tasks` (N environments in one Chromium, asyncio), `run_in_processes`
  (one Chromium per spawned worker process), `run_with_ray` (one Chromium per Ray task; the
  optional extra ``cdp-engine[ray]``), all returning `EpisodeResult` lists in task order.
- `TrajectoryRecorder` writes one JSONL file per episode; `replay` re-runs it and reports where
  the state_hash diverges.

See docs/harness.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import os
import re
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urljoin

import orjson
from aiohttp import web

from ..core import input
from ..core.browser import Browser, BrowserContext, Tab
from ..core.keys import modifiers_mask
from ..core.lifecycle import WaitUntil, wait_loaded
from ..core.settle import SettleReport, dom_quiet
from ..errors import CDPEngineError, NavigationError
from ..index.actions import ActionValidationError
from ..index.element_index import ActionError, ElementIndex
from ..index.tab import connect, launch
from ..snapshot.capture import Capture, content_digest
from ..version import __version__
from .bgym import BGymCall, is_bgym_text, parse_bgym, to_protocol

if TYPE_CHECKING:
    from ..cdp.connection import CDPSession

__all__ = [
    "BrowserEnv",
    "EpisodeResult",
    "ReplayReport",
    "ReplayStep",
    "ScriptedPolicy",
    "TaskSite",
    "TaskSpec",
    "TrajectoryRecorder",
    "find_index",
    "read_trajectory",
    "replay",
    "run_episode",
    "run_in_processes",
    "run_tasks",
    "run_with_ray",
    "seed_script",
]

log = logging.getLogger("cdp_engine")

Screenshot = bool | Literal["png", "jpeg"]
POPUP_WAIT = 3.0  # s a step waits for a window its page asked for to appear
Policy = Callable[[dict[str, Any], dict[str, Any], "TaskSpec"], Any]


# ----- tasks -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskSpec:
    """One task: where it starts, how it is set up and scored. Picklable, so it travels to workers.

    A ``start_url`` starting with ``/`` is resolved against the worker's `TaskSite` (``pages=``),
    so the same task list works on any machine. ``reward_js`` is an expression returning a number
    or a boolean (true = 1.0), read in the active tab after every step.
    """

    name: str
    start_url: str
    goal: str = ""
    setup_js: str | None = None
    reward_js: str | None = None
    init_scripts: tuple[str, ...] = ()
    max_steps: int = 20
    seed: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)  # free-form, for policies

    def resolve(self, base_url: str | None) -> str:
        """The absolute start URL (relative ones against base_url)."""
        url = self.start_url
        if "://" in url or url.startswith(("about:", "data:", "file:")):
            return url
        if not base_url:
            raise ValueError(f"task {self.name!r}: relative start_url {url!r} needs pages= or base_url")
        return urljoin(base_url.rstrip("/") + "/", url.lstrip("/"))


_SEED_SCRIPT = (
    "(() => { let s = __SEED__ >>> 0; Math.random = function random() { s = (s + 0x6D2B79F5) >>> 0;"
    " let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);"
    " return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; })();"
)


def seed_script(seed: int) -> str:
    """An init script that makes Math.random a seeded PRNG (mulberry32) in every document."""
    return _SEED_SCRIPT.replace("__SEED__", str(seed & 0xFFFFFFFF))


_CONTENT_TYPES = {
    ".html": "text/html",
    ".htm": "text/html",
    ".js": "application/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain",
}


class TaskSite:
    """Serves task pages from memory on 127.0.0.1, port 0 (never a fixed port), one per worker.

    ``pages`` maps a path (``/login.html``) to its body; ``/`` serves ``/index.html`` when present.
    """

    def __init__(self, pages: Mapping[str, str | bytes]) -> None:
        self.pages = {("/" + p.lstrip("/")): body for p, body in pages.items()}
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def _serve(self, request: web.Request) -> web.Response:
        path = request.path if request.path != "/" else "/index.html"
        body = self.pages.get(path)
        if body is None:
            return web.Response(status=404, text="not found")
        ctype = _CONTENT_TYPES.get(os.path.splitext(path)[1].lower(), "text/html")
        data = body.encode() if isinstance(body, str) else body
        return web.Response(body=data, content_type=ctype, headers={"Cache-Control": "no-store"})

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._serve)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}/"
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> TaskSite:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


# ----- trajectories ----------------------------------------------------------------------------


class TrajectoryRecorder:
    """One JSONL file per episode in `directory`: a header, one record per step, an end record.

    Every line is flushed as written, so a crashed worker leaves a readable prefix. Screenshots
    (optional) are PNG/JPEG files in ``<directory>/<episode_id>/step-NNN.png``.
    """

    def __init__(self, directory: str | os.PathLike[str], *, screenshots: bool = False) -> None:
        self.directory = Path(directory)
        self.screenshots = screenshots
        self.directory.mkdir(parents=True, exist_ok=True)
        self._file: Any = None
        self.path: Path | None = None
        self.episode_id: str | None = None

    def begin(self, header: dict[str, Any]) -> Path:
        self.end(None)
        self.episode_id = header["episode_id"]
        self.path = self.directory / f"{self.episode_id}.jsonl"
        self._file = open(self.path, "wb")  # kept open for the episode, closed in end()
        self._write({"type": "episode", **header})
        return self.path

    def record(self, entry: dict[str, Any], screenshot_b64: str | None = None, fmt: str = "png") -> None:
        if self._file is None:
            return
        if screenshot_b64 and self.screenshots and self.episode_id:
            import base64

            folder = self.directory / self.episode_id
            folder.mkdir(exist_ok=True)
            name = f"step-{entry['step']:03d}.{'jpg' if fmt == 'jpeg' else 'png'}"
            (folder / name).write_bytes(base64.b64decode(screenshot_b64))
            entry = {**entry, "screenshot": f"{self.episode_id}/{name}"}
        self._write({"type": "step", **entry})

    def end(self, summary: dict[str, Any] | None) -> None:
        if self._file is None:
            return
        if summary is not None:
            self._write({"type": "end", **summary})
        self._file.close()
        self._file = None

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(orjson.dumps(record, default=str) + b"\n")
        self._file.flush()


def read_trajectory(
    path: str | os.PathLike[str],
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any] | None]:
    """(header, steps, end) of a recorded episode."""
    header: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    end: dict[str, Any] | None = None
    with open(path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            record = orjson.loads(line)
            kind = record.get("type")
            if kind == "episode":
                header = record
            elif kind == "step":
                steps.append(record)
            elif kind == "end":
                end = record
    return header, steps, end


# ----- the environment -------------------------------------------------------------------------


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class _Timer:
    """Per-step phase clock: the settle phase is the sum of the engine's own settle reports."""

    __slots__ = ("settle",)

    def __init__(self) -> None:
        self.settle = 0.0

    def add(self, report: SettleReport) -> None:
        """A settle listener (ElementIndex.add_settle_listener): the time after the input, in seconds."""
        self.settle += report.settle_ms / 1000


class BrowserEnv:
    """A gym-style environment on one browser: every episode in a fresh, isolated browser context.

    ``screenshot`` puts the screenshot in the observation (base64, as in the state); ``read_page``
    adds ``read_page`` (the state's page_content, for now); ``init_scripts`` run at the start of
    every document in every frame of every tab of each episode (popups included: they are added
    when the tab attaches, before it runs); ``permissions`` are granted to each episode's context.
    ``prewarm`` prepares the next episode's context and blank tab while the current one runs: a
    new context needs a new renderer process, the one slow part of a reset; the old context is
    disposed in the background.
    """

    def __init__(
        self,
        browser: Browser,
        *,
        screenshot: Screenshot = False,
        read_page: bool = False,
        init_scripts: Iterable[str] = (),
        permissions: Iterable[str] = (),
        record_dir: str | os.PathLike[str] | None = None,
        record_screenshots: bool = False,
        wait_until: WaitUntil = "load",
        base_url: str | None = None,
        prewarm: bool = True,
    ) -> None:
        self.browser = browser
        self.screenshot: Screenshot = screenshot
        self.read_page = read_page
        self.init_scripts = list(init_scripts)
        self.permissions = list(permissions)
        self.wait_until: WaitUntil = wait_until
        self.base_url = base_url
        self.recorder = TrajectoryRecorder(record_dir, screenshots=record_screenshots) if record_dir else None
        self.context: BrowserContext | None = None
        self.tabs: list[Tab] = []  # the episode's tabs, in opening order
        self.active: Tab | None = None
        self.task: TaskSpec | None = None
        self.seed: int | None = None
        self.episode_id: str | None = None
        self.trajectory_path: str | None = None
        self.step_count = 0
        self.done = False
        self.last_info: dict[str, Any] = {}
        self.last_reward: float | None = None
        self.last_teardown_ms = 0.0
        self._scripts: list[str] = []
        self._timer = _Timer()
        self._owns_browser = False
        self._closed = False
        # Popups of the current step: tabs of the context the env did not open itself (by target id, from
        # the moment they attach), and how many windows the pages asked for (Page.windowOpen).
        self._popups: list[str] = []
        self._popup_attached = asyncio.Event()
        self._window_opens = 0
        self._opening = False  # set while the env opens a tab itself
        self._reactivations: set[asyncio.Future[Any]] = set()  # openers brought back to the front
        self.prewarm = prewarm
        self._spare: asyncio.Future[tuple[BrowserContext, Tab]] | None = None
        self._disposing: set[asyncio.Future[Any]] = set()
        browser.connection.on_session_attached.append(self._on_attached)
        self._unsubscribe_tab = browser.on_tab(self._on_tab)

    # ----- construction -----------------------------------------------------------------------

    @classmethod
    async def launch(cls, launch_options: Mapping[str, Any] | None = None, **env_options: Any) -> BrowserEnv:
        """An environment on its own new Chromium (closed with the environment)."""
        browser = await launch(**dict(launch_options or {}))
        env = cls(browser, **env_options)
        env._owns_browser = True
        return env

    @classmethod
    async def connect(
        cls, endpoint: str, connect_options: Mapping[str, Any] | None = None, **env_options: Any
    ) -> BrowserEnv:
        """An environment on a remote browser (ws:// or http://host:port); close() disposes only its contexts."""
        browser = await connect(endpoint, **dict(connect_options or {}))
        env = cls(browser, **env_options)
        env._owns_browser = True
        return env

    # ----- tabs of the episode ----------------------------------------------------------------

    def _on_attached(self, session: CDPSession, params: dict[str, Any]) -> None:
        """Per-context init scripts, sent before the tab's own setup and before it runs any script."""
        ctx = self.context
        info = params.get("targetInfo", {})
        if ctx is None or info.get("type") != "page" or info.get("browserContextId") != ctx.id:
            return
        if session.parent is not self.browser.connection.root:
            return
        for source in self._scripts:
            session.send("Page.addScriptToEvaluateOnNewDocument", {"source": source}).add_done_callback(
                _quiet
            )
        tab = self.browser.tabs.get(info["targetId"])
        if tab is not None:
            tab.init_scripts.extend(self._scripts)  # out-of-process frames that attach later get them too
        if not self._opening:
            self._popups.append(info["targetId"])
            self._popup_attached.set()

    def _on_window_open(self, _params: dict[str, Any]) -> None:
        self._window_opens += 1

    def _on_tab(self, tab: Tab) -> None:
        ctx = self.context
        if ctx is None or tab.context_id != ctx.id or tab in self.tabs:
            return
        self._adopt(tab)
        if tab.target_id in self._popups:
            # The popup's tab hides its opener, and a hidden page runs no animation frames, which the
            # settle after the opener's click waits for: show the opener again until the step ends.
            opener = self.active
            if opener is not None and not opener.closed:
                self._reactivations.add(self._background(opener.activate()))

    async def _blank(self) -> tuple[BrowserContext, Tab]:
        """A fresh context with one blank tab: the part of a reset that costs a renderer process."""
        context = await self.browser.new_context()
        try:
            tab = await self.browser.new_tab(context=context)
        except BaseException:
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await context.close()
            raise
        return context, tab

    async def _take_blank(self) -> tuple[BrowserContext, Tab]:
        """The spare made during the last episode when it is good, else a new one."""
        spare, self._spare = self._spare, None
        if spare is not None:
            try:
                context, tab = await spare
                if not tab.closed and not context.closed:
                    return context, tab
                self._dispose(context)
            except (CDPEngineError, TimeoutError) as exc:
                log.debug("spare context failed: %s", exc)
        return await self._blank()

    def _dispose(self, context: BrowserContext) -> None:
        """Dispose a context in the background (close() waits for every disposal)."""

        async def dispose() -> None:
            t = time.perf_counter()
            with contextlib.suppress(CDPEngineError, TimeoutError):
                await context.close()
            self.last_teardown_ms = (time.perf_counter() - t) * 1000

        self._background(dispose())

    def _background(self, coro: Awaitable[Any]) -> asyncio.Future[Any]:
        """Run coro without waiting for it; close() waits for what is still running."""
        task = asyncio.ensure_future(coro)
        self._disposing.add(task)
        task.add_done_callback(self._disposing.discard)
        task.add_done_callback(_quiet)
        return task

    async def _new_tab(self) -> Tab:
        assert self.context is not None
        self._opening = True
        try:
            tab = await self.context.new_tab()
        finally:
            self._opening = False
        self._adopt(tab)
        return tab

    def _adopt(self, tab: Tab) -> None:
        if tab not in self.tabs:
            self.tabs.append(tab)
            tab.session.on("Page.windowOpen", self._on_window_open)
        ElementIndex.of(tab).add_settle_listener(self._timer.add)  # added once per tab

    @property
    def open_tabs(self) -> list[Tab]:
        """The episode's open tabs, in opening order."""
        self.tabs = [t for t in self.tabs if not t.closed]
        return self.tabs

    async def tab_info(self) -> list[dict[str, Any]]:
        """The open tabs: index, url, title, active. The active tab's title is read from its document
        (Chromium reports titles a little late); the others' are as Chromium last reported them."""
        title = None
        if not self.active_closed:
            with contextlib.suppress(CDPEngineError, TimeoutError):
                title = await self.active.evaluate("document.title", timeout=2.0)  # type: ignore[union-attr]
        return [
            {
                "index": i,
                "url": t.url,
                "title": title if t is self.active and isinstance(title, str) else t.title,
                "active": t is self.active,
            }
            for i, t in enumerate(self.open_tabs)
        ]

    # ----- episodes ---------------------------------------------------------------------------

    async def reset(
        self, start_url: str | None = None, seed: int | None = None, *, task: TaskSpec | None = None
    ) -> dict[str, Any]:
        """End the current episode (its context is disposed), start a fresh one, return its observation.

        With a `task`, start_url defaults to the task's, setup_js runs once the page loaded, and
        reward_js is read after every step. A seed makes Math.random deterministic (`seed_script`).
        """
        if self._closed:
            raise RuntimeError("the environment is closed")
        t0 = time.perf_counter()
        await self._end_episode()
        t_teardown = time.perf_counter()
        if task is None:
            if start_url is None:
                raise ValueError("reset needs a start_url or a task")
            task = TaskSpec(name="url", start_url=start_url)
        elif start_url is not None:
            task = replace(task, start_url=start_url)
        seed = task.seed if seed is None else seed
        url = task.resolve(self.base_url)
        self.task, self.seed = task, seed
        self.episode_id = uuid.uuid4().hex
        self.step_count, self.done, self.last_reward = 0, False, None
        self._new_step()
        episode_scripts = [*self.init_scripts, *task.init_scripts]
        self._scripts = ([seed_script(seed)] if seed is not None else []) + episode_scripts

        context, tab = await self._take_blank()
        self.context = context
        self._adopt(tab)
        self.active = tab
        setup = [
            tab.session.send("Page.addScriptToEvaluateOnNewDocument", {"source": source})
            for source in self._scripts
        ]
        tab.init_scripts.extend(self._scripts)
        if self.permissions:
            setup.append(
                self.browser.connection.root.send(
                    "Browser.grantPermissions",
                    {"permissions": self.permissions, "browserContextId": context.id},
                )
            )
        await asyncio.gather(*setup)
        t_context = time.perf_counter()
        await tab.goto(url, wait_until=self.wait_until)
        await self._quiesce(tab)
        if task.setup_js:
            await tab.evaluate(task.setup_js)
            await self._quiesce(tab)
        t_ready = time.perf_counter()
        state = await ElementIndex.of(tab).state(screenshot=self._capture_format())
        t_end = time.perf_counter()
        self.trajectory_path = None
        if self.recorder is not None:
            self.trajectory_path = str(
                self.recorder.begin(
                    {
                        "episode_id": self.episode_id,
                        "task": task.name,
                        "goal": task.goal,
                        "start_url": url,
                        "seed": seed,
                        "setup_js": task.setup_js,
                        "reward_js": task.reward_js,
                        "init_scripts": episode_scripts,
                        "viewport": list(self.browser.viewport_size),
                        "wait_until": self.wait_until,
                        "engine": __version__,
                        "time": time.time(),
                    }
                )
            )
        timings = {
            "teardown_ms": self.last_teardown_ms,
            "context_ms": (t_context - t_teardown) * 1000,
            "load_ms": (t_ready - t_context) * 1000,
            "capture_ms": (t_end - t_ready) * 1000,
            "reset_ms": (t_end - t_teardown) * 1000,
            "total_ms": (t_end - t0) * 1000,
        }
        info = self._info(state, None, timings, await self.tab_info(), action=None)
        self._record(0, None, state, info)
        self.last_info = info
        if self.prewarm:  # after the reset, not during it: the spare's renderer start would slow this load
            self._spare = asyncio.ensure_future(self._blank())
        return self._observation(state)

    async def step(self, action: str | Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Run one action (a protocol action object, its JSON text, or BrowserGym call text).

        Returns (observation, info). A failed or malformed action changes nothing: the
        observation is the previous state and info["error"] says why.
        """
        tab = self.active
        if tab is None or self.context is None:
            raise RuntimeError("call reset() before step()")
        t0 = time.perf_counter()
        self._new_step()
        capture_ms = 0.0
        ran: list[Any] = []
        finished: dict[str, str] | None = None
        try:
            calls = self._parse(action)
        except ActionValidationError as exc:
            state = await self._previous_state(tab)
            state["error"] = exc.to_error()
        else:
            state = {}
            for call in calls:
                tab = self.active or tab
                protocol: Any = None
                try:
                    if isinstance(call, BGymCall):
                        state, cms, protocol = await self._run_bgym(tab, call, action)
                        ran.append(protocol if protocol is not None else call.source)
                    else:
                        state, cms = await self._act(tab, call)
                        protocol = call
                        ran.append(call)
                except CDPEngineError as exc:
                    if not tab.closed:  # the page is gone in another way: report it as the protocol does
                        state = await self._previous_state(tab)
                        state["error"] = {
                            "code": "INTERNAL_BROWSER_ERROR",
                            "message": f"{type(exc).__name__}: {exc}",
                            "failed_action": action,
                        }
                        break
                    state, cms = {}, 0.0  # the action closed its own tab (window.close()): follow below
                capture_ms += cms
                if "error" in state or tab.closed:
                    break
                if isinstance(protocol, Mapping) and protocol.get("action") in ("finish_task", "fail_task"):
                    finished = {"action": protocol["action"], "message": protocol.get("message", "")}
            if "error" not in state:
                popped = await self._follow_tabs()
                if popped is not None:
                    state, cms = popped
                    capture_ms += cms
        t_end = time.perf_counter()
        self.step_count += 1
        if finished is not None:
            self.done = True
        error = state.pop("error", None)
        reward = None
        if self.task is not None and self.task.reward_js and not self.active_closed:
            reward = await self.reward()
        total_ms = (t_end - t0) * 1000
        settle_ms = self._timer.settle * 1000
        timings = {
            "action_ms": max(0.0, total_ms - settle_ms - capture_ms),
            "settle_ms": settle_ms,
            "capture_ms": capture_ms,
            "step_ms": total_ms,
        }
        if error is None:
            for key in ("snapshot_ms", "build_ms", "ax_ms", "cached"):
                if key in self.active.last_timings:  # type: ignore[union-attr]
                    timings[key] = self.active.last_timings[key]  # type: ignore[union-attr]
        tabs = await self.tab_info()
        timings["info_ms"] = (time.perf_counter() - t_end) * 1000  # reward_js and the tab list
        info = self._info(
            state, error, timings, tabs, action=action, ran=ran, reward=reward, finished=finished
        )
        self._record(self.step_count, action, state, info)
        self.last_info = info
        return self._observation(state), info

    @property
    def active_closed(self) -> bool:
        return self.active is None or self.active.closed

    async def observe(self) -> dict[str, Any]:
        """The active tab's current state as an observation, without acting (cached when unchanged)."""
        if self.active is None:
            raise RuntimeError("call reset() first")
        return self._observation(await ElementIndex.of(self.active).state(screenshot=self._capture_format()))

    async def evaluate(self, js: str, *, timeout: float | None = None) -> Any:
        """Evaluate JavaScript in the active tab (promises awaited): task setup, checks, rewards."""
        if self.active is None:
            raise RuntimeError("call reset() first")
        return await self.active.evaluate(js, timeout=timeout)

    async def reward(self) -> float:
        """The task's reward_js read in the active tab: a number, or a boolean as 1.0 / 0.0; 0.0 if it throws."""
        if self.task is None or not self.task.reward_js or self.active_closed:
            return 0.0
        try:
            value = await self.active.evaluate(self.task.reward_js, timeout=10.0)  # type: ignore[union-attr]
        except (CDPEngineError, TimeoutError) as exc:
            log.debug("reward_js failed: %s", exc)
            value = 0.0
        reward = float(value) if isinstance(value, (int, float)) else 0.0
        self.last_reward = reward
        return reward

    async def close(self) -> None:
        """End the episode, dispose its context, stop listening (and close the browser if the env owns it)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._end_episode()
            spare, self._spare = self._spare, None
            if spare is not None:
                with contextlib.suppress(CDPEngineError, TimeoutError):
                    context, _tab = await spare
                    self._dispose(context)
            if self._disposing:
                await asyncio.gather(*self._disposing, return_exceptions=True)
        finally:
            with contextlib.suppress(ValueError):
                self.browser.connection.on_session_attached.remove(self._on_attached)
            self._unsubscribe_tab()
            if self._owns_browser:
                await self.browser.close()

    async def __aenter__(self) -> BrowserEnv:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ----- internals --------------------------------------------------------------------------

    async def _end_episode(self) -> None:
        if self.recorder is not None:
            self.recorder.end(
                {"steps": self.step_count, "done": self.done, "reward": self.last_reward, "time": time.time()}
            )
        context, self.context = self.context, None
        self.tabs, self.active = [], None
        self._scripts = []
        if context is not None:
            self._dispose(context)

    def _capture_format(self) -> Screenshot:
        if self.screenshot:
            return self.screenshot
        if self.recorder is not None and self.recorder.screenshots:
            return "png"
        return False

    def _observation(self, state: dict[str, Any]) -> dict[str, Any]:
        obs = {k: v for k, v in state.items() if k != "error"}
        if not self.screenshot:
            obs["screenshot"] = ""
        if self.read_page:
            obs["read_page"] = state.get("page_content", "")
        return obs

    def _info(
        self,
        state: dict[str, Any],
        error: dict[str, Any] | None,
        timings: dict[str, float],
        tabs: list[dict[str, Any]],
        *,
        action: Any,
        ran: list[Any] | None = None,
        reward: float | None = None,
        finished: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "step": self.step_count,
            "action": action,
            "ran": ran or [],
            "error": error,
            "last_action_error": f"{error['code']}: {error['message']}" if error else "",
            "timings": timings,
            "tabs": tabs,
            "active_tab": next((t["index"] for t in tabs if t["active"]), None),
            "url": state.get("url"),
            "state_hash": state.get("state_hash"),
            "content_digest": content_digest(state),
            "reward": reward,
            "done": self.done,
            "message": finished["message"] if finished else None,
            "infeasible": bool(finished and finished["action"] == "fail_task"),
        }

    def _record(self, step: int, action: Any, state: dict[str, Any], info: dict[str, Any]) -> None:
        if self.recorder is None:
            return
        self.recorder.record(
            {
                "step": step,
                "action": action,
                "ran": info["ran"],
                "url": info["url"],
                "state_hash": info["state_hash"],
                "content_digest": info["content_digest"],
                "error": info["error"],
                "reward": info["reward"],
                "done": info["done"],
                "active_tab": info["active_tab"],
                "tabs": len(info["tabs"]),
                "timings": info["timings"],
            },
            state.get("screenshot") or None,
            "jpeg" if self._capture_format() == "jpeg" else "png",
        )

    def _parse(self, action: Any) -> list[Any]:
        """Parse everything before anything runs: a malformed action changes nothing."""
        if isinstance(action, Mapping):
            return [dict(action)]
        if isinstance(action, (bytes, bytearray)):
            action = action.decode("utf-8", "replace")
        if isinstance(action, str):
            if not is_bgym_text(action):
                try:
                    decoded = orjson.loads(action)
                except orjson.JSONDecodeError:
                    return [action]  # the engine reports the JSON error, as the protocol says
                return [decoded]
            return parse_bgym(action)
        raise ActionValidationError(
            f"an action is a protocol action object, its JSON text, or a BrowserGym call string; got {type(action).__name__}",
            failed_action=repr(action),
        )

    async def _previous_state(self, tab: Tab) -> dict[str, Any]:
        index = ElementIndex.of(tab)
        if index.current is not None:
            return dict(index.current.state)
        return await ElementIndex.of(tab).state(screenshot=self._capture_format())

    async def _act(self, tab: Tab, action: Any) -> tuple[dict[str, Any], float]:
        state = await ElementIndex.of(tab).act(action, screenshot=self._capture_format())
        capture_ms = 0.0 if "error" in state else float(tab.last_timings.get("total_ms", 0.0))
        return state, capture_ms

    async def _quiesce(self, tab: Tab, timeout: float | None = None) -> None:
        """Wait for the main document's load, then for the DOM to be quiet (the engine's settle rule)."""
        timeout = self.browser.navigation_timeout if timeout is None else timeout
        await wait_loaded(tab, timeout)
        with contextlib.suppress(CDPEngineError, TimeoutError):
            await dom_quiet(tab)

    def _new_step(self) -> None:
        self._timer.settle = 0.0
        self._popups.clear()
        self._popup_attached.clear()
        self._window_opens = 0

    async def _step_popups(self) -> list[Tab]:
        """The tabs the pages opened during this step, once ready (a window asked for is awaited a while)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + POPUP_WAIT
        while self._window_opens > len(self._popups) and loop.time() < deadline:
            self._popup_attached.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._popup_attached.wait(), deadline - loop.time())
        popups = []
        for target_id in self._popups:
            tab = self.browser.tabs.get(target_id)
            if tab is None:
                continue
            await asyncio.wait({tab.ready}, timeout=self.browser.navigation_timeout)  # never cancels ready
            if (
                tab.ready.done()
                and not tab.ready.cancelled()
                and tab.ready.exception() is None
                and not tab.closed
            ):
                self._adopt(tab)
                popups.append(tab)
        self._popups.clear()
        return popups

    async def _follow_tabs(self) -> tuple[dict[str, Any], float] | None:
        """After a step: a popup the page opened becomes active; a closed active tab gives way."""
        popups = await self._step_popups()
        target: Tab | None = None
        if popups:
            target = popups[-1]
        elif self.active_closed:
            remaining = self.open_tabs
            target = remaining[-1] if remaining else await self._new_tab()
        if target is None:
            return None
        self.active = target
        if self._reactivations:  # an opener brought to the front must not end up in front of its popup
            await asyncio.wait(self._reactivations, timeout=5.0)
            self._reactivations.clear()
        with contextlib.suppress(CDPEngineError):
            await target.activate()
        await self._quiesce(target, timeout=10.0)
        t = time.perf_counter()
        state = await ElementIndex.of(target).state(screenshot=self._capture_format())
        return state, (time.perf_counter() - t) * 1000

    async def _switch(self, target: Tab) -> tuple[dict[str, Any], float]:
        self.active = target
        with contextlib.suppress(CDPEngineError):
            await target.activate()
        t = time.perf_counter()
        state = await ElementIndex.of(target).state(screenshot=self._capture_format())
        return state, (time.perf_counter() - t) * 1000

    async def _run_bgym(self, tab: Tab, call: BGymCall, raw: Any) -> tuple[dict[str, Any], float, Any]:
        """One BrowserGym call: (state, capture ms, the protocol action it ran as, or None)."""
        name, a = call.name, call.args
        index = ElementIndex.of(tab)
        failed = raw if isinstance(raw, str) else call.source
        if index.current is None:
            await ElementIndex.of(tab).state(screenshot=self._capture_format())
        current: Capture = index.current  # type: ignore[assignment]
        try:
            if name == "select_option":
                options_of: dict[int, list[int]] = {}
                for el in current.elements.values():
                    if el.select_index is not None:
                        options_of.setdefault(el.select_index, []).append(el.index)
                protocol = to_protocol(call, current.state, options_of)
                if protocol is None:
                    el = current.elements.get(a["bid"])
                    if el is None:
                        raise ActionError(
                            "INVALID_ELEMENT_INDEX",
                            f"Element with index {a['bid']} not found in the current element index.",
                        )
                    raise ActionError(
                        "ELEMENT_NOT_INTERACTIVE",
                        f"Element {a['bid']} is a <{el.tag}>, not a <select> with options.",
                    )
            elif name in ("check", "uncheck"):
                desc = current.state["element_index"].get(str(a["bid"]))
                checked = desc["attributes"].get("checked") if desc else None
                if desc is not None and checked is None:
                    raise ActionError(
                        "ELEMENT_NOT_INTERACTIVE",
                        f"Element {a['bid']} ({desc['tag']}) has no checked state to {name}.",
                    )
                if checked == (name == "check"):
                    return dict(current.state), 0.0, None  # already so: nothing to do
                protocol = {"action": "click_element", "element_index": a["bid"]}
            else:
                protocol = to_protocol(call, current.state)
        except ActionValidationError as exc:
            return self._error(current, exc.code, exc.message, failed), 0.0, None
        except ActionError as exc:
            return self._error(current, exc.code, exc.message, failed), 0.0, None
        if protocol is not None:
            state, cms = await self._act(tab, protocol)
            if "error" in state:
                state["error"]["failed_action"] = failed
            return state, cms, protocol

        if name == "noop":
            await asyncio.sleep(max(0.0, float(a["wait_ms"])) / 1000)
            t = time.perf_counter()
            state = await ElementIndex.of(tab).state(screenshot=self._capture_format())
            return state, (time.perf_counter() - t) * 1000, None
        if name == "new_tab":
            new = await self._new_tab()
            state, cms = await self._switch(new)
            return state, cms, None
        if name == "tab_focus":
            tabs = self.open_tabs
            if not 0 <= a["index"] < len(tabs):
                msg = f"tab_focus: no tab {a['index']}; {len(tabs)} tab(s) open (0..{len(tabs) - 1})"
                return self._error(current, "ACTION_VALIDATION_FAILED", msg, failed), 0.0, None
            state, cms = await self._switch(tabs[a["index"]])
            return state, cms, None
        if name == "tab_close":
            await tab.close()
            remaining = self.open_tabs
            target = remaining[-1] if remaining else await self._new_tab()
            state, cms = await self._switch(target)
            return state, cms, None
        state, cms = await self._custom(tab, call, failed)
        return state, cms, None

    def _error(self, capture: Capture, code: str, message: str, failed: Any) -> dict[str, Any]:
        state = dict(capture.state)
        state["error"] = {"code": code, "message": message, "failed_action": failed}
        return state

    async def _custom(self, tab: Tab, call: BGymCall, failed: Any) -> tuple[dict[str, Any], float]:
        """Run a call the protocol has no action for, under the tab's element index lock, like act():
        resolve indices against the last state (same identity rules), act, settle, capture."""
        index: ElementIndex = ElementIndex.of(tab)
        shot = self._capture_format()
        async with index.lock:
            if index.current is None:
                index.current = await index.capturer.capture(screenshot=shot)
            previous = index.current
            try:
                await self._perform(tab, index, previous, call)
            except ActionError as exc:
                return index.error_state(previous, exc.code, exc.message, failed), 0.0
            except NavigationError as exc:
                return index.error_state(previous, "NAVIGATION_FAILED", str(exc), failed), 0.0
            except (CDPEngineError, TimeoutError) as exc:
                log.debug("harness action failed", exc_info=True)
                return index.error_state(
                    previous, "INTERNAL_BROWSER_ERROR", f"{type(exc).__name__}: {exc}", failed
                ), 0.0
            index.capturer.invalidate()
            t = time.perf_counter()
            capture = await index.capturer.capture(screenshot=shot)
            index.current = capture
            return dict(capture.state), (time.perf_counter() - t) * 1000

    async def _point(self, tab: Tab, index: ElementIndex, previous: Capture, bid: int) -> tuple[float, float]:
        element = await index.resolve(previous, bid)
        index.check_usable(element)
        return await index.point(element)

    async def _perform(self, tab: Tab, index: ElementIndex, previous: Capture, call: BGymCall) -> None:
        name, a = call.name, call.args
        if name in ("click", "dblclick"):
            x, y = await self._point(tab, index, previous, a["bid"])
            mods = modifiers_mask(["Control" if m == "ControlOrMeta" else m for m in a["modifiers"]])
            count = 2 if name == "dblclick" else 1
            await index.settle(input.click_at(tab, x, y, button=a["button"], click_count=count, modifiers=mods))
        elif name == "hover":
            x, y = await self._point(tab, index, previous, a["bid"])
            await index.settle(input.move(tab, x, y))
        elif name in ("press", "focus"):
            element = await index.resolve(previous, a["bid"])
            if await index.call(element, "function() { this.focus(); return true; }") is None:
                raise ActionError("INVALID_ELEMENT_INDEX", f"Element {a['bid']} was removed from the page.")
            if name == "press":
                await index.settle(input.press(tab, a["key_comb"], implied_shift=False))
            else:
                await index.settle()
        elif name == "keyboard_press":
            await index.settle(input.press(tab, a["key"], implied_shift=False))
        elif name == "keyboard_down":
            await index.settle(input.key_down(tab, a["key"], implied_shift=False))
        elif name == "keyboard_up":
            await index.settle(input.key_up(tab, a["key"], implied_shift=False))
        elif name in ("keyboard_type", "keyboard_insert_text"):
            await index.settle(input.insert_text(tab, a["text"]))
        elif name == "scroll":
            dx, dy = float(a["delta_x"]), float(a["delta_y"])
            await index.settle(
                tab.evaluate(f"window.scrollBy({{left: {dx}, top: {dy}, behavior: 'instant'}})", timeout=5.0)
            )
        elif name == "mouse_move":
            await index.settle(input.move(tab, a["x"], a["y"]))
        elif name in ("mouse_click", "mouse_dblclick"):
            count = 2 if name == "mouse_dblclick" else 1
            await index.settle(input.click_at(tab, a["x"], a["y"], button=a["button"], click_count=count))
        elif name == "mouse_down":
            await index.settle(input.down(tab, a["button"], x=a["x"], y=a["y"]))
        elif name == "mouse_up":
            await index.settle(input.up(tab, a["button"], x=a["x"], y=a["y"]))
        elif name in ("drag_and_drop", "mouse_drag_and_drop"):
            if name == "drag_and_drop":
                fx, fy = await self._point(tab, index, previous, a["from_bid"])
                tx, ty = await self._point(tab, index, previous, a["to_bid"])
            else:
                fx, fy, tx, ty = a["from_x"], a["from_y"], a["to_x"], a["to_y"]
            await index.settle(input.drag(tab, fx, fy, tx, ty))
        elif name == "upload_file":
            element = await index.resolve(previous, a["bid"])
            if element.tag != "input" or element.input_type != "file":
                raise ActionError(
                    "ELEMENT_NOT_INTERACTIVE", f"Element {a['bid']} is not an <input type=file>."
                )
            files = [str(Path(f).resolve()) if self.browser.process is not None else f for f in a["file"]]
            await index.settle(
                element.session.send(
                    "DOM.setFileInputFiles", {"files": files, "backendNodeId": element.backend_node_id}
                )
            )
        elif name in ("go_back", "go_forward"):
            step = tab.back if name == "go_back" else tab.forward
            await step(wait_until="load")
            await index.settle()
        else:  # pragma: no cover - every parsed name is handled above or by to_protocol
            raise ActionError("ACTION_VALIDATION_FAILED", f"{name} is not supported")


# ----- running episodes ------------------------------------------------------------------------

_SLOT = re.compile(r"\{([^{}]+)\}")
_SLOT_FIELDS = ("aria-label", "placeholder", "name", "text", "value", "href", "tag", "type")


def _matches(desc: Mapping[str, Any], key: str, wanted: str) -> bool:
    attrs = desc.get("attributes") or {}
    have = {
        "aria-label": desc.get("aria-label"),
        "text": desc.get("text_content"),
        "tag": desc.get("tag"),
    }.get(key, attrs.get(key))
    if not isinstance(have, str):
        return False
    if key in ("tag", "type", "name", "value"):
        return have == wanted
    return " ".join(wanted.split()).casefold() in " ".join(have.split()).casefold()


def find_index(element_index: Mapping[str, Any], query: str) -> int | None:
    """The first element matching ``key=value`` (aria-label, placeholder, name, text, value, href,
    tag, type; several joined by ``&``), or a bare label (aria-label, then placeholder, then text)."""
    items = sorted(((int(k), d) for k, d in element_index.items() if k.isdigit()), key=lambda kv: kv[0])
    if "=" in query:
        criteria = [part.split("=", 1) for part in query.split("&")]
        for key, _ in criteria:
            if key.strip() not in _SLOT_FIELDS:
                raise ValueError(
                    f"unknown field {key!r} in {{{query}}}; use one of {', '.join(_SLOT_FIELDS)}"
                )
        for i, desc in items:
            if all(_matches(desc, k.strip(), v) for k, v in criteria):
                return i
        return None
    for key in ("aria-label", "placeholder", "text"):
        for i, desc in items:
            if _matches(desc, key, query):
                return i
    return None


@dataclass(frozen=True)
class ScriptedPolicy:
    """Plays a fixed list of actions per task name, one per step; None when the list is done.

    ``{query}`` in an action becomes the quoted index of the first element `find_index` finds in
    the current observation (``fill({name=user}, 'agent')``, ``click({text=Sign in})``); when
    nothing matches the action is ``report_infeasible``. Stateless and picklable: it works in
    worker processes and Ray tasks, and with several environments at once.
    """

    scripts: Mapping[str, Sequence[str]]

    def __call__(self, obs: dict[str, Any], info: dict[str, Any], task: TaskSpec) -> str | None:
        script = self.scripts.get(task.name, ())
        step = int(info.get("step", 0))
        if step >= len(script):
            return None
        action = script[step]
        missing: list[str] = []

        def fill(match: re.Match[str]) -> str:
            found = find_index(obs.get("element_index", {}), match.group(1))
            if found is None:
                missing.append(match.group(1))
                return "''"
            return repr(str(found))

        action = _SLOT.sub(fill, action)
        if missing:
            return f"report_infeasible({('no element matches {' + missing[0] + '}')!r})"
        return action


@dataclass
class EpisodeResult:
    """What one episode did; picklable, so workers return it across processes and Ray."""

    task: str
    episode_id: str = ""
    success: bool = False
    reward: float = 0.0
    steps: int = 0
    done: bool = False
    error: str | None = None
    reset_ms: float = 0.0
    step_ms: list[float] = field(default_factory=list)
    phase_ms: dict[str, float] = field(default_factory=dict)  # action, settle, capture: summed over steps
    total_ms: float = 0.0
    trajectory: str | None = None
    worker: str = ""
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


async def run_episode(
    env: BrowserEnv,
    task: TaskSpec,
    policy: Policy,
    *,
    seed: int | None = None,
    max_steps: int | None = None,
    success_threshold: float = 1.0,
) -> EpisodeResult:
    """reset, then policy(obs, info, task) → action → step, until done or max_steps; then the reward.

    The policy may be sync or async and returns an action (or None to stop). An exception in the
    episode is reported in the result, never raised: one bad page must not end a long run.
    """
    t0 = time.perf_counter()
    result = EpisodeResult(task=task.name, worker=_worker_name(), seed=task.seed if seed is None else seed)
    try:
        obs = await env.reset(task=task, seed=seed)
        result.episode_id = env.episode_id or ""
        result.trajectory = env.trajectory_path
        info = env.last_info
        result.reset_ms = info["timings"]["reset_ms"]
        for _ in range(max_steps or task.max_steps):
            action = policy(obs, info, task)
            if inspect.isawaitable(action):
                action = await action
            if action is None:
                break
            obs, info = await env.step(action)
            result.steps += 1
            timings = info["timings"]
            result.step_ms.append(timings["step_ms"])
            for phase in ("action_ms", "settle_ms", "capture_ms"):
                result.phase_ms[phase] = result.phase_ms.get(phase, 0.0) + timings.get(phase, 0.0)
            if info["done"]:
                break
        result.done = env.done
        result.reward = await env.reward() if task.reward_js else 0.0
        result.success = result.reward >= success_threshold
    except Exception as exc:
        log.debug("episode failed", exc_info=True)
        result.error = f"{type(exc).__name__}: {exc}"
    result.total_ms = (time.perf_counter() - t0) * 1000
    return result


async def run_tasks(
    tasks: Sequence[TaskSpec],
    policy: Policy,
    *,
    browser: Browser | None = None,
    endpoint: str | None = None,
    concurrency: int = 1,
    pages: Mapping[str, str | bytes] | None = None,
    base_url: str | None = None,
    launch_options: Mapping[str, Any] | None = None,
    env_options: Mapping[str, Any] | None = None,
    success_threshold: float = 1.0,
    on_result: Callable[[EpisodeResult], Awaitable[None] | None] | None = None,
) -> list[EpisodeResult]:
    """Run tasks over `concurrency` environments sharing one Chromium (given, connected or launched).

    ``pages`` are served by a `TaskSite` of this worker; relative start URLs resolve against it.
    Results come back in task order.
    """
    results: list[EpisodeResult | None] = [None] * len(tasks)
    async with contextlib.AsyncExitStack() as stack:
        if pages:
            site = await stack.enter_async_context(TaskSite(pages))
            base_url = site.url
        if browser is None:
            browser = await (connect(endpoint) if endpoint else launch(**dict(launch_options or {})))
            stack.push_async_callback(browser.close)
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(len(tasks)):
            queue.put_nowait(i)

        async def worker() -> None:
            env = BrowserEnv(browser, base_url=base_url, **dict(env_options or {}))  # type: ignore[arg-type]
            try:
                while not queue.empty():
                    i = queue.get_nowait()
                    result = await run_episode(env, tasks[i], policy, success_threshold=success_threshold)
                    results[i] = result
                    if on_result is not None:
                        maybe = on_result(result)
                        if inspect.isawaitable(maybe):
                            await maybe
            finally:
                await env.close()

        await asyncio.gather(*[worker() for _ in range(max(1, min(concurrency, len(tasks))))])
    return [
        r if r is not None else EpisodeResult(task=t.name, error="not run")
        for r, t in zip(results, tasks, strict=True)
    ]


def _worker_entry(
    chunk: list[tuple[int, TaskSpec]], policy: Policy, options: dict[str, Any]
) -> list[tuple[int, EpisodeResult]]:
    """One worker (process or Ray task): its own event loop and Chromium (or remote browser)."""
    tasks = [t for _, t in chunk]
    results = asyncio.run(run_tasks(tasks, policy, **options))
    return [(i, r) for (i, _), r in zip(chunk, results, strict=True)]


def _chunks(tasks: Sequence[TaskSpec], workers: int) -> list[list[tuple[int, TaskSpec]]]:
    chunks: list[list[tuple[int, TaskSpec]]] = [[] for _ in range(max(1, min(workers, len(tasks))))]
    for i, task in enumerate(tasks):
        chunks[i % len(chunks)].append((i, task))
    return chunks


def _worker_options(
    i: int,
    endpoints: Sequence[str] | None,
    concurrency: int,
    pages: Mapping[str, str | bytes] | None,
    base_url: str | None,
    launch_options: Mapping[str, Any] | None,
    env_options: Mapping[str, Any] | None,
    success_threshold: float,
) -> dict[str, Any]:
    return {
        "endpoint": endpoints[i % len(endpoints)] if endpoints else None,
        "concurrency": concurrency,
        "pages": dict(pages) if pages else None,
        "base_url": base_url,
        "launch_options": dict(launch_options or {}),
        "env_options": dict(env_options or {}),
        "success_threshold": success_threshold,
    }


def _gather(
    tasks: Sequence[TaskSpec], parts: Iterable[list[tuple[int, EpisodeResult]]]
) -> list[EpisodeResult]:
    results: list[EpisodeResult | None] = [None] * len(tasks)
    for i, r in itertools.chain.from_iterable(parts):
        results[i] = r
    return [
        r if r is not None else EpisodeResult(task=t.name, error="not run")
        for r, t in zip(results, tasks, strict=True)
    ]


def run_in_processes(
    tasks: Sequence[TaskSpec],
    policy: Policy,
    *,
    workers: int = 2,
    concurrency: int = 1,
    pages: Mapping[str, str | bytes] | None = None,
    base_url: str | None = None,
    endpoints: Sequence[str] | None = None,
    launch_options: Mapping[str, Any] | None = None,
    env_options: Mapping[str, Any] | None = None,
    success_threshold: float = 1.0,
) -> list[EpisodeResult]:
    """Fan tasks out over `workers` spawned processes, each with one Chromium and `concurrency` envs.

    The policy must be picklable (a module-level function). With `endpoints`, workers connect to
    those browsers (round robin) instead of launching one.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = _chunks(tasks, workers)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=len(chunks), mp_context=ctx) as pool:
        futures = [
            pool.submit(
                _worker_entry,
                chunk,
                policy,
                _worker_options(
                    i, endpoints, concurrency, pages, base_url, launch_options, env_options, success_threshold
                ),
            )
            for i, chunk in enumerate(chunks)
        ]
        return _gather(tasks, [f.result() for f in futures])


def run_with_ray(
    tasks: Sequence[TaskSpec],
    policy: Policy,
    *,
    workers: int | None = None,
    concurrency: int = 1,
    pages: Mapping[str, str | bytes] | None = None,
    base_url: str | None = None,
    endpoints: Sequence[str] | None = None,
    launch_options: Mapping[str, Any] | None = None,
    env_options: Mapping[str, Any] | None = None,
    success_threshold: float = 1.0,
    ray_init: Mapping[str, Any] | None = None,
    num_cpus_per_worker: float = 1.0,
) -> list[EpisodeResult]:
    """Fan tasks out as Ray tasks, each with one Chromium (or a remote browser) and `concurrency` envs.

    Uses the running Ray (``ray.init`` is called with `ray_init` when none is): locally that
    starts a one-machine Ray; with ``RAY_ADDRESS`` set (or ``ray_init={"address": "auto"}``) the
    same call runs on a cluster. `workers` defaults to the cluster's CPUs. Needs ``cdp-engine[ray]``.
    """
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ImportError("run_with_ray needs Ray: pip install 'cdp-engine[ray]'") from exc
    if not ray.is_initialized():
        ray.init(**dict(ray_init or {}))
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1) // max(num_cpus_per_worker, 0.01)))
    remote = ray.remote(num_cpus=num_cpus_per_worker, max_retries=0)(_worker_entry)
    chunks = _chunks(tasks, workers)
    refs = [
        remote.remote(
            chunk,
            policy,
            _worker_options(
                i, endpoints, concurrency, pages, base_url, launch_options, env_options, success_threshold
            ),
        )
        for i, chunk in enumerate(chunks)
    ]
    return _gather(tasks, ray.get(refs))


# ----- replay ----------------------------------------------------------------------------------


@dataclass
class ReplayStep:
    """One step of a replay next to its recording (step 0 is the reset observation)."""

    step: int
    action: Any
    recorded_hash: str | None
    replayed_hash: str | None
    recorded_digest: str | None = None
    replayed_digest: str | None = None
    recorded_error: str | None = None
    replayed_error: str | None = None

    @property
    def match(self) -> bool:
        return self.recorded_hash == self.replayed_hash


@dataclass
class ReplayReport:
    """The replay of one recorded episode: ``diverged_at`` is the first step whose state_hash differs."""

    path: str
    steps: list[ReplayStep] = field(default_factory=list)
    diverged_at: int | None = None

    @property
    def ok(self) -> bool:
        return self.diverged_at is None

    @property
    def first_divergence(self) -> ReplayStep | None:
        return next((s for s in self.steps if not s.match), None)

    def summary(self) -> str:
        if self.ok:
            return f"{self.path}: {len(self.steps)} states replayed, identical state_hash at every step"
        d = self.first_divergence
        assert d is not None
        return (
            f"{self.path}: state_hash diverges at step {d.step} (action {d.action!r}): recorded "
            f"{(d.recorded_hash or '')[:12]} vs replayed {(d.replayed_hash or '')[:12]}"
            f"{'; element index also differs' if d.recorded_digest != d.replayed_digest else '; element index identical'}"
        )


async def replay(
    path: str | os.PathLike[str],
    browser: Browser,
    *,
    stop_on_divergence: bool = False,
    base_url: str | None = None,
) -> ReplayReport:
    """Re-run a recorded episode's actions on the same pages in a fresh context; compare every state_hash.

    The recording's start URL, seed, init scripts and setup_js are reused, so deterministic pages
    replay to identical hashes. `base_url` rewrites the recorded start URL's origin (a page served
    elsewhere); the hashes include the URL, so expect divergence then unless it is the same.
    """
    header, steps, _end = read_trajectory(path)
    if not header:
        raise ValueError(f"{path}: no episode header")
    start_url = header["start_url"]
    if base_url:
        from urllib.parse import urlsplit, urlunsplit

        parts, base = urlsplit(start_url), urlsplit(base_url)
        start_url = urlunsplit((base.scheme, base.netloc, parts.path, parts.query, parts.fragment))
    task = TaskSpec(
        name=header.get("task", "replay"),
        start_url=start_url,
        setup_js=header.get("setup_js"),
        reward_js=header.get("reward_js"),
        init_scripts=tuple(header.get("init_scripts") or ()),
    )
    report = ReplayReport(str(path))
    env = BrowserEnv(browser, wait_until=header.get("wait_until", "load"))
    try:
        await env.reset(task=task, seed=header.get("seed"))
        info = env.last_info
        for rec in steps:
            if rec["step"] > 0:
                _obs, info = await env.step(rec["action"])
            err = info["error"]
            rerr = rec.get("error")
            item = ReplayStep(
                step=rec["step"],
                action=rec.get("action"),
                recorded_hash=rec.get("state_hash"),
                replayed_hash=info["state_hash"],
                recorded_digest=rec.get("content_digest"),
                replayed_digest=info["content_digest"],
                recorded_error=rerr["code"] if rerr else None,
                replayed_error=err["code"] if err else None,
            )
            report.steps.append(item)
            if not item.match and report.diverged_at is None:
                report.diverged_at = item.step
                if stop_on_divergence:
                    break
    finally:
        await env.close()
    return report
