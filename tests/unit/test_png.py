"""The engine's own PNG painter (core/png.py), on images built here: no browser needed.

Each case paints on a PNG filtered the way Chromium's fast encoder does (Up rows, with None rows mixed
in), decodes the result with the tests' own decoder (tests/core/test_screenshot.py, every PNG filter, written
independently of the painter) and compares it with the same paints applied pixel by pixel to the
source image. Images too odd to edit must say so (PngNotEditable) and leave the caller to fall back.
"""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_screenshot import decode_png

from cdp_engine.core.png import Paint, PngNotEditable, adler32_combine, paint_png

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def make_png(
    rows: list[bytes],
    width: int,
    channels: int = 3,
    *,
    filters: list[int] | None = None,
    extra_before: bytes = b"",
    extra_after: bytes = b"",
    idat_size: int = 4096,
) -> bytes:
    """An 8-bit RGB or RGBA PNG of `rows` (raw pixels), each row filtered None (0), Sub (1) or Up (2)."""
    height = len(rows)
    filters = filters or [2] * height
    out = bytearray()
    above = bytes(width * channels)
    for row, kind in zip(rows, filters, strict=True):
        if kind == 0:
            line = row
        elif kind == 1:
            line = bytes((row[i] - (row[i - channels] if i >= channels else 0)) & 0xFF for i in range(len(row)))
        else:
            line = bytes((a - b) & 0xFF for a, b in zip(row, above, strict=True))
        out += bytes((kind,)) + line
        above = row
    data = zlib.compress(bytes(out), 6)
    header = struct.pack(">IIBBBBB", width, height, 8, 2 if channels == 3 else 6, 0, 0, 0)
    idat = b"".join(chunk(b"IDAT", data[i : i + idat_size]) for i in range(0, len(data), idat_size))
    return SIGNATURE + chunk(b"IHDR", header) + extra_before + idat + extra_after + chunk(b"IEND", b"")


def reference(rows: list[bytes], width: int, channels: int, paints: list[Paint]) -> list[bytes]:
    """The paints applied pixel by pixel, as RGB rows (the decoder drops alpha)."""
    pixels = [bytearray(r) for r in rows]
    for x, y, w, h, colour in paints:
        for py in range(max(y, 0), min(y + h, len(rows))):
            for px in range(max(x, 0), min(x + w, width)):
                if len(colour) == 3:
                    rgb = colour
                else:
                    at = ((py - y) * w + (px - x)) * 3
                    rgb = colour[at : at + 3]
                pixels[py][px * channels : px * channels + 3] = rgb
                if channels == 4:
                    pixels[py][px * 4 + 3] = 255
    return [bytes(b for i, b in enumerate(r) if i % channels < 3) for r in pixels]


def scene(width: int, height: int, channels: int) -> list[bytes]:
    """Rows with blank bands (Up rows of zeros), stripes and noise: the kinds of rows a screenshot has."""
    rows = []
    for y in range(height):
        if y % 7 in (0, 1):
            rows.append(bytes([250, 250, 250, 255][:channels]) * width)
        elif y % 7 == 2:
            rows.append(random.Random(width * 1000 + y).randbytes(width * channels))
        else:
            rows.append(bytes((x * 7 + y) & 0xFF for x in range(width * channels)))
    return rows


def alpha_of(png: bytes) -> list[int]:
    """The alpha bytes of an RGBA PNG written with None/Up rows (what paint_png writes)."""
    pos, idat, width = 8, b"", 0
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width = struct.unpack(">I", body[:4])[0]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * 4 + 1
    alphas, above = [], bytes(width * 4)
    for y in range(len(raw) // stride):
        kind, line = raw[y * stride], raw[y * stride + 1 : (y + 1) * stride]
        assert kind in (0, 2)
        row = line if kind == 0 else bytes((a + b) & 0xFF for a, b in zip(line, above, strict=True))
        alphas.extend(row[3::4])
        above = row
    return alphas


def chunks_of(png: bytes) -> list[tuple[bytes, bool]]:
    """Each chunk's kind and whether its CRC is right."""
    out, pos = [], 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length : pos + 12 + length])
        out.append((kind, crc == zlib.crc32(kind + body)))
        pos += 12 + length
    return out


@pytest.mark.parametrize("channels", [3, 4])
def test_paints_land_where_asked_and_nowhere_else(channels: int) -> None:
    width, height = 48, 40
    rows = scene(width, height, channels)
    sprite = bytes(range(60)) * 3  # 15 x 4 pixels
    paints: list[Paint] = [
        (5, 5, 20, 2, b"\xe6\x19\x4b"),  # an outline's top
        (5, 5, 2, 20, b"\x3c\xb4\x4b"),  # its left side, over the top's corner
        (30, -3, 15, 4, sprite),  # a label cut by the top edge
        (40, 30, 20, 20, b"\x01\x02\x03"),  # cut by the right and bottom edges
        (-10, 10, 12, 3, b"\x09\x08\x07"),  # cut by the left edge
        (10, 10, 0, 5, b"\xff\x00\x00"),  # empty
        (100, 100, 5, 5, b"\xff\x00\x00"),  # off the image
    ]
    painted = paint_png(make_png(rows, width, channels), paints)
    w, h, got = decode_png(painted)
    assert (w, h) == (width, height)
    assert got == reference(rows, width, channels, paints)
    assert all(ok for _kind, ok in chunks_of(painted))
    if channels == 4:  # painted pixels are opaque; the others keep their alpha
        alphas = alpha_of(painted)
        assert alphas[5 * width + 5] == 255 and alphas[0] == rows[0][3]


