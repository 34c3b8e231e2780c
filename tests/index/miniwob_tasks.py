"""MiniWoB++ tasks with scripted, index-only policies (issue 18): strict vs extended interactive sets.

The pages are the `miniwob` package's own (PyPI `miniwob`, its `html/` folder), fetched with
`pip download miniwob==1.1.0 --no-deps` into benchmarks/.cache/miniwob and served from 127.0.0.1. An
episode is what the package's own environment does: load the task page, `Math.seedrandom(seed)`,
`core.startEpisodeReal()`, read `core.getUtterance()`; success is `WOB_RAW_REWARD_GLOBAL > 0` after the policy.

The policies act only through the element index: they read the utterance, look elements up by their
descriptor (text, role, tag, href) in `state["element_index"]`, and send protocol actions
(click_element, input_text, scroll). The same code runs in both modes; a policy that finds no element for
its next step gives up (the episode fails). Used by benchmarks/extended.py and tests/index/test_extended.py.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import zipfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

MINIWOB_VERSION = "1.1.0"
CACHE = Path(__file__).resolve().parents[2] / "benchmarks" / ".cache" / "miniwob"
TASKS = ("click-link", "click-collapsible", "click-tab-2", "use-autocomplete", "email-inbox")


def miniwob_html(cache: Path = CACHE) -> Path | None:
    """The package's html/ folder (downloaded once with pip), or None when it cannot be had."""
    html = cache / "html"
    if (html / "miniwob" / "click-link.html").exists():
        return html
    cache.mkdir(parents=True, exist_ok=True)
    wheel = next(cache.glob("miniwob-*.whl"), None)
    if wheel is None:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", f"miniwob=={MINIWOB_VERSION}", "--no-deps", "-d", str(cache)],
            capture_output=True,
            timeout=300,
        )
        wheel = next(cache.glob("miniwob-*.whl"), None)
        if done.returncode != 0 or wheel is None:
            return None
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith("miniwob/html/"):
                target = cache / "html" / name[len("miniwob/html/") :]
                if name.endswith("/"):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    return html if (html / "miniwob" / "click-link.html").exists() else None


# ----- the index-only policies ----------------------------------------------------------------------

State = dict[str, Any]


class Agent:
    """A tab seen only through the protocol: state() and act() in one interactive mode."""

    def __init__(self, tab: Any, mode: str) -> None:
        self.tab, self.mode = tab, mode
        self.steps = 0

    async def state(self) -> State:
        return dict(await self.tab.state(screenshot=False, interactive=self.mode))

    async def act(self, action: dict[str, Any]) -> State:
        self.steps += 1
        return dict(await self.tab.act(action, screenshot=False, interactive=self.mode))

    async def click(self, index: str) -> State:
        return await self.act({"action": "click_element", "element_index": int(index)})

    async def type(self, index: str, text: str) -> State:
        return await self.act({"action": "input_text", "element_index": int(index), "text": text, "overwrite": True})


def elements(state: State) -> list[tuple[str, dict[str, Any]]]:
    return sorted(state["element_index"].items(), key=lambda kv: int(kv[0]))


def text_of(d: dict[str, Any]) -> str:
    return " ".join((d.get("text_content") or "").split())


def find(state: State, pred: Callable[[dict[str, Any]], bool]) -> str | None:
    return next((i for i, d in elements(state) if pred(d)), None)


def quoted(utterance: str) -> list[str]:
    return re.findall(r'"([^"]*)"', utterance)


async def click_link(agent: Agent, utterance: str) -> None:
    word = quoted(utterance)[0]
    state = await agent.state()
    index = find(state, lambda d: text_of(d) == word)
    if index is not None:
        await agent.click(index)


async def click_until_gone(agent: Agent, state: State, pred: Callable[[dict[str, Any]], bool], tries: int = 3) -> None:
    """Click the element `pred` names until the state no longer offers it (a finished episode covers the
    page): a click that landed while the page was still animating is tried again."""
    for _ in range(tries):
        index = find(state, pred)
        if index is None:
            return
        state = await agent.click(index)


async def click_collapsible(agent: Agent, utterance: str) -> None:
    state = await agent.state()
    header = find(state, lambda d: d["role"] == "tab" or text_of(d).startswith("Section"))
    if header is None:
        return  # nothing to expand the section with
    state = await agent.click(header)
    await click_until_gone(agent, state, lambda d: text_of(d) == "Submit")


