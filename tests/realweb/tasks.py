"""The real-web suite's tasks: a page, the steps a person would take, and what the app must receive.

Each step is (verb, *arguments) in the agents' vocabulary (agents.py): fill, choose, check, click, wait. The
result is checked where the app keeps it (the submit the page sends to the test server, or the app's own
database), never in the DOM. `strict_unreachable` names a step the seed's strict interactive set cannot reach
(a control outside its tags and roles), with why: the strict run must fail there and say so; the extended run
must pass.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest

from .steps import TaskFailed, run_steps

SURFACE_NAMES = ("index", "toolset", "mcp")

TAB = {"tab", "button"}
BUTTON = {"button", "link", "tab", "menuitem", "label", "generic"}  # generic: a <summary> in the MCP snapshot


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


COMPONENT_TASKS += [
    Task(
        "antd-expense", "antd",
        [
            ("choose", "Department", "Research"),
            ("pick_day", "Expense date", "18"),
            ("click", TAB, "Billing"),
            ("fill", "VAT number", "NL123"),
            ("click", BUTTON, "Submit expense"),
            ("wait", "Saved order"),
        ],
        {"department": "Research", "date": "{month}-18", "vat": "NL123"},
        strict_unreachable="its options and its calendar's day cells are drawn without roles",
    ),
    Task(
        "react-datepicker-delivery", "react-datepicker",
        [("pick_day", "Delivery date", "20"), ("click", BUTTON, "Schedule delivery"), ("wait", "Saved order")],
        {"date": "{month}-20"},
        strict_unreachable="the calendar's days are gridcells, outside the seed's strict roles",
    ),
    Task(
        "bootstrap-ticket", "bootstrap",
        [
            ("click", BUTTON, "Category"),
            ("click", BUTTON, "Hardware"),
            ("click", BUTTON, "Add a shipping address"),
            ("fill", "Street", "Main St 1"),
            ("click", BUTTON, "Open ticket"),
            ("click", BUTTON, "Send ticket"),
            ("wait", "Saved order"),
        ],
        {"category": "hardware", "street": "Main St 1"},
    ),
    Task(
        "tom-select-shipment", "tom-select",
        [("choose", "Carrier", "UPS"), ("click", BUTTON, "Ship it"), ("wait", "Saved order")],
        {"carrier": "ups"},
    ),
    Task(
        "flatpickr-booking", "flatpickr",
        [("pick_day", "Arrival", "18"), ("click", BUTTON, "Book stay"), ("wait", "Saved order")],
        {"arrival": "{month}-18"},
        strict_unreachable="the calendar's days are spans without a role",
    ),
    Task(
        "quill-note", "quill",
        [("write", "Delivery note", "Leave at the door"), ("click", BUTTON, "Save note"), ("wait", "Saved order")],
        {"note": "Leave at the door"},
    ),
    Task(
        "codemirror-query", "codemirror",
        [("write", "Query", "SELECT 1;"), ("click", BUTTON, "Run query"), ("wait", "Saved order")],
        {"query": "SELECT 1;"},
    ),
    Task(
        "element-plus-pickup", "element-plus",
        [
            ("choose", "Warehouse", "Hamburg"),
            ("fill", "Contact person", "Ada Lovelace"),
            ("check", "Fragile goods"),
            ("click", BUTTON, "Request pickup"),
            ("wait", "Saved order"),
        ],
        {"warehouse": "hamburg", "contact": "Ada Lovelace", "fragile": True},
    ),
    Task(
        "vue-form-pizza", "vue-form",
        [
            ("fill", "Your name", "Grace Hopper"),
            ("choose", "Pizza size", "Large"),
            ("check", "Thick crust"),
            ("click", BUTTON, "Order pizza"),
            ("wait", "Saved order"),
        ],
        {"name": "Grace Hopper", "size": "large", "crust": "thick"},
    ),
    Task(
        "material-web-card", "material-web",
        [
            ("fill", "Reader name", "Alan Turing"),
            ("choose", "Branch", "Harbour"),
            ("check", "Send me the newsletter"),
            ("click", BUTTON, "Apply for card"),
            ("wait", "Saved order"),
        ],
        {"reader": "Alan Turing", "branch": "harbour", "newsletter": True},
    ),
    Task(
        "jquery-ui-delivery", "jquery-ui",
        [
            ("choose", "Destination city", "Berlin", "Ber"),
            ("pick_day", "Delivery date", "18"),
            ("click", BUTTON, "Send parcel"),
            ("wait", "Saved order"),
        ],
        {"city": "Berlin", "date": "{month}-18"},
        strict_unreachable="the autocomplete's suggestions are <li>/<div> menu items without a role",
    ),
    Task(
        "select2-transfer", "select2",
        [
            ("choose", "Destination country", "Portugal", "Port"),
            ("click", BUTTON, "Send transfer"),
            ("wait", "Saved order"),
        ],
        {"country": "PT"},
    ),
    Task(
        "choices-request", "choices",
        [
            ("fill", "Email address", "ada@example.com"),
            ("choose", "Topic", "Returns"),
            ("click", BUTTON, "Send request"),
            ("wait", "Saved order"),
        ],
        {"email": "ada@example.com", "topic": "returns"},
    ),
]


APP_TASKS = [
    Task(
        "django-admin-order", "django",
        [
            ("fill", "Username", "admin"),
            ("fill", "Password", "orders-admin-1"),
            ("click", BUTTON, "Log in"),
            ("click", BUTTON, "Orders"),
            ("click", BUTTON, "Add order"),
            ("fill", "Customer", "Ada Lovelace"),
            ("fill", "Quantity", "3"),
            ("choose", "Color", "Green"),
            ("check", "Express"),
            ("click", BUTTON, "Notes"),
            ("fill", "Notes", "Ring twice"),
            ("click", BUTTON, "Save"),
            ("wait", "was added successfully"),
        ],
        {"customer": "Ada Lovelace", "quantity": 3, "color": "green", "express": 1, "notes": "Ring twice"},
        strict_unreachable="the collapsed Notes fieldset opens by its <summary>, outside the seed's strict set",
    ),
    Task(
        "flask-order", "flask",
        [
            ("fill", "Customer name", "Grace Hopper"),
            ("check", "Medium"),
            ("fill", "Quantity", "2"),
            ("choose", "Color", "Red"),
            ("check", "Gift wrap"),
            ("click", BUTTON, "Notes"),
            ("fill", "Notes", "Side door"),
            ("click", BUTTON, "Place order"),
            ("wait", "Saved order"),
        ],
        {"customer": "Grace Hopper", "size": "M", "quantity": 2, "color": "red", "gift": 1, "notes": "Side door"},
        strict_unreachable="the notes open by a <summary>, outside the seed's strict set",
    ),
    Task(
        "nicegui-order", "nicegui",
        [
            ("fill", "Customer name", "Alan Turing"),
            ("choose", "Color", "Blue"),
            ("fill", "Quantity", "4"),
            ("check", "Express delivery"),
            ("click", BUTTON, "More details"),
            ("fill", "Notes", "Call first"),
            ("click", BUTTON, "Place order"),
            ("wait", "Saved order"),
        ],
        {"customer": "Alan Turing", "color": "Blue", "quantity": 4, "express": 1, "notes": "Call first"},
    ),
]

# What the engine still gets wrong on the libraries added in issue 41 (Vue, web components, jQuery-era plugins),
# per (task, mode): strict xfails, so a fix removes the mark. Each was seen page by page; none is the agent's.
KNOWN: dict[tuple[str, str], str] = {}


def mark_known(request: pytest.FixtureRequest, task: Task, mode: str) -> None:
    """A known defect of (task, mode) in KNOWN: a strict xfail with its cause, so a fix removes the mark."""
    known = KNOWN.get((task.name, mode))
    if known:
        request.applymarker(pytest.mark.xfail(strict=True, reason=known))


def expected_values(task: Task) -> dict[str, Any]:
    """The task's expected values with `{month}` as today's year and month (the calendars open there)."""
    month = date.today().strftime("%Y-%m")
    return {k: v.replace("{month}", month) if isinstance(v, str) else v for k, v in task.expected.items()}


async def outcome(agent: Any, task: Task, result: Callable[[], Awaitable[str | None]]) -> str | None:
    """One surface's go at the task: None when the agent finished it, the page's record (`result`) holds what
    was asked, and its counters show no wrong-element action, silent no-op or stale state; else why not."""
    try:
        await run_steps(agent, task.steps)
    except TaskFailed as exc:
        return str(exc)
    wrong = await result()
    if wrong is not None:
        return wrong
    c = agent.counters
    if (c.wrong_element, c.silent_noops, c.stale_states) != (0, 0, 0):
        return f"wrong element {c.wrong_element}, silent no-ops {c.silent_noops}, stale states {c.stale_states}: {c.notes}"
    return None


async def on_every_surface(task: Task, mode: str, attempt: Callable[[str], Awaitable[str | None]]) -> None:
    """The task with the one agent on every surface in turn (`attempt(surface)` is one go, outcome()): it must
    end the same way on all of them. Done everywhere passes; in strict mode, a task with `strict_unreachable`
    that no surface finishes is the expected miss (xfail, with where each stopped); anything else fails,
    and a task finished on one surface but not on another fails as such."""
    outcomes = {surface: await attempt(surface) for surface in SURFACE_NAMES}
    failed = {surface: why for surface, why in outcomes.items() if why is not None}
    if not failed:
        return
    report = "\n".join(f"  {surface}: {why or 'done'}" for surface, why in outcomes.items())
    if mode == "strict" and task.strict_unreachable and "index" in failed:
        # Known, not yet built (issue 41, A): the element index's strict set is the seed's list of tags and
        # roles; read_page's and the MCP snapshot's strict filters take the accessibility tree's roles by rules
        # of their own, so they reach some of what the seed's set leaves out. One definition of interactive
        # would end this difference; until then it is reported here, surface by surface.
        pytest.xfail(
            f"the surfaces' strict sets differ: the seed's (element index) leaves this out ({task.strict_unreachable}),"
            f" read_page's and the MCP snapshot's strict filters reach some of it:\n{report}"
        )
    if len(failed) < len(outcomes):
        pytest.fail(f"{task.name} ({mode}) ends differently on the surfaces:\n{report}")
    if mode == "strict" and task.strict_unreachable:
        pytest.xfail(f"strict mode cannot reach this task ({task.strict_unreachable}) on any surface:\n{report}")
    pytest.fail(f"{task.name} ({mode}) failed on every surface:\n{report}")
