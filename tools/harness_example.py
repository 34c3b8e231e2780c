"""An example benchmark harness: five small web tasks, scripted policies, rewards read through JavaScript.

    python tools/harness_example.py                      # 2 environments in one Chromium
    python tools/harness_example.py --envs 4 --repeat 4  # more at once, more episodes
    python tools/harness_example.py --processes 2        # 2 worker processes, one Chromium each
    python tools/harness_example.py --ray                # Ray: local, or the cluster in RAY_ADDRESS
    python tools/harness_example.py --endpoint ws://host:9222/devtools/browser/…  # a remote browser
    python tools/harness_example.py --record runs/ --replay   # write trajectories, then replay them

The task pages are in tools/tasks/ and are served from memory by each worker (`pages=`), so the
same script runs on one machine or a Ray cluster. Each policy reads only the observation (the
element index state) and answers with BrowserGym-style action strings; it stands in for a model.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from cdp_engine.harness import (
    EpisodeResult,
    TaskSite,
    TaskSpec,
    find_index,
    replay,
    run_in_processes,
    run_tasks,
    run_with_ray,
)

PAGES_DIR = Path(__file__).resolve().parent / "tasks"

TASKS = [
    TaskSpec(
        "login",
        "/login.html",
        goal="Sign in as agent (password hunter2).",
        # The account exists only in this episode's context: setup creates it, isolation forgets it.
        setup_js="localStorage.setItem('users', JSON.stringify({agent: 'hunter2'}))",
        reward_js="location.pathname === '/welcome.html' && document.cookie.includes('session=agent')",
    ),
    TaskSpec(
        "select",
        "/select.html",
        goal="Set the shipping country to Canada and save.",
        reward_js="localStorage.getItem('country') === 'ca'",
    ),
    TaskSpec(
        "preferences",
        "/checkbox.html",
        goal="Unsubscribe from the weekly newsletter, subscribe to product updates, keep partner offers; save.",
        reward_js="(() => { const p = JSON.parse(localStorage.getItem('prefs') || '{}');"
        " return p.newsletter === false && p.updates === true && p.offers === true; })()",
    ),
    TaskSpec(
        "search",
        "/search.html",
        goal="Search for widgets and open the blue widget.",
        reward_js="new URLSearchParams(location.search).get('id') === 'blue-widget'",
    ),
    TaskSpec(
        "activation",
        "/code.html",
        goal="Open the help page, read the activation code, and activate the licence with it.",
        # Seeded episodes get the same code every time (Math.random is seeded).
        setup_js="localStorage.setItem('code', 'K7-' + Math.floor(1000 + Math.random() * 9000))",
        reward_js="document.getElementById('status')?.textContent === 'Activated.'",
    ),
]

# Per-episode memory of a policy (an agent's scratchpad), keyed by info["episode_id"].
MEMORY: dict[str, dict[str, Any]] = {}


def _value(obs: dict[str, Any], index: int | None) -> Any:
    return obs["element_index"][str(index)]["attributes"]["value"] if index is not None else None


def _checked(obs: dict[str, Any], index: int | None) -> Any:
    return obs["element_index"][str(index)]["attributes"]["checked"] if index is not None else None


def policy(obs: dict[str, Any], info: dict[str, Any], task: TaskSpec) -> str | None:
    """A scripted agent: looks elements up by label in the element index and answers with action strings."""
    idx = obs["element_index"]
    content = obs["page_content"]
    if task.name == "login":
        if obs["url"].endswith("/welcome.html"):
            return "send_msg_to_user('Signed in.')"
        user, password = find_index(idx, "name=user"), find_index(idx, "name=pass")
        if _value(obs, user) != "agent":
            return f"fill('{user}', 'agent')"
        if not _value(obs, password):
            return f"fill('{password}', 'hunter2')"
        return f"click('{find_index(idx, 'text=Sign in')}')"
    if task.name == "select":
        if "Saved: ca" in content:
            return "send_msg_to_user('Saved Canada.')"
        country = find_index(idx, "tag=select")
        if _value(obs, country) != "ca":
            return f"select_option('{country}', 'Canada')"
        return f"click('{find_index(idx, 'text=Save')}')"
    if task.name == "preferences":
        if "Preferences saved." in content:
            return "send_msg_to_user('Preferences saved.')"
        newsletter, updates = find_index(idx, "name=newsletter"), find_index(idx, "name=updates")
        if _checked(obs, newsletter):
            return f"uncheck('{newsletter}')"
        if not _checked(obs, updates):
            return f"check('{updates}')"
        return f"click('{find_index(idx, 'text=Save preferences')}')"
    if task.name == "search":
        if "/product.html" in obs["url"]:
            return "send_msg_to_user('Opened the blue widget.')"
        result = find_index(idx, "text=Blue widget&tag=a")
        if result is not None:
            return f"click('{result}')"
        box = find_index(idx, "Search products")
        if _value(obs, box) != "widget":
            return f"fill('{box}', 'widget')"
        return f"press('{box}', 'Enter')"
    if task.name == "activation":
        memory = MEMORY.setdefault(info["episode_id"], {})
        if obs["url"].endswith("/code-help.html"):
            found = re.search(r"activation code: (?:<strong>)?([\w-]+)", content)
            if found:
                memory["code"] = found.group(1)
            return "tab_focus(0)"
        if "Activated." in content:
            MEMORY.pop(info["episode_id"], None)
            return "send_msg_to_user('Activated.')"
        if "code" not in memory:
            return f"click('{find_index(idx, 'text=help page')}')"
        field = find_index(idx, "name=code")
        if _value(obs, field) != memory["code"]:
            return f"fill('{field}', '{memory['code']}')"
        return f"click('{find_index(idx, 'text=Activate&tag=button')}')"
    return f"report_infeasible('no policy for task {task.name}')"


def pages() -> dict[str, str]:
    return {"/" + p.name: p.read_text() for p in sorted(PAGES_DIR.glob("*.html"))}


def task_list(repeat: int) -> list[TaskSpec]:
    from dataclasses import replace

    return [replace(task, seed=1000 * r + i) for r in range(repeat) for i, task in enumerate(TASKS)]


def _p50(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def report(results: list[EpisodeResult], elapsed: float, mode: str) -> None:
    print(
        f"\n{'task':<12} {'ok':>3} {'reward':>6} {'steps':>5} {'reset ms':>9} {'p50 step ms':>11}  worker / error"
    )
    for r in results:
        note = r.error or r.worker
        print(
            f"{r.task:<12} {'yes' if r.success else 'no':>3} {r.reward:>6.1f} {r.steps:>5} {r.reset_ms:>9.0f}"
            f" {_p50(r.step_ms):>11.0f}  {note}"
        )
    ok = sum(r.success for r in results)
    steps = [ms for r in results for ms in r.step_ms]
    phases = {
        k: sum(r.phase_ms.get(k, 0.0) for r in results) for k in ("action_ms", "settle_ms", "capture_ms")
    }
    total_phase = sum(phases.values()) or 1.0
    print(
        f"\n{mode}: success {ok}/{len(results)} ({100 * ok / max(1, len(results)):.0f} %), "
        f"{len(results) / elapsed:.1f} episodes/s over {elapsed:.1f} s; p50 reset {_p50([r.reset_ms for r in results]):.0f} ms, "
        f"p50 step {_p50(steps):.0f} ms ({len(steps)} steps); step time: "
        + ", ".join(f"{k[:-3]} {100 * v / total_phase:.0f} %" for k, v in phases.items())
    )


async def run_local(args: argparse.Namespace, tasks: list[TaskSpec]) -> list[EpisodeResult]:
    env_options: dict[str, Any] = {}
    if args.record:
        env_options.update(record_dir=args.record, record_screenshots=args.screenshots)
    async with TaskSite(pages()) as site:
        t0 = time.perf_counter()
        results = await run_tasks(
            tasks,
            policy,
            endpoint=args.endpoint,
            concurrency=args.envs,
            base_url=site.url,
            env_options=env_options,
            launch_options={"headless": not args.headful},
        )
        report(results, time.perf_counter() - t0, f"{args.envs} environment(s) in one Chromium")
        if args.replay and args.record:
            await replay_all(results, args.endpoint)
    return results


async def replay_all(results: list[EpisodeResult], endpoint: str | None) -> None:
    import cdp_engine

    print("\nreplay (same pages, same seeds):")
    async with cdp_engine.connect(endpoint) if endpoint else cdp_engine.launch() as browser:
        for r in results:
            if r.trajectory:
                rep = await replay(r.trajectory, browser)
                print(f"  {r.task:<12} {rep.summary()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=2, help="environments per Chromium (default 2)")
    parser.add_argument("--repeat", type=int, default=2, help="episodes per task (default 2)")
    parser.add_argument("--processes", type=int, default=0, help="worker processes, one Chromium each")
    parser.add_argument("--ray", action="store_true", help="fan out with Ray (RAY_ADDRESS picks a cluster)")
    parser.add_argument("--workers", type=int, default=None, help="Ray tasks (default: the cluster's CPUs)")
    parser.add_argument("--endpoint", default=None, help="a remote browser (ws:// or http://host:port)")
    parser.add_argument("--record", default=None, help="write one JSONL trajectory per episode here")
    parser.add_argument("--screenshots", action="store_true", help="with --record: PNG per step")
    parser.add_argument("--replay", action="store_true", help="with --record: replay every episode")
    parser.add_argument("--headful", action="store_true")
    args = parser.parse_args()
    tasks = task_list(args.repeat)
    if args.ray or args.processes:
        options: dict[str, Any] = {
            "concurrency": args.envs,
            "pages": pages(),
            "endpoints": [args.endpoint] if args.endpoint else None,
            "env_options": {"record_dir": str(Path(args.record).resolve())} if args.record else None,
        }
        t0 = time.perf_counter()
        if args.ray:
            results = run_with_ray(tasks, policy, workers=args.workers, **options)
            mode = "Ray"
        else:
            results = run_in_processes(tasks, policy, workers=args.processes, **options)
            mode = f"{args.processes} worker process(es)"
        report(results, time.perf_counter() - t0, f"{mode}, {args.envs} environment(s) each")
    else:
        results = asyncio.run(run_local(args, tasks))
    return 0 if all(r.success for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
