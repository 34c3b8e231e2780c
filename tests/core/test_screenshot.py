"""Screenshots against a real headless Chromium: fresh after a change, options (format, quality, clip,
scale, maximum size) through the one core function, and reuse of a state's screenshot only while the
page provably painted nothing new.

Pixels are checked with the tiny PNG decoder below (zlib and the five PNG filters), so no imaging
library is needed.
"""

from __future__ import annotations

import base64
import itertools
import struct
import zlib
from typing import Any

import pytest

import cdp_engine
from cdp_engine.core import emulation, files
from cdp_engine.core.files import ScreenshotOptions, image_size, screenshot_options

_paths = itertools.count(1)


# ----- a tiny PNG decoder -----------------------------------------------------------------------------


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line[j] for j in range(stride) if j % bpp < 3))
        prev = line
    return width, height, rows


def encode_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour RGB PNG (the page's image in a test)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def colours(data_b64: str) -> set[tuple[int, int, int]]:
    """Every RGB colour in a base64 PNG."""
    _, _, rows = decode_png(base64.b64decode(data_b64))
    found: set[tuple[int, int, int]] = set()
    for row in rows:
        found.update(zip(row[0::3], row[1::3], row[2::3], strict=True))
    return found


def pixel(data_b64: str, x: int, y: int) -> tuple[int, int, int]:
    """The RGB colour at (x, y) of a base64 PNG."""
    _, _, rows = decode_png(base64.b64decode(data_b64))
    row = rows[y]
    return row[3 * x], row[3 * x + 1], row[3 * x + 2]


RED, BLUE = (255, 0, 0), (0, 0, 255)


def page(body: str, style: str = "") -> str:
    return (
        "<!doctype html><html><head><title>shot</title><style>html,body{margin:0;height:100%}"
        f"{style}</style></head><body>{body}</body></html>"
    )


async def open_page(tab: cdp_engine.Tab, site: Any, html: str) -> None:
    await tab.goto(site.add(f"/shot/{next(_paths)}", html))


# Fully blue; a click anywhere turns the whole page red (the button covers the viewport, no text).
TURNS_RED = page(
    "<button id=b aria-label=paint style='position:fixed;inset:0;border:0;background:#00f'"
    " onclick=\"this.style.background='#f00'; document.body.style.background='#f00'\"></button>",
    "body{background:#00f}",
)


# ----- fresh after a change -------------------------------------------------------------------------


async def test_screenshot_after_a_click_shows_the_change(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, TURNS_RED)
    before = await tab.state(screenshot=True)
    assert colours(before["screenshot"]) == {BLUE}
    button = next(k for k, d in before["element_index"].items() if d["aria-label"] == "paint")
    after = await tab.act({"action": "click_element", "element_index": int(button)}, screenshot=True)
    assert "error" not in after
    assert colours(after["screenshot"]) == {RED}, "the screenshot shows the page before the click"


async def test_screenshot_right_after_a_script_change(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, page("", "body{background:#00f}"))
    assert colours(await tab.screenshot_base64()) == {BLUE}
    # No wait between the change and the capture: the forced redraw includes it.
    await tab.evaluate("document.body.style.background = '#f00'")
    assert colours(await tab.screenshot_base64()) == {RED}
    await tab.evaluate("document.body.style.background = '#00f'")
    assert colours((await tab.state(screenshot=True))["screenshot"]) == {BLUE}


# ----- options ------------------------------------------------------------------------------------


SQUARE = page(
    "<div style='position:absolute;left:100px;top:50px;width:200px;height:100px;background:#f00'></div>",
    "body{background:#00f}",
)


async def test_max_width_and_height_scale_the_image(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, SQUARE)
    assert image_size(await tab.screenshot()) == (1280, 720)
    assert image_size(await tab.screenshot(max_width=640)) == (640, 360)
    assert image_size(await tab.screenshot(max_height=180, format="jpeg")) == (320, 180)
    assert image_size(await tab.screenshot(max_width=2000)) == (1280, 720), "never enlarged"
    shot = await tab.capture_screenshot(ScreenshotOptions(format="webp", max_width=400))
    assert (shot.width, shot.height, shot.media_type) == (400, 225, "image/webp")
    state = await tab.state(screenshot=ScreenshotOptions(max_width=320))
    assert image_size(base64.b64decode(state["screenshot"])) == (320, 180)


async def test_max_width_holds_at_a_device_scale_factor_of_two(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, SQUARE)
    await emulation.set_viewport(tab, 800, 600, device_scale_factor=2)
    assert image_size(await tab.screenshot()) == (1600, 1200)
    width, height = image_size(await tab.screenshot(max_width=400)) or (0, 0)
    assert width == 400 and abs(width / height - 800 / 600) < 0.01
    state = await tab.state(screenshot=ScreenshotOptions(max_width=400))
    assert image_size(base64.b64decode(state["screenshot"])) == (400, 300)


async def test_clip_captures_that_rectangle(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, SQUARE)
    inside = {"x": 110, "y": 60, "width": 180, "height": 80}
    data = await tab.screenshot_base64(clip=inside)
    assert image_size(base64.b64decode(data)) == (180, 80)
    assert colours(data) == {RED}
    doubled = await tab.screenshot_base64(clip=inside, scale=2)
    assert image_size(base64.b64decode(doubled)) == (360, 160)
    around = await tab.screenshot_base64(clip={"x": 0, "y": 0, "width": 400, "height": 200}, max_width=200)
    assert image_size(base64.b64decode(around)) == (200, 100)
    assert colours(around) >= {RED, BLUE}
    state = await tab.state(screenshot=ScreenshotOptions(clip=inside))
    assert colours(state["screenshot"]) == {RED}


async def test_quality_changes_the_size(tab: cdp_engine.Tab, site: Any) -> None:
    gradient = page("", "body{background:linear-gradient(45deg,#f00,#0f0,#00f,#ff0)}")
    await open_page(tab, site, gradient)
    for fmt in ("jpeg", "webp"):
        low = await tab.screenshot(format=fmt, quality=5)
        high = await tab.screenshot(format=fmt, quality=95)
        assert image_size(low) == image_size(high) == (1280, 720)
        assert len(low) * 2 < len(high), (fmt, len(low), len(high))
    state = await tab.state(screenshot="webp", jpeg_quality=5)
    assert base64.b64decode(state["screenshot"])[8:12] == b"WEBP"


def test_screenshot_options_are_checked() -> None:
    assert screenshot_options(False) is None and screenshot_options("none") is None
    assert screenshot_options(True) == ScreenshotOptions()
    assert screenshot_options("jpeg", quality=40) == ScreenshotOptions(format="jpeg", quality=40)
    assert screenshot_options("png", quality=40) == ScreenshotOptions()
    for bad in ("gif", 3):
        with pytest.raises(ValueError):
            screenshot_options(bad)  # type: ignore[arg-type]
    for kwargs in ({"quality": 101}, {"scale": 0}, {"max_width": 0}, {"clip": {"x": 0, "y": 0, "width": 0, "height": 9}}):
        with pytest.raises(ValueError):
            ScreenshotOptions(**kwargs)  # type: ignore[arg-type]
    # No clip unless one is needed: the viewport capture is the cheapest.
    assert "clip" not in files.screenshot_params(ScreenshotOptions())
    region = {"x": 0.0, "y": 30.0, "width": 1000.0, "height": 500.0}
    assert files.screenshot_params(ScreenshotOptions(max_width=250), region)["clip"] == {**region, "scale": 0.25}
    with pytest.raises(ValueError):
        files.screenshot_params(ScreenshotOptions(max_width=250))


def test_image_size_reads_png_jpeg_and_webp_headers() -> None:
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I4sII", 13, b"IHDR", 640, 360) + b"\0" * 9
    assert image_size(png) == (640, 360)
    vp8 = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0" + b"\0\0\0\x9d\x01\x2a" + struct.pack("<HH", 400, 225)
    assert image_size(vp8) == (400, 225)
    vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f" + struct.pack("<I", (400 - 1) | ((225 - 1) << 14))
    assert image_size(vp8l) == (400, 225)
    assert image_size(b"not an image") is None


# ----- reuse while unchanged ----------------------------------------------------------------------


async def test_unchanged_page_reuses_the_screenshot_and_a_change_does_not(tab: cdp_engine.Tab, site: Any) -> None:
    await open_page(tab, site, page("<h1>still</h1>", "body{background:#00f}"))
    first = await tab.state(screenshot=True)
    again = await tab.state(screenshot=True)
    assert tab.last_timings.get("screenshot_reused") == 1.0
    assert again["screenshot"] == first["screenshot"]
    # Other options: the state holds, only the picture is taken again (and then reused in turn).
    jpeg = await tab.state(screenshot="jpeg")
    assert tab.last_timings.get("cached") == 1.0 and "screenshot_reused" not in tab.last_timings
    assert base64.b64decode(jpeg["screenshot"])[:2] == b"\xff\xd8"
    assert (await tab.state(screenshot="jpeg"))["screenshot"] == jpeg["screenshot"]
    assert tab.last_timings.get("screenshot_reused") == 1.0
    # A change: never the old picture.
    await tab.evaluate("document.body.style.background = '#f00'")
    changed = await tab.state(screenshot=True)
    assert "screenshot_reused" not in tab.last_timings and "cached" not in tab.last_timings
    shown = colours(changed["screenshot"])
    assert RED in shown and BLUE not in shown


@pytest.mark.parametrize(
    "body, style",
    [
        # A CSS animation changes pixels every frame with no DOM mutation and no event until it ends.
        ("<div id=a></div>", "#a{width:100px;height:100px;animation:k 0.2s steps(2) infinite}"
         "@keyframes k{from{background:#f00}to{background:#0f0}}"),
        # A canvas drawn by a timer: pixels change with no DOM mutation at all.
        ("<canvas id=c width=100 height=100></canvas><script>let n = 0; setInterval(() => {"
         "const x = document.getElementById('c').getContext('2d'); x.fillStyle = `rgb(${n++ % 256},0,0)`;"
         "x.fillRect(0, 0, 100, 100); }, 5)</script>", ""),
    ],
    ids=["css-animation", "canvas"],
)
async def test_a_page_that_paints_by_itself_never_reuses_the_screenshot(
    tab: cdp_engine.Tab, site: Any, body: str, style: str
) -> None:
    await open_page(tab, site, page(body, style))
    await tab.state(screenshot=True)
    shots = set()
    # Until two pictures differ, at most 8: a capture takes at least a frame, so 8 span more than the
    # animation's 100 ms step (the canvas changes every 5 ms); three in a row could all fall within one step.
    for _ in range(8):
        shots.add((await tab.state(screenshot=True))["screenshot"])
        assert tab.last_timings.get("cached") == 1.0, "the state itself is unchanged"
        assert "screenshot_reused" not in tab.last_timings
        if len(shots) > 1:
            break
    assert len(shots) > 1, "every screenshot showed the same frame"


async def test_an_image_that_loads_later_is_not_missed(tab: cdp_engine.Tab, site: Any) -> None:
    import asyncio

    red_png = encode_png(4, 4, RED)
    release = asyncio.Event()

    async def slow_image(request: Any) -> Any:
        from aiohttp import web

        await release.wait()
        return web.Response(body=red_png, content_type="image/png")

    site.add_handler("/shot/slow.png", slow_image)
    await open_page(tab, site, page("", "body{background:#00f}"))
    # Added after the page's load event: only the image's own load event says it arrived.
    await tab.evaluate(
        "document.body.innerHTML = \"<img src='/shot/slow.png' style='position:fixed;inset:0;width:100%;height:100%'>\""
    )
    first = await tab.state(screenshot=True)
    assert pixel(first["screenshot"], 640, 360) == BLUE
    release.set()
    await tab.evaluate("new Promise(r => { const i = document.images[0]; i.complete ? r() : i.onload = r; })")
    after = await tab.state(screenshot=True)
    assert "screenshot_reused" not in tab.last_timings
    assert pixel(after["screenshot"], 640, 360) == RED


# ----- the surfaces' knobs ------------------------------------------------------------------------


def test_surface_screenshot_settings_are_checked_where_they_are_set() -> None:
    from cdp_engine.mcp_server.server_config import Config
    from cdp_engine.toolset.driver_config import ToolsetConfig

    assert ToolsetConfig().screenshot_optimize_for_speed is True
    with pytest.raises(ValueError):
        ToolsetConfig(screenshot_quality=101)
    with pytest.raises(ValueError):
        ToolsetConfig(screenshot_format="gif")  # type: ignore[arg-type]
    config = Config.from_env({"BROWSER_MCP_SCREENSHOT_QUALITY": "40", "BROWSER_MCP_SCREENSHOT_OPTIMIZE_FOR_SPEED": "0"})
    assert (config.screenshot_quality, config.screenshot_optimize_for_speed) == (40, False)
    with pytest.raises(ValueError):
        Config(screenshot_quality=-1)


async def test_a_background_tab_is_captured_and_a_lone_tab_is_left_alone(
    context: cdp_engine.BrowserContext, site: Any
) -> None:
    """A tab behind another of its context draws no frames, so Chromium's capture would wait for one that never
    comes (it timed out every other time): a capture brings it to the front first. A tab alone in its context
    is never hidden, so nothing is sent for it."""
    back = await context.new_tab()
    await open_page(back, site, page("", "body{background:#00f}"))
    sent: list[str] = []
    original = back.session.send

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(method)
        return original(method, *args, **kwargs)

    back.session.send = spy  # type: ignore[method-assign]
    try:
        await back.screenshot_base64(timeout=5)
        assert "Page.bringToFront" not in sent, "a lone tab needs no bringing to the front"
        front = await context.new_tab()
        for _ in range(4):  # the next capture after a successful one was the one that hung
            assert await front.evaluate("document.visibilityState") == "visible"
            assert await back.evaluate("document.visibilityState") == "hidden"
            small = await back.screenshot_base64(max_width=64, timeout=5)  # small: the tests' decoder is slow
            assert colours(small) == {BLUE}
            await front.session.send("Page.bringToFront")
        state = await back.state(screenshot=ScreenshotOptions(max_width=64))
        assert colours(state["screenshot"]) == {BLUE}
        assert "Page.bringToFront" in sent
    finally:
        del back.session.send
