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

An <option> names its select's index in `select`. A listbox's options (size > 1, multiple) have boxes of their
own; a drop-down's ride on their select's box and are not visible (a closed select draws only its selected one).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..core.files import ImageTransform, image_size_base64, image_transform
from ..core.marks import Mark
from .ax_tree import AXNode
from .capture import Capture, Element

if TYPE_CHECKING:
    from ..core.refs import RefRegistry

Box = tuple[float, float, float, float]


def _round(value: float) -> float | int:
    """Two decimals (sub-pixel layout kept, JSON short); whole numbers print as integers."""
    r = round(value, 2)
    return int(r) if r == int(r) else r


def box_json(box: Box) -> dict[str, float | int]:
    x, y, w, h = box
    return {"x": _round(x), "y": _round(y), "width": _round(w), "height": _round(h)}


def viewport_flags(box: Box, viewport: tuple[float, float, float, float]) -> tuple[bool, bool]:
    """(in_viewport, fully_in_viewport) of a viewport CSS box in a viewport of (width, height, …)."""
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


def box_entry(
    box: Box,
    visible: bool,
    viewport: tuple[float, ...] | None,
    transform: ImageTransform | None = None,
) -> dict[str, Any]:
    """One box entry (see the module docstring); the viewport flags only when the viewport is known."""
    entry: dict[str, Any] = box_json(box)
    entry["visible"] = visible
    if viewport is not None:
        entry["in_viewport"], entry["fully_in_viewport"] = viewport_flags(box, (viewport[0], viewport[1], 0, 0))
    if transform is not None and not transform.identity:
        entry["screenshot"] = box_json(transform.apply(box))
    return entry


def element_box(
    element: Element, viewport: tuple[float, float, float, float], transform: ImageTransform | None
) -> dict[str, Any]:
    """One indexed element's box entry; an option names its select (`select`: that select's index)."""
    entry = box_entry(element.box, element.visible, viewport, transform)
    if element.select_index is not None:
        entry["select"] = element.select_index
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
    """The marks of a state: each indexed element that showed (a listbox's options too; a drop-down's are
    hidden in it), labelled with its index."""
    if capture is None:
        return []
    return [Mark(str(i), el.box) for i, el in capture.elements.items() if el.visible]


# ----- refs (the toolset's read_page / find, the MCP snapshot) ------------------------------------


def _with_refs(root: AXNode | None, refs: RefRegistry) -> Iterator[tuple[str, AXNode]]:
    """(ref, node) for each node of the tree that holds a ref now (handed out by this read or before)."""
    if root is None:
        return
    for node, _depth in root.walk():
        if node.backend_node_id is not None and node.box is not None:
            ref = refs.lookup(node.session, node.frame_id, node.backend_node_id)
            if ref is not None:
                yield ref, node


def ref_boxes(
    root: AXNode | None,
    refs: RefRegistry,
    viewport: tuple[float, float] | None = None,
    transform: ImageTransform | None = None,
) -> dict[str, dict[str, Any]]:
    """The box of each element of an accessibility read that holds a ref, keyed by ref: the read's own
    geometry (ax_tree.py places nodes as the state capture does), so no round trip. `viewport`
    (width, height in CSS px) adds the viewport flags, `transform` the screenshot boxes."""
    return {
        ref: box_entry(node.box, node.visible, viewport, transform)
        for ref, node in _with_refs(root, refs)
        if node.box
    }


def ref_marks(root: AXNode | None, refs: RefRegistry) -> list[Mark]:
    """The marks of an accessibility read: each visible interactive element holding a ref, labelled with it."""
    return [Mark(ref, node.box) for ref, node in _with_refs(root, refs) if node.box and node.visible and node.interactive]
