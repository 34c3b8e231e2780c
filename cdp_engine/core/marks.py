"""Set-of-marks: element outlines and labels composited on a captured screenshot, never on the page.

Why here, and why so: vision models need each element's index (or ref) drawn on the image (the
set-of-marks method of BrowserGym, browser-use's highlights, agent-browser's annotated screenshots).
Drawing into the page (an overlay element) would be seen by its mutation observers and by the state;
the Overlay domain draws one highlight at a time with no labels of ours. So the engine draws on the
image it captured: the base64 image goes to the engine's isolated world of the tab's main frame
(core/worlds.py), which decodes it (createImageBitmap), draws on an OffscreenCanvas and encodes it
again in the same format. Nothing enters the DOM, the page's globals are not those of the isolated
world (a page that replaces OffscreenCanvas changes nothing), and no Python imaging library is
needed. The cost is one decode, the drawing and one encode (benchmarks/marks.py).

Labels keep one size in image pixels whatever the screenshot's scale, so they stay legible on a
scaled-down image; each sits on its box's top-right corner, outside (an element's own text starts at
its left), white on the box's colour; colours cycle so neighbours differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, JavaScriptError

__all__ = ["MARKS_SCRIPT", "Mark", "draw_marks"]

# (label, x, y, width, height) in image pixels.
ImageMark = tuple[str, float, float, float, float]


@dataclass(frozen=True)
class Mark:
    """One element to mark: its label (an index, a ref) and its box in viewport CSS pixels."""

    label: str
    box: tuple[float, float, float, float]


# Decodes the image, draws an outline and a label per mark, encodes it in the same format. Returns
# {data: base64, drawn: [[x, y, w, h], ...]}: every rectangle it painted (outlines and labels), so a
# caller (a test, a viewer) knows which pixels the marks cover.
MARKS_SCRIPT = r"""async function(data, type, quality, marks, fontPx) {
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
  const palette = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#f032e6', '#9a6324',
                   '#800000', '#000075'];
  const line = 2, pad = 2, lh = fontPx + 2 * pad;
  g.font = `bold ${fontPx}px sans-serif`;
  g.textBaseline = 'top';
  g.lineWidth = line;
  const drawn = [];
  marks.forEach(([label, x, y, w, h], i) => {
    if (x >= W || y >= H || x + w <= 0 || y + h <= 0 || w <= 0 || h <= 0) return;
    const colour = palette[i % palette.length];
    g.strokeStyle = colour;
    g.strokeRect(x + line / 2, y + line / 2, Math.max(w - line, 1), Math.max(h - line, 1));
    drawn.push([x, y, w, h]);
    const lw = Math.ceil(g.measureText(label).width) + 2 * pad;
    // Over the box's top-right corner, outside (the element's own text starts at its left), else inside.
    const lx = Math.round(Math.min(Math.max(x + w - lw, 0), Math.max(W - lw, 0)));
    const ly = Math.round(y - lh >= 0 ? y - lh : Math.max(y, 0));
    g.fillStyle = colour;
    g.fillRect(lx, ly, lw, lh);
    g.fillStyle = '#fff';
    g.fillText(label, lx + pad, ly + pad);
    drawn.push([lx, ly, lw, lh]);
  });
  const blob = await canvas.convertToBlob(quality == null ? {type} : {type, quality: quality / 100});
  const out = new Uint8Array(await blob.arrayBuffer());
  let encoded;
  if (out.toBase64) encoded = out.toBase64();
  else {
    let s = '';
    for (let i = 0; i < out.length; i += 0x8000) s += String.fromCharCode.apply(null, out.subarray(i, i + 0x8000));
    encoded = btoa(s);
  }
  return {data: encoded, drawn};
}"""

FONT_PX = 11  # label text height in image pixels: legible on a scaled-down image, small on a full one
# A lossy image without a quality of its own was captured at Chromium's default (captureScreenshot: 80); the
# marked one is encoded at that quality too (the canvas's own default, 92, is a larger file and a slower encode).
DEFAULT_QUALITY = 80


async def draw_marks(
    session: CDPSession,
    context_id: int,
    data: str,
    image_format: str,
    quality: int | None,
    marks: Sequence[ImageMark],
    *,
    timeout: float | None = None,
) -> tuple[str, list[tuple[float, float, float, float]]]:
    """The base64 image with `marks` (image px) drawn on it, in its own format, and the rectangles drawn.

    Runs in `context_id`, an isolated world of the session's page: the page's DOM and scripts see nothing."""
    if not marks:
        return data, []
    result = await session.send(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": MARKS_SCRIPT,
            "executionContextId": context_id,
            "arguments": [
                {"value": data},
                {"value": f"image/{image_format}"},
                {"value": (DEFAULT_QUALITY if quality is None else quality) if image_format != "png" else None},
                {"value": [list(m) for m in marks]},
                {"value": FONT_PX},
            ],
            "returnByValue": True,
            "awaitPromise": True,
        },
        timeout=timeout,
    )
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        text = (details.get("exception") or {}).get("description") or details.get("text", "")
        raise JavaScriptError(f"drawing the marks failed: {text}")
    value = result.get("result", {}).get("value")
    if not isinstance(value, dict) or not isinstance(value.get("data"), str):
        raise CDPEngineError("drawing the marks returned no image")
    drawn = [(float(r[0]), float(r[1]), float(r[2]), float(r[3])) for r in value.get("drawn", [])]
    return value["data"], drawn
