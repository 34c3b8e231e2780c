"""Harness mode: isolated episodes, a gym-style environment, parallel runs, trajectories and replay (docs/harness.md).

Modules, one job each: `tasks` (TaskSpec, TaskSite, seed_script), `env` (BrowserEnv), `actions`
(running a step's calls on the core), `bgym` (the BrowserGym call parser), `trajectory`
(TrajectoryRecorder, read_trajectory), `replay`, `policies` (ScriptedPolicy, find_index) and
`runner` (run_episode, run_tasks, run_in_processes, run_with_ray, EpisodeResult).
"""

from .env import BrowserEnv
from .replay import ReplayReport, ReplayStep, replay
from .runner import EpisodeResult, run_episode, run_in_processes, run_tasks, run_with_ray
from .scripted import ScriptedPolicy, find_index
from .tasks import TaskSite, TaskSpec, seed_script
from .trajectory import TrajectoryRecorder, read_trajectory

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
