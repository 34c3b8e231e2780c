"""The gym-style environment: `BrowserEnv` (reset, step, observe, close) on one browser.

Why: benchmark harnesses run thousands of web-agent episodes. Relaunching Chromium per episode
costs seconds; a fresh browser context (own cookies, storage, cache, permissions) costs
milliseconds, so each worker keeps one Chromium and every episode gets its own context.

``reset(start_url, seed=None)`` → observation, ``step(action)`` → (observation, info),
``close()``. The observation is the element index state; ``step`` takes protocol action objects
and BrowserGym-style strings (`bgym` parses them, `actions.BGymActions` runs them). The episode's
tabs (popups followed, closed tabs replaced) and its context pool are kept here. See docs/harness.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..core import storage
from ..core.browser import Browser, BrowserContext
from ..core.lifecycle import WaitUntil
from ..core.liveness import bounded
from ..core.policies import origin_policy
from ..core.settle import SettleReport
from ..core.tab import Tab
from ..errors import CDPEngineError, CommandTimeoutError
from ..index.actions import ActionValidationError
from ..index.agent_tab import connect, launch
from ..index.element_index import ElementIndex
from ..snapshot.capture import content_digest
from ..snapshot.extended import check_mode
from ..version import __version__
from .observations import Observations, snapshot_title
from .pool import ContextPool
from .step_actions import BGymActions, parse_action
from .tabs import POPUP_WAIT, EpisodeTabs, Screenshot, load_page
from .tasks import TaskSpec, read_reward, seed_script
from .trajectory import TrajectoryRecorder

__all__ = ["POPUP_WAIT", "BrowserEnv"]

log = logging.getLogger("cdp_engine.harness")


class _Timer:
    """Per-step phase clock: the settle phase is the sum of the engine's own settle reports."""

    __slots__ = ("settle",)

    def __init__(self) -> None:
        self.settle = 0.0

    def add(self, report: SettleReport) -> None:
        """A settle listener (ElementIndex.add_settle_listener): the time after the input, in seconds."""
        self.settle += report.settle_ms / 1000



async def _owning(
    cls: type[BrowserEnv], starting: Awaitable[Browser], env_options: dict[str, Any], profile_logins: bool
) -> BrowserEnv:
    """An environment that owns the browser being started (closed again if the environment cannot be made);
    `profile_logins`: episodes start with the cookies of its persistent profile's default context."""
    browser = await starting
    try:
        if profile_logins and env_options.get("storage_state") is None:
            env_options["storage_state"] = await browser.default_context.storage_state()
        env = cls(browser, **env_options)
    except BaseException:
        await browser.close()
        raise
    env._owns_browser = True
    return env

