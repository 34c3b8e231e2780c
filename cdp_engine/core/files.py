"""Files in and out of a page, each job once: screenshots, file inputs and intercepted file choosers.

Every surface calls these (through `Tab` or directly) instead of sending the CDP commands itself:
`capture_screenshot` takes every screenshot, as `ScreenshotOptions` say (format, quality, clip,
scale, maximum size); `start_screenshot`, the one sender of Page.captureScreenshot, returns the
command's future, so a state capture can gather it with its other commands. Uploads take a
`FilePolicy` and send only paths it allows.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError
from .marks import Mark, draw_marks, start_labels
from .policies import FilePolicy

ImageFormat = Literal["png", "jpeg", "webp"]

# What an element is to an upload: an <input type=file>, or a <label> whose control is one.
FILE_INPUT_JS = """function() {
  let el = this;
  if (el.tagName === 'LABEL' && el.control && el.control.tagName === 'INPUT' && el.control.type === 'file')
    return {file: true, label: true, multiple: el.control.multiple, disabled: el.control.disabled};
  if (el.tagName === 'INPUT' && el.type === 'file') return {file: true, multiple: el.multiple, disabled: el.disabled};
  return {file: false};
}"""
CANCEL_JS = "function() { this.dispatchEvent(new Event('cancel', {bubbles: true})); }"


def _quiet(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


# ----- screenshots -----------------------------------------------------------------------------

IMAGE_FORMATS: tuple[ImageFormat, ...] = ("png", "jpeg", "webp")
Region = dict[str, float]  # x, y, width, height in CSS pixels of the page (document coordinates)


@dataclass(frozen=True)
class ScreenshotOptions:
    """How one screenshot is taken: every surface builds one and `capture_screenshot` takes it.

    - `format`: png (lossless, the default every spec names), jpeg or webp.
    - `quality`: 0-100 for jpeg and webp (None: Chromium's 80); png ignores it.
    - `clip`: a rectangle of the page in CSS pixels; None is the viewport at its scroll offset.
    - `scale`: image pixels per CSS pixel (of the clip, or of the viewport).
    - `max_width` / `max_height`: shrink (never enlarge) after `scale` so the image fits, in image pixels.
      Chromium scales while it captures: no image is decoded here.
    - `full_page`: the whole scrollable page. Chromium resizes the page's viewport for it, so the page
      sees resize events (and a state captured with it is not reused).
    - `optimize_for_speed`: Chromium's fast encoders; a png keeps its pixels but is larger (about 2x).
    """

    format: ImageFormat = "png"
    quality: int | None = None
    clip: Region | None = None
    scale: float = 1.0
    max_width: int | None = None
    max_height: int | None = None
    full_page: bool = False
    optimize_for_speed: bool = True

    def __post_init__(self) -> None:
        if self.format not in IMAGE_FORMATS:
            raise ValueError(f"screenshot format must be png, jpeg or webp, not {self.format!r}")
        if self.quality is not None and (
            isinstance(self.quality, bool) or not isinstance(self.quality, int) or not 0 <= self.quality <= 100
        ):
            raise ValueError(f"screenshot quality must be an integer 0-100, not {self.quality!r}")
        if not (isinstance(self.scale, (int, float)) and 0 < self.scale <= 16):
            raise ValueError(f"screenshot scale must be above 0 and at most 16, not {self.scale!r}")
        for name in ("max_width", "max_height"):
            bound = getattr(self, name)
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int) or bound < 1):
                raise ValueError(f"screenshot {name} must be a positive integer, not {bound!r}")
        if self.clip is not None and not (self.clip.get("width", 0) > 0 and self.clip.get("height", 0) > 0):
            raise ValueError(f"a screenshot clip needs a positive width and height, not {self.clip!r}")

    @property
    def needs_region(self) -> bool:
        """True when the capture must know the page's rectangle first (to scale or to cover the page)."""
        return self.clip is None and (
            self.full_page or self.scale != 1.0 or self.max_width is not None or self.max_height is not None
        )


ScreenshotSpec = bool | str | ScreenshotOptions | None


def screenshot_options(spec: ScreenshotSpec, quality: int | None = None) -> ScreenshotOptions | None:
    """The options a surface's screenshot argument means: False/None/"none" = no screenshot, True = png,
    "png"/"jpeg"/"webp" = that format (jpeg and webp at `quality`), options as they are."""
    if isinstance(spec, ScreenshotOptions):
        return spec
    if spec is None or spec is False or spec == "" or spec == "none":
        return None
    if spec is True:
        return ScreenshotOptions()
    if isinstance(spec, str) and spec in IMAGE_FORMATS:
        return ScreenshotOptions(format=spec, quality=None if spec == "png" else quality)
    raise ValueError(f"screenshot must be true, false, png, jpeg, webp or ScreenshotOptions, not {spec!r}")


def screenshot_params(
    options: ScreenshotOptions, region: Region | None = None, *, device_scale: float = 1.0
) -> dict[str, Any]:
    """The Page.captureScreenshot parameters for `options`; `region` (the viewport or the page, see
    page_region) is needed when options.needs_region. No clip when none is needed: the cheapest capture.
    `device_scale` (the page's devicePixelRatio, when known) keeps a maximum size in image pixels."""
    params: dict[str, Any] = {"format": options.format, "captureBeyondViewport": options.full_page}
    if options.optimize_for_speed:
        params["optimizeForSpeed"] = True
    if options.quality is not None and options.format != "png":
        params["quality"] = options.quality
    clip = options.clip
    if clip is None and options.needs_region:
        if region is None:
            raise ValueError("these screenshot options need the page region (page_region) first")
        clip = region
    if clip is not None:
        scale = options.scale
        if options.max_width is not None:
            scale = min(scale, options.max_width / (float(clip["width"]) * device_scale))
        if options.max_height is not None:
            scale = min(scale, options.max_height / (float(clip["height"]) * device_scale))
        params["clip"] = {
            "x": float(clip.get("x", 0.0)),
            "y": float(clip.get("y", 0.0)),
            "width": float(clip["width"]),
            "height": float(clip["height"]),
            "scale": scale,
        }
    return params


def start_screenshot(
    session: CDPSession,
    options: ScreenshotOptions | None = None,
    *,
    region: Region | None = None,
    device_scale: float = 1.0,
    timeout: float | None = None,
) -> asyncio.Future[dict[str, Any]]:
    """Send Page.captureScreenshot now; the future's result["data"] is the base64 image."""
    params = screenshot_params(options or ScreenshotOptions(), region, device_scale=device_scale)
    return _send_screenshot(session, params, timeout)


def _send_screenshot(
    session: CDPSession, params: dict[str, Any], timeout: float | None
) -> asyncio.Future[dict[str, Any]]:
    """The one sender of Page.captureScreenshot. Chromium answers after a redraw it forces and a copy of
    the frame after it (about two frames at 60 Hz, docs/cdp-floor.md): the image is never older than the
    command, and never sooner than those frames."""
    return session.send("Page.captureScreenshot", params, timeout=timeout)


@dataclass(frozen=True)
class Screenshot:
    """A captured image: base64 data, its format, and its size in pixels (from the image header).
    A marked one (capture_screenshot(marks=...)) also says which image rectangles the marks cover."""

    data: str
    format: ImageFormat
    width: int | None
    height: int | None
    marked: tuple[tuple[float, float, float, float], ...] = ()  # x, y, width, height in image px

    @property
    def media_type(self) -> str:
        return f"image/{self.format}"


async def capture_screenshot(
    session: CDPSession,
    options: ScreenshotOptions | None = None,
    *,
    region: Region | None = None,
    timeout: float | None = None,
    marks: Sequence[Mark] | None = None,
    world: int | None = None,
    viewport: tuple[float, float, float, float] | None = None,
) -> Screenshot:
    """A screenshot as `options` say: the one function every surface's screenshot goes through.

    The page region is asked for only when the options need it. A maximum size is kept at any device
    scale factor: when the image comes out larger (a scale factor above 1), it is taken once more,
    scaled down by what the first showed. `marks` (boxes in viewport CSS px) are drawn on the image, their
    labels' pictures in `world`, an isolated world of the page, asked for beside the capture (core/marks.py):
    the page itself is never changed. `viewport`
    (width, height, scroll x, scroll y: where the boxes were measured, a state's) spares reading it."""
    options = options or ScreenshotOptions()
    if marks and world is None:
        raise ValueError("marks are drawn in an isolated world of the page: pass its execution context id")
    metrics: asyncio.Future[dict[str, Any]] | None = None
    if marks and viewport is None:  # the boxes are in viewport px: where the viewport is decides where they go
        metrics = session.send("Page.getLayoutMetrics", timeout=timeout)  # in flight with the capture
        if options.needs_region and region is None:
            region = _region_of(await metrics, full_page=options.full_page)
    if options.needs_region and region is None:
        region = await page_region(session, full_page=options.full_page, timeout=timeout)
    params = screenshot_params(options, region)
    capture = _send_screenshot(session, params, timeout)
    labels = None
    if marks and world is not None:  # answered while the capture waits for its frame
        labels = start_labels(session, world, [m.label for m in marks], pixels=options.format == "png", timeout=timeout)
        labels.add_done_callback(_quiet)
    data = str((await capture)["data"])
    if metrics is not None:
        viewport = _viewport_of(await metrics)
    width, height = image_size_base64(data) or (None, None)
    over = _oversize(options, width, height)
    if over < 1.0 and "clip" in params:
        params["clip"]["scale"] *= over
        data = str((await _send_screenshot(session, params, timeout))["data"])
        width, height = image_size_base64(data) or (None, None)
    if not marks or world is None or viewport is None or width is None or height is None:
        return Screenshot(data, options.format, width, height)
    transform = image_transform(options, region if options.needs_region else None, viewport, (width, height))
    image_marks = [(m.label, *transform.apply(m.box)) for m in marks]
    data, drawn = await draw_marks(
        session, world, data, options.format, options.quality, image_marks, (width, height), labels=labels, timeout=timeout
    )
    return Screenshot(data, options.format, width, height, tuple(drawn))


async def mark_image(
    session: CDPSession,
    world: int,
    image: Screenshot,
    marks: Sequence[Mark],
    transform: ImageTransform,
    *,
    quality: int | None = None,
    timeout: float | None = None,
) -> Screenshot:
    """An image already captured (a state's screenshot) with `marks` drawn on it, mapped by `transform`."""
    width, height = (image.width, image.height) if image.width and image.height else image_size_base64(image.data) or (0, 0)
    if not width or not height:
        raise CDPEngineError("the image to mark has no size in its header")
    image_marks = [(m.label, *transform.apply(m.box)) for m in marks]
    data, drawn = await draw_marks(
        session, world, image.data, image.format, quality, image_marks, (width, height), timeout=timeout
    )
    return Screenshot(data, image.format, width, height, tuple(drawn))


@dataclass(frozen=True)
class ImageTransform:
    """Where a screenshot's pixels lie over the viewport: image px = (viewport CSS px - origin) * scale.

    Element boxes are in viewport CSS pixels; a screenshot may be scaled (a scale, a maximum size, a
    device scale factor), clipped or of the whole page. This maps one onto the other."""

    origin_x: float = 0.0  # the image's top-left corner, in viewport CSS px
    origin_y: float = 0.0
    scale_x: float = 1.0  # image px per CSS px
    scale_y: float = 1.0

    @property
    def identity(self) -> bool:
        """True when image pixels are viewport CSS pixels (no box needs mapping)."""
        return (
            abs(self.origin_x) < 0.01
            and abs(self.origin_y) < 0.01
            and abs(self.scale_x - 1.0) < 1e-3
            and abs(self.scale_y - 1.0) < 1e-3
        )

    def apply(self, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """A viewport CSS box (x, y, width, height) in image pixels."""
        x, y, w, h = box
        return (
            (x - self.origin_x) * self.scale_x,
            (y - self.origin_y) * self.scale_y,
            w * self.scale_x,
            h * self.scale_y,
        )


def image_transform(
    options: ScreenshotOptions,
    region: Region | None,
    viewport: tuple[float, float, float, float],
    size: tuple[int, int],
) -> ImageTransform:
    """The transform of an image of `size` pixels taken with `options` (and `region`, when the options
    needed one) while the viewport was (width, height, scroll x, scroll y) in CSS px."""
    width, height, scroll_x, scroll_y = viewport
    clip = options.clip or region or {"x": scroll_x, "y": scroll_y, "width": width, "height": height}
    cw, ch = float(clip["width"]), float(clip["height"])
    return ImageTransform(
        float(clip.get("x", 0.0)) - scroll_x,
        float(clip.get("y", 0.0)) - scroll_y,
        size[0] / cw if cw > 0 else 1.0,
        size[1] / ch if ch > 0 else 1.0,
    )


def _oversize(options: ScreenshotOptions, width: int | None, height: int | None) -> float:
    """The factor that brings an image of width x height within the options' maximum size (1.0: it fits)."""
    factor = 1.0
    if options.max_width is not None and width and width > options.max_width:
        factor = min(factor, options.max_width / width)
    if options.max_height is not None and height and height > options.max_height:
        factor = min(factor, options.max_height / height)
    return factor


@dataclass(frozen=True)
class PageTile:
    """One part of a whole-page capture kept readable (`page_tile`): `region` of the page in CSS pixels,
    its `index` of `count` tiles (top to bottom; the last one reaches the page's end), and `scale`."""

    region: Region
    index: int
    count: int
    scale: float

    @property
    def next_index(self) -> int | None:
        return self.index + 1 if self.index + 1 < self.count else None


def tile_count(page: Region, max_width: int, max_height: int) -> tuple[float, float, int]:
    """(scale, tile height in CSS px, tile count) that cover `page` with images of at most max_width x
    max_height image pixels: the page's full width at `scale` (never enlarged), cut into bands."""
    width, height = max(1.0, float(page["width"])), max(1.0, float(page["height"]))
    scale = min(1.0, max_width / width)
    band = max(1.0, float(math.floor(max_height / scale)))
    return scale, band, max(1, math.ceil(height / band - 1e-6))


def page_tile(page: Region, index: int, max_width: int, max_height: int) -> PageTile:
    """Tile `index` of a whole page cut into readable bands (ValueError past the last one).

    Why tiles: one image of a long page scaled to fit (a 1280 x 49,000 px page into 1568 px is 41 px wide)
    shows nothing; bands of the page's width at the same scale as a viewport capture read like one."""
    scale, band, count = tile_count(page, max_width, max_height)
    if not 0 <= index < count:
        raise ValueError(f"tile must be 0-{count - 1}: the page has {count} tile{'s' if count > 1 else ''}")
    top = float(page.get("y", 0.0)) + index * band
    bottom = float(page.get("y", 0.0)) + float(page["height"])
    region = {"x": float(page.get("x", 0.0)), "y": top, "width": float(page["width"]), "height": min(band, bottom - top)}
    return PageTile(region, index, count, scale)


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, JPEG or WebP header; None when the bytes are none of these."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        chunk = data[12:16]
        if len(data) < (25 if chunk == b"VP8L" else 30):
            return None
        if chunk == b"VP8 ":
            return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
        if chunk == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
        return None
    i = 2
    while data[:2] == b"\xff\xd8" and i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker, length = data[i + 1], int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
        i += 2 + length
    return None


def image_size_base64(data: str) -> tuple[int, int] | None:
    """image_size of base64 data, decoding only its start where the header is (all of it if need be)."""
    size = image_size(base64.b64decode(data[:4096]))
    if size is None and len(data) > 4096:
        size = image_size(base64.b64decode(data))
    return size


async def page_region(session: CDPSession, *, full_page: bool = False, timeout: float | None = None) -> Region:
    """The CSS rectangle of the visible viewport (at its scroll offset), or of the whole page."""
    return _region_of(await session.send("Page.getLayoutMetrics", timeout=timeout), full_page=full_page)


def _viewport_of(metrics: dict[str, Any]) -> tuple[float, float, float, float]:
    """(width, height, scroll x, scroll y) of the visual viewport from Page.getLayoutMetrics."""
    vp = metrics["cssVisualViewport"]
    return (float(vp["clientWidth"]), float(vp["clientHeight"]), float(vp["pageX"]), float(vp["pageY"]))


def _region_of(metrics: dict[str, Any], *, full_page: bool) -> Region:
    if full_page:
        size = metrics["cssContentSize"]
        return {"x": 0.0, "y": 0.0, "width": float(size["width"]), "height": float(size["height"])}
    vp = metrics["cssVisualViewport"]
    return {
        "x": vp["pageX"],
        "y": vp["pageY"],
        "width": float(vp["clientWidth"]),
        "height": float(vp["clientHeight"]),
    }


async def print_pdf(
    session: CDPSession,
    *,
    paper_width: float,
    paper_height: float,
    landscape: bool = False,
    print_background: bool = False,
    timeout: float | None = None,
) -> str:
    """Page.printToPDF (paper size in inches); the base64 PDF."""
    result = await session.send(
        "Page.printToPDF",
        {
            "paperWidth": paper_width,
            "paperHeight": paper_height,
            "landscape": landscape,
            "printBackground": print_background,
        },
        timeout=timeout,
    )
    return str(result["data"])


# ----- file inputs -----------------------------------------------------------------------------


@dataclass
class FileInput:
    """The <input type=file> an element is or labels: files are always set on the input itself."""

    session: CDPSession
    backend_node_id: int
    multiple: bool
    disabled: bool

    async def set_files(self, paths: Sequence[str], policy: FilePolicy) -> list[str]:
        """Set the files (checked and resolved by `policy`); returns the paths sent."""
        return await set_input_files(self.session, self.backend_node_id, paths, policy)


async def file_input(session: CDPSession, backend_node_id: int) -> FileInput | None:
    """The file input an element is (or, for a <label>, controls); None when it is neither."""
    resolved = await session.send("DOM.resolveNode", {"backendNodeId": backend_node_id})
    object_id = resolved["object"]["objectId"]
    try:
        result = await session.send(
            "Runtime.callFunctionOn",
            {"objectId": object_id, "functionDeclaration": FILE_INPUT_JS, "returnByValue": True},
        )
        kind = result.get("result", {}).get("value")
        if not isinstance(kind, dict) or not kind.get("file"):
            return None
        target = backend_node_id
        if kind.get("label"):
            control = await session.send(
                "Runtime.callFunctionOn",
                {"objectId": object_id, "functionDeclaration": "function() { return this.control; }"},
            )
            control_id = control.get("result", {}).get("objectId")
            if not control_id:
                return None
            described = await session.send("DOM.describeNode", {"objectId": control_id})
            target = described["node"]["backendNodeId"]
        return FileInput(session, target, bool(kind.get("multiple")), bool(kind.get("disabled")))
    finally:
        session.send("Runtime.releaseObject", {"objectId": object_id}).add_done_callback(_quiet)


async def set_input_files(
    session: CDPSession, backend_node_id: int, paths: Sequence[str], policy: FilePolicy
) -> list[str]:
    """DOM.setFileInputFiles with the paths `policy` allows (PolicyError before anything is sent)."""
    files = policy.upload_paths(paths)
    await session.send("DOM.setFileInputFiles", {"files": files, "backendNodeId": backend_node_id})
    return files


# ----- file choosers ---------------------------------------------------------------------------


@dataclass
class FileChooser:
    """A file chooser the page opened while interception was on (Page.fileChooserOpened)."""

    session: CDPSession
    backend_node_id: int | None
    mode: str = "selectSingle"
    frame_id: str | None = None

    @property
    def multiple(self) -> bool:
        return self.mode == "selectMultiple"

    async def set_files(self, paths: Sequence[str], policy: FilePolicy) -> list[str]:
        """Answer the chooser with these files (checked and resolved by `policy`)."""
        if self.backend_node_id is None:
            raise CDPEngineError("the file chooser names no input element to fill")
        return await set_input_files(self.session, self.backend_node_id, paths, policy)

    async def cancel(self) -> None:
        """Answer the chooser with no files: the input gets the `cancel` event a user's Cancel sends."""
        if self.backend_node_id is None:
            return
        resolved = await self.session.send("DOM.resolveNode", {"backendNodeId": self.backend_node_id})
        object_id = resolved["object"]["objectId"]
        await self.session.send("Runtime.callFunctionOn", {"objectId": object_id, "functionDeclaration": CANCEL_JS})


def intercept_file_choosers(
    session: CDPSession, listener: Callable[[FileChooser], None]
) -> tuple[asyncio.Future[dict[str, Any]], Callable[[], None]]:
    """Intercept this session's file choosers (no native dialog): listener(chooser) for each one.

    Returns the enabling command's future (await or gather it) and `stop`, which unsubscribes
    and turns interception off again.
    """

    def on_opened(params: dict[str, Any]) -> None:
        listener(
            FileChooser(session, params.get("backendNodeId"), params.get("mode", "selectSingle"), params.get("frameId"))
        )

    unsubscribe = session.on("Page.fileChooserOpened", on_opened)
    enabled = session.send("Page.setInterceptFileChooserDialog", {"enabled": True})

    def stop() -> None:
        unsubscribe()
        if not session.closed:
            session.send("Page.setInterceptFileChooserDialog", {"enabled": False}).add_done_callback(_quiet)

    return enabled, stop


class ChooserWatch:
    """`async with ChooserWatch(sessions) as watch:` intercepts their choosers; `await watch.next(t)`
    gives the first one opened (TimeoutError after t seconds). Interception ends with the block."""

    def __init__(self, sessions: Sequence[CDPSession]) -> None:
        self.sessions = list(dict.fromkeys(sessions))
        self._opened: asyncio.Future[FileChooser] = asyncio.get_running_loop().create_future()
        self._stops: list[Callable[[], None]] = []

    def _on_chooser(self, chooser: FileChooser) -> None:
        if not self._opened.done():
            self._opened.set_result(chooser)

    async def __aenter__(self) -> ChooserWatch:
        enabling = []
        for session in self.sessions:
            enabled, stop = intercept_file_choosers(session, self._on_chooser)
            enabling.append(enabled)
            self._stops.append(stop)
        try:
            await asyncio.gather(*enabling)
        except BaseException:
            self._stop()
            raise
        return self

    async def next(self, timeout: float) -> FileChooser:
        async with asyncio.timeout(timeout):
            return await asyncio.shield(self._opened)

    def _stop(self) -> None:
        for stop in self._stops:
            with contextlib.suppress(CDPEngineError):
                stop()
        self._stops.clear()

    async def __aexit__(self, *exc: object) -> None:
        self._stop()
