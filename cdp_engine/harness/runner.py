"""Running episodes: one (`run_episode`), many in one Chromium (`run_tasks`), and fanned out over
spawned processes (`run_in_processes`) or Ray tasks (`run_with_ray`), all returning `EpisodeResult`s.

The worker entry points are module-level functions, so processes and Ray can pickle them by name.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..core.browser import Browser
from ..index.agent_tab import connect, launch
from .env import BrowserEnv
from .scripted import Policy
from .tasks import TaskSite, TaskSpec

__all__ = ["EpisodeResult", "run_episode", "run_in_processes", "run_tasks", "run_with_ray"]

log = logging.getLogger("cdp_engine.harness")


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
    step_ms: list[float] = field(default_factory=list)  # the steps whose action succeeded
    step_errors: list[str] = field(default_factory=list)  # the others' "CODE: message": failures, never timings
    phase_ms: dict[str, float] = field(default_factory=dict)  # action, settle, capture: summed over step_ms's steps
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
            if info["error"]:
                result.step_errors.append(info["last_action_error"])
            else:
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
