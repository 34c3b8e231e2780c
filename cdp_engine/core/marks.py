"""Set-of-marks: element outlines and labels composited on a captured screenshot, never on the page.

Why here, and why so: vision models need each element's index (or ref) drawn on the image (the
set-of-marks method of BrowserGym, browser-use's highlights, agent-browser's annotated screenshots).
Drawing into the page (an overlay element) would be seen by its mutation observers and by the state;
the Overlay domain draws one highlight at a time with no labels of ours. So the engine draws on the
image it captured, in three steps with one home each:

- the labels' pictures (white text on the mark's colour) come from a canvas in the engine's isolated
  world of the tab's main frame (core/worlds.py), asked for while the capture is still in flight, so
  they cost no time of their own; the page's DOM and globals see nothing of it;
- `layout` places every outline and label (Python, one rule for both painters below);
- a PNG from Chromium's fast encoder is painted by the engine itself (core/png.py, off the event loop);
  any other image (jpeg, webp, a PNG of another kind) is decoded, drawn on an OffscreenCanvas and
  encoded again in the isolated world. No Python imaging library is needed.

Labels keep one size in image pixels whatever the screenshot's scale, so they stay legible on a
scaled-down image; each sits on its box's top-right corner, outside (an element's own text starts at
its left), white on the box's colour; colours cycle so neighbours differ.
"""

from __future__ import annotations

import asyncio
import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, JavaScriptError
from .png import InflatedPng, Paint, PngNotEditable

__all__ = ["Mark", "Placed", "draw_marks", "layout", "start_labels"]

# (label, x, y, width, height) in image pixels.
ImageMark = tuple[str, float, float, float, float]
Rect = tuple[float, float, float, float]

PALETTE = ("e6194b", "3cb44b", "4363d8", "f58231", "911eb4", "008080", "f032e6", "9a6324", "800000", "000075")
LINE = 2  # outline width, image px
PAD = 2  # label padding around its text, image px
FONT_PX = 11  # label text height in image pixels: legible on a scaled-down image, small on a full one
# A lossy image without a quality of its own was captured at Chromium's default (captureScreenshot: 80); the
# marked one is encoded at that quality too (the canvas's own default, 92, is a larger file and a slower encode).
DEFAULT_QUALITY = 80
# Images up to this many pixels are painted on the event loop (about 10 ms for 1280x720); a larger one, a
# whole page, in a worker thread, so that other tabs' messages are not held up behind it.
INLINE_PIXELS = 2_000_000


@dataclass(frozen=True)
class Mark:
    """One element to mark: its label (an index, a ref) and its box in viewport CSS pixels."""

    label: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class Placed:
    """One mark as drawn on an image of a given size: its colour, its outline and its label's rectangle."""

    index: int  # its place in the marks given (the label sheet's order)
    label: str
    colour: str  # hex RGB, from PALETTE
    outline: Rect  # the box, image px
    tag: tuple[int, int, int, int]  # the label's x, y, width, height, whole image px


# The labels' pictures: one sheet of rows of labels (white bold text on the mark's colour). Returns
# {widths, height, positions: [[x, y], ...], data: base64 RGB of the sheet or null}.
LABELS_SCRIPT = r"""function(labels, fontPx, pad, pixels) {
  const lh = fontPx + 2 * pad, sheet = 2048;
  let canvas = globalThis.__cdpEngineLabelCanvas;
  if (!canvas) canvas = globalThis.__cdpEngineLabelCanvas = new OffscreenCanvas(1, 1);
  let g = canvas.getContext('2d', {willReadFrequently: true});
  const font = `bold ${fontPx}px sans-serif`;
  g.font = font;
  const widths = labels.map(([text]) => Math.ceil(g.measureText(text).width) + 2 * pad);
  const positions = [];
  let x = 0, y = 0, W = 1;
  for (const w of widths) {
    if (x > 0 && x + w > sheet) { x = 0; y += lh; }
    positions.push([x, y]); x += w; W = Math.max(W, x);
  }
  const H = y + lh;
  if (!pixels) return {widths, height: lh, positions, data: null};
  canvas.width = W; canvas.height = H;  // resets the context's state
  g.font = font;
  g.textBaseline = 'top';
  labels.forEach(([text, colour], i) => {
    const [lx, ly] = positions[i];
    g.fillStyle = '#' + colour;
    g.fillRect(lx, ly, widths[i], lh);
    g.fillStyle = '#fff';
    g.fillText(text, lx + pad, ly + pad);
  });
  const rgba = g.getImageData(0, 0, W, H).data;
  const rgb = new Uint8Array(W * H * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) { rgb[j] = rgba[i]; rgb[j + 1] = rgba[i + 1]; rgb[j + 2] = rgba[i + 2]; }
  let data;
  if (rgb.toBase64) data = rgb.toBase64();
  else {
    let s = '';
    for (let i = 0; i < rgb.length; i += 0x8000) s += String.fromCharCode.apply(null, rgb.subarray(i, i + 0x8000));
    data = btoa(s);
  }
  return {widths, height: lh, positions, sheetWidth: W, data};
}"""

