"""One-pass state capture: the element index, page_content and state_hash of a tab.

Per capture, every frame session (the tab's, and each out-of-process iframe's) gets one
concurrent burst: `DOMSnapshot.captureSnapshot` (two computed styles and paint order, no
DOM rects), the change-detection probe (which also reports the visual viewport), and for the
tab the optional screenshot. The snapshot gives tags, attributes, live form values, layout boxes,
rendered text and paint order (visibility and opacity: the styles every node needs). Where
the geometry leaves a candidate open (wholly outside an ancestor's box, or under a later-painted
box), one isolated-world call per frame asks for overflow, position and pointer-events of just
those nodes. One pipelined `Accessibility.getPartialAXTree` burst over the indexed elements
whose role the HTML mapping leaves open adds their computed roles. Nothing asks for the full
AX tree, whose cost explodes on large pages (37 s at 128k DOM nodes; docs/cdp-floor.md).

The snapshot decodes into ~100k Python lists on big pages; the cyclic GC stays paused from the
decode until they are freed (connection.gc_paused).

Size: the one-pass state build is the hot path: placing frames, visibility, the element index and what
page_content holds are one walk over one builder's tables. What is not the walk lives beside it: the decoding of
a snapshot document (snapshot/snapshot_doc.py), occlusion and its verification (snapshot/occlusion.py) and
page_content's folding and window (snapshot/page_content.py), both mixed into the builder, the HTML role mapping
(snapshot/roles.py), the burst and the cache (snapshot/capturer.py), the increment (snapshot/incremental.py).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
import xxhash

from ..cdp.connection import CDPSession
from ..core.files import ScreenshotOptions
from ..core.policies import RESULT_CHARS
from ..core.worlds import Worlds
from .extended import find_extended
from .handover import handed_names
from .node_path import DocTree
from .occlusion import Occlusion, opacity_product
from .page_content import ContentWindow, PageContent
from .roles import FIELD_TAGS, INTERACTIVE_ROLES, INTERACTIVE_TAGS, implicit_role
from .snapshot_doc import CONTENT_ATTRS, SnapshotDoc
from .text_join import join_rendered

if TYPE_CHECKING:
    from ..core.tab import Tab

FORM_CONTROLS = frozenset({"input", "textarea", "select", "button", "meter", "output", "progress"})
BUTTON_TYPES = frozenset({"submit", "reset", "button"})
INPUT_TYPES = frozenset(
    {
        "button", "checkbox", "color", "date", "datetime-local", "email", "file", "hidden", "image", "month",
        "number", "password", "radio", "range", "reset", "search", "submit", "tel", "text", "time", "url", "week",
    }
)  # fmt: skip
DISABLEABLE = frozenset({"button", "input", "select", "textarea", "option", "optgroup", "fieldset"})
# Input types that take no typed text (everything else, text by default, is a text field).
NOT_TYPED = frozenset(
    {"checkbox", "radio", "hidden", "button", "submit", "reset", "image", "file", "range", "color"}
)
SKIP_CONTENT = frozenset({"script", "style", "noscript", "template", "head", "title", "meta", "link", "svg"})
# Tags kept in page_content (everything else contributes only its text and children).
SEMANTIC_TAGS = frozenset(
    {
        "a", "button", "input", "textarea", "select", "option", "label", "form", "h1", "h2", "h3", "h4", "h5",
        "h6", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "td", "th", "nav", "main", "header",
        "footer", "section", "article", "aside", "img", "iframe", "dialog", "fieldset", "legend", "summary",
        "details", "blockquote", "pre", "code", "strong", "em", "dl", "dt", "dd", "figure", "figcaption",
    }
)  # fmt: skip
BLOCK_TAGS = frozenset(
    {
        "div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "tr", "form", "nav",
        "main", "header", "footer", "section", "article", "aside", "dialog", "fieldset", "details", "blockquote",
        "pre", "dl", "dt", "dd", "figure", "br", "hr", "body", "html", "select", "textarea", "iframe",
    }
)  # fmt: skip
# Tags that always need their attributes read; every other element is plain unless it has a role or
# contenteditable attribute.
SPECIAL_TAGS = SEMANTIC_TAGS | INTERACTIVE_TAGS | frozenset({"iframe", "frame", "label"})
PLAIN_CANDIDATES = frozenset({"div", "span"})
# Semantic tags that are never interactive themselves: without a role, contenteditable or an attribute
# from CONTENT_ATTRS, page_content shows them as the bare tag.
PLAIN_SEMANTIC = SEMANTIC_TAGS - INTERACTIVE_TAGS - frozenset({"label", "iframe", "img"})
# How the walk treats an element by its tag (unless a role or contenteditable attribute makes it special):
# "element" reads its attributes, "tag" may print as the bare tag, "block" adds line breaks, absent: inline.
TAG_KIND: dict[str, str] = {
    **{t: "block" for t in BLOCK_TAGS},
    **{t: "element" for t in SPECIAL_TAGS - PLAIN_CANDIDATES},
    **{t: "tag" for t in PLAIN_SEMANTIC},
}
OPEN_TAG = {t: f"{chr(10) if t in BLOCK_TAGS else ''}<{t}>" for t in PLAIN_SEMANTIC}
CLOSE_TAG = {t: f"</{t}>{chr(10) if t in BLOCK_TAGS else ''}" for t in PLAIN_SEMANTIC}
PAGE_CONTENT_CAP = RESULT_CHARS  # the default budget of page_content (core/policies.py; per call max_chars)
TEXT_CAP = 200  # chars of text_content per element
STAND_IN_ROLES = frozenset({"combobox", "textbox", "searchbox", "listbox", "spinbutton"})  # keyboard targets


@dataclass
class Element:
    """An indexed element, with what the engine keeps to act on it safely."""

    index: int
    session: CDPSession
    frame_id: str
    loader_id: str
    backend_node_id: int
    tag: str
    descriptor: dict[str, Any]
    box: tuple[float, float, float, float]  # x, y, width, height in top-level viewport CSS pixels
    visible: bool
    disabled: bool
    editable: bool = False
    select_index: int | None = None  # for an option: the index of its select
    input_type: str | None = None
    role_known: bool = False  # role decided by the HTML mapping; no Accessibility lookup needed
    reason: str | None = None  # extended mode: why an element outside the strict list is indexed
    node: int = -1  # its node's index in its snapshot document (snapshot/node_path.py)

    def fingerprint(self) -> tuple[Any, ...]:
        d = self.descriptor
        return (
            self.tag,
            d["aria-label"],
            d["attributes"]["name"],
            d["attributes"]["type"],
            d["text_content"],
        )


@dataclass
class CaptureSource:
    """The decoded snapshots a state was built from, kept so the next state can be built on them when the
    probe places every change since (docs/incremental.md): typed text fields patch their values in, and the
    same walk runs again; changes inside hidden subtrees leave the state as it is."""

    docs: dict[str, list[SnapshotDoc]]  # frame id -> its session's documents
    oopif_owner: dict[tuple[str, int], str]
    clip: dict[int, tuple[float, float, float, float]]  # id(doc) -> visible clip (StateBuilder.place_frames)
    roles: dict[tuple[str, int], str | None]  # (session id, backend id) -> the role Accessibility settled
    shadow: bool  # page-made shadow content: its style sheets are out of the probe's sight, no increments
    snapshot_ms: float = 0.0  # what the full capture's snapshot cost (capturer.INCREMENT_WORTH)
    fields: dict[int, list[int]] = field(default_factory=dict)  # id(doc) -> its inputs and textareas (incremental)
    # The version key the snapshots were taken at: the probe keeps what changed since (StateCapturer's hold).
    key: tuple[Any, ...] = (None,)
    trunc: int = -1  # the main document's node where page_content stopped collecting (-1: it did not, or elsewhere)
    # Structural changes since the snapshots that the state provably does not show (probe_reach's beyondReach): the
    # snapshots no longer mirror the page beyond what the state shows, so nothing is patched into them any more.
    stale: bool = False
    reach: Any = None  # incremental.Reach once asked for (False: the state's reach cannot be described)


@dataclass
class Capture:
    """A state plus everything the engine needs to act on it."""

    state: dict[str, Any]
    elements: dict[int, Element]
    version_key: tuple[Any, ...]
    viewport: tuple[float, float, float, float]  # width, height, scroll x, scroll y
    timings: dict[str, float] = field(default_factory=dict)
    # The screenshot in state["screenshot"]: how it was taken, and what the still probe said just before it
    # was sent (None: the page could paint by itself, so the image is never reused).
    shot_options: ScreenshotOptions | None = None
    shot_still: tuple[Any, ...] | None = None
    content: ContentWindow = (0, PAGE_CONTENT_CAP)  # the part of the text page_content holds
    interactive: str = "strict"  # the interactive set the index holds (snapshot/extended.py)
    shot_region: dict[str, float] | None = None  # the page rectangle the options needed (None: none needed)
    title: str | None = None  # the main document's title, as the snapshot read it (None: not known)
    tree: DocTree | None = None  # the main frame document's tree, for node paths (snapshot/node_path.py)
    # The version key the state was read at (version_key is cleared by invalidate(); this one stays), and what
    # the next capture needs to build on this one (docs/incremental.md); only the latest capture keeps it.
    base_key: tuple[Any, ...] = (None,)
    source: CaptureSource | None = None

    @property
    def screenshot_format(self) -> str | None:
        return self.shot_options.format if self.shot_options is not None else None


def _keyboard_target(name: str, attrs: dict[str, str]) -> bool:
    """Whether a keyboard reaches the element: in the tab order (tabindex 0 or more, or a natively focusable
    control without tabindex -1) and not aria-hidden."""
    if attrs.get("aria-hidden") == "true":
        return False
    tabindex = attrs.get("tabindex", "").strip()
    if tabindex:
        return tabindex.lstrip("-").isdigit() and not tabindex.startswith("-")
    return name in ("input", "select", "textarea", "button") or (name == "a" and "href" in attrs)


def _drawn_under(name: str, attrs: dict[str, str], role: str) -> bool:
    """Whether a transparent element may be the real hit target of a drawing under it, and so a target: a
    styled checkbox's or radio's input over its drawing, or a text field drawn transparent until it takes focus
    (in the tab order). Anything else transparent draws nothing a person sees (_offered). `role`: its role
    attribute, lowercased."""
    kind = attrs.get("type", "").lower()
    if kind in ("checkbox", "radio") or role in ("checkbox", "radio", "switch"):
        return True
    return (name == "textarea" or (name == "input" and kind not in NOT_TYPED)) and not (
        attrs.get("aria-hidden") == "true" or attrs.get("tabindex", "").strip() == "-1"
    )


def _stand_for(doc: SnapshotDoc, node: int, name: str, role: str) -> int:
    """The element a keyboard target stands for when its own box is tiny (at most 2 px across): the nearest
    ancestor within six levels of at least 8x8 px, if a person sees it (not hidden, not transparent); -1 for
    anything else. The pointer goes there (core/actionability: STAND_IN_FUNCTION finds the same)."""
    if name not in ("input", "textarea", "select") and role not in STAND_IN_ROLES:
        return -1
    r = doc.rects.get(node)
    if r is None or (r[2] > 2 and r[3] > 2):
        return -1
    p = doc.parent[node]
    for _ in range(6):
        if p < 0:
            return -1
        b = doc.rects.get(p)
        if b is not None and b[2] >= 8 and b[3] >= 8:
            return p if p not in doc.visibility and doc.opacity.get(p, 1.0) > 0 else -1
        p = doc.parent[p]
    return -1


def state_hash(url: str, page_content: str) -> str:
    """SHA-256 of the canonical bytes: JSON {"page_content": …, "url": …}, keys sorted, no spaces, UTF-8."""
    return hashlib.sha256(
        orjson.dumps({"page_content": page_content, "url": url}, option=orjson.OPT_SORT_KEYS)
    ).hexdigest()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr_escape(text: str) -> str:
    return _escape(text).replace('"', "&quot;")


# An element's box in top-level viewport CSS px, whether any of it shows, its tag and its attributes. A text node
# has one too: its tag is "#text" and its rendered text (spaces kept, as text_join reads them) is under "#text".
# The last field: whether the element is offered as a target at all: a control of no size that stands for nothing
# and that no keyboard reaches is not (a library's visually hidden original <select> out of the tab order, a
# zero-size accessibility listbox's options).
ElementBox = tuple[tuple[float, float, float, float], bool, str, dict[str, str], bool]


@dataclass
class DocFacts:
    """What the accessibility tree's increment (snapshot/ax_capturer.py) needs of the snapshot documents beside
    the boxes: each frame document's text fields, and whether any document has page-made shadow content."""

    # frame id -> (backend node id, tag, rect in page coordinates or None) per text field (SnapshotDoc.text_fields)
    text_fields: dict[str, list[tuple[int, str, tuple[float, ...] | None]]] = field(default_factory=dict)
    shadow: bool = False
    # (session id, backend node id) -> the name a library's hidden original control hands the control drawn in
    # its place (snapshot/handover.py)
    handed_names: dict[tuple[str, int], str] = field(default_factory=dict)


