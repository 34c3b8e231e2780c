"""Random walks through the component pages on every surface: the suite's invariants, counted after every action.

On each bundled component page, the one scripted agent (tests/realweb/steps.py) takes WALK_STEPS seeded random
steps through each surface in the extended mode: it clicks a control the surface shows (a button, a link, a tab,
an option, a box, a combobox) or types into a field, wherever the walk has taken the page (menus open, dialogs
up, rows scrolled). After every step the same counters as the tasks are read, and each must stay 0:

- wrong element: a click answered done whose press reached no element carrying the name the surface showed
  (checked for controls named by their own content: buttons, links, tabs, menu items, options);
- silent no-op: a click answered done that no trusted pointer event followed;
- stale state: what the surface shows next (served from cache or built on the last capture) differs from a full
  capture while the change probe saw no change in between.

A refusal (covered, not visible, changed since read) is an answer, not a failure: the walk goes on. The seed is the
page and the surface, so a run is the same walk every time.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from .conftest import ComponentSite
from .steps import CHECK_ROLES, Agent, Entry, norm
from .tasks import COMPONENT_TASKS

SURFACES = ("index", "toolset", "mcp")
WALK_STEPS = 12
PAGES = sorted({task.page for task in COMPONENT_TASKS})
CLICKED = {"button", "link", "tab", "menuitem", "menuitemradio", "menuitemcheckbox", "option", "treeitem",
           "combobox", "listbox", "switch"} | CHECK_ROLES  # fmt: skip
NAMED_BY_CONTENT = {"button", "link", "tab", "menuitem", "option", "treeitem"}
TYPED = {"textbox", "searchbox"}


def _native_option(agent: Agent, entry: Entry) -> bool:
    """An option of a native <select> in the element index: chosen by select_option, not a press."""
    state: dict[str, Any] = getattr(agent, "state", {})
    element = state.get("element_index", {}).get(entry.key)
    return entry.role == "option" and element is not None and element["tag"] == "option"


async def _step(agent: Agent, rng: random.Random, done: set[tuple[str, str]]) -> str:
    """One random step, a control not acted on yet where there is one (a reader explores); what it did."""
    entries = await agent.entries()
    clickable = [e for e in entries if e.role in CLICKED and norm(e.name) and not _native_option(agent, e)]
    clickable = [e for e in clickable if (e.role, e.name) not in done] or clickable
    typed = [e for e in entries if e.role in TYPED]
    if typed and (not clickable or rng.random() < 0.25):
        entry = rng.choice(typed)
        error = await agent.do_fill(entry, rng.choice(["Ada", "Berlin", "42"]))
        agent.counters.actions += 1
        if error is None:
            await agent.after_action()
        return f"fill {entry.role} {entry.name!r}: {error or 'done'}"
    if not clickable:
        return "nothing to act on"
    entry = rng.choice(clickable)
    done.add((entry.role, entry.name))
    await agent.events()
    error = await agent.do_click(entry)
    await agent.watched("click", entry.name if entry.role in NAMED_BY_CONTENT else "", error)
    agent.counters.actions += 1
    if error is None:
        await agent.after_action()
    return f"click {entry.role} {entry.name!r}: {error or 'done'}"


@pytest.mark.parametrize("page", PAGES)
async def test_a_random_walk_keeps_the_invariants_on_every_surface(
    make_agent: Any, components: ComponentSite, page: str
) -> None:
    failures = []
    for surface in SURFACES:
        agent = await make_agent(surface, "extended", components.page(page))
        rng = random.Random(f"{page}/{surface}")
        await agent.events()  # what the load caused is not the walk's
        trail: list[str] = []
        done: set[tuple[str, str]] = set()
        for _ in range(WALK_STEPS):
            trail.append(await _step(agent, rng, done))
            if getattr(agent, "navigated", False):
                break  # a link led away: the rest of the walk would be on another page
        c = agent.counters
        if c.wrong_element or c.silent_noops or c.stale_states:
            failures.append(
                f"{surface}: {c.wrong_element} wrong-element, {c.silent_noops} silent no-op, {c.stale_states} stale"
                f" in {c.actions} actions\n  walk: {trail}\n  notes: {c.notes}"
            )
    assert not failures, "\n".join(failures)
