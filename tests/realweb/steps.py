"""The agents' vocabulary, apart from any engine: the steps a person takes on a page (fill a field by its label,
choose an option, check a box, click a control by its name, pick a calendar day, read until text shows) on top
of what a surface shows (`Entry`) and how it acts, and the counters the suite keeps after every action.

No import of cdp_engine here: the real-web benchmark runs the same agent over Playwright, in the peers'
environment (benchmarks/others/playwright_realweb.py). `run_steps` drives an agent through a task's steps.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

# Every trusted input event a page receives, with the elements it reached (tag|label|text of the first few on its
# composed path): the agents count wrong-element actions and silent no-ops from it. Installed in every document
# of the browser before the page's own scripts (conftest.py), so real apps have it as the bundled pages do.
RECORDER = """(() => {
  if (window.__events) return;
  window.__events = [];
  window.__document = Math.random();  // tells a new document (a navigation) from this one
  // CSS-generated text is part of what a person reads on an element (Quill draws its picker labels with ::before).
  const generated = (el, which) => {
    const content = getComputedStyle(el, which).content;
    return content && content.startsWith('"') ? content.slice(1, -1) : '';
  };
  const describe = (el) => {
    const label = el.getAttribute('aria-label') || el.getAttribute('name') || el.getAttribute('placeholder') || '';
    const text = generated(el, '::before') + (el.textContent || '') + generated(el, '::after');
    return `${el.localName}|${label}|${text.trim().slice(0, 60)}`;
  };
  for (const type of ['pointerdown', 'click', 'keydown', 'input', 'change']) {
    window.addEventListener(type, (ev) => {
      if (!ev.isTrusted && type !== 'input' && type !== 'change') return;
      const path = ev.composedPath().filter((n) => n.nodeType === 1).slice(0, 8).map(describe);
      window.__events.push({type, path, trusted: ev.isTrusted});
    }, {capture: true});
  }
})()"""

FIELD_ROLES = {"textbox", "searchbox", "combobox", "spinbutton"}
CHOOSER_ROLES = {"combobox", "listbox", "button"}
OPTION_ROLES = {"option", "menuitem", "menuitemradio", "treeitem", "gridcell"}
CHECK_ROLES = {"checkbox", "switch", "radio", "menuitemcheckbox"}
ATTEMPTS = 40  # reads (and scrolls) before an agent gives up finding a control
PATIENCE = 2.0  # seconds an agent goes on looking once nothing more scrolls into view
DAY_ROLES = {"option", "gridcell", "button", "generic", "cell", "link", "td", "span", "div"}


class TaskFailed(Exception):
    """The agent could not do a step: `reason` says what it looked for and what it saw."""


@dataclass
class Entry:
    """A control as a surface shows it."""

    key: str
    role: str
    name: str
    checked: bool | None = None
    value: str | None = None
    label: str = ""  # the text a reader takes as its label (the element index: the text just before it)
    text: str = ""  # its visible text, where the surface gives it apart from the name (the element index)


@dataclass
class Counters:
    actions: int = 0
    wrong_element: int = 0
    silent_noops: int = 0
    stale_states: int = 0
    notes: list[str] = field(default_factory=list)


def norm(text: str | None) -> str:
    return " ".join((text or "").replace("\u200b", "").split()).lower()


def _bare(text: str | None) -> str:
    """A text without its spaces: textContent joins a label and a button ("PriorityPick one") where the name a
    surface shows has a space between them ("Priority Pick one")."""
    return "".join(norm(text).split())


class Agent:
    """The steps, on top of a surface's view (entries) and actions."""

    surface = ""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.counters = Counters()

    # ----- what a surface provides ------------------------------------------------------------------

    async def entries(self) -> list[Entry]:
        raise NotImplementedError

    async def page_text(self) -> str:
        raise NotImplementedError

    async def do_click(self, entry: Entry) -> str | None:
        raise NotImplementedError

    async def do_fill(self, entry: Entry, text: str) -> str | None:
        raise NotImplementedError

    async def do_type(self, entry: Entry, text: str) -> str | None:
        """Type into a field without clearing it (a combobox's filter)."""
        return await self.do_fill(entry, text)

    async def do_select(self, entry: Entry, option: str) -> str | None:
        """Choose in a native select; None when the surface does it, else it returns 'not native'."""
        return "not native"

    async def do_scroll(self, entry: Entry | None) -> str | None:
        """Turn the wheel down over `entry` (a list scrolls under the pointer), or over the page (None), in the
        surface's words; a surface with no aimed scroll scrolls the page either way."""
        raise NotImplementedError

    async def evaluate(self, expression: str) -> Any:
        raise NotImplementedError

    async def after_action(self) -> None:
        """Surface-specific checks after an action (the stale-state check)."""

    # ----- finding ---------------------------------------------------------------------------------

    async def find(
        self, roles: set[str], name: str, *, exact: bool = False, scroll: bool = True, by_label: bool = True
    ) -> Entry:
        """The first control of one of `roles` named `name`; with `by_label`, a control named by the text just
        before it counts too (a field, a select drawn without a name). A button or a link is named by itself: the
        text before it may be another control's (a button covered by a calendar is not in the index, and the
        calendar's first link follows its text)."""
        want = norm(name)
        patience: float | None = None
        for attempt in range(ATTEMPTS):
            entries = await self.entries()
            label = (lambda e: norm(e.label)) if by_label else (lambda e: "")
            matches = [
                e for e in entries
                if e.role in roles and (norm(e.name) == want or label(e) == want
                                        or (not exact and want and want in norm(e.name)))
            ]  # fmt: skip
            exact_matches = [e for e in matches if want in (norm(e.name), label(e))]
            # "Orders" before "ORDERS": the name as written first, as a reader matches it.
            exact_matches.sort(key=lambda e: e.name.strip() != name)
            if not matches:  # a field named by the words before it ("City Select..."): the label starts them
                matches = [e for e in entries if e.role in roles and want and label(e).startswith(want + " ")]
            if exact_matches or matches:
                return (exact_matches or matches)[0]
            if not scroll or attempt == ATTEMPTS - 1:
                break
            if not await self.scroll_on(entries):
                # Nothing more to scroll to: a reader looks again a moment later (a calendar still fading out
                # over the button), for PATIENCE seconds, as a model takes another turn.
                if patience is None:
                    patience = asyncio.get_running_loop().time() + PATIENCE
                if asyncio.get_running_loop().time() > patience:
                    break
                await asyncio.sleep(0.05)
        shown = ", ".join(f"{e.role} {e.name!r}" for e in (await self.entries())[:60])
        raise TaskFailed(f"{self.surface}/{self.mode}: no {sorted(roles)} named {name!r}; the view has: {shown}")

    async def scroll_on(self, entries: list[Entry]) -> bool:
        """Scroll to see more, as a reader does: the wheel over the last control shown (the list it is in moves
        on), else over the ones before it (the last may be a button below a list that scrolls in its box), else
        over the page. False at the end: a surface refused to scroll, or three turns over the page in a row
        changed nothing it shows (a page of text above a form shows no control for a while)."""
        shown = [(e.key, e.role, e.name) for e in entries]
        over_control = entries[:-4:-1]
        for over in over_control:
            if await self.do_scroll(over) is None and [(e.key, e.role, e.name) for e in await self.entries()] != shown:
                return True
        for _ in range(3):
            if await self.do_scroll(None) is not None:
                return False
            if [(e.key, e.role, e.name) for e in await self.entries()] != shown:
                return True
        return False

    # ----- steps -----------------------------------------------------------------------------------

    async def act(self, what: str, error: str | None) -> None:
        self.counters.actions += 1
        if error is not None:
            raise TaskFailed(f"{self.surface}/{self.mode}: {what}: {error}")
        await self.after_action()

    async def events(self) -> list[dict[str, Any]]:
        """The trusted events the page received since the last read (none read before an action)."""
        document, events = await self.evaluate("[window.__document, window.__events.splice(0)]")
        self.navigated = document != getattr(self, "document", document)
        self.document = document
        return list(events or [])

    async def watched(self, what: str, name: str, error_or_none: Any) -> None:
        """Count a click that reached nothing (no trusted event) or reached another element than `name`."""
        events = await self.events()
        if self.navigated:
            return  # the click loaded another document: its events went with the old one
        if error_or_none is None:
            pressed = [e for e in events if e["type"] in ("pointerdown", "click") and e["trusted"]]
            if not pressed:
                self.counters.silent_noops += 1
                self.counters.notes.append(f"{what} {name!r}: no pointer event reached the page")
            elif name and not any(_bare(name) in _bare(p) for e in pressed for p in e["path"]):
                self.counters.wrong_element += 1
                self.counters.notes.append(f"{what} {name!r}: the press reached {pressed[0]['path'][:2]}")

    async def click(self, roles: set[str], name: str, *, exact: bool = False, scroll: bool = True) -> None:
        entry = await self.find(roles, name, exact=exact, scroll=scroll, by_label=False)
        await self.events()
        error = await self.do_click(entry)
        await self.watched("click", name, error)
        await self.act(f"click {name!r}", error)

    async def fill(self, label: str, text: str) -> None:
        entry = await self.find(FIELD_ROLES, label)
        await self.act(f"fill {label!r}", await self.do_fill(entry, text))

    async def choose(self, label: str, option: str, *, search: str | None = None) -> None:
        """Pick `option` in the control labelled `label`: a native select by the surface's select action; a
        custom one by opening it (a click, or typing `search` into it) and clicking the option."""
        try:
            control = await self.find(CHOOSER_ROLES | FIELD_ROLES, label, scroll=False)
        except TaskFailed:  # a control drawn without a role, named by its placeholder or its label
            control = await self.find(CHOOSER_ROLES | FIELD_ROLES | {"generic", "div", "label"}, label)
        if await self.do_select(control, option) is None:
            await self.act(f"choose {option!r}", None)
            return
        if search is not None:
            error = await self.do_type(control, search)
            if error is not None:  # a box that takes no text (Select2's): it opens on a click, with a search field
                before = await self.entries()
                await self.act(f"open {label!r}", await self.do_click(control))
                control = await self.opened_field(control, before)
                error = await self.do_type(control, search)
            await self.act(f"type {search!r} into {label!r}", error)
            # Suggestions often come after a debounce (jQuery UI's autocomplete: 300 ms), a timer longer than the
            # settle waits for (docs/protocol.md, "Settle"): a reader waits until they show, as for an answer.
            await self.wait_text(option)
        else:
            await self.events()
            error = await self.do_click(control)
            await self.watched("open", label, error)
            await self.act(f"open {label!r}", error)
        # The option by its role; a list a library draws without roles offers it as what it is (extended mode:
        # a generic clickable with the option's text), which a reader takes as the option all the same.
        try:
            await self.click(OPTION_ROLES, option, exact=True, scroll=False)
        except TaskFailed:
            await self.click(OPTION_ROLES | {"generic", "div", "li", "listitem", "span"}, option, exact=True)

    async def opened_field(self, control: Entry, before: list[Entry]) -> Entry:
        """The text field a click on `control` brought up (a dropdown's search field: a field not in the view
        `before` the click), or `control` itself when none did."""
        seen = {(e.key, e.role, e.name) for e in before}
        fields = [e for e in await self.entries() if e.role in ("searchbox", "textbox") and (e.key, e.role, e.name) not in seen]
        return fields[0] if fields else control

    async def pick_day(self, label: str, day: str) -> None:
        """Open the date control labelled `label` (a click) and click the day `day` of the calendar it shows."""
        control = await self.find(FIELD_ROLES | CHOOSER_ROLES, label)
        await self.events()
        error = await self.do_click(control)
        await self.watched("open", label, error)
        await self.act(f"open {label!r}", error)
        want = re.compile(rf"(^|\D){re.escape(day)}(\D|$)")
        for _ in range(5):  # the calendar may draw a moment after the click answered: read again
            for entry in await self.entries():
                if entry.role in DAY_ROLES and (norm(entry.text) == day or norm(entry.name) == day or want.search(entry.name)):
                    await self.events()
                    error = await self.do_click(entry)
                    await self.watched("pick", "", error)
                    await self.act(f"pick day {day}", error)
                    return
        shown = ", ".join(f"{e.role} {e.name!r}" for e in (await self.entries())[:80])
        raise TaskFailed(f"{self.surface}/{self.mode}: no day {day} in the calendar; the view has: {shown}")

    async def write(self, label: str, text: str) -> None:
        """Type into the editor labelled `label` (a rich-text or code editor)."""
        entry = await self.find(FIELD_ROLES | {"generic", "div"}, label)
        await self.act(f"write into {label!r}", await self.do_type(entry, text))

    async def check(self, label: str) -> None:
        entry = await self.find(CHECK_ROLES | {"label"}, label)
        if entry.checked:
            return
        await self.events()
        error = await self.do_click(entry)
        await self.watched("check", label, error)
        await self.act(f"check {label!r}", error)
        if entry.role != "label":
            again = await self.find(CHECK_ROLES, label, scroll=False)
            if again.checked is not True:
                raise TaskFailed(f"{self.surface}/{self.mode}: {label!r} is not shown checked after the click")

    async def wait_text(self, text: str, timeout: float = 5.0) -> None:
        """Read the page until `text` shows (the app answered); TaskFailed at the deadline."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            if norm(text) in norm(await self.page_text()):
                return
            if loop.time() > end:
                raise TaskFailed(f"{self.surface}/{self.mode}: {text!r} never showed")
            await asyncio.sleep(0.05)  # an agent re-reads the page after a while, as a model would


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
        elif verb == "pick_day":
            await agent.pick_day(*args)
        elif verb == "write":
            await agent.write(*args)
        elif verb == "wait":
            await agent.wait_text(*args)
        else:
            raise ValueError(f"unknown step {verb!r}")