async def element_boxes(
    tab: Tab,
    snapshots: dict[str, tuple[CDPSession, dict[str, Any]]],
    viewport: tuple[float, float, float, float],
    oopif_owner: dict[tuple[str, int], str],
    reasons: dict[tuple[str, int], str] | None = None,
    facts: DocFacts | None = None,
) -> dict[tuple[str, int], ElementBox]:
    """Every element of the snapshots, keyed by (session id, backend node id), placed across frames exactly as
    the state capture places them (scroll, iframe content boxes, each frame's clip): the accessibility tree's
    geometry, so both views agree on what is visible.

    `snapshots` maps a frame session's frame id to (its session, its DOMSnapshot.captureSnapshot result);
    `oopif_owner` maps (owner session id, iframe backend node id) to the out-of-process frame it hosts.
    With `reasons` (the snapshots taken with EXTENDED_STYLES), it is filled with the extended interactive
    set: (session id, backend node id) -> reason code (snapshot/extended.py). With `facts`, it is filled with
    what the accessibility tree's increment needs of the documents (DocFacts).
    """
    extended = reasons is not None
    docs = {
        fid: [SnapshotDoc(session, d, result["strings"], extended=extended) for d in result["documents"]]
        for fid, (session, result) in snapshots.items()
    }
    if reasons is not None:
        for doc_list in docs.values():
            for doc in doc_list:
                sid = doc.session.id or ""
                for node, reason in find_extended(doc).items():
                    reasons[(sid, doc.backend[node])] = reason
    if facts is not None:
        for doc_list in docs.values():
            for doc in doc_list:
                facts.shadow = facts.shadow or doc.shadow_hosts()[0]
                facts.text_fields[doc.frame_id] = [
                    (doc.backend[i], doc.names[i], tuple(doc.rects[i]) if i in doc.rects else None)
                    for i in doc.text_fields()
                ]  # fmt: skip
    builder = StateBuilder(tab, None, viewport, docs, oopif_owner)
    await builder.place_frames()
    boxes: dict[tuple[str, int], ElementBox] = {}
    for doc_list in docs.values():
        for doc in doc_list:
            sid = doc.session.id or ""
            transparent_page = 0.0 in doc.opacity.values()
            hidden: list[int] = []  # the controls not offered: a library's hidden originals among them
            for ni in doc.rects:
                if doc.types[ni] != 1 and doc.types[ni] != 3:  # text boxes too: where a text piece ends (text_join)
                    continue
                box, visible = builder.visible_box(doc, ni)
                if doc.visibility.get(ni, "visible") in ("hidden", "collapse"):
                    visible = False
                text = {"#text": doc.text_of.get(ni, "")} if doc.types[ni] == 3 else {}
                boxes[(sid, doc.backend[ni])] = (box, visible, doc.names[ni], text, True)
            for ni, name in enumerate(doc.names):
                if doc.types[ni] == 1 and (sid, doc.backend[ni]) in boxes:
                    attrs = doc.attributes(ni)
                    box, visible = boxes[(sid, doc.backend[ni])][:2]
                    offered = True
                    role = (attrs.get("role") or "").strip().lower()
                    if box[2] <= 2 or box[3] <= 2:  # a stand-in shows where what it stands for is (_offered)
                        stand = builder.stand_for_box(doc, ni, name, role, attrs)
                        if stand is not None:
                            box, visible = stand
                        elif not _keyboard_target(name, attrs):  # no size, no focus: a person cannot reach it
                            visible, offered = False, False
                    elif visible and transparent_page and opacity_product(doc, ni) <= 0 and not _drawn_under(name, attrs, role):
                        # Transparent and not the real hit target of a drawing under it (a styled checkbox's input,
                        # a field that shows on focus): a person sees nothing there (_offered), as the index says
                        # of a library's original <select> kept at opacity 0 (Choices.js).
                        visible, offered = False, False
                    boxes[(sid, doc.backend[ni])] = (box, visible, name, attrs, offered)
                    if not offered:
                        hidden.append(ni)
            if facts is not None and hidden:
                handed = handed_names(doc, sid, hidden, boxes, builder._visible_text)  # noqa: SLF001
                facts.handed_names.update({(sid, doc.backend[j]): name for j, name in handed.items()})
    return boxes


