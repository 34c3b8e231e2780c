"""One document of a DOMSnapshot.captureSnapshot answer, decoded once into per-node Python lists: what every
walk over a snapshot reads (snapshot/capture.py's state build, the accessibility tree's boxes, the increment).

Why its own module: decoding is done once per document and read by three callers; the walk that reads it is
the hot path (snapshot/capture.py) and stays one builder.
"""

from __future__ import annotations

from typing import Any

from ..cdp.connection import CDPSession
from .extended import DETECTION_ATTRS
from .node_path import DocTree

__all__ = ["CONTENT_ATTRS", "EXTENDED_STYLES", "SNAPSHOT_STYLES", "SnapshotDoc", "string_index"]

# Only the styles every node needs (hidden text, transparent subtrees). Clipping (overflow, position) and
# occluder exemption (pointer-events) concern a few in-view boxes at most: capture.VERIFY_SCRIPT asks for those.
SNAPSHOT_STYLES = ["visibility", "opacity"]
EXTENDED_STYLES = [*SNAPSHOT_STYLES, "cursor"]  # extended mode: where cursor: pointer starts
# The attributes page_content shows on an element (an element with none of them renders as its bare tag).
CONTENT_ATTRS = ("href", "type", "name", "placeholder", "alt", "aria-label", "role", "title")

_LOOKED_UP = (
    "",
    "visible",
    "hidden",
    "collapse",
    "1",
    "role",
    "contenteditable",
    *CONTENT_ATTRS,
)


def string_index(strings: list[str], value: str) -> int:
    """The index of `value` in a snapshot's string table, -2 when it never occurs."""
    try:
        return strings.index(value)
    except ValueError:
        return -2


