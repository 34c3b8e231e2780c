"""Element boxes of a state: where each indexed element was, for marks, overlays and vision models.

The one-pass capture already placed every indexed element in top-level viewport CSS pixels (the
DOMSnapshot's layout bounds, offset by scroll and by each iframe's content box), so the boxes cost
no round trip: they are read off the capture the state came from. They are never part of the state
object, so the state and its hash stay exactly what the protocol defines.

One box (JSON-ready):

    {"x": 8, "y": 40.5, "width": 61.2, "height": 21,        # viewport CSS px (the whole box)
     "visible": true,        # some of it showed: rendered, not hidden, clipped away or wholly covered
     "in_viewport": true,    # some of it lay inside the viewport
     "fully_in_viewport": true,                             # all of it did
     "screenshot": {"x": 4, "y": 20.2, "width": 30.6, "height": 10.5}}   # image px, only when the
                                                            # state's screenshot was scaled or clipped

An <option> rides on its select's box and is not visible by itself (a closed select draws only its
selected option); `select` names that select's index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.files import ImageTransform, image_size_base64, image_transform
from ..core.marks import Mark
from .capture import Capture, Element

Box = tuple[float, float, float, float]


def _round(value: float) -> float | int:
    """Two decimals (sub-pixel layout kept, JSON short); whole numbers print as integers."""
    r = round(value, 2)
    return int(r) if r == int(r) else r


def box_json(box: Box) -> dict[str, float | int]:
    x, y, w, h = box
    return {"x": _round(x), "y": _round(y), "width": _round(w), "height": _round(h)}


def viewport_flags(box: Box, viewport: tuple[float, float, float, float]) -> tuple[bool, bool]:
    """(in_viewport, fully_in_viewport) of a viewport CSS box in a viewport of (width, height, ...)."""
    x, y, w, h = box
    vw, vh = viewport[0], viewport[1]
    meets = w > 0 and h > 0 and x < vw and y < vh and x + w > 0 and y + h > 0
    inside = meets and x >= -0.5 and y >= -0.5 and x + w <= vw + 0.5 and y + h <= vh + 0.5
    return meets, inside


def shot_transform(capture: Capture) -> ImageTransform | None:
    """How the capture's screenshot maps onto the viewport; None when the state has no screenshot."""
    data = capture.state.get("screenshot")
    if not data or capture.shot_options is None:
        return None
    size = image_size_base64(data)
    if size is None:
        return None
    return image_transform(capture.shot_options, capture.shot_region, capture.viewport, size)


def element_box(
    element: Element, viewport: tuple[float, float, float, float], transform: ImageTransform | None
) -> dict[str, Any]:
    """One element's box entry (see the module docstring)."""
    in_viewport, fully = viewport_flags(element.box, viewport)
    entry: dict[str, Any] = box_json(element.box)
    entry["visible"] = element.visible and element.tag != "option"
    entry["in_viewport"] = in_viewport
    entry["fully_in_viewport"] = fully
    if element.select_index is not None:
        entry["select"] = element.select_index
    if transform is not None and not transform.identity:
        entry["screenshot"] = box_json(transform.apply(element.box))
    return entry


def state_boxes(capture: Capture | None, indices: Iterable[int] | None = None) -> dict[int, dict[str, Any]]:
    """Each indexed element's box (or only `indices`'), keyed by index, for the state of `capture`."""
    if capture is None:
        return {}
    transform = shot_transform(capture)
    elements = capture.elements
    wanted = elements if indices is None else [i for i in indices if i in elements]
    return {i: element_box(elements[i], capture.viewport, transform) for i in wanted}


def state_marks(capture: Capture | None) -> list[Mark]:
    """The marks of a state: each indexed element that showed (options ride on their select), labelled
    with its index."""
    if capture is None:
        return []
    return [Mark(str(i), el.box) for i, el in capture.elements.items() if el.visible and el.tag != "option"]
