"""Results sized for models: one window of a long text, cut at a clean boundary, with a marker saying what
was left out and how to read it.

Every surface whose result grows with the page (the MCP snapshot, the element index's page_content, the
toolset's read_page / get_page_text / find, the HTTP service's state) renders its whole text first and asks
`window()` for the part that fits its budget (RESULT_CHARS below unless the caller or the server
says otherwise). A window starts at a character offset into the whole text and ends after the last line
that fits, so no line is ever split (a single line longer than the budget is cut at its last space, or at
the budget when it has none). `Window.marker()` is the one marker text; only its `how` clause (the
continuation in the surface's own vocabulary: an `offset` argument, a continuation ref) differs by surface.

Offsets count characters of the whole text, markers excluded, so offset = previous window's `end` walks a
page to its end without gaps or overlap; `context_lines()` repeats, for an indented outline (YAML snapshot,
read_page), the lines of the ancestors of a window's first line, so a part that starts deep in the tree
still says where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

# The budget of a result that grows with the page (MCP snapshot, page_content, the service's state): 40,000
# characters, about 10,000 tokens at chars/4, well inside a 25,000-token tool result. core/policies.py re-exports them.
RESULT_CHARS = 40_000
MIN_RESULT_CHARS = 1_000
MAX_RESULT_CHARS = 10_000_000

__all__ = ["BudgetError", "Window", "check_budget", "check_offset", "context_lines", "window"]


class BudgetError(ValueError):
    """A budget or offset no window can have; `field` names the parameter."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def check_budget(value: object, field: str = "max_chars") -> int:
    """`value` as a character budget (MIN_RESULT_CHARS..MAX_RESULT_CHARS); None: the default. BudgetError otherwise."""
    if value is None:
        return RESULT_CHARS
    if not isinstance(value, int) or isinstance(value, bool) or not MIN_RESULT_CHARS <= value <= MAX_RESULT_CHARS:
        raise BudgetError(
            field, f"{field} must be a whole number of characters from {MIN_RESULT_CHARS:,} to {MAX_RESULT_CHARS:,}"
        )
    return value


def check_offset(value: object, field: str = "offset") -> int:
    """`value` as an offset (a whole number ≥ 0; None: 0). BudgetError otherwise (the end is checked by window())."""
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BudgetError(field, f"{field} must be a whole number of characters, 0 or more")
    return value


@dataclass(frozen=True)
class Window:
    """Characters [start, end) of a text of `total` characters."""

    text: str
    start: int
    end: int
    total: int
    open_end: bool = False  # the text went on past `total` characters (not collected, so not counted)

    @property
    def complete(self) -> bool:
        """The whole text, nothing left out."""
        return self.start == 0 and self.end == self.total and not self.open_end

    @property
    def more(self) -> bool:
        """Text follows this window."""
        return self.end < self.total or self.open_end

    def marker(self, what: str, how: str) -> str:
        """The one marker: what was shown of how much, what is left, and `how` to read it (empty when complete).

        `[page_content truncated: characters 0-39,990 of 120,000 shown; 80,010 more. Next: offset=39990]`"""
        if self.complete:
            return ""
        left = []
        if self.start:
            left.append(f"{self.start:,} before")
        if self.open_end:
            left.append("more follows")
        elif self.more:
            left.append(f"{self.total - self.end:,} more")
        of = "" if self.open_end else f" of {self.total:,}"
        return f"[{what} truncated: characters {self.start:,}-{self.end:,}{of} shown; {' and '.join(left)}. {how}]"


def window(text: str, limit: int, offset: int = 0, *, field: str = "offset", open_end: bool = False) -> Window:
    """The part of `text` from `offset` that fits `limit` characters, ending after the last whole line that fits.

    `open_end`: the text is only the start of a longer one (collecting stopped); the window then ends at a line
    boundary inside it and says more follows. An offset inside a line starts the window at that line's start (a window never begins mid-line, unless
    the line alone is longer than the budget). An offset past the end is a BudgetError (field `field`); an
    offset equal to the length is an empty window."""
    total = len(text)
    if offset > total:
        raise BudgetError(field, f"{field} {offset:,} is past the end (the text has {total:,} characters)")
    if 0 < offset < total and text[offset - 1] != "\n":
        line_start = text.rfind("\n", 0, offset) + 1
        if offset - line_start < limit // 2:
            offset = line_start
    if total - offset <= limit and not open_end:
        return Window(text[offset:], offset, total, total)
    stop = min(offset + limit, total)
    cut = text.rfind("\n", offset, stop)
    if cut > offset:
        end = cut + 1  # the newline stays with its line: the next window starts on a fresh line
    else:  # one line longer than the budget: its last space, else the budget itself
        space = text.rfind(" ", offset, stop)
        end = space + 1 if space > offset + limit // 2 else stop
    return Window(text[offset:end], offset, end, total, open_end)


def context_lines(text: str, start: int, *, indent: str = "  ", limit: int = 40) -> list[str]:
    """The lines of an indented outline that are ancestors of the line starting at `start` (outermost first):
    each earlier line with less indentation than the last one found. At most `limit` lines (the innermost)."""
    if start <= 0 or start > len(text):
        return []
    first_end = text.find("\n", start)
    first = text[start : first_end if first_end >= 0 else len(text)]
    level = _level(first, indent)
    found: list[str] = []
    pos = start - 1  # the newline ending the line before `start`
    while level > 0 and pos > 0:
        begin = text.rfind("\n", 0, pos) + 1
        line = text[begin:pos]
        depth = _level(line, indent)
        if line.strip() and depth < level:
            found.append(line)
            level = depth
        pos = begin - 1
    found.reverse()
    return found[-limit:]


def _level(line: str, indent: str) -> int:
    n = 0
    while line.startswith(indent, n * len(indent)):
        n += 1
    return n