async def click_tab_2(agent: Agent, utterance: str) -> None:
    word = quoted(utterance)[0]
    state = await agent.state()
    tabs = [i for i, d in elements(state) if (d["attributes"].get("href") or "").startswith("#tabs-")]
    for tab in [None, *tabs]:
        if tab is not None:
            state = await agent.click(tab)
        index = find(state, lambda d: text_of(d) == word and not (d["attributes"].get("href") or "").startswith("#"))
        if index is not None:
            await agent.click(index)
            return


async def use_autocomplete(agent: Agent, utterance: str) -> None:
    parts = quoted(utterance)
    start, end = parts[0], parts[1] if len(parts) > 1 else ""
    state = await agent.state()
    field = find(state, lambda d: d["tag"] == "input" and d["attributes"]["type"] in ("text", None))
    if field is None:
        return
    await agent.type(field, start)
    pick = None
    for _ in range(20):  # jQuery UI shows the menu 300 ms after the input: look again, bounded
        state = await agent.state()
        pick = find(
            state,
            lambda d: d["tag"] != "input"
            and text_of(d).lower().startswith(start.lower())
            and text_of(d).lower().endswith(end.lower()),
        )
        if pick is not None:
            break
        await asyncio.sleep(0.1)
    if pick is None:
        return
    state = await agent.click(pick)
    submit = find(state, lambda d: text_of(d) == "Submit")
    if submit is not None:
        await agent.click(submit)


async def email_inbox(agent: Agent, utterance: str) -> None:
    m = re.match(r"Find the email by (.+?) and (.*)$", utterance)
    if not m:
        return
    name, rest = m.group(1), m.group(2)
    state = await agent.state()
    row = None
    for _ in range(6):  # rows below the fold: scroll until the sender's row is in the index
        row = find(state, lambda d: text_of(d).split(" ")[0] == name.split(" ")[0] and text_of(d).startswith(name))
        if row is not None:
            break
        state = await agent.act({"action": "scroll", "direction": "down"})
    if row is None:
        return
    order = [i for i, _ in elements(state)]
    after = order[order.index(row) + 1 :]
    if rest.startswith("click the trash"):  # the row's icons follow it: trash, then star
        if after:
            await agent.click(after[0])
        return
    if rest.startswith("click the star"):
        if len(after) > 1:
            await agent.click(after[1])
        return
    state = await agent.click(row)
    if rest.startswith("reply"):
        text = quoted(rest)[0]
        button = find(state, lambda d: text_of(d) == "Reply")
        if button is None:
            return
        state = await agent.click(button)
        box = find(state, lambda d: d["tag"] == "textarea")
        if box is None:
            return
        state = await agent.type(box, text)
    elif rest.startswith("forward"):
        to = re.match(r"forward that email to (.+)\.$", rest)
        button = find(state, lambda d: text_of(d) == "Forward")
        if button is None or to is None:
            return
        state = await agent.click(button)
        box = find(state, lambda d: d["tag"] == "input")
        if box is None:
            return
        state = await agent.type(box, to.group(1))
    else:
        return
    # The send icon: the last element without text before the first field of the form.
    first_field = find(state, lambda d: d["tag"] in ("input", "textarea"))
    if first_field is None:
        return
    icons = [i for i, d in elements(state) if int(i) < int(first_field) and not text_of(d) and d["tag"] == "span"]
    if icons:
        await agent.click(icons[-1])


POLICIES: dict[str, Callable[[Agent, str], Awaitable[None]]] = {
    "click-link": click_link,
    "click-collapsible": click_collapsible,
    "click-tab-2": click_tab_2,
    "use-autocomplete": use_autocomplete,
    "email-inbox": email_inbox,
}


async def episode(tab: Any, base_url: str, task: str, seed: int, mode: str) -> dict[str, Any]:
    """One seeded episode of a task with its policy; success when the raw reward is positive."""
    await tab.goto(f"{base_url}/miniwob/{task}.html")
    await tab.evaluate(f"Math.seedrandom({seed}); core.startEpisodeReal();")
    utterance = str(await tab.evaluate("core.getUtterance()"))
    agent = Agent(tab, mode)
    error = None
    try:
        await POLICIES[task](agent, utterance)
    except Exception as exc:  # a policy that breaks fails its episode, and says why
        error = f"{type(exc).__name__}: {exc}"
    result = await tab.evaluate("[WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL]")
    done, reward = bool(result[0]), float(result[1] or 0)
    return {"task": task, "seed": seed, "mode": mode, "utterance": utterance, "done": done,
            "reward": reward, "success": reward > 0, "steps": agent.steps, "error": error}  # fmt: skip
