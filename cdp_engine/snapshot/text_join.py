"""The text a person reads from rendered pieces of text: one rule for every view of the page.

Pieces of text split by inline elements (`Gre<span>en</span>`) are one word on screen; pieces on
separate lines, in separate blocks or apart on a line are separate words. The rule reads the geometry
the capture already has (each piece's layout box) instead of guessing from tags: a space goes between
two pieces only where the page shows one.
"""

from __future__ import annotations

from collections.abc import Sequence

Box = Sequence[float]  # x, y, width, height (any one coordinate space for all pieces)


def join_rendered(pieces: Sequence[tuple[str, Box | None]]) -> str:
    """The pieces' text in order, whitespace collapsed, with a space between two pieces only where the page
    shows one: a piece ends or starts with whitespace, or the next piece does not continue the line right
    where the last one ended (within a pixel, its middle inside the last one's line). A piece without a box
    is kept apart by a space."""
    if len(pieces) == 1:
        return " ".join(pieces[0][0].split())
    out: list[str] = []
    last: Box | None = None
    for text, box in pieces:
        if out and not out[-1][-1:].isspace() and not text[:1].isspace():
            touching = (
                last is not None
                and box is not None
                and last[1] <= box[1] + box[3] / 2 <= last[1] + last[3]
                and abs(box[0] - (last[0] + last[2])) <= 1.0
            )
            if not touching:
                out.append(" ")
        out.append(text)
        last = box
    return " ".join("".join(out).split())