class BrowserEnv:
    """A gym-style environment on one browser: every episode in a fresh, isolated browser context.

    ``screenshot`` puts the screenshot in the observation (base64, as in the state); ``read_page``
    adds ``read_page`` (the state's page_content, for now); ``init_scripts`` run at the start of
    every document in every frame of every tab of each episode (popups included: they are added
    when the tab attaches, before it runs); ``permissions`` are granted to each episode's context.
    ``changes`` adds ``changes``: what changed since the tab's last observation, every index kept (docs/changes.md).
    ``prewarm`` prepares the next episode's context and blank tab while the current one runs: a
    new context needs a new renderer process, the one slow part of a reset; the old context is
    disposed in the background. ``interactive="extended"``: observations hold the extended set. ``som``: BrowserGym's
    set-of-marks observation, ``screenshot_som`` (the state's own screenshot, marked with each index) and
    ``element_boxes`` (docs/marks.md). ``step_timeout`` / ``reset_timeout``: each call's one overall deadline
    (default navigation_timeout + command_timeout, act()'s; see docs/architecture.md#deadlines). ``allowed_origins`` / ``blocked_origins``: what an episode may reach, redirects and popups too (docs/policies.md).
    """

    def __init__(
        self,
        browser: Browser,
        *,
        screenshot: Screenshot = False,
        read_page: bool = False,
        som: bool = False,
        init_scripts: Iterable[str] = (),
        permissions: Iterable[str] = (),
        record_dir: str | os.PathLike[str] | None = None,
        record_screenshots: bool = False,
        wait_until: WaitUntil = "load",
        base_url: str | None = None,
        prewarm: bool = True,
        step_timeout: float | None = None,
        reset_timeout: float | None = None,
        allowed_origins: Iterable[str] = (), blocked_origins: Iterable[str] = (),
        storage_state: storage.Source | None = None, changes: bool = False, interactive: str | None = None,
    ) -> None:
        self.browser = browser
        self.initial_state = storage.load(storage_state) if storage_state is not None else None  # checked now
        self.navigation_policy = origin_policy(allowed_origins, blocked_origins, "pass BrowserEnv(allowed_origins=...)")
        default = browser.navigation_timeout + browser.connection.default_timeout
        self.step_timeout = default if step_timeout is None else step_timeout
        self.reset_timeout = default if reset_timeout is None else reset_timeout
        self.init_scripts = list(init_scripts)
        self.permissions = list(permissions)
        self.wait_until: WaitUntil = wait_until
        self.base_url = base_url
        self.recorder = TrajectoryRecorder(record_dir, screenshots=record_screenshots) if record_dir else None
        self.observations = Observations(screenshot, read_page, changes, som, self.recorder is not None and record_screenshots)
        self.task: TaskSpec | None = None
        self.seed: int | None = None
        self.episode_id: str | None = None
        self.trajectory_path: str | None = None
        self.step_count = 0
        self.done = False
        self.last_info: dict[str, Any] = {}
        self.last_reward: float | None = None
        self._timer = _Timer()
        self._owns_browser = False
        self._closed = False
        self.prewarm = prewarm
        self._pool = ContextPool(browser, self.initial_state)
        self._tabs = EpisodeTabs(browser, self.observations.capture_format, self._timer.add, self._pool.background)
        # Every episode tab's interactive set (docs/extended.md); None: the tab's own (launch(interactive=)).
        self._tabs.interactive = None if interactive is None else check_mode(interactive)
        self._actions = BGymActions(browser, self._tabs)

    # ----- construction -----------------------------------------------------------------------

    @classmethod
    async def launch(cls, launch_options: Mapping[str, Any] | None = None, **env_options: Any) -> BrowserEnv:
        """An environment on its own new Chromium, closed with it (a `user_data_dir`: see docs/harness.md)."""
        return await _owning(cls, launch(**dict(launch_options or {})), env_options, bool((launch_options or {}).get("user_data_dir")))

    @classmethod
    async def connect(
        cls, endpoint: str | None = None, connect_options: Mapping[str, Any] | None = None, **env_options: Any
    ) -> BrowserEnv:
        """An environment on a running browser (ws://, http://host:port, None / "auto"); close() detaches."""
        return await _owning(cls, connect(endpoint, **dict(connect_options or {})), env_options, False)

    # ----- tabs of the episode (kept by EpisodeTabs) ------------------------------------------

    @property
    def context(self) -> BrowserContext | None:
        """The current episode's browser context."""
        return self._tabs.context

    @property
    def tabs(self) -> list[Tab]:
        """The episode's tabs, in opening order (closed ones until open_tabs drops them)."""
        return self._tabs.tabs

    @property
    def active(self) -> Tab | None:
        return self._tabs.active

    @property
    def open_tabs(self) -> list[Tab]:
        """The episode's open tabs, in opening order."""
        return self._tabs.open_tabs

    @property
    def active_closed(self) -> bool:
        return self._tabs.active_closed

    @property
    def last_teardown_ms(self) -> float:
        """How long disposing the last episode's context took."""
        return self._pool.last_teardown_ms

    async def storage_state(self, *, path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The current episode's logins (context.storage_state()), saved owner-only to `path` when given."""
        if self.context is None:
            raise RuntimeError("no episode: call reset() first")
        return await self.context.storage_state(path=path)

    async def tab_info(self) -> list[dict[str, Any]]:
        """The open tabs: index, url, title, active (the active tab's title read from its document)."""
        return await self._tabs.info()

    # ----- episodes ---------------------------------------------------------------------------

    async def reset(
        self, start_url: str | None = None, seed: int | None = None, *, task: TaskSpec | None = None
    ) -> dict[str, Any]:
        """End the current episode, start a fresh one, return its observation. The old episode's context is
        disposed once the new page is up; with `prewarm` the next episode's context is prepared then too.

        With a `task`, start_url defaults to the task's, setup_js runs once the page loaded, and
        reward_js is read after every step. A seed makes Math.random deterministic (`seed_script`).
        """
        if self._closed:
            raise RuntimeError("the environment is closed")
        t0 = time.perf_counter()
        previous = self._end_episode()
        try:
            observation = await self._start_episode(t0, start_url, seed, task)
        finally:
            self._pool.dispose(previous)  # once the new page is up (or the reset failed), not during its load
        if self.prewarm:  # after the reset, not during it: the spare's renderer start would slow this load
            self._pool.prepare()
        return observation

    async def _start_episode(
        self, t0: float, start_url: str | None, seed: int | None, task: TaskSpec | None
    ) -> dict[str, Any]:
        t_teardown = time.perf_counter()
        task = _episode_task(task, start_url)
        seed = task.seed if seed is None else seed
        url = task.resolve(self.base_url)
        self.task, self.seed = task, seed
        self.episode_id = uuid.uuid4().hex
        self.step_count, self.done, self.last_reward = 0, False, None
        self._new_step()
        episode_scripts = [*self.init_scripts, *task.init_scripts]
        scripts = ([seed_script(seed)] if seed is not None else []) + episode_scripts

        loop = asyncio.get_running_loop()
        end = loop.time() + self.reset_timeout  # one deadline for the context, the load, setup_js and the capture
        async with _typed_deadline(end, "reset", self.reset_timeout):
            context, tab = await self._pool.take()
            self._tabs.begin(context, tab, scripts)
            setup: list[Awaitable[Any]] = [tab.add_init_script(source) for source in scripts]
            if self.permissions:
                setup.append(context.grant_permissions(self.permissions))
            setup.append(context.set_navigation_policy(self.navigation_policy))  # None: the browser's, unguarded
            await asyncio.gather(*setup)
        t_context = time.perf_counter()
        load = load_page(tab, url, task, self.wait_until, self.observations.capture_format())
        phases, state = await bounded(tab, load, "reset", end - loop.time())
        t_end = time.perf_counter()
        self.trajectory_path = None
        if self.recorder is not None:
            self.trajectory_path = str(self.recorder.begin(_header(self, task, url, episode_scripts)))
        timings = {
            "teardown_ms": self.last_teardown_ms,
            "context_ms": (t_context - t_teardown) * 1000,
            "load_ms": phases["navigation_ms"] + phases["ready_ms"],
            **phases,
            "reset_ms": (t_end - t_teardown) * 1000,
            "total_ms": (t_end - t0) * 1000,
        }
        info = _info(self, state, None, timings, await self._tabs.info(snapshot_title(self._tabs.active, state)), action=None)
        self._record(0, None, state, info)
        self.last_info = info
        return await self.observations.build(state, self.active)

    async def step(self, action: str | Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Run one action (a protocol action object, its JSON text, or BrowserGym call text).

        Returns (observation, info). A failed or malformed action changes nothing: the
        observation is the previous state and info["error"] says why.
        """
        tab = self.active
        if tab is None or self.context is None:
            raise RuntimeError("call reset() before step()")
        t0 = time.perf_counter()
        end = asyncio.get_running_loop().time() + self.step_timeout  # one deadline for the whole step
        self._new_step()
        capture_ms = 0.0
        ran: list[Any] = []
        finished: dict[str, str] | None = None
        try:
            calls = parse_action(action)
        except ActionValidationError as exc:
            state = await self._actions.previous_state(tab)
            state["error"] = exc.to_error()
        else:
            try:
                state, capture_ms, ran, finished = await bounded(
                    tab, self._actions.run_calls(tab, calls, action), "step", self.step_timeout
                )
            except CDPEngineError as exc:  # the step's deadline, a hung renderer: the page as it was
                state = await self._actions.fault_state(tab, exc, action)
            if "error" not in state:
                popped = await self._tabs.follow()
                if popped is not None:
                    state, cms = popped
                    capture_ms += cms
        t_end = time.perf_counter()
        self.step_count += 1
        if finished is not None:
            self.done = True
        error = state.pop("error", None)
        reads_reward = self.task is not None and bool(self.task.reward_js) and not self.active_closed
        left = max(0.1, min(10.0, end - asyncio.get_running_loop().time()))
        # reward_js and the tab list in flight together: one round trip for both
        tab_list = self._tabs.info(snapshot_title(self._tabs.active, state))
        reward, tabs = await asyncio.gather(self.reward(timeout=left) if reads_reward else _none(), tab_list)
        timings = _step_timings(t0, t_end, self._timer.settle * 1000, capture_ms, error, self._tabs.active)
        info = _info(self, state, error, timings, tabs, action=action, ran=ran, reward=reward, finished=finished)
        self._record(self.step_count, action, state, info)
        self.last_info = info
        return await self.observations.build(state, self.active), info

    async def observe(self) -> dict[str, Any]:
        """The active tab's current state as an observation, without acting (cached when unchanged)."""
        if self.active is None:
            raise RuntimeError("call reset() first")
        state = await ElementIndex.of(self.active).state(screenshot=self.observations.capture_format())
        return await self.observations.build(state, self.active)

    async def evaluate(self, js: str, *, timeout: float | None = None) -> Any:
        """Evaluate JavaScript in the active tab (promises awaited): task setup, checks, rewards."""
        if self.active is None:
            raise RuntimeError("call reset() first")
        return await self.active.evaluate(js, timeout=timeout)

    async def reward(self, *, timeout: float = 10.0) -> float:
        """The task's reward_js read in the active tab (tasks.read_reward); 0.0 without one."""
        active = self._tabs.active
        if self.task is None or not self.task.reward_js or active is None or active.closed:
            return 0.0
        self.last_reward = await read_reward(active, self.task.reward_js, timeout)
        return self.last_reward

    async def close(self) -> None:
        """End the episode, dispose its context, stop listening (and close the browser if the env owns it)."""
        if self._closed:
            return
        self._closed = True
        try:
            self._pool.dispose(self._end_episode())
            await self._pool.close()
        finally:
            self._tabs.close()
            if self._owns_browser:
                await self.browser.close()

    async def __aenter__(self) -> BrowserEnv:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ----- internals --------------------------------------------------------------------------

    def _end_episode(self) -> BrowserContext | None:
        """End the current episode (its trajectory, its tabs); its context, for the caller to dispose."""
        if self.recorder is not None:
            self.recorder.end(
                {"steps": self.step_count, "done": self.done, "reward": self.last_reward, "time": time.time()}
            )
        return self._tabs.end()

    def _record(self, step: int, action: Any, state: dict[str, Any], info: dict[str, Any]) -> None:
        if self.recorder is not None:
            fmt = "jpeg" if self.observations.capture_format() == "jpeg" else "png"
            self.recorder.record_step(step, action, state, info, fmt)

    def _new_step(self) -> None:
        self._timer.settle = 0.0
        self._tabs.new_step()


def _info(
    env: BrowserEnv,
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
    """The info dict reset() and step() return (docs/harness.md lists its keys)."""
    return {
        "episode_id": env.episode_id,
        "step": env.step_count,
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
        "done": env.done,
        "message": finished["message"] if finished else None,
        "infeasible": bool(finished and finished["action"] == "fail_task"),
    }


async def _none() -> None:
    return None


def _step_timings(
    t0: float, t_end: float, settle_ms: float, capture_ms: float, error: Any, active: Tab | None
) -> dict[str, Any]:
    """A step's timings (docs/harness.md): the action, its settle and capture, the capture's own phases;
    info_ms, after it, is reading reward_js and the tab list."""
    total_ms = (t_end - t0) * 1000
    timings: dict[str, Any] = {
        "action_ms": max(0.0, total_ms - settle_ms - capture_ms),
        "settle_ms": settle_ms,
        "capture_ms": capture_ms,
        "step_ms": total_ms,
    }
    if error is None and active is not None:
        for key in ("snapshot_ms", "build_ms", "ax_ms", "cached"):
            if key in active.last_timings:
                timings[key] = active.last_timings[key]
    timings["info_ms"] = (time.perf_counter() - t_end) * 1000
    return timings


def _header(env: BrowserEnv, task: TaskSpec, url: str, init_scripts: list[str]) -> dict[str, Any]:
    """A trajectory's header: what replay() needs to start the same episode again."""
    return {
        "episode_id": env.episode_id,
        "task": task.name,
        "goal": task.goal,
        "start_url": url,
        "seed": env.seed,
        "setup_js": task.setup_js,
        "reward_js": task.reward_js,
        "init_scripts": init_scripts,
        "viewport": list(env.browser.viewport_size),
        "wait_until": env.wait_until,
        "engine": __version__,
        "time": time.time(),
    }


def _episode_task(task: TaskSpec | None, start_url: str | None) -> TaskSpec:
    """The reset's task: the given one (its start_url replaced when one is given), or a bare URL task."""
    if task is None:
        if start_url is None:
            raise ValueError("reset needs a start_url or a task")
        return TaskSpec(name="url", start_url=start_url)
    return task if start_url is None else replace(task, start_url=start_url)


@contextlib.asynccontextmanager
async def _typed_deadline(end: float, what: str, timeout: float) -> AsyncIterator[None]:
    """asyncio.timeout_at(end), its expiry raised as the engine's CommandTimeoutError(what, timeout)."""
    try:
        async with asyncio.timeout_at(end):
            yield
    except TimeoutError as exc:
        if isinstance(exc, CommandTimeoutError):
            raise
        raise CommandTimeoutError(what, timeout) from None
