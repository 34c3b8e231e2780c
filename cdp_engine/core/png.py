"""Painting opaque rectangles on a PNG without an imaging library, fast enough to mark a screenshot.

Why this exists: a marked screenshot was a plain capture plus a decode, the drawing and an encode in
the page's renderer (about 20 ms on a 1280x720 image, docs/marks.md). Chromium's fast PNG encoder
(`optimizeForSpeed`) writes 8-bit RGB(A) rows that all use the PNG filter Up (each byte is its pixel
minus the one above), so the engine can edit the image itself: inflate it (zlib, C), undo the filter
a whole row at a time with word-parallel integer arithmetic, overwrite the painted rows, and deflate
it again on two threads. Only the painted rows and the row under each are rewritten (with the filter
None); every other row keeps its bytes. About 10 ms for that image (benchmarks/marks.py, docs/marks.md).

An image this cannot edit (another filter, a bit depth other than 8, palette, grey or interlaced) raises
`PngNotEditable`, and the caller falls back to drawing in the page (core/marks.py).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

__all__ = ["InflatedPng", "Paint", "PngNotEditable", "adler32_combine", "paint_png"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
FILTER_NONE, FILTER_UP = 0, 2
WINDOW = 32768  # deflate's window: each part of a parallel deflate is primed with the bytes before it
ADLER_BASE = 65521
MEMORY_LEVEL = 6  # zlib's hash table at a quarter of its default size: measured faster here, as small a file

# (x, y, width, height, pixels): a block of rows of RGB bytes (width * height * 3) to copy at x, y in image
# pixels, clipped to the image. A solid rectangle is one colour repeated.
Paint = tuple[int, int, int, int, bytes]

SPLIT_BYTES = 4 * WINDOW  # below this a half is not worth a thread
_helper_pool: tuple[int, ThreadPoolExecutor] | None = None


class PngNotEditable(ValueError):
    """The PNG is not one this module edits (it is valid, only not Chromium's fast kind)."""


def paint_png(png: bytes, paints: Sequence[Paint]) -> bytes:
    """`png` with `paints` copied over it, in order (a later one covers an earlier one). CPU-bound: about
    10 ms for a 1280x720 screenshot."""
    return InflatedPng(png).paint(paints)


class InflatedPng:
    """A PNG checked and inflated, ready to paint once (its image data is painted in place). Opening it
    first lets a caller inflate while it waits for what to paint (core/marks.py: the labels' pictures)."""

    def __init__(self, png: bytes) -> None:
        self.header, self.before, idat, self.after = _chunks(png)
        width, height, depth, colour, _compression, _filter, interlace = struct.unpack(">IIBBBBB", self.header)
        if depth != 8 or colour not in (2, 6) or interlace != 0:
            raise PngNotEditable(f"bit depth {depth}, colour type {colour}, interlace {interlace}")
        self.width, self.height = width, height
        self.channels = 3 if colour == 2 else 4
        size = height * (width * self.channels + 1)
        try:
            self.data = bytearray(zlib.decompress(idat, bufsize=size))  # one buffer of the right size
        except zlib.error as exc:
            raise PngNotEditable(f"image data: {exc}") from None
        if len(self.data) != size:
            raise PngNotEditable("image data of the wrong length")

    def paint(self, paints: Sequence[Paint]) -> bytes:
        """The PNG with `paints` on it."""
        spans = _row_spans(paints, self.width, self.height, self.channels)
        _repaint(self.data, spans, self.width * self.channels)
        body = _deflate(self.data)
        return SIGNATURE + _chunk(b"IHDR", self.header) + self.before + _chunk(b"IDAT", body) + self.after


def _helpers() -> ThreadPoolExecutor:
    """The deflate helpers of this process: one per paint at a time, two so that a paint on the event loop
    and one in a worker thread do not queue (a forked child, a Ray worker, gets its own: an executor's
    threads do not survive a fork)."""
    global _helper_pool
    pid = os.getpid()
    if _helper_pool is None or _helper_pool[0] != pid:
        _helper_pool = (pid, ThreadPoolExecutor(max_workers=2, thread_name_prefix="cdp-engine-deflate"))
    return _helper_pool[1]


def _chunks(png: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """(IHDR body, the chunks between IHDR and the image data, the image data, the chunks after it)."""
    if png[:8] != SIGNATURE:
        raise PngNotEditable("not a PNG")
    pos, header = 8, b""
    before: list[bytes] = []
    after: list[bytes] = []
    idat: list[bytes] = []
    while pos + 12 <= len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(png):
            raise PngNotEditable("a truncated chunk")
        if kind == b"IHDR":
            header = png[pos + 8 : pos + 8 + length]
        elif kind == b"IDAT":
            idat.append(png[pos + 8 : pos + 8 + length])
        else:
            (after if idat else before).append(png[pos:end])
        pos = end
    if len(header) != 13 or not idat:
        raise PngNotEditable("no header or no image data")
    return header, b"".join(before), b"".join(idat), b"".join(after)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _row_spans(
    paints: Sequence[Paint], width: int, height: int, channels: int
) -> dict[int, list[tuple[int, bytes]]]:
    """For each row painted: (byte offset in the row, bytes) to write, in paint order, clipped to the image."""
    spans: dict[int, list[tuple[int, bytes]]] = {}
    for x, y, w, h, pixels in paints:
        src_stride = w * 3
        if len(pixels) not in (3, src_stride * h):
            raise ValueError(f"a paint of {w}x{h} pixels needs {src_stride * h} bytes, or 3 for one colour")
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)
        if x0 >= x1 or y0 >= y1:
            continue
        left, right = (x0 - x) * 3, (x1 - x) * 3
        offset = x0 * channels
        solid = len(pixels) == 3
        if solid:
            run = _pixels(pixels * (x1 - x0), channels)
        for row in range(y0, y1):
            if not solid:
                start = (row - y) * src_stride
                run = _pixels(pixels[start + left : start + right], channels)
            spans.setdefault(row, []).append((offset, run))
    return spans


def _pixels(rgb: bytes, channels: int) -> bytes:
    """RGB bytes as the image's pixels: opaque RGBA for an image with alpha."""
    if channels == 3:
        return rgb
    out = bytearray(b"\xff" * (len(rgb) // 3 * 4))
    out[0::4], out[1::4], out[2::4] = rgb[0::3], rgb[1::3], rgb[2::3]
    return bytes(out)


def _repaint(data: bytearray, spans: dict[int, list[tuple[int, bytes]]], row_bytes: int) -> None:
    """Writes the spans into the filtered rows of `data` in place.

    Each row's pixels are the running sum of the Up-filtered rows above it, byte by byte modulo 256: one
    Python integer holds a row, and the sum runs on all its bytes at once (adding the low seven bits, then
    setting the top bit by exclusive or, so no carry crosses a byte). A painted row is written back whole
    with the filter None, and so is the row under it, whose Up bytes referred to the old pixels. Rows after
    that are left as they are."""
    if not spans:
        return
    stride = row_bytes + 1
    low = int.from_bytes(b"\x7f" * row_bytes, "little")
    high = int.from_bytes(b"\x80" * row_bytes, "little")
    view = memoryview(data)
    unchanged = bytes(row_bytes)  # an Up row of zeros: the same pixels as the row above (blank space)
    above, above_painted, above_bytes = 0, False, b""
    for row in range(min(max(spans) + 2, len(data) // stride)):
        at = row * stride
        kind = data[at]
        repeat = kind == FILTER_UP and data.startswith(unchanged, at + 1)
        if repeat:
            pixels = above
        elif kind == FILTER_UP:
            filtered = int.from_bytes(view[at + 1 : at + stride], "little")
            pixels = ((filtered & low) + (above & low)) ^ ((filtered ^ above) & high)
        elif kind == FILTER_NONE:
            pixels = int.from_bytes(view[at + 1 : at + stride], "little")
        else:
            raise PngNotEditable(f"row {row} uses filter {kind}")
        row_spans = spans.get(row)
        if row_spans or (above_painted and kind != FILTER_NONE):
            written = above_bytes if repeat and above_bytes else pixels.to_bytes(row_bytes, "little")
            data[at] = FILTER_NONE
            data[at + 1 : at + stride] = written
            for offset, run in row_spans or ():
                data[at + 1 + offset : at + 1 + offset + len(run)] = run
            above_bytes = written
        elif not repeat:
            above_bytes = b""
        above, above_painted = pixels, bool(row_spans)


def _deflate(data: bytearray) -> bytes:
    """A zlib stream of `data` at level 1, deflated in two halves at once (zlib lets go of the GIL while
    it works, and the two calls here do nothing else): the first half ends on a byte boundary (a sync
    flush) and the second is primed with the 32 KB before it, so the two raw streams join into one, as
    pigz does; the checksums join with adler32_combine. Pipelining the Python painting with zlib on
    another thread was measured slower: zlib takes the GIL back each time its output buffer grows."""
    half = len(data) // 2
    if half < SPLIT_BYTES:
        deflater = zlib.compressobj(1, zlib.DEFLATED, 15, MEMORY_LEVEL)
        return deflater.compress(data) + deflater.flush()
    view = memoryview(data)
    second = _helpers().submit(_deflate_part, view[half:], view[half - WINDOW : half], True)
    try:
        first, first_sum = _deflate_part(view[:half], None, False)
    finally:
        rest, rest_sum = second.result()
    checksum = adler32_combine(first_sum, rest_sum, len(data) - half)
    return b"\x78\x01" + first + rest + struct.pack(">I", checksum)


def _deflate_part(part: memoryview, primer: memoryview | None, last: bool) -> tuple[bytes, int]:
    """Raw deflate of one part (level 1) and its adler32."""
    if primer is None:
        deflater = zlib.compressobj(1, zlib.DEFLATED, -15, MEMORY_LEVEL)
    else:
        deflater = zlib.compressobj(1, zlib.DEFLATED, -15, MEMORY_LEVEL, zlib.Z_DEFAULT_STRATEGY, bytes(primer))
    out = deflater.compress(part) + deflater.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
    return out, zlib.adler32(part)


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The adler32 of two byte strings joined, from theirs and the second's length (zlib's own formula)."""
    rem = second_length % ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = rem * sum1 % ADLER_BASE
    sum1 += (second & 0xFFFF) + ADLER_BASE - 1
    sum2 += (first >> 16 & 0xFFFF) + (second >> 16 & 0xFFFF) + ADLER_BASE - rem
    sum1 %= ADLER_BASE
    sum2 %= ADLER_BASE
    return sum1 | sum2 << 16