# The painter for images the engine does not edit itself: decodes the image, draws the placed outlines
# and labels, encodes it in the same format. Returns the base64 image.
CANVAS_SCRIPT = r"""async function(data, type, quality, placed, fontPx, line, pad) {
  const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(data) : (() => {
    const s = atob(data); const a = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  })();
  const image = await createImageBitmap(new Blob([bytes], {type}));
  const W = image.width, H = image.height;
  // A CPU canvas: the encode reads the pixels back, which a GPU canvas would have to copy first. One of
  // viewport size is kept in this (the engine's) world for the next call: a new one costs ~2 ms to set up.
  // Reuse is safe: nothing awaits between the drawing and convertToBlob, which snapshots the canvas.
  const keep = W * H <= 4e6;
  let canvas = keep ? globalThis.__cdpEngineMarksCanvas : undefined;
  if (!canvas || canvas.width !== W || canvas.height !== H) {
    canvas = new OffscreenCanvas(W, H);
    if (keep) globalThis.__cdpEngineMarksCanvas = canvas;
  }
  const g = canvas.getContext('2d', {willReadFrequently: true});
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.globalCompositeOperation = 'copy';  // the image replaces the last call's pixels, transparent ones too
  g.drawImage(image, 0, 0);
  g.globalCompositeOperation = 'source-over';
  image.close();
  g.font = `bold ${fontPx}px sans-serif`;
  g.textBaseline = 'top';
  g.lineWidth = line;
  for (const [label, colour, x, y, w, h, lx, ly, lw, lh] of placed) {
    g.strokeStyle = '#' + colour;
    g.strokeRect(x + line / 2, y + line / 2, Math.max(w - line, 1), Math.max(h - line, 1));
    g.fillStyle = '#' + colour;
    g.fillRect(lx, ly, lw, lh);
    g.fillStyle = '#fff';
    g.fillText(label, lx + pad, ly + pad);
  }
  const blob = await canvas.convertToBlob(quality == null ? {type} : {type, quality: quality / 100});
  const out = new Uint8Array(await blob.arrayBuffer());
  if (out.toBase64) return out.toBase64();
  let s = '';
  for (let i = 0; i < out.length; i += 0x8000) s += String.fromCharCode.apply(null, out.subarray(i, i + 0x8000));
  return btoa(s);
}"""


def _colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def start_labels(
    session: CDPSession,
    context_id: int,
    labels: Sequence[str],
    *,
    pixels: bool = True,
    timeout: float | None = None,
) -> asyncio.Future[dict[str, Any]]:
    """Ask the isolated world `context_id` for the labels' widths (and, with `pixels`, their pictures) now:
    sent beside a capture, it is answered while the capture waits for its frame. Label i takes colour i."""
    return session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": LABELS_SCRIPT,
            "executionContextId": context_id,
            "arguments": [
                {"value": [[label, _colour(i)] for i, label in enumerate(labels)]},
                {"value": FONT_PX},
                {"value": PAD},
                {"value": pixels},
            ],
            "returnByValue": True,
        },
        timeout=timeout,
    )


def _js_round(value: float) -> int:
    """Math.round: halves go up (Python's round goes to even)."""
    return math.floor(value + 0.5)


def layout(marks: Sequence[ImageMark], widths: Sequence[int], width: int, height: int) -> list[Placed]:
    """Where each mark of an image of width x height goes; marks wholly off the image are left out.
    `widths[i]`: mark i's label width (start_labels). A label goes over its box's top-right corner, outside
    (the element's own text starts at its left), or inside the box's top when there is no room above."""
    tall = FONT_PX + 2 * PAD
    placed: list[Placed] = []
    for i, (label, x, y, w, h) in enumerate(marks):
        if x >= width or y >= height or x + w <= 0 or y + h <= 0 or w <= 0 or h <= 0:
            continue
        wide = widths[i]
        lx = _js_round(min(max(x + w - wide, 0), max(width - wide, 0)))
        ly = _js_round(y - tall if y - tall >= 0 else max(y, 0))
        placed.append(Placed(i, label, _colour(i), (x, y, w, h), (lx, ly, wide, tall)))
    return placed


def drawn_rects(placed: Sequence[Placed]) -> list[Rect]:
    """Every rectangle the marks cover (an outline, then its label, per mark), for a caller that needs to
    know which pixels are the marks' (a test, a viewer)."""
    out: list[Rect] = []
    for mark in placed:
        lx, ly, lw, lh = mark.tag
        out += [mark.outline, (float(lx), float(ly), float(lw), float(lh))]
    return out


