"""The action benchmark's cases and pages: one definition every system's adapter reads (standard library only).

A case is one action an agent repeats on one page, each time followed by the state it reads next. Every
repetition causes something new on the page (a counter's next value, the next fetch result, the next
scroll position), so `shows(text, case.expected(k))` tells whether the state a system returned after the
k-th action already shows what that action caused. The pages are served by benchmarks/pages.py.
"""

from __future__ import annotations

import argparse
import html
import re
import statistics
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

from common import Watchdog, emit, error_text

FETCH_MS = 100  # the delay of /act/slow, the fetch the click-fetch case's handler makes
TIMER_MS = 50  # the setTimeout of the click-timer case's handler
SCROLL_PX = 200  # what one scroll action scrolls


@dataclass(frozen=True)
class Case:
    """One repeated action: the page, what is acted on, and what the next state must show after the k-th time."""

    id: str
    path: str  # the page; the navigate case puts {k} in it
    kind: str  # click | type | select | scroll | navigate
    what: str  # a sentence for the report
    selector: str = ""  # the element acted on (CSS), for the systems that address elements that way
    tag: str = ""  # the element acted on, for the systems that address elements by their state's index
    name: str = ""  # its text or accessible name
    expect: str = ""  # what the state shows after the k-th action ({k}, {opt}, {y} filled in)
    dynamic: bool = False  # the page's answer to the action comes later than the action's own events

    def url(self, base: str, k: int = 0) -> str:
        """The page's absolute URL (the navigate case: the k-th page)."""
        return base + self.path.format(k=k)

    def text(self, k: int) -> str:
        """The text typed by the k-th type action."""
        return f"typed{k}"

    def option(self, k: int) -> str:
        """The option chosen by the k-th select action (never the one chosen before)."""
        return f"opt{k % 10}"

    def pattern(self) -> str:
        """`expect` in words, for the report."""
        return self.expect.format(k="k", opt="opt(k mod 10)", y=f"{SCROLL_PX}·k", text="typedk")

    def expected(self, k: int) -> str:
        """What the next state shows once the k-th action (1-based, warm-up included) took effect."""
        return self.expect.format(k=k, opt=self.option(k), y=SCROLL_PX * k, text=self.text(k))


CASES: tuple[Case, ...] = (
    Case(
        "click-static",
        "/act/buttons.html",
        "click",
        "static page with 50 buttons: click the counter button",
        selector="#count",
        tag="button",
        name="Count",
        expect="clicks: {k}",
    ),
    Case(
        "click-timer",
        "/act/timer.html",
        "click",
        f"click whose handler renders after setTimeout({TIMER_MS})",
        selector="#go",
        tag="button",
        name="Later",
        expect="timer {k}",
        dynamic=True,
    ),
    Case(
        "click-fetch",
        "/act/fetch.html",
        "click",
        f"click whose handler fetches for {FETCH_MS} ms, then renders the result",
        selector="#go",
        tag="button",
        name="Fetch",
        expect="result {k}",
        dynamic=True,
    ),
    Case(
        "type",
        "/act/form.html",
        "type",
        "type into a text field (replacing its text); its input handler echoes it",
        selector="#name",
        tag="input",
        name="Name",
        expect="echo {text}",
    ),
    Case(
        "select",
        "/act/form.html",
        "select",
        "choose an option of a 10-option select; its change handler echoes it",
        selector="#choice",
        tag="select",
        name="Choice",
        expect="chosen {opt}",
    ),
    Case(
        "scroll",
        "/act/scroll.html",
        "scroll",
        f"scroll the window down {SCROLL_PX} px; a scroll listener prints the position",
        expect="scrollY {y}",
        dynamic=True,  # scroll events fire with the next frame
    ),
    Case(
        "navigate",
        "/act/nav.html?n={k}",
        "navigate",
        "navigate to a new URL (a small page)",
        expect="page {k}",
    ),
)


def by_id() -> dict[str, Case]:
    """Cases keyed by id."""
    return {c.id: c for c in CASES}


def shows(text: str, expected: str) -> bool:
    """Whether a state text holds `expected` as a whole (so "clicks: 1" is not found in "clicks: 10")."""
    return re.search(re.escape(expected) + r"(?![\w])", text) is not None


