"""Harness mode: isolated episodes, a gym-style environment, parallel runs, trajectories and replay (docs/harness.md)."""

from .env import (
    BrowserEnv,
    EpisodeResult,
    ReplayReport,
    ReplayStep,
    ScriptedPolicy,
    TaskSite,
    TaskSpec,
    TrajectoryRecorder,
    find_index,
    read_trajectory,
    replay,
    run_episode,
    run_in_processes,
    run_tasks,
    run_with_ray,
    seed_script,
)

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
