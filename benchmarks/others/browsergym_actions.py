"""BrowserGym: each action case as one `BrowserEnv.step(...)`, whose observation is the next state.

Runs inside benchmarks/.venv-others with the system Chromium (its chat window's browser too). The env is
BrowserGym's own (browsergym-core, an OpenEndedTask on the case's page) with its defaults: the step
waits pre_observation_delay (0.5 s) and the observation holds a screenshot, the DOM snapshot and the AX
tree. One timed run is `env.step(action)` plus `flatten_axtree_to_str` of the observation's AX tree (the
text an agent prompt holds). A step whose last_action_error is set is a failure. See actions.py.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from collections.abc import Callable

from action_cases import SCROLL_PX, Case, CaseRecord, Failed, by_id, parse_args, run_blocking, run_case, shows
from common import CHROMIUM, CHROMIUM_FLAGS, VIEWPORT, Watchdog, emit, error_text, package_version


def action_of(case: Case, bid: str, k: int, base: str) -> str:
    """BrowserGym's action text for the k-th action."""
    if case.kind == "click":
        return f"click({bid!r})"
    if case.kind == "type":
        return f"fill({bid!r}, {case.text(k)!r})"
    if case.kind == "select":
        return f"select_option({bid!r}, {case.option(k)!r})"
    if case.kind == "scroll":
        return f"scroll(0, {SCROLL_PX})"
    return f"goto({case.url(base, k)!r})"


def bid_of(env: Any, case: Case) -> str:
    """The bid BrowserGym gave the case's element (its observation marks every element with one)."""
    if not case.selector:
        return ""
    value = env.page.evaluate(f"document.querySelector({case.selector!r}).getAttribute('bid')")
    if not value:
        raise LookupError(f"{case.selector} has no bid")
    return str(value)


def steps(env: Any, case: Case, ns: Any, flatten: Callable[[Any], str]) -> tuple[Any, Any]:
    """The case's setup (env.reset on its page) and its timed step (env.step + the AX tree text), as
    coroutines that never suspend (run_blocking runs them)."""

    async def setup() -> None:
        env.reset()

    async def step(k: int) -> tuple[float, bool]:
        action = action_of(case, bid_of(env, case), k, ns.base)
        t0 = time.perf_counter()
        obs, _reward, _done, _trunc, _info = env.step(action)
        text = flatten(obs["axtree_object"])
        ms = (time.perf_counter() - t0) * 1000
        if obs.get("last_action_error"):
            raise Failed(str(obs["last_action_error"]))
        return ms, shows(text, case.expected(k))

    return setup, step


def main() -> None:
    ns = parse_args(__doc__ or "")
    wd = Watchdog(ns.timeout)
    emit(
        "system",
        name="browsergym",
        version=package_version("browsergym-core"),
        playwright=package_version("playwright"),
    )
    from browsergym.core import _get_global_playwright
    from browsergym.core.action.highlevel import HighLevelActionSet
    from browsergym.core.env import BrowserEnv
    from browsergym.core.task import OpenEndedTask
    from browsergym.utils.obs import flatten_axtree_to_str

    # BrowserGym launches its browsers (the task's and its chat window's) without an executable: use ours.
    pw = _get_global_playwright()
    launch = pw.chromium.launch

    def launch_system_chromium(**kw: Any) -> Any:
        kw.setdefault("executable_path", CHROMIUM)
        kw["args"] = [*kw.get("args", []), *(f for f in CHROMIUM_FLAGS[1:-1] if f != "--hide-scrollbars")]
        return launch(**kw)

    pw.chromium.launch = launch_system_chromium  # type: ignore[method-assign]
    actions = HighLevelActionSet(subsets=["bid", "coord", "nav"], strict=False, multiaction=False)
    for case in (by_id()[c] for c in ns.cases):
        env = BrowserEnv(
            task_entrypoint=OpenEndedTask,
            task_kwargs={"start_url": case.url(ns.base)},
            headless=True,
            viewport=dict(VIEWPORT),
            action_mapping=actions.to_python_code,
            timeout=int(ns.timeout * 1000),
        )
        rec = CaseRecord("browsergym", case.id)
        try:
            run_blocking(run_case(rec, ns, wd, *steps(env, case, ns, flatten_axtree_to_str)))
        finally:
            try:
                env.close()
            except Exception as exc:  # after the record: a note in the runner's log only
                print(f"env.close: {error_text(exc)}", file=sys.stderr)
    emit("done")


if __name__ == "__main__":
    main()