class SnapshotDoc:
    """One document of a snapshot, decoded once into per-node Python lists."""

    __slots__ = (
        "attrs",
        "backend",
        "bounds",
        "clickable",
        "clipped",
        "content_attr_ids",
        "content_doc",
        "cover_rect",
        "end",
        "extended",
        "flagged",
        "frame_id",
        "inert",
        "input_checked",
        "input_value",
        "marked",
        "names",
        "no_pointer",
        "node_index",
        "nodes_len",
        "offset",
        "opacity",
        "option_selected",
        "paints",
        "parent",
        "pointer",
        "pseudo",
        "rects",
        "scroll",
        "session",
        "shadow",
        "text_of",
        "texts",
        "types",
        "unrendered",
        "url",
        "values",
        "visibility",
    )  # fmt: skip

    def __init__(
        self, session: CDPSession, doc: dict[str, Any], strings: list[str], *, extended: bool = False
    ) -> None:
        self.session = session
        self.frame_id: str = strings[doc["frameId"]] if doc.get("frameId", -1) >= 0 else ""
        self.url = strings[doc["documentURL"]] if doc.get("documentURL", -1) >= 0 else ""
        self.scroll = (doc.get("scrollOffsetX", 0.0), doc.get("scrollOffsetY", 0.0))
        nodes = doc["nodes"]
        self.parent: list[int] = nodes["parentIndex"]
        self.types: list[int] = nodes["nodeType"]
        self.nodes_len = len(self.parent)
        node_names = nodes["nodeName"]
        lower = {i: strings[i].lower() for i in set(node_names)}
        self.names = [lower[i] for i in node_names]
        self.values: list[int] = nodes["nodeValue"]
        self.backend: list[int] = nodes["backendNodeId"]
        self.attrs: list[list[int]] = nodes["attributes"]
        self.content_doc = dict(
            zip(nodes["contentDocumentIndex"]["index"], nodes["contentDocumentIndex"]["value"], strict=False)
        )
        iv = nodes.get("inputValue", {"index": [], "value": []})
        self.input_value = dict(zip(iv["index"], iv["value"], strict=False))
        tv = nodes.get("textValue", {"index": [], "value": []})  # a textarea's live value is reported here
        self.input_value.update(zip(tv["index"], tv["value"], strict=False))
        self.input_checked = set(nodes.get("inputChecked", {"index": []})["index"])
        self.option_selected = set(nodes.get("optionSelected", {"index": []})["index"])
        sh = nodes.get("shadowRootType", {"index": [], "value": []})
        self.shadow = dict(zip(sh["index"], sh["value"], strict=False))  # node -> the shadow tree it is in
        self.pseudo = set(nodes.get("pseudoType", {"index": []})["index"])
        # The snapshot lists nodes in pre-order, so a subtree is the contiguous range [i + 1, end[i]).
        end = list(range(1, self.nodes_len + 1))
        parent = self.parent
        for i in range(self.nodes_len - 1, 0, -1):
            p = parent[i]
            if p >= 0 and end[i] > end[p]:
                end[p] = end[i]
        self.end = end
        # The string table holds each distinct string once: a name's index, or -2 when it never occurs.
        where = {v: string_index(strings, v) for v in _LOOKED_UP}
        layout = doc["layout"]
        self.node_index: list[int] = layout["nodeIndex"]
        self.bounds: list[list[float]] = layout["bounds"]
        self.paints: list[int] = layout.get("paintOrders") or []
        # Inline boxes split around blocks repeat their node: the first box is enough. Building the maps
        # from the reversed lists lets the first box win while the dict is filled at C speed.
        rev = self.node_index[::-1]
        self.rects: dict[int, list[float]] = dict(zip(rev, self.bounds[::-1], strict=True))
        self.text_of: dict[int, str] = {
            ni: strings[t] for ni, t in zip(rev, layout["text"][::-1], strict=True) if t >= 0
        }
        self.visibility: dict[int, str] = {}
        self.opacity: dict[int, float] = {}
        # Settled by StateBuilder.verify for the few nodes whose geometry leaves it open.
        self.clipped: set[int] = set()  # wholly outside an overflow-clipping ancestor it does not escape
        self.no_pointer: set[int] = set()  # covering boxes with pointer-events:none
        self.cover_rect: dict[int, tuple[float, float, float, float]] = {}  # covering boxes: clipped extent
        # Most boxes have every style at its default: compare whole rows at C speed, decode the rest.
        usual = [where["visible"], where["1"]]
        unset = {-1, where[""]}
        styles = layout["styles"]
        # Extended mode (snapshot/extended.py): the nodes DOMSnapshot calls clickable, and those whose
        # computed cursor (a third style column) is pointer. Empty in strict mode.
        self.clickable: set[int] = set()
        self.pointer: set[int] = set()
        self.extended: dict[int, str] = {}  # node -> reason code, set by the capture in extended mode
        self.marked: set[int] = set()  # nodes with an attribute detection reads (extended.DETECTION_ATTRS)
        pointer_id = -3
        if extended:
            self.clickable = set(nodes.get("isClickable", {"index": []})["index"])
            pointer_id = string_index(strings, "pointer")
            usual = [*usual, string_index(strings, "auto")]  # the cursor column: most boxes inherit auto
            ids = {string_index(strings, a) for a in DETECTION_ATTRS} - {-2}
            if ids:
                self.marked = {
                    n
                    for n in [n for n, a in enumerate(self.attrs) if a and not ids.isdisjoint(a)]
                    if not ids.isdisjoint(self.attrs[n][0::2])
                }
        for li in [li for li, row in enumerate(styles) if row != usual]:
            row = styles[li]
            if len(row) < len(SNAPSHOT_STYLES):
                continue  # the document's own layout object has no styles
            ni = self.node_index[li]
            vis, op = row[0], row[1]
            if len(row) > 2 and row[2] == pointer_id:
                self.pointer.add(ni)
            if vis == where["hidden"] or vis == where["collapse"]:
                self.visibility[ni] = strings[vis]
            if op != where["1"] and op not in unset:
                self.opacity[ni] = float(strings[op])
        # Elements whose role or contenteditable attribute can make them interactive (an attribute
        # name, not a value that happens to share its string).
        flag_names = {where["role"], where["contenteditable"]} - {-2}
        self.flagged: set[int] = set()
        if flag_names:
            self.flagged = {
                n
                for n in [n for n, a in enumerate(self.attrs) if a and not flag_names.isdisjoint(a)]
                if not flag_names.isdisjoint(self.attrs[n][0::2])
            }
        self.unrendered, self.inert = self._not_rendered(strings, node_names)
        # Attribute names page_content shows: an element without any renders as its bare tag.
        self.content_attr_ids = {where[a] for a in CONTENT_ATTRS} - {-2}
        self.offset = (0.0, 0.0)
        if not strings or strings[-1] != "":
            strings.append("")  # index -1, an empty attribute value, reads ""
        self.texts = strings

    def _not_rendered(self, strings: list[str], node_names: list[int]) -> tuple[set[int], set[int]]:
        """Nodes that have layout boxes but are not painted, and nodes that cannot take input, from what the
        markup says: the content of a closed <details> (all but its first <summary>: the UA's slot hides it,
        outside the light tree) and of an element hidden until found, which Chromium keeps boxes for and skips
        in paint, so they must neither be indexed nor cover anything; and every node inside an `inert` element
        (shown, never a target). Only documents whose string table holds these names pay for the look.

        Why not the computed content-visibility, which would also catch an author's `content-visibility:
        hidden`: one more style column makes every DOMSnapshot slower on every page (measured: +25 % on a page
        of 1,000 controls), for a style pages rarely set; docs/real-web.md lists it as a known limit."""
        unrendered: set[int] = set()
        inert: set[int] = set()
        details_name = string_index(strings, "DETAILS")
        open_id, hidden_id, inert_id = (string_index(strings, a) for a in ("open", "hidden", "inert"))
        until_found = string_index(strings, "until-found")
        end, parent, names, attrs = self.end, self.parent, self.names, self.attrs
        roots: list[int] = []
        if details_name != -2:
            for d in [i for i, n in enumerate(node_names) if n == details_name]:
                if open_id in attrs[d][0::2]:
                    continue
                summary_seen = False
                c = d + 1
                while c < end[d]:
                    if not summary_seen and names[c] == "summary":
                        summary_seen = True
                    else:
                        roots.append(c)
                    c = end[c]
        ids = {hidden_id if until_found != -2 else -2, inert_id} - {-2}
        if ids:
            for n in [n for n, a in enumerate(attrs) if a and not ids.isdisjoint(a)]:
                pairs = attrs[n]
                for k in range(0, len(pairs), 2):
                    if pairs[k] == hidden_id and pairs[k + 1] == until_found:
                        roots.extend(c for c in range(n + 1, end[n]) if parent[c] == n)
                    elif pairs[k] == inert_id:
                        inert.update(range(n, end[n]))
        for r in roots:
            unrendered.update(range(r, end[r]))
        return unrendered, inert

    def shadow_hosts(self) -> tuple[bool, list[int]]:
        """Whether the document has page-made shadow content (open or closed, not the browser's own), and the
        backend ids of the hosts of its closed roots. The snapshot walks the flat tree without the roots
        themselves: a node of a closed tree whose parent is outside that tree's kind is a root's child, and
        that parent its host."""
        user_agent, closed = string_index(self.texts, "user-agent"), string_index(self.texts, "closed")
        shadow, parent, backend = self.shadow, self.parent, self.backend
        page_made = any(kind != user_agent for kind in shadow.values())
        hosts = {parent[n] for n, kind in shadow.items() if kind == closed and shadow.get(parent[n]) != closed}
        return page_made, [backend[h] for h in hosts if h >= 0]

    def text_fields(self) -> list[int]:
        """The document's <input> and <textarea> elements outside shadow trees, in tree order: as the page's
        querySelectorAll('input, textarea') lists them, so the change probe's place of a typed field names one."""
        names, types, shadow = self.names, self.types, self.shadow
        return [
            i for i, name in enumerate(names) if (name == "input" or name == "textarea") and types[i] == 1
            and i not in shadow
        ]  # fmt: skip

    def tree(self) -> DocTree:
        """The document's tree for node paths (the lists themselves, no copies)."""
        return DocTree(self.parent, self.end, self.pseudo, self.shadow)

    def attributes(self, i: int) -> dict[str, str]:
        """An element's attributes, built at C speed: names as the HTML parser lowercased them, and an
        empty value (string index -1) reads the empty string the table ends with."""
        pairs = iter(self.attrs[i])
        get = self.texts.__getitem__
        return dict(zip(map(get, pairs), map(get, pairs), strict=False))