@dataclass
class CaseRecord:
    """One system on one case: warm-up and timed samples, whether each state showed the effect, failures.

    A call that failed (raised, or answered with an error) is a failure with its error text, never a sample.
    """

    system: str
    case: str
    first_ms: float | None = None
    samples_ms: list[float] = field(default_factory=list)
    shows: list[bool] = field(default_factory=list)  # one per timed sample
    first_shows: bool | None = None
    failures: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    phases: dict[str, list[float]] = field(default_factory=dict)  # a system's own timings, per timed run
    warm: bool = True  # whether the current run is a warm-up

    def runs(self, warmup: int, reps: int) -> Iterator[bool]:
        """Yield `warm` for each run: `warmup` warm-ups, then `reps` timed runs."""
        for i in range(warmup + reps):
            self.warm = i < warmup
            yield self.warm

    def timings(self, timings: dict[str, Any], warm: bool | None = None) -> None:
        """Keep the numeric *_ms fields of a system's own timings of a run (not of warm-ups; default: the current run)."""
        if not (self.warm if warm is None else warm):
            for key, v in timings.items():
                if key.endswith("_ms") and isinstance(v, int | float) and not isinstance(v, bool):
                    self.phases.setdefault(key, []).append(float(v))

    def add(self, ms: float, shows_effect: bool, warm: bool) -> None:
        if warm:
            if self.first_ms is None:
                self.first_ms, self.first_shows = ms, shows_effect
            return
        self.samples_ms.append(ms)
        self.shows.append(shows_effect)

    def fail(self, error: str) -> None:
        self.failures.append(error[:300])

    def done(self) -> None:
        """Emit the record (the runner's "case" event), with the medians of the system's own timings."""
        if self.phases:
            self.extra["phases_median_ms"] = {
                k: round(statistics.median(v), 3) for k, v in self.phases.items()
            }
        emit(
            "case",
            system=self.system,
            case=self.case,
            first_ms=self.first_ms,
            first_shows=self.first_shows,
            samples_ms=self.samples_ms,
            shows=self.shows,
            failures=self.failures,
            extra=self.extra,
        )


class Failed(Exception):
    """An action that answered with an error (not raised by the library): a failure, never a sample."""


async def run_case(
    rec: CaseRecord,
    ns: argparse.Namespace,
    wd: Watchdog,
    setup: Callable[[], Awaitable[Any]],
    step: Callable[[int], Awaitable[tuple[float, bool]]],
) -> None:
    """Repeat a case: setup() loads its page (again after a failure, the count starting over); step(k)
    does the k-th action and reads the next state, timing that itself, and returns (ms, whether the state
    showed what the action caused). Whatever step raises is a failure with its error text, never a sample.
    Emits the record."""
    try:
        with wd.guard(rec.case, "setup"):
            await setup()
        k = 0
        for warm in rec.runs(ns.warmup, ns.reps):
            k += 1
            try:
                with wd.guard(rec.case, "action"):
                    ms, shown = await step(k)
            except Exception as exc:
                rec.fail(str(exc) if isinstance(exc, Failed) else error_text(exc))
                with wd.guard(rec.case, "setup"):
                    await setup()
                k = 0
                continue
            rec.add(ms, shown, warm)
    except Exception as exc:
        rec.fail(error_text(exc))
    rec.done()


