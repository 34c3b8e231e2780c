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
from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.browser import Browser, BrowserContext, Tab
from ..core.lifecycle import WaitUntil, wait_loaded
from ..core.settle import SettleReport, dom_quiet
from ..errors import CDPEngineError
from ..index.actions import ActionValidationError
from ..index.element_index import ElementIndex
from ..index.tab import connect, launch
from ..snapshot.capture import content_digest
from ..version import __version__
from .actions import BGymActions, Screenshot, StepResult, parse_action
from .bgym import BGymCall
from .tasks import TaskSpec, seed_script
from .trajectory import TrajectoryRecorder

if TYPE_CHECKING:
    from ..cdp.connection import CDPSession

__all__ = ["POPUP_WAIT", "BrowserEnv"]

log = logging.getLogger("cdp_engine")

POPUP_WAIT = 3.0  # s a step waits for a window its page asked for to appear


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
        self._actions = BGymActions(browser, self._capture_format, self._new_tab, self._switch, lambda: self.open_tabs)

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
        tab = self.browser.tabs.get(info["targetId"])  # the Browser made it in its own attach callback
        if tab is not None:
            for source in self._scripts:  # sent now, so they go out before the tab's setup lets it run
                tab.add_init_script_nowait(source).add_done_callback(_quiet)
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
        setup: list[Awaitable[Any]] = [tab.add_init_script(source) for source in self._scripts]
        if self.permissions:
            setup.append(context.grant_permissions(self.permissions))
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
            calls = parse_action(action)
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
                        state, cms, protocol = await self._actions.run(tab, call, action)
                        ran.append(protocol if protocol is not None else call.source)
                    else:
                        state, cms = await self._actions.act(tab, call)
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
        if self.recorder is not None:
            fmt = "jpeg" if self._capture_format() == "jpeg" else "png"
            self.recorder.record_step(step, action, state, info, fmt)

    async def _previous_state(self, tab: Tab) -> dict[str, Any]:
        index = ElementIndex.of(tab)
        if index.current is not None:
            return dict(index.current.state)
        return await ElementIndex.of(tab).state(screenshot=self._capture_format())

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

    async def _follow_tabs(self) -> StepResult | None:
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

    async def _switch(self, target: Tab) -> StepResult:
        self.active = target
        with contextlib.suppress(CDPEngineError):
            await target.activate()
        t = time.perf_counter()
        state = await ElementIndex.of(target).state(screenshot=self._capture_format())
        return state, (time.perf_counter() - t) * 1000

