"""read_page, find and get_page_text: the accessibility tree and the page text as bounded text.

Grammar (one element a line, two spaces of indent per level):

    <role> "<name>" [ref_N]( key=value| flag)*

Names are folded to one line, escaped (`"` and `\\`) and cut at 200 characters; values are
quoted when they hold spaces; states are bare flags (checked, disabled, expanded, selected,
focused, required); fields carry value="…"; `(offscreen)` marks elements outside the viewport
when filter is "all". Text that is not an element's own name appears as `text "…"` (no ref).
The output ends with `Viewport: WxH`. These functions return the whole text; the executor hands out a window
of it (ToolsetConfig.text_chars, 50,000 by default, util/text_windows.py) ending with a marker that names a
continuation ref: read_page with that ref reads the next part.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core.policies import MAX_RESULT_CHARS, TOOLSET_TEXT_CAP
from ..errors import CDPEngineError
from ..snapshot.ax_tree import STRUCTURAL_ROLES, AXNode

if TYPE_CHECKING:
    from ..core.refs import RefRegistry
    from ..core.tab import Tab

OUTPUT_CAP = TOOLSET_TEXT_CAP  # the toolset's result bound (Policies.for_toolset().result; ToolsetConfig.text_chars)
TEXT_TRUNCATED = f"[Output truncated at {OUTPUT_CAP} characters.]"  # javascript_exec's output
WHAT = "Output"  # the marker's subject: `[Output truncated: characters 0-49,990 of 120,000 shown; ...]`


def read_on(token: str | None, *, tree: bool) -> str:
    """The marker's `how` clause: the continuation ref to pass to read_page (util.text_windows's marker)."""
    if token is None:
        return "This is the end; read_page or get_page_text again reads from the start."
    narrow = ", or narrow with a smaller depth or a ref" if tree else ""
    return f"Read on with read_page ref={token}{narrow}."
NAME_MAX = 200
FIND_MAX = 20

# Chromium's internal roles, spelled the way the model knows them; None = skip (children kept).
ROLE_NAMES: dict[str, str | None] = {
    "RootWebArea": None,
    "WebArea": None,
    "MenuListPopup": None,
    "ListMarker": None,
    "LineBreak": None,
    "Iframe": "iframe",
    "IframePresentational": "iframe",
    "LabelText": "label",
    "ListBoxOption": "option",
    "MenuListOption": "option",
    "PopUpButton": "combobox",
    "DisclosureTriangle": "button",
    "image": "img",
}
FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
VALUE_ROLES = FIELD_ROLES - {"combobox"}  # their children are their value; a select's options are kept
TEXT_ROLES = frozenset({"StaticText"})


def _escape(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > NAME_MAX:
        text = text[: NAME_MAX - 1] + "…"
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _value(text: str) -> str:
    text = _escape(text)
    return f'"{text}"' if (not text or re.search(r'[\s"\\=]', text)) else text


def display_role(node: AXNode) -> str | None:
    """The role shown for a node, or None when the node is only a wrapper."""
    if node.role in ROLE_NAMES:
        return ROLE_NAMES[node.role]
    if node.reason is not None and (node.role in STRUCTURAL_ROLES or node.role[:1].isupper()):
        return "generic"  # extended mode: a target outside the strict list (a div with a click listener)
    if node.role in STRUCTURAL_ROLES:
        # A focusable or editable wrapper (contenteditable, tabindex) is something the model can act on.
        if node.backend_node_id is not None and (
            node.properties.get("focusable") or node.properties.get("editable")
        ):
            if node.tag not in ("html", "body", ""):
                return (
                    "textbox"
                    if node.properties.get("editable") == "richtext" and node.role == "generic"
                    else "generic"
                )
        return None
    return node.role


def _is_interactive(node: AXNode) -> bool:
    role = display_role(node)
    return role is not None and (
        node.interactive or node.properties.get("editable") == "richtext" or node.reason is not None
    )


def _own_text(node: AXNode) -> str:
    """A name for an unnamed node whose children are only text (a paragraph, a cell)."""
    if node.name or not node.children:
        return node.name
    if all(c.role in TEXT_ROLES for c in node.children):
        return " ".join(c.name for c in node.children if c.name)
    return ""


def describe(node: AXNode, ref: str | None, *, offscreen: bool = False, name: str | None = None) -> str:
    """One line of the grammar for an element."""
    role = display_role(node) or node.role or "generic"
    name = node.name if name is None else name
    parts = [role]
    if name:
        parts.append(f'"{_escape(name)}"')
    if ref:
        parts.append(f"[{ref}]")
    props = node.properties
    attrs = node.attributes
    if role == "heading" and props.get("level"):
        parts.append(f"level={props['level']}")
    if role == "link" and attrs.get("href"):
        parts.append(f"href={_value(attrs['href'])}")
    if node.tag == "input":
        kind = attrs.get("type", "text").lower()
        if kind not in ("text", "checkbox", "radio", "submit", "button"):
            parts.append(f"type={_value(kind)}")
    if role in FIELD_ROLES or node.properties.get("editable"):
        if attrs.get("placeholder") and attrs["placeholder"] != name:
            parts.append(f"placeholder={_value(attrs['placeholder'])}")
        if node.value is not None:
            value = node.value or ""
            if attrs.get("type", "").lower() == "password":
                value = "•" * len(value)
            parts.append(f"value={_value(value) if value else chr(34) * 2}")
    checked = props.get("checked")
    if checked in ("true", True):
        parts.append("checked")
    elif checked == "mixed":
        parts.append("checked=mixed")
    for flag in ("disabled", "expanded", "selected", "focused", "required"):
        if props.get(flag) is True or props.get(flag) == "true":
            parts.append(flag)
    if node.reason is not None:
        parts.append(f"reason={node.reason}")  # extended mode only (docs/extended.md)
    if offscreen:
        parts.append("(offscreen)")
    return " ".join(parts)


class _Cap:
    """Collects lines up to the cap, leaving room for the footer and the truncation notice."""

    def __init__(self, cap: int, reserve: int) -> None:
        self.lines: list[str] = []
        self.size = 0
        self.room = cap - reserve
        self.truncated = False

    def add(self, line: str) -> bool:
        if self.truncated:
            return False
        if self.size + len(line) + 1 > self.room:
            self.truncated = True
            return False
        self.lines.append(line)
        self.size += len(line) + 1
        return True


def find_node(root: AXNode, session_id: str, backend_node_id: int) -> AXNode | None:
    for node, _ in root.walk():
        if node.backend_node_id == backend_node_id and (node.session.id or "") == session_id:
            return node
    return None


def _walk_lines(
    root: AXNode,
    refs: RefRegistry,
    *,
    filter: str | None,
    depth: int,
    include_root: bool,
) -> tuple[list[str], bool, int]:
    """(lines, truncated, hidden count) for the tree under root."""
    cap = _Cap(MAX_RESULT_CHARS, 0)  # the whole text: the caller takes a window of it (util.text_windows)
    hidden = 0
    stack: list[tuple[AXNode, int, str, bool]] = [(root, 0, "", include_root)]
    # (node, level, parent name, is root)
    while stack:
        node, level, parent_name, forced = stack.pop()
        role = display_role(node)
        shown = False
        name = node.name
        skip_children = False
        if node.role in TEXT_ROLES:
            if (
                filter != "interactive"
                and node.name
                and node.name != parent_name
                and (node.visible or filter == "all")
            ):
                if level < depth:
                    indent = "  " * level
                    if not cap.add(
                        f'{indent}text "{_escape(node.name)}"' + ("" if node.visible else " (offscreen)")
                    ):
                        break
            continue
        if node.role == "InlineTextBox":
            continue
        if role is not None:
            wanted = forced or (
                (filter != "interactive" or _is_interactive(node)) and (node.visible or filter == "all")
            )
            if not wanted and filter is None and not node.visible and role not in ("iframe",):
                hidden += 1
            if wanted and level < depth:
                if not name and node.reason is not None and _holds_a_control(node):
                    # An extended target around controls (a cart row with its Checkout button, a dialog
                    # trigger's wrapper) is named by its text outside them; the controls keep their own lines.
                    name = _text_outside_controls(node, 120)
                elif not name and (not _is_interactive(node) or node.reason is not None):
                    # An extended target (a div with a listener) is named by its text, as a paragraph is.
                    own = _own_text(node) or (_descendant_text(node, 120) if node.reason is not None else "")
                    if own:
                        name, skip_children = own, True
                elif not name and _named_by_its_text(node):
                    name, skip_children = _own_text(node) or _descendant_text(node, 120), True
                ref = None
                if node.backend_node_id is not None:
                    ref = refs.assign(node.session, node.frame_id, node.backend_node_id, node.role, node.identity_name)
                line = "  " * level + describe(
                    node, ref, offscreen=not node.visible and filter == "all", name=name
                )
                if not cap.add(line):
                    break
                shown = True
            elif wanted:
                continue  # below the depth limit: nothing under it is shown either
        if skip_children or (shown and (role in VALUE_ROLES or node.properties.get("editable"))):
            continue  # a field's text is its value, already on its line
        child_level = level + 1 if shown else level
        for child in reversed(node.children):
            stack.append((child, child_level, name if shown else parent_name, False))
    return cap.lines, cap.truncated, hidden


async def read_page(
    tab: Tab,
    root: AXNode | None,
    refs: RefRegistry,
    *,
    filter: str | None,
    depth: int,
    subtree: AXNode | None,
    viewport: tuple[int, int],
) -> str:
    """The read_page text (see the module doc)."""
    if root is None:
        return "(empty page)"
    start = subtree or root
    lines, _cut, hidden = _walk_lines(
        start, refs, filter=filter, depth=depth, include_root=subtree is not None
    )
    if not lines:
        if subtree is None:
            return "(empty page)"
        lines = ["(nothing to show)"]
    out = "\n".join(lines)
    footer = f"Viewport: {viewport[0]}x{viewport[1]}"
    if hidden and filter is None:
        footer += f'\n(Not shown: {hidden} outside the viewport; use filter "all" to include them.)'
    return f"{out}\n\n{footer}"


# ----- find -------------------------------------------------------------------------------------

STOPWORDS = frozenset(
    "a an the of to for on in at by with and or that this is are be me my please element elements the "
    "which where whose its it".split()
)
ROLE_HINTS: dict[str, frozenset[str]] = {
    "button": frozenset({"button"}),
    "btn": frozenset({"button"}),
    "link": frozenset({"link"}),
    "links": frozenset({"link"}),
    "field": frozenset({"textbox", "searchbox", "combobox", "spinbutton"}),
    "input": frozenset({"textbox", "searchbox", "combobox", "spinbutton", "checkbox", "radio"}),
    "textbox": frozenset({"textbox", "searchbox"}),
    "box": frozenset({"textbox", "searchbox", "checkbox", "combobox"}),
    "textarea": frozenset({"textbox"}),
    "search": frozenset({"searchbox"}),
    "checkbox": frozenset({"checkbox"}),
    "check": frozenset({"checkbox"}),
    "radio": frozenset({"radio"}),
    "dropdown": frozenset({"combobox", "listbox"}),
    "select": frozenset({"combobox", "listbox"}),
    "combobox": frozenset({"combobox"}),
    "menu": frozenset({"menu", "menubar", "menuitem", "navigation"}),
    "option": frozenset({"option"}),
    "heading": frozenset({"heading"}),
    "header": frozenset({"heading", "banner"}),
    "title": frozenset({"heading"}),
    "image": frozenset({"img", "image"}),
    "picture": frozenset({"img", "image"}),
    "icon": frozenset({"img", "image"}),
    "logo": frozenset({"img", "image"}),
    "tab": frozenset({"tab"}),
    "slider": frozenset({"slider"}),
    "switch": frozenset({"switch", "checkbox"}),
    "toggle": frozenset({"switch", "checkbox", "button"}),
    "table": frozenset({"table", "grid"}),
    "row": frozenset({"row"}),
    "cell": frozenset({"cell", "gridcell"}),
    "list": frozenset({"list", "listbox"}),
    "item": frozenset({"listitem", "menuitem", "option"}),
    "dialog": frozenset({"dialog", "alertdialog"}),
    "modal": frozenset({"dialog", "alertdialog"}),
    "popup": frozenset({"dialog", "alertdialog"}),
    "form": frozenset({"form"}),
    "navigation": frozenset({"navigation"}),
    "nav": frozenset({"navigation"}),
    "paragraph": frozenset({"paragraph"}),
    "label": frozenset({"label", "LabelText"}),
    "iframe": frozenset({"iframe", "Iframe"}),
    "frame": frozenset({"iframe", "Iframe"}),
}
SEARCHED_ATTRIBUTES = (
    "placeholder",
    "aria-label",
    "title",
    "alt",
    "id",
    "name",
    "value",
    "href",
    "type",
    "class",
)


def _tokens(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def _token_hit(token: str, words: set[str]) -> bool:
    if token in words:
        return True
    return len(token) >= 3 and any(
        w.startswith(token) or (len(w) >= 4 and token.startswith(w)) for w in words
    )


def _named_by_its_text(node: AXNode) -> bool:
    """An unnamed interactive element whose role takes no name from its content (a focusable listitem or div:
    jQuery UI's menu items) is read by its text, as the element index reads it; not a field (its text is its
    value, a select's its options) nor one holding a control (that has a line of its own)."""
    return (
        _is_interactive(node)
        and node.reason is None
        and display_role(node) not in FIELD_ROLES
        and not node.properties.get("editable")
        and not _holds_a_control(node)
        and bool(_descendant_text(node, 1))
    )


def _holds_a_control(node: AXNode) -> bool:
    """Whether an interactive element (one read_page gives a ref of its own) lies under the node."""
    return any(child is not node and _is_interactive(child) for child, _ in node.walk())


def _text_outside_controls(node: AXNode, limit: int) -> str:
    """The node's text but for what its interactive descendants hold (they have lines of their own)."""
    parts: list[str] = []
    size = 0
    stack = list(reversed(node.children))
    while stack and size <= limit:
        child = stack.pop()
        if child.role in TEXT_ROLES:
            if child.name:
                parts.append(child.name)
                size += len(child.name)
        elif not _is_interactive(child):
            stack.extend(reversed(child.children))
    return " ".join(parts)


def _descendant_text(node: AXNode, limit: int = 300) -> str:
    parts: list[str] = []
    size = 0
    for child, _ in node.walk():
        if child is not node and child.role in TEXT_ROLES and child.name:
            parts.append(child.name)
            size += len(child.name)
            if size > limit:
                break
    return " ".join(parts)


def _text_leaf(node: AXNode) -> bool:
    """An unnamed element whose descendants are only text: its text stands for its name in find."""
    if node.name:
        return False
    for child, _ in node.walk():
        if (
            child is not node
            and child.role not in TEXT_ROLES
            and child.role != "InlineTextBox"
            and display_role(child)
        ):
            return False
    return True


def rank(root: AXNode, query: str) -> list[tuple[float, int, AXNode]]:
    """Candidates for a query, best first: see docs/toolset.md for the scoring."""
    words = [t for t in _tokens(query) if t not in STOPWORDS] or _tokens(query)
    phrase = " ".join(_tokens(query))
    # The last role word is the head noun ("search button" is a button): it weighs more than the others.
    hinted: set[str] = set()
    head: frozenset[str] = frozenset()
    for w in words:
        roles = ROLE_HINTS.get(w) or (ROLE_HINTS.get(w[:-1]) if w.endswith("s") else None) or frozenset()
        if roles:
            hinted |= roles
            head = roles
    scored: list[tuple[float, int, AXNode]] = []
    for order, (node, _) in enumerate(root.walk()):
        role = display_role(node)
        if role is None or node.backend_node_id is None or node.role in TEXT_ROLES:
            continue
        name_tokens = _tokens(node.name)
        name_words = set(name_tokens)
        score = 0.0
        matched = False
        norm_name = " ".join(name_tokens)
        if phrase and norm_name == phrase:
            score += 6
            matched = True
        elif phrase and len(phrase) >= 3 and phrase in norm_name:
            score += 3
            matched = True
        text_words: set[str] | None = None
        attr_words = set()
        for key in SEARCHED_ATTRIBUTES:
            if node.attributes.get(key):
                attr_words.update(_tokens(node.attributes[key]))
        if node.value:
            attr_words.update(_tokens(node.value))
        for w in words:
            if _token_hit(w, name_words):
                score += 2
                matched = True
            elif _token_hit(w, attr_words):
                score += 1
                matched = True
            else:
                if text_words is None:
                    text_words = set(_tokens(_descendant_text(node))) if _text_leaf(node) else set()
                if text_words and _token_hit(w, text_words):
                    score += 1
                    matched = True
        if role in head or node.role in head:
            score += 4
            matched = True
        elif role in hinted or node.role in hinted:
            score += 1
            matched = True
        if not matched:
            continue
        if _is_interactive(node):
            score += 1
        if node.visible:
            score += 0.5
        scored.append((score, order, node))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


def find(root: AXNode | None, refs: RefRegistry, query: str) -> str:
    """At most 20 elements for a natural-language query, in read_page's line format."""
    shown_query = _escape(query)
    if root is None:
        return f'No element matched "{shown_query}". Try read_page.'
    ranked = rank(root, query)
    if not ranked:
        return f'No element matched "{shown_query}". Try read_page.'
    lines = []
    for _, _, node in ranked[:FIND_MAX]:
        assert node.backend_node_id is not None
        ref = refs.assign(node.session, node.frame_id, node.backend_node_id, node.role, node.identity_name)
        name = node.name or (
            _own_text(node) or _descendant_text(node, 120)
            if not _is_interactive(node) or _named_by_its_text(node)
            else ""
        )
        lines.append(describe(node, ref, offscreen=not node.visible, name=name))
    if len(ranked) > FIND_MAX:
        lines.append(f"({len(ranked) - FIND_MAX} more matches not shown; make the query more specific.)")
    return "\n".join(lines)


# ----- get_page_text ----------------------------------------------------------------------------

PAGE_TEXT_SCRIPT = r"""(() => {
  const textOf = (doc) => {
    const body = doc.body;
    if (!body) return {main: '', rest: ''};
    const full = body.innerText || '';
    let mains = Array.from(doc.querySelectorAll('main, [role="main"]'));
    if (!mains.length) mains = Array.from(doc.querySelectorAll('article'));
    mains = mains.filter(m => !mains.some(o => o !== m && o.contains(m)));
    const mainTexts = mains.map(m => m.innerText || '').filter(t => t.trim());
    let rest = full;
    for (const t of mainTexts) { const i = rest.indexOf(t); if (i >= 0) rest = rest.slice(0, i) + '\n' + rest.slice(i + t.length); }
    const frames = [];
    for (const f of doc.querySelectorAll('iframe, frame')) {
      let inner = null;
      try { inner = f.contentDocument; } catch (e) {}
      if (inner && inner.body) { const r = textOf(inner); const t = [r.main, r.rest].filter(s => s.trim()).join('\n\n'); if (t.trim()) frames.push(t); }
    }
    return {main: mainTexts.join('\n\n'), rest: rest, frames: frames};
  };
  return textOf(document);
})()"""


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r", "").split("\n")]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return out.strip()


async def page_text(tab: Tab) -> str:
    """The rendered text, main content (main, role=main, else article) first, then the rest, then frames."""
    result = await tab.evaluate(PAGE_TEXT_SCRIPT, timeout=10)
    parts = [result.get("main", ""), result.get("rest", ""), *result.get("frames", [])]
    for session in list(tab.frame_sessions.values()):
        try:
            value = await tab.evaluate(
                "document.body ? document.body.innerText : ''", session=session, timeout=5
            )
        except (CDPEngineError, TimeoutError):
            continue
        if isinstance(value, str):
            parts.append(value)
    return "\n\n".join(p for p in (_tidy(p) for p in parts if isinstance(p, str)) if p)


__all__ = [
    "FIND_MAX",
    "OUTPUT_CAP",
    "WHAT",
    "describe",
    "find",
    "find_node",
    "page_text",
    "rank",
    "read_on",
    "read_page",
]