def _paints(placed: Sequence[Placed], sheet: dict[str, Any]) -> list[Paint]:
    """The outlines (four solid bands of LINE px each) and the labels' pictures, cut from the sheet."""
    pixels = base64.b64decode(sheet["data"])
    sheet_width = int(sheet["sheetWidth"])
    positions = sheet["positions"]
    paints: list[Paint] = []
    for mark in placed:
        colour = bytes.fromhex(mark.colour)
        x, y, w, h = mark.outline
        x0, y0 = _js_round(x), _js_round(y)
        x1, y1 = max(_js_round(x + w), x0 + 1), max(_js_round(y + h), y0 + 1)
        band_x, band_y = min(LINE, x1 - x0), min(LINE, y1 - y0)
        paints += [
            (x0, y0, x1 - x0, band_y, colour),
            (x0, y1 - band_y, x1 - x0, band_y, colour),
            (x0, y0, band_x, y1 - y0, colour),
            (x1 - band_x, y0, band_x, y1 - y0, colour),
        ]
        lx, ly, lw, lh = mark.tag
        sx, sy = positions[mark.index]
        rows = [pixels[((sy + r) * sheet_width + sx) * 3 : ((sy + r) * sheet_width + sx + lw) * 3] for r in range(lh)]
        paints.append((lx, ly, lw, lh, b"".join(rows)))
    return paints


async def draw_marks(
    session: CDPSession,
    context_id: int,
    data: str,
    image_format: str,
    quality: int | None,
    marks: Sequence[ImageMark],
    size: tuple[int, int],
    *,
    labels: asyncio.Future[dict[str, Any]] | None = None,
    timeout: float | None = None,
) -> tuple[str, list[Rect]]:
    """The base64 image (of `size` pixels) with `marks` (image px) drawn on it, in its own format, and the
    rectangles drawn. `labels`: start_labels for these marks' labels, if the caller sent it already.

    The labels are drawn in `context_id`, an isolated world of the session's page, and so is an image the
    engine does not paint itself: the page's DOM and scripts see nothing."""
    if not marks:
        return data, []
    if labels is None:
        labels = start_labels(session, context_id, [m[0] for m in marks], pixels=image_format == "png", timeout=timeout)
    inline = size[0] * size[1] <= INLINE_PIXELS
    opened: InflatedPng | PngNotEditable | None = None
    if image_format == "png" and inline and not labels.done():
        await asyncio.sleep(0)  # one turn of the loop: the connection writes the command out (a task of its own)
        opened = _open(data)  # the inflate while the labels' answer is on its way (a state's own image)
    sheet = _script_value(await labels, "measuring the labels")
    if not isinstance(sheet, dict) or len(sheet.get("widths") or ()) != len(marks):
        raise CDPEngineError("measuring the labels returned no widths")
    placed = layout(marks, [int(w) for w in sheet["widths"]], *size)
    if not placed:
        return data, []
    if image_format == "png" and sheet.get("data") and not isinstance(opened, PngNotEditable):
        paints = _paints(placed, sheet)
        try:
            if inline:
                # On the event loop, like a state's own build: a worker thread measured ~4 ms slower on a
                # 1280x720 image (1.51x a plain screenshot against 1.39x), and this is ~10 ms, bounded.
                return _paint_base64(opened or data, paints), drawn_rects(placed)
            painted = await asyncio.wait_for(asyncio.to_thread(_paint_base64, data, paints), timeout)
            return painted, drawn_rects(placed)
        except PngNotEditable:
            pass  # not Chromium's fast kind of PNG (optimize_for_speed=False): the canvas draws it
    result = await session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": CANVAS_SCRIPT,
            "executionContextId": context_id,
            "arguments": [
                {"value": data},
                {"value": f"image/{image_format}"},
                {"value": (DEFAULT_QUALITY if quality is None else quality) if image_format != "png" else None},
                {"value": [[m.label, m.colour, *m.outline, *m.tag] for m in placed]},
                {"value": FONT_PX},
                {"value": LINE},
                {"value": PAD},
            ],
            "returnByValue": True,
            "awaitPromise": True,
        },
        timeout=timeout,
    )
    value = _script_value(result, "drawing the marks")
    if not isinstance(value, str):
        raise CDPEngineError("drawing the marks returned no image")
    return value, drawn_rects(placed)


def _open(data: str) -> InflatedPng | PngNotEditable:
    try:
        return InflatedPng(base64.b64decode(data))
    except PngNotEditable as exc:
        return exc


def _paint_base64(image: str | InflatedPng, paints: Sequence[Paint]) -> str:
    opened = InflatedPng(base64.b64decode(image)) if isinstance(image, str) else image
    return base64.b64encode(opened.paint(paints)).decode("ascii")


def _script_value(result: dict[str, Any], doing: str) -> Any:
    """The value a Runtime.callFunctionOn returned, or its exception as a JavaScriptError."""
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        text = (details.get("exception") or {}).get("description") or details.get("text", "")
        raise JavaScriptError(f"{doing} failed: {text}")
    return result.get("result", {}).get("value")
