"""The real-web suite's tasks: a page, the steps a person would take, and what the app must receive.

Each step is (verb, *arguments) in the agents' vocabulary (agents.py): fill, choose, check, click, wait. The
result is checked where the app keeps it (the submit the page sends to the test server, or the app's own
database), never in the DOM. `strict_unreachable` names a step the seed's strict interactive set cannot reach
(a control outside its tags and roles), with why: the strict run must fail there and say so; the extended run
must pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TAB = {"tab", "button"}
BUTTON = {"button", "link", "tab", "menuitem", "label"}


@dataclass(frozen=True)
class Task:
    name: str
    page: str
    steps: list[tuple[Any, ...]]
    expected: dict[str, Any]
    strict_unreachable: str | None = None
    notes: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)


COMPONENT_TASKS = [
    Task(
        "mui-order", "mui",
        [
            ("fill", "Customer name", "Ada Lovelace"),
            ("choose", "Color", "Green"),
            ("choose", "Country", "Japan", "Jap"),
            ("click", TAB, "Shipping"),
            ("check", "Express delivery"),
            ("click", BUTTON, "More details"),
            ("fill", "Notes", "Ring twice"),
            ("check", "Gift wrap"),
            ("click", BUTTON, "Place order"),
            ("click", BUTTON, "Confirm"),
            ("wait", "Saved order"),
        ],
        {"name": "Ada Lovelace", "color": "Green", "country": "Japan", "express": True, "notes": "Ring twice", "gift": True},
    ),
    Task(
        "react-select-order", "react-select",
        [
            ("choose", "City", "Helsinki", "Hel"),
            ("choose", "Size", "Large"),
            ("click", BUTTON, "Place order"),
            ("wait", "Saved order"),
        ],
        {"city": "helsinki", "size": "large"},
    ),
    Task(
        "radix-subscription", "radix",
        [
            ("choose", "Plan", "Team"),
            ("click", TAB, "Team size"),
            ("fill", "Seats", "5"),
            ("click", BUTTON, "Have a coupon?"),
            ("fill", "Coupon code", "SAVE10"),
            ("click", BUTTON, "Subscribe"),
            ("click", BUTTON, "Confirm"),
            ("wait", "Saved order"),
        ],
        {"plan": "team", "seats": "5", "coupon": "SAVE10"},
    ),
    Task(
        "headless-ticket", "headless",
        [
            ("choose", "Assignee", "Tom Cook", "Tom"),
            ("choose", "Priority", "Urgent"),
            ("click", BUTTON, "Create ticket"),
            ("wait", "Saved order"),
        ],
        {"person": "Tom Cook", "priority": "Urgent"},
    ),
    Task(
        "virtual-list-pick", "virtual-list",
        [
            ("click", BUTTON, "Pick item 60"),
            ("click", BUTTON, "Reserve"),
            ("wait", "Saved order"),
        ],
        {"picked": 60},
        strict_unreachable="the list scrolls inside its own container; strict scroll moves the window only",
    ),
    Task(
        "shoelace-booking", "shoelace",
        [
            ("fill", "Guest name", "Grace Hopper"),
            ("choose", "Room", "Suite"),
            ("check", "Breakfast included"),
            ("click", BUTTON, "Book room"),
            ("wait", "Saved order"),
        ],
        {"guest": "Grace Hopper", "room": "suite", "breakfast": True},
    ),
]


async def run_steps(agent: Any, steps: list[tuple[Any, ...]]) -> None:
    """Drive an agent through a task's steps (TaskFailed at the first it cannot do)."""
    for step in steps:
        verb, *args = step
        if verb == "fill":
            await agent.fill(*args)
        elif verb == "choose":
            label, option, *search = args
            await agent.choose(label, option, search=search[0] if search else None)
        elif verb == "check":
            await agent.check(*args)
        elif verb == "click":
            roles, name = args
            await agent.click(roles, name)
        elif verb == "wait":
            await agent.wait_text(*args)
        else:
            raise ValueError(f"unknown step {verb!r}")
