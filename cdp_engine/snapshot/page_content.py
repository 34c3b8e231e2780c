"""page_content as the state build collects it: the walk emits text and tags (snapshot/capture.py), this folds
whitespace, stops collecting once the window's end is reached, and cuts the window (util.text_windows).

Why its own module: where page_content's text comes from and where it is cut are the two places a reader looks
for; the state build (snapshot/capture.py's StateBuilder) mixes this in.
"""

from __future__ import annotations

from ..util.text_windows import window

ContentWindow = tuple[int, int]  # (offset, budget) of page_content in the folded text, in characters


def fold(text: str) -> str:
    """Whitespace collapsed within each line; empty lines dropped."""
    return "\n".join(line for line in [" ".join(line.split()) for line in text.split("\n")] if line)


class PageContent:
    """The page_content part of the state build (StateBuilder sets the attributes)."""

    window: ContentWindow
    cap: int
    content: list[str]
    content_len: int
    content_limit: int
    truncated: bool

    def _emit(self, text: str) -> None:
        if self.truncated:
            return
        self.content.append(text)
        self.content_len += len(text)
        if self.content_len > self.content_limit:
            self._limit_reached()

    def _limit_reached(self) -> None:
        """Stop collecting once the folded text fills the cap; else collect the rest, scaled by how much
        folding shrank the text so far."""
        folded = len(fold("".join(self.content)))
        if folded > self.cap:  # one character past the window: enough to know more follows
            self.truncated = True
        else:
            ratio = self.content_len / max(folded, 1)
            self.content_limit = self.content_len + int((self.cap - folded) * ratio) + 1_000

    def page_content(self) -> str:
        """The folded text's window (util.text_windows), with the marker when it is not the whole text.

        Past the window's end the walk stopped collecting text (only the element index needs the rest), so
        the marker says more follows without counting it."""
        offset, limit = self.window
        text = fold("".join(self.content))
        part = window(text, limit, offset, open_end=self.truncated)
        if part.complete:
            return part.text
        how = f"Next: offset={part.end}." if part.more else "This is the end; offset=0 reads from the start."
        return f"{part.text.rstrip(chr(10))}\n{part.marker('page_content', how)}"