def run_blocking(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (run_case over blocking calls: BrowserGym's sync Playwright
    refuses to run inside an event loop)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("run_blocking: the coroutine suspended")


def parse_args(description: str, **extra: Any) -> argparse.Namespace:
    """The arguments every action adapter takes: the pages' base URL, cases, repetitions, timeout."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("base", help="base URL the pages are served from (http://127.0.0.1:PORT)")
    ap.add_argument("--cases", nargs="+", default=[c.id for c in CASES], choices=[c.id for c in CASES])
    ap.add_argument("--reps", type=int, default=60, help="timed repetitions per case after the warm-up")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds allowed for one case")
    for name, kw in extra.items():
        ap.add_argument(f"--{name}", **kw)
    return ap.parse_args()


# ----- the pages ---------------------------------------------------------------------------------------------

_HEAD = (
    "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
    "<style>body{{font:14px sans-serif;margin:8px}} button{{margin:2px}}</style></head><body>"
)


def _page(title: str, body: str) -> str:
    return _HEAD.format(title=html.escape(title)) + body + "</body></html>"


def buttons_page() -> str:
    """50 buttons; the one named Count increments the counter above them synchronously."""
    others = "".join(
        f'<button type=button onclick="this.dataset.n=(+this.dataset.n||0)+1">Button {i}</button>'
        for i in range(49)
    )
    return _page(
        "50 buttons",
        "<p id=out>clicks: 0</p>"
        "<button type=button id=count onclick=\"document.getElementById('out').textContent='clicks: '+(window.n=(window.n||0)+1)\">"
        "Count</button>" + others,
    )


def timer_page() -> str:
    """A button whose handler renders its result TIMER_MS later."""
    return _page(
        "timer",
        '<p id=out>timer 0</p><button type=button id=go onclick="const n=(window.n=(window.n||0)+1);'
        f"setTimeout(()=>{{document.getElementById('out').textContent='timer '+n}}, {TIMER_MS})\">Later</button>",
    )


def fetch_page() -> str:
    """A button whose handler fetches /act/slow (FETCH_MS), then renders the answer."""
    return _page(
        "fetch",
        '<p id=out>result 0</p><button type=button id=go onclick="const n=(window.n=(window.n||0)+1);'
        f"fetch('/act/slow?ms={FETCH_MS}&n='+n).then(r=>r.text()).then(t=>{{document.getElementById('out').textContent='result '+t}})\">"
        "Fetch</button>",
    )


def form_page() -> str:
    """A text field and a 10-option select, each echoing its value in a paragraph from its own handler."""
    options = "".join(f"<option value=opt{i}>opt{i}</option>" for i in range(10))
    return _page(
        "form",
        "<label>Name <input id=name type=text aria-label=Name oninput=\"document.getElementById('echo').textContent='echo '+this.value\"></label>"
        "<p id=echo>echo</p>"
        "<label>Choice <select id=choice aria-label=Choice onchange=\"document.getElementById('chosen').textContent='chosen '+this.value\">"
        f"{options}</select></label><p id=chosen>chosen opt0</p>",
    )


def scroll_page() -> str:
    """A 50,000 px tall page whose scroll listener prints the position in a fixed box."""
    rows = "".join(f"<p style='margin:0;height:500px'>Section {i}</p>" for i in range(100))
    return _page(
        "scroll",
        "<div id=pos style='position:fixed;top:0;right:0;background:#ff0'>scrollY 0</div>"
        + rows
        + "<script>addEventListener('scroll', () => { document.getElementById('pos').textContent = "
        "'scrollY ' + Math.round(scrollY); });</script>",
    )


def nav_page(n: int) -> str:
    """The n-th page of the navigate case."""
    return _page(
        f"page {n}", f"<h1>page {n}</h1><p>A small page.</p><a href='/act/nav.html?n={n + 1}'>next</a>"
    )


# MiniWoB-like tasks for the harness benchmark: MiniWoB's layout (#wrap, #query, #area, a countdown that
# ticks every second) and its click-button and enter-text problems; a finished episode starts the next one
# at once so a step can be repeated on the same page.
_MINIWOB_STYLE = (
    "<style>body{margin:0;font:10px Arial} #wrap{width:160px;height:210px;border:1px solid #888}"
    " #query{background:#ff0;padding:3px;height:44px} #area{padding:4px} #area button{margin:2px}"
    " #reward{font-size:9px}</style>"
)
_MINIWOB_CORE = """
const WORDS = ['submit','ok','yes','no','next','previous','cancel','okay'];
let episodes = 0, seed = 1;
function rand(n) { seed = (seed * 16807) % 2147483647; return seed % n; }
function endEpisode(reward) {
  episodes += 1;
  document.getElementById('reward').textContent = 'episode ' + episodes + ' reward ' + reward;
  genProblem();
}
let left = 10;
setInterval(() => { left = left > 0 ? left - 1 : 10;
  document.getElementById('timer').textContent = left + ' / 10sec'; }, 1000);
"""


def miniwob_click_button() -> str:
    """MiniWoB click-button: Click on the "X" button, among a handful of buttons."""
    script = (
        _MINIWOB_CORE
        + """
function genProblem() {
  const area = document.getElementById('area'); area.innerHTML = '';
  const n = 2 + rand(5), target = rand(n);
  for (let i = 0; i < n; i++) {
    const b = document.createElement('button'); b.textContent = WORDS[(i + episodes) % WORDS.length];
    b.onclick = () => endEpisode(i === target ? 1 : -1); area.appendChild(b);
  }
  document.getElementById('query').innerHTML = 'Click on the "<span id=target>' + area.children[target].textContent + '</span>" button.';
}
window.addEventListener('load', genProblem);
"""
    )
    return (
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>click-button</title>"
        + _MINIWOB_STYLE
        + "</head><body><div id=wrap><div id=query></div><div id=area></div></div>"
        "<div id=reward>episode 0</div><div id=timer>10 / 10sec</div><script>"
        + script
        + "</script></body></html>"
    )


def miniwob_enter_text() -> str:
    """MiniWoB enter-text: Enter "X" into the text field and press Submit."""
    script = (
        _MINIWOB_CORE
        + """
const NAMES = ['Kasey','Deirdre','Ronda','Jerald','Marcella','Alice','Lyda','Tam'];
function genProblem() {
  const word = NAMES[rand(NAMES.length)];
  document.getElementById('area').innerHTML = '<input type=text id=tt aria-label=text><button id=subbtn>Submit</button>';
  document.getElementById('query').innerHTML = 'Enter "<span id=target>' + word + '</span>" into the text field and press Submit.';
  document.getElementById('subbtn').onclick = () =>
    endEpisode(document.getElementById('tt').value === word ? 1 : -1);
}
window.addEventListener('load', genProblem);
"""
    )
    return (
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>enter-text</title>"
        + _MINIWOB_STYLE
        + "</head><body><div id=wrap><div id=query></div><div id=area></div></div>"
        "<div id=reward>episode 0</div><div id=timer>10 / 10sec</div><script>"
        + script
        + "</script></body></html>"
    )


PAGES: dict[str, str] = {
    "/act/buttons.html": buttons_page(),
    "/act/timer.html": timer_page(),
    "/act/fetch.html": fetch_page(),
    "/act/form.html": form_page(),
    "/act/scroll.html": scroll_page(),
    "/miniwob/click-button.html": miniwob_click_button(),
    "/miniwob/enter-text.html": miniwob_enter_text(),
}