class StateBuilder(Occlusion, PageContent):
    """Joins the snapshots of one capture into the element index and page_content."""

    def __init__(
        self,
        tab: Tab,
        worlds: Worlds | None,
        viewport: tuple[float, float, float, float],
        docs: dict[str, list[SnapshotDoc]],
        oopif_owner: dict[tuple[str, int], str],
        content: ContentWindow = (0, PAGE_CONTENT_CAP),
    ) -> None:
        self.tab = tab
        self.window = content
        self.cap = content[0] + content[1]  # folded characters to collect: up to the window's end
        self.worlds = worlds  # None: geometry only (element_boxes), nothing to verify in a world
        self.viewport = viewport
        self.docs = docs
        self.oopif_owner = oopif_owner
        self.elements: list[Element] = []
        self.content: list[str] = []
        self.content_len = 0
        # Raw text collected before whitespace folding is measured; past the cap the walk only looks for
        # indexable elements.
        self.content_limit = self.cap + self.cap // 4
        self.truncated = False
        self.truncated_at: tuple[int, int] = (0, -1)  # (id(doc), node) where page_content stopped collecting
        self.clip: dict[int, tuple[float, float, float, float]] = {}  # id(doc) -> visible clip in viewport
        self._grids: dict[int, dict[tuple[int, int], list[tuple[int, float, float, float, float, int]]]] = {}
        self._by_node: dict[tuple[int, int], Element] = {}  # visible selects, for their options
        self._view: dict[int, tuple[set[int], dict[int, int]]] = {}  # id(doc) -> _in_view()
        self.verified = 0  # nodes whose styles verify() asked for
        self._shown: dict[
            tuple[str, ...], tuple[str, ...]
        ] = {}  # (tag, *attribute names) -> CONTENT_ATTRS shown

    async def place_frames(self) -> None:
        """Viewport offsets of every document: scroll for the top one, iframe content boxes for the rest."""
        w, h, sx, sy = self.viewport
        root_docs = self.docs.get(self.tab.main_frame_id)
        if not root_docs:
            return
        top = root_docs[0]
        top.offset = (-sx, -sy)
        self.clip[id(top)] = (0.0, 0.0, w, h)
        # Iframe owners of nested documents, resolved with one pipelined getBoxModel burst per level.
        pending: list[tuple[SnapshotDoc, int, SnapshotDoc]] = []  # (parent doc, owner node index, child doc)
        for docs in self.docs.values():
            for doc in docs:
                for node, child in doc.content_doc.items():
                    pending.append((doc, node, docs[child]))
        for fid, docs in self.docs.items():
            if fid == self.tab.main_frame_id:
                continue
            for (sid, backend), frame_id in self.oopif_owner.items():
                if frame_id != fid:
                    continue
                for pdocs in self.docs.values():
                    for pdoc in pdocs:
                        if (pdoc.session.id or "") != sid:
                            continue
                        node = find_backend(pdoc, backend)
                        if node is not None:
                            pending.append((pdoc, node, docs[0]))
        if not pending:
            return
        boxes = await asyncio.gather(
            *[p.session.send("DOM.getBoxModel", {"backendNodeId": p.backend[n]}) for p, n, _ in pending],
            return_exceptions=True,
        )
        # getBoxModel answers in the owner frame's viewport: add that frame's own offset, parents first.
        placed = {id(top)}
        remaining = list(zip(pending, boxes, strict=True))
        for _ in range(8):
            if not remaining:
                break
            later = []
            for (pdoc, _node, child), box in remaining:
                if id(pdoc) not in placed and pdoc.session is not self.tab.session:
                    later.append(((pdoc, _node, child), box))
                    continue
                if isinstance(box, BaseException):
                    self.clip[id(child)] = (0.0, 0.0, 0.0, 0.0)
                    placed.add(id(child))
                    continue
                q = box["model"]["content"]
                base_x, base_y = self._frame_origin(pdoc)
                x, y = q[0] + base_x, q[1] + base_y
                cw, ch = q[2] - q[0], q[5] - q[1]
                child.offset = (x - child.scroll[0], y - child.scroll[1])
                px, py, pw, ph = self.clip.get(id(pdoc), (0.0, 0.0, w, h))
                cx0, cy0 = max(x, px), max(y, py)
                cx1, cy1 = min(x + cw, px + pw), min(y + ch, py + ph)
                self.clip[id(child)] = (cx0, cy0, max(0.0, cx1 - cx0), max(0.0, cy1 - cy0))
                placed.add(id(child))
            remaining = later

    def _frame_origin(self, doc: SnapshotDoc) -> tuple[float, float]:
        """Where the viewport of doc's session starts, in top-level viewport coordinates."""
        if doc.session is self.tab.session:
            return (0.0, 0.0)
        docs = self.docs.get(doc.session.target_id)
        if not docs:
            return (0.0, 0.0)
        root = docs[0]
        return (root.offset[0] + root.scroll[0], root.offset[1] + root.scroll[1])

    # ----- walking ----------------------------------------------------------------------------

    def walk(self) -> None:
        docs = self.docs.get(self.tab.main_frame_id)
        if docs:
            self._walk_doc(docs[0], docs)

    def _walk_doc(self, doc: SnapshotDoc, docs: list[SnapshotDoc]) -> None:
        """One linear pass over the pre-order node list; subtrees are skipped by jumping to their end.

        The innermost open element lives in locals (its subtree end, hidden, opacity product and
        closing text); the enclosing ones wait on a stack. This loop runs once per DOM node, so it
        avoids per-node allocations and attribute lookups.
        """
        labelled = self._labelled_ids(doc)
        frame = self.tab.frames.get(doc.frame_id)
        loader = frame.loader_id if frame else ""
        types, names, rects, end, text_of = doc.types, doc.names, doc.rects, doc.end, doc.text_of
        attrs_of, flagged, content_ids = doc.attrs, doc.flagged, doc.content_attr_ids
        opacity_of, invisible, content_docs = doc.opacity, doc.visibility, doc.content_doc
        unrendered = doc.unrendered
        extended = doc.extended  # empty in strict mode
        emit = self._emit
        content = self.content
        truncated = self.truncated  # refreshed after every call that may emit
        live: set[int] | None = None
        n = doc.nodes_len
        stack: list[tuple[int, bool, float, str | None]] = []
        cur_end, cur_hidden, cur_op, cur_close = n, False, 1.0, None
        i = 0
        while i < n:
            if i >= cur_end:
                while i >= cur_end:
                    if cur_close and not truncated:
                        if content and content[-1] == " ":
                            content.pop()  # no space before a closing tag
                        content.append(cur_close)  # short markup: the next text counts toward the cap
                    cur_end, cur_hidden, cur_op, cur_close = stack.pop()
            ntype = types[i]
            if i in unrendered:  # painted nowhere (a closed <details>'s content, hidden until found)
                i = end[i]
                continue
            if ntype == 3:  # text
                if not cur_hidden and not truncated:
                    text = text_of.get(i)
                    if text:
                        if text.isspace():
                            # Whitespace between inline elements still separates words ("def" "name"),
                            # but not after a space, a line break or an opening tag.
                            last = content[-1] if content else "\n"
                            if last[-1] in " \n" or (last[-1] == ">" and not last.startswith("</")):
                                i += 1
                                continue
                            text = " "
                        else:
                            text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                        content.append(text)
                        self.content_len += len(text)
                        if self.content_len > self.content_limit:
                            self._limit_reached()
                            truncated = self.truncated
                            if truncated and self.truncated_at[1] < 0:
                                self.truncated_at = (id(doc), i)
                i += 1
                continue
            if ntype != 1 and ntype != 9 and ntype != 11:  # not an element, document or shadow root
                i = end[i]
                continue
            name = names[i]
            if name in SKIP_CONTENT and i not in extended:  # an extended target may be an svg icon
                # An svg's shapes are drawing, not content, unless one of them is a control (role=button on a
                # <circle>, an svg <a>): then the svg is walked like any element. Icons are a few nodes.
                if name != "svg" or not any(j in flagged or names[j] == "a" for j in range(i, end[i])):
                    i = end[i]
                    continue
            if truncated:
                if live is None:
                    live = self._in_view(doc)[0]
                if i not in live and name != "option" and name != "optgroup":
                    i = end[i]  # page_content is full and nothing in here meets the viewport
                    continue
            if ntype != 1:
                stack.append((cur_end, cur_hidden, cur_op, cur_close))
                cur_end, cur_close = end[i], None
                i += 1
                continue
            has_layout = i in rects
            if (
                not has_layout
                and name != "option"
                and name != "optgroup"  # boxless like the options in it, which ride on their select's box
                and name != "html"
                and not self._renders_children(doc, i)
            ):
                i = end[i]  # display:none subtree (display:contents keeps rendering its children)
                continue
            op = cur_op * opacity_of.get(i, 1.0) if opacity_of else cur_op
            if has_layout:
                hidden = op <= 0 or i in invisible
            else:
                hidden = op <= 0 or cur_hidden
            closing: str | None = None
            kind = "element" if i in flagged or i in extended else TAG_KIND.get(name)
            if kind is None:  # an inline element without meaning of its own (span, b, …): only its content
                pass
            elif kind == "block":  # div and other blocks without meaning of their own
                if not hidden and not truncated:
                    content.append("\n")
                    closing = "\n"
            elif kind == "tag" and content_ids.isdisjoint(attrs_of[i]):
                # A semantic tag without attributes worth showing (p, li, code, …): the tag alone.
                if not hidden and not truncated:
                    content.append(OPEN_TAG[name])
                    closing = CLOSE_TAG[name]
            else:
                tag_open, tag_close = self._element(
                    doc, docs, i, name, doc.attributes(i), hidden, op, labelled, loader
                )
                if tag_open:
                    emit(tag_open)
                truncated = self.truncated
                if truncated and self.truncated_at[1] < 0:
                    self.truncated_at = (id(doc), i)
                if tag_close is None:
                    i = end[i]  # element fully handled (form controls, options, iframes)
                    continue
                closing = tag_close or None
            stack.append((cur_end, cur_hidden, cur_op, cur_close))
            cur_end, cur_hidden, cur_op, cur_close = end[i], hidden, op, closing
            if content_docs and not hidden:
                content_idx = content_docs.get(i)
                if content_idx is not None:
                    self._walk_doc(docs[content_idx], docs)
                    truncated = self.truncated
            i += 1
        while stack:
            if cur_close:
                emit(cur_close)
            cur_end, cur_hidden, cur_op, cur_close = stack.pop()

    @staticmethod
    def _renders_children(doc: SnapshotDoc, node: int) -> bool:
        """A box-less element still renders when a descendant has a box (display: contents, at any depth: a
        display: none element has no box below it) or a direct child is a shadow root."""
        j, stop, rects, types, parent = node + 1, doc.end[node], doc.rects, doc.types, doc.parent
        while j < stop:
            if j in rects or (types[j] == 11 and parent[j] == node):
                return True
            j += 1
        return False

    def _labelled_ids(self, doc: SnapshotDoc) -> set[str]:
        """Ids of form controls in this document, for <label for=…>."""
        ids: set[str] = set()
        for i in [i for i, name in enumerate(doc.names) if name in FORM_CONTROLS]:
            if doc.types[i] == 1:
                a = doc.attrs[i]
                for k in range(0, len(a), 2):
                    if doc.texts[a[k]] == "id":
                        if a[k + 1] >= 0:
                            ids.add(doc.texts[a[k + 1]])
        return ids

    def visible_box(self, doc: SnapshotDoc, node: int) -> tuple[tuple[float, float, float, float], bool]:
        """The node's box in top-level viewport px, and whether some of it lies inside its frame's clip."""
        r = doc.rects.get(node)
        if r is None:
            return (0.0, 0.0, 0.0, 0.0), False
        x, y = r[0] + doc.offset[0], r[1] + doc.offset[1]
        w, h = r[2], r[3]
        cx, cy, cw, ch = self.clip.get(id(doc), (0.0, 0.0, self.viewport[0], self.viewport[1]))
        visible = w > 0 and h > 0 and x < cx + cw and y < cy + ch and x + w > cx and y + h > cy
        return (x, y, w, h), visible and node not in doc.clipped

    def _is_label_for_control(self, doc: SnapshotDoc, node: int, attrs: dict[str, str], labelled: set[str]) -> bool:
        target = attrs.get("for")
        if target is not None:
            return target in labelled
        types, names = doc.types, doc.names
        return any(types[c] == 1 and names[c] in FORM_CONTROLS for c in range(node + 1, doc.end[node]))

    def _element(
        self,
        doc: SnapshotDoc,
        docs: list[SnapshotDoc],
        node: int,
        name: str,
        attrs: dict[str, str],
        hidden: bool,
        opacity: float,
        labelled: set[str],
        loader: str,
    ) -> tuple[str, str | None]:
        role = attrs.get("role")
        role_attr = role.strip().lower().split(" ")[0] if role else ""
        editable = attrs.get("contenteditable", None) in ("true", "") or doc.extended.get(node) == "editable"
        index: int | None = None
        # Only a box in the viewport can be indexed (an option rides on its select's box); nothing inert. A
        # transparent element may still be a target (_offered): hidden only by its opacity, it is judged there.
        transparent = opacity <= 0 and node in doc.rects and node not in doc.visibility
        stands_for = -1
        if (not hidden or transparent) and node not in doc.inert and name != "option":
            stands_for = self._stands_for(doc, node, name, role_attr)  # a tiny keyboard target, under or aside
        if (not hidden or transparent) and node not in doc.inert and (
            self._select_indexed(doc, node) if name == "option" else (node in self._in_view(doc)[0] or stands_for >= 0)
        ):
            interactive = (
                name in INTERACTIVE_TAGS
                or role_attr in INTERACTIVE_ROLES
                or editable
                or (name == "label" and self._is_label_for_control(doc, node, attrs, labelled))
                or node in doc.extended
            )
            if interactive:
                index = self._index(doc, node, name, attrs, role_attr, editable, opacity, loader, stands_for)
        if name == "iframe" or name == "frame":
            marker = f"[{index}]" if index else ""
            self._emit(f"\n{marker}<iframe>")
            oopif = self.oopif_owner.get((doc.session.id or "", doc.backend[node]))
            if oopif is not None and not hidden and oopif in self.docs:
                odocs = self.docs[oopif]
                self._walk_doc(odocs[0], odocs)
            else:
                content_idx = doc.content_doc.get(node)
                if content_idx is not None and not hidden:
                    self._walk_doc(docs[content_idx], docs)
            self._emit("</iframe>\n")
            return "", None
        if hidden and index is None:  # a transparent target that is indexed still shows where it is
            return "", ""
        if index is None and name in FIELD_TAGS and self._not_offered(doc, node, name, attrs, role_attr):
            return "", None  # a library's hidden original control, with its options: no one sees it (as read_page)
        if self.truncated:  # past the page_content cap: only the index still needs this subtree
            return ("", None) if name in ("input", "textarea", "img", "option") else ("", "")
        if name not in SEMANTIC_TAGS and index is None:
            return ("\n", "\n") if name in BLOCK_TAGS else ("", "")
        marker = f"[{index}]" if index else ""
        parts = [f"<{name}"]
        key = (name, *attrs)  # elements repeat their tag and attribute names: decide once which show
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = tuple(
                a
                for a in CONTENT_ATTRS
                if a in attrs and not (a == "type" and name != "input" and name != "button")
            )
        for attr in shown:
            value = attrs[attr]
            if value:
                parts.append(f' {attr}="{_attr_escape(value[:200])}"')
        if name in ("input", "textarea", "select"):
            current = self._current_value(doc, node, name, attrs)
            if current:
                parts.append(f' value="{_attr_escape(current[:500])}"')
            if node in doc.input_checked:
                parts.append(" checked")
            if name != "select":
                self._emit(f"\n{marker}{''.join(parts)}>")
                return "", None
        if name == "option":
            text = self._raw_text(doc, node)
            value = attrs["value"] if "value" in attrs else text
            selected = " selected" if node in doc.option_selected else ""
            self._emit(
                f'\n{marker}{"".join(parts)}{selected} value="{_attr_escape(value[:200])}">{_escape(text)}</option>'
            )
            return "", None
        if name == "img":
            self._emit(f"{marker}{''.join(parts)}>")
            return "", None
        block = "\n" if name in BLOCK_TAGS else ""
        return f"{block}{marker}{''.join(parts)}>", f"</{name}>{block}"

    def _select_indexed(self, doc: SnapshotDoc, option: int) -> bool:
        """An option is indexed with its select (or datalist), when that is: found without a walk up."""
        if not self._by_node:
            return False
        p = doc.parent[option]
        if p >= 0 and doc.names[p] == "optgroup":
            p = doc.parent[p]
        return (id(doc), p) in self._by_node or doc.names[p] not in ("select", "datalist")

    def _current_value(self, doc: SnapshotDoc, node: int, name: str, attrs: dict[str, str]) -> str | None:
        if name == "select":
            for c in self._descendants(doc, node):
                if doc.names[c] == "option" and c in doc.option_selected:
                    return self._option_value(doc, c)
            return ""  # no option selected (a listbox, an empty select): the DOM's value is ""
        iv = doc.input_value.get(node)
        value = doc.texts[iv] if iv is not None and iv >= 0 else ("" if iv is not None else None)
        if value and attrs.get("type", "").lower() == "password":
            return "•" * len(value)  # never put a password in the state
        return value

    def _descendants(self, doc: SnapshotDoc, node: int) -> list[int]:
        return list(range(node + 1, doc.end[node]))

    def _option_value(self, doc: SnapshotDoc, node: int) -> str:
        attrs = doc.attributes(node)
        if "value" in attrs:
            return attrs["value"]
        return self._raw_text(doc, node)

    def _raw_text(self, doc: SnapshotDoc, node: int) -> str:
        first = node + 1
        if doc.end[node] == first + 1 and doc.types[first] == 3:  # one text child: an option's usual shape
            v = doc.values[first]
            return " ".join(doc.texts[v].split()) if v >= 0 else ""
        parts = []
        for c in self._descendants(doc, node):
            if doc.types[c] == 3:
                v = doc.values[c]
                if v >= 0:
                    parts.append(doc.texts[v])
        return " ".join(" ".join(parts).split())

    def _visible_text(self, doc: SnapshotDoc, node: int, *, pseudo: bool = True) -> str:
        """The rendered text under a node; without `pseudo`, less ::marker, ::before and ::after content
        (as innerText, which the identity check reads, has it: extended elements such as list items)."""
        pieces: list[int] = []
        text_of, opacity, invisible = doc.text_of, doc.opacity, doc.visibility
        c, stop, names, end = node + 1, doc.end[node], doc.names, doc.end
        while c < stop:
            if (not pseudo and names[c].startswith("::")) or opacity.get(c) == 0.0 or c in invisible:
                c = end[c]  # text no one sees: transparent or hidden (a notched outline's legend)
                continue
            if text_of.get(c):
                pieces.append(c)
            c += 1
        rects = doc.rects
        return join_rendered([(text_of[c], rects.get(c)) for c in pieces])

    @staticmethod
    def _offered(
        doc: SnapshotDoc, node: int, name: str, attrs: dict[str, str], role: str, box: tuple[float, float, float, float],
        opacity: float,
    ) -> bool:
        """Whether a transparent or tiny interactive element is offered as a target. Visible means a person sees
        it or it takes the pointer: a transparent checkbox or radio of ordinary size that takes the pointer
        (pointer-events checked by verify(); a styled checkbox's real input over its drawing) is offered as
        itself, with its checked state, and so is a transparent text field that takes the pointer (it shows on
        focus); a transparent button draws nothing: not offered. A keyboard
        target a library keeps tiny or transparent inside its drawn control (react-select's input) is offered
        too, and the pointer goes to what it stands for (core/actionability: STAND_IN_FUNCTION). Anything else
        (a visually hidden original <select>, aria-hidden or out of the tab order) is not offered."""
        if opacity <= 0:  # the real hit target of a box drawn under it (_drawn_under), when it takes the pointer
            return _drawn_under(name, attrs, role) and box[2] >= 8 and box[3] >= 8 and node in doc.cover_rect
        if attrs.get("aria-hidden") == "true" or attrs.get("tabindex", "").strip() == "-1":
            return False
        return name in ("input", "textarea", "select") or role in STAND_IN_ROLES

    def _not_offered(self, doc: SnapshotDoc, node: int, name: str, attrs: dict[str, str], role: str) -> bool:
        """Whether a control the page keeps tiny stands for nothing and is no target (_offered): element_boxes
        leaves it out of the accessibility views by the same rule."""
        r = doc.rects.get(node)
        return r is not None and (r[2] <= 2 or r[3] <= 2) and not self._offered(doc, node, name, attrs, role, (0.0, 0.0, 0.0, 0.0), 1.0)

    def _stands_for(self, doc: SnapshotDoc, node: int, name: str, role: str) -> int:
        """For a keyboard target whose own box is tiny, wherever a library moved it, what it stands for when
        a person sees that in the viewport (_stand_for); else -1."""
        p = _stand_for(doc, node, name, role)
        return p if p >= 0 and p in self._in_view(doc)[0] else -1

    def stand_for_box(
        self, doc: SnapshotDoc, node: int, name: str, role: str, attrs: dict[str, str]
    ) -> tuple[tuple[float, float, float, float], bool] | None:
        """For the accessibility views: the box of what a tiny keyboard target stands for, in or out of the
        viewport, as the index finds it; None when it stands for nothing (_offered)."""
        p = _stand_for(doc, node, name, role)
        if p < 0 or not self._offered(doc, node, name, attrs, role, (0.0, 0.0, 0.0, 0.0), 1.0):
            return None
        return self.visible_box(doc, p)

    def _index(
        self,
        doc: SnapshotDoc,
        node: int,
        name: str,
        attrs: dict[str, str],
        role_attr: str,
        editable: bool,
        opacity: float,
        loader: str,
        stands_for: int = -1,
    ) -> int | None:
        select_index: int | None = None
        if name == "option":
            select_node = doc.parent[node]
            while select_node >= 0 and doc.names[select_node] not in ("select", "datalist"):
                select_node = doc.parent[select_node]
            sel = self._by_node.get((id(doc), select_node))
            if sel is None:
                return None  # an option is indexed when its (visible) select is
            # A listbox draws its options (their own boxes); a drop-down's options have none and ride on it.
            box, visible = self.visible_box(doc, node) if node in doc.rects else (sel.box, False)
            select_index = sel.index
        elif stands_for >= 0:  # offered as the control it stands for: that box is the one a person sees
            box, visible = self.visible_box(doc, stands_for)
            if not visible or not self._offered(doc, node, name, attrs, role_attr, (0.0, 0.0, 0.0, 0.0), 1.0):
                return None
        else:
            box, visible = self.visible_box(doc, node)
            if not visible or self._occluded(doc, node, box):
                return None
            if (opacity <= 0 or box[2] <= 2 or box[3] <= 2) and not self._offered(doc, node, name, attrs, role_attr, box, opacity):
                return None
        index = len(self.elements) + 1
        input_type: str | None = None
        if name == "input":
            t = attrs.get("type", "text").strip().lower()
            input_type = t if t in INPUT_TYPES else "text"
        elif name == "button":
            t = attrs.get("type", "submit").strip().lower()
            input_type = t if t in BUTTON_TYPES else "submit"
        if name in ("input", "textarea", "select"):
            text = None if name != "select" else (self._selected_text(doc, node) or None)
        elif name == "option":
            text = self._raw_text(doc, node) or None
        elif node in doc.extended:
            text = self._visible_text(doc, node, pseudo=False)[:TEXT_CAP] or None
        else:
            text = self._visible_text(doc, node)[:TEXT_CAP] or None
        checked: bool | None = None
        if input_type in ("checkbox", "radio"):
            checked = node in doc.input_checked
        elif role_attr in ("checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"):
            checked = attrs.get("aria-checked", "").lower() == "true"
        if name in ("input", "textarea", "select"):
            value = self._current_value(doc, node, name, attrs)
            if value is None:
                value = ""
        elif name == "option":
            value = self._option_value(doc, node)
        elif name == "button":
            value = attrs.get("value")
        else:
            value = None
        disabled = (name in DISABLEABLE and "disabled" in attrs) or attrs.get(
            "aria-disabled", ""
        ).lower() == "true"
        if not disabled and name in DISABLEABLE:
            p = doc.parent[node]
            while p >= 0:
                if doc.names[p] in ("fieldset", "select", "optgroup") and "disabled" in doc.attributes(p):
                    disabled = True
                    break
                p = doc.parent[p]
        role = implicit_role(name, attrs, input_type) if not editable else False
        descriptor = {
            "tag": name,
            "role": role if role is not False else (role_attr or None),
            "aria-label": attrs.get("aria-label"),
            "text_content": text,
            "attributes": {
                "name": attrs.get("name"),
                "value": value,
                "placeholder": attrs.get("placeholder"),
                "type": input_type,
                "href": attrs.get("href") if name == "a" else None,
                "checked": checked,
            },
        }
        element = Element(
            index=index,
            session=doc.session,
            frame_id=doc.frame_id,
            loader_id=loader,
            backend_node_id=doc.backend[node],
            tag=name,
            descriptor=descriptor,
            box=box,
            visible=visible,
            disabled=disabled,
            editable=editable,
            select_index=select_index,
            input_type=input_type,
            role_known=role is not False,
            reason=doc.extended.get(node),
            node=node,
        )
        self.elements.append(element)
        if name == "select":
            self._by_node[(id(doc), node)] = element
        return index

    def _selected_text(self, doc: SnapshotDoc, node: int) -> str:
        for c in self._descendants(doc, node):
            if doc.names[c] == "option" and c in doc.option_selected:
                return self._raw_text(doc, c)
        return ""

    def request_roles(
        self, known: dict[tuple[str, int], str | None] | None = None
    ) -> list[tuple[Element, asyncio.Future[dict[str, Any]]]]:
        """Ask Accessibility for the computed roles the HTML mapping leaves open (explicit roles,
        contenteditable, links without href, …): one pipelined burst, answered by apply_roles. `known`: roles
        an earlier capture of the same snapshots settled (settled_roles), taken as they are."""
        asks = []
        for el in self.elements:
            if el.role_known:
                continue
            if known is not None:
                settled = known.get((el.session.id or "", el.backend_node_id), el)
                if settled is not el:
                    el.descriptor["role"] = settled
                    continue
            future = el.session.send(
                "Accessibility.getPartialAXTree", {"backendNodeId": el.backend_node_id, "fetchRelatives": False}
            )
            asks.append((el, future))
        return asks

    @staticmethod
    async def apply_roles(requests: list[tuple[Element, asyncio.Future[dict[str, Any]]]]) -> None:
        if not requests:
            return
        results = await asyncio.gather(*[f for _, f in requests], return_exceptions=True)
        for (el, _), result in zip(requests, results, strict=True):
            if isinstance(result, BaseException) or not result.get("nodes"):
                continue
            role = result["nodes"][0].get("role") or {}
            value = role.get("value")
            if role.get("type") == "role" and value and value not in ("none", "presentation"):
                if value == "generic" and el.descriptor["role"]:
                    continue  # Chromium ignored the explicit role (e.g. option outside a listbox): keep it
                el.descriptor["role"] = value
            elif el.descriptor["role"] is None:
                el.descriptor["role"] = None

def settled_roles(elements: list[Element]) -> dict[tuple[str, int], str | None]:
    """The roles Accessibility settled for elements the HTML mapping left open, by (session id, backend id)."""
    return {(el.session.id or "", el.backend_node_id): el.descriptor["role"] for el in elements if not el.role_known}


def find_backend(doc: SnapshotDoc, backend: int) -> int | None:
    try:
        return doc.backend.index(backend)
    except ValueError:
        return None


def content_digest(state: dict[str, Any]) -> str:
    """A fast internal digest (xxhash) of a state's element index, for caches and trajectories."""
    return xxhash.xxh3_64_hexdigest(orjson.dumps(state.get("element_index", {}), option=orjson.OPT_SORT_KEYS))