def test_rows_filtered_none_and_blank_bands_are_read_right() -> None:
    width, height = 30, 24
    rows = scene(width, height, 3)
    filters = [0 if y % 5 == 0 else 2 for y in range(height)]
    paints: list[Paint] = [(2, y, 3, 1, b"\x10\x20\x30") for y in range(0, height, 3)]
    got = decode_png(paint_png(make_png(rows, width, filters=filters), paints))[2]
    assert got == reference(rows, width, 3, paints)


def test_an_image_large_enough_for_two_threads_and_its_other_chunks() -> None:
    """A 400x300 RGB image is deflated in two halves joined into one stream; chunks between the header
    and the image data, and after it, stay where they were."""
    width, height = 400, 300
    rows = scene(width, height, 3)
    text = chunk(b"tEXt", b"Comment\x00kept")
    time = chunk(b"tIME", b"\x07\xea\x0c\x02\x12\x00\x00")
    paints: list[Paint] = [(0, 149, 400, 3, b"\x00\x00\xff"), (390, 0, 10, 300, b"\x00\xff\x00")]
    painted = paint_png(make_png(rows, width, extra_before=text, extra_after=time), paints)
    assert [k for k, _ok in chunks_of(painted)] == [b"IHDR", b"tEXt", b"IDAT", b"tIME", b"IEND"]
    assert all(ok for _kind, ok in chunks_of(painted))
    assert decode_png(painted)[2] == reference(rows, width, 3, paints)


def test_no_paint_gives_the_same_pixels() -> None:
    rows = scene(20, 10, 3)
    assert decode_png(paint_png(make_png(rows, 20), []))[2] == rows


@pytest.mark.parametrize(
    "case",
    ["not a png", "sub filter", "16-bit", "palette", "interlaced", "truncated", "bad data", "short data"],
)
def test_images_it_cannot_edit_say_so(case: str) -> None:
    rows = scene(16, 8, 3)
    png = make_png(rows, 16)
    if case == "not a png":
        png = b"\xff\xd8\xff" + png[3:]
    elif case == "sub filter":
        png = make_png(rows, 16, filters=[2, 2, 1, 2, 2, 2, 2, 2])
    elif case in ("16-bit", "palette", "interlaced"):
        depth, colour, interlace = {"16-bit": (16, 2, 0), "palette": (8, 3, 0), "interlaced": (8, 2, 1)}[case]
        header = struct.pack(">IIBBBBB", 16, 8, depth, colour, 0, 0, interlace)
        png = SIGNATURE + chunk(b"IHDR", header) + png[33:]
    elif case == "truncated":
        png = png[:60]
    elif case == "bad data":
        png = SIGNATURE + png[8:33] + chunk(b"IDAT", b"\x78\x01garbage") + chunk(b"IEND", b"")
    elif case == "short data":
        png = make_png(rows[:5], 16)
        png = png[:20] + struct.pack(">I", 8) + png[24:]  # says 8 rows, holds 5 (the CRC is not checked)
    with pytest.raises(PngNotEditable):
        paint_png(png, [(1, 1, 2, 2, b"\x00\x00\x00")])


def test_a_paint_of_the_wrong_size_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="needs 12 bytes"):
        paint_png(make_png(scene(8, 8, 3), 8), [(0, 0, 2, 2, b"\x00" * 11)])


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(first=st.binary(max_size=3000), second=st.binary(max_size=70000))
def test_adler32_combine_is_zlibs(first: bytes, second: bytes) -> None:
    assert adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second)) == zlib.adler32(first + second)


rects = st.tuples(
    st.integers(-12, 40),
    st.integers(-12, 30),
    st.integers(0, 20),
    st.integers(0, 20),
    st.sampled_from([b"\xe6\x19\x4b", b"\x00\x00\x00", b"\xff\xff\xff", None]),
)


@settings(
    max_examples=120, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    paints=st.lists(rects, max_size=8),
    channels=st.sampled_from([3, 4]),
    none_rows=st.sets(st.integers(0, 23)),
)
def test_any_paints_on_any_rows_match_the_pixel_by_pixel_result(
    paints: list[tuple[int, int, int, int, bytes | None]], channels: int, none_rows: set[int]
) -> None:
    width, height = 32, 24
    rows = scene(width, height, channels)
    given_paints: list[Paint] = [
        (x, y, w, h, colour if colour is not None else bytes((x * y + i) & 0xFF for i in range(w * h * 3)))
        for x, y, w, h, colour in paints
    ]
    filters = [0 if y in none_rows else 2 for y in range(height)]
    painted = paint_png(make_png(rows, width, channels, filters=filters), given_paints)
    assert decode_png(painted)[2] == reference(rows, width, channels, given_paints)
