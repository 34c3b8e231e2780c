"""The YAML accessibility snapshot (Playwright's AI-mode aria snapshot grammar) with identity-checked refs.

Line form: `- <role>[ "<name>"][ [attr]…][ [ref=eN]][: <text>]`, two spaces per level; state
attributes [active] [checked] [disabled] [expanded] [level=N] [pressed] [selected]
[cursor=pointer]; properties as child lines `- /url: …`, `- /placeholder: …`; text as
`- text: …`. Iframes nest their document under `- iframe [ref=eN]:`.

Choices where Playwright's output depends on its injected script: wrapper nodes without a name
(generic, none, presentation, label text, internal Chromium roles) are transparent unless they
carry text of their own, so every text block stays addressable without a line per <div>;
[cursor=pointer] is emitted for links (the one case the user-agent stylesheet guarantees).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..core.refs import RefRegistry
from ..snapshot.ax_tree import AXNode
from ..snapshot.text_join import join_rendered

TRANSPARENT = frozenset(
    {
        "generic",
        "none",
        "presentation",
        "LabelText",
        "Section",
        "MenuListPopup",
        "GenericContainer",
        "Ruby",
        "",
    }
)
SKIPPED = frozenset({"InlineTextBox", "LineBreak", "ListMarker"})
ROOTS = frozenset({"RootWebArea", "WebArea"})
ROLE_NAMES = {
    "image": "img",
    "Iframe": "iframe",
    "IframePresentational": "iframe",
    "MenuListOption": "option",
    "ListBoxOption": "option",
    "PopUpButton": "combobox",
    "DescriptionListTerm": "term",
    "DescriptionListDetail": "definition",
    "DescriptionList": "list",
    "Pre": "generic",
}
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
_PLAIN = re.compile(r"^[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n]*$")


def yaml_value(text: str) -> str:
    """Quote a scalar only when YAML would misread it."""
    if (
        _PLAIN.match(text)
        and text == text.strip()
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and text.lower() not in ("true", "false", "null", "yes", "no", "on", "off", "~")
        and not re.match(r"^[-+]?(\d[\d_]*\.?\d*([eE][-+]?\d+)?|\.\d+)$", text)
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


def map_role(chromium_role: str) -> str:
    """The ARIA role name for a Chromium accessibility role."""
    role = ROLE_NAMES.get(chromium_role, chromium_role)
    if role and role[0].isupper():  # other internal Chromium roles (Canvas, Video, Abbr, ...)
        return "generic"
    return role


def _role(node: AXNode) -> str:
    return map_role(node.role)


def _is_text(node: AXNode) -> bool:
    return node.role == "StaticText"


def _truthy(value: Any) -> bool:
    return value is True or value == "true"


def _attrs(node: AXNode, role: str) -> list[str]:
    p = node.properties
    out: list[str] = []
    if _truthy(p.get("focused")):
        out.append("[active]")
    checked = p.get("checked")
    if checked == "mixed":
        out.append("[checked=mixed]")
    elif _truthy(checked):
        out.append("[checked]")
    if _truthy(p.get("disabled")):
        out.append("[disabled]")
    if _truthy(p.get("expanded")):
        out.append("[expanded]")
    if role == "heading" and p.get("level") is not None:
        out.append(f"[level={p['level']}]")
    pressed = p.get("pressed")
    if pressed == "mixed":
        out.append("[pressed=mixed]")
    elif _truthy(pressed):
        out.append("[pressed]")
    if _truthy(p.get("selected")):
        out.append("[selected]")
    return out


@dataclass(frozen=True)
class View:
    """Which part of the tree a snapshot shows (browser_snapshot's depth / viewport_only / interactive_only).

    `depth`: element levels shown (1: the top level only); what lies below is reachable by snapshotting a
    shown line's ref. `viewport_only`: nothing wholly outside the viewport. `interactive_only`: only elements a
    user can act on (links, buttons, fields, focusable ones), with the element that holds them flattened away,
    and no text lines."""

    depth: int | None = None
    viewport_only: bool = False
    interactive_only: bool = False


FULL = View()


class SnapshotWriter:
    """Renders an AXNode tree; with a registry, every element line gets a ref."""

    def __init__(self, refs: RefRegistry | None, view: View = FULL) -> None:
        self.refs = refs
        self.view = view
        self.lines: list[str] = []

    def render(self, roots: list[AXNode], depth: int = 0) -> str:
        for node in roots:
            self._emit(node, depth)
        return "\n".join(self.lines)

    def children(self, node: AXNode) -> list[AXNode]:
        """Children with transparent wrappers and skipped nodes flattened away."""
        out: list[AXNode] = []
        for child in node.children:
            if child.role in SKIPPED:
                continue
            if child.role in ROOTS:
                out.extend(self.children(child))
            elif self._transparent(child):
                out.extend(self.children(child))
            else:
                out.append(child)
        return out

    def _transparent(self, node: AXNode) -> bool:
        if _is_text(node) or node.reason is not None:  # an extended target always gets its line and ref
            return False
        if self.view.interactive_only and not node.interactive:
            return True
        role = _role(node)
        if role not in TRANSPARENT and role != "generic":
            return False
        if node.name:
            return False
        # Keep a wrapper that holds text itself: it is what a user would click.
        return not any(_is_text(c) for c in node.children)

    def _emit(self, node: AXNode, depth: int) -> None:
        indent = "  " * depth
        view = self.view
        if node.role in SKIPPED or (view.viewport_only and not node.visible and node.role not in ROOTS):
            return
        if view.depth is not None and depth >= view.depth and node.role not in ROOTS and not self._transparent(node):
            return
        if view.interactive_only and _is_text(node):
            return
        if node.role in ROOTS or self._transparent(node):
            for child in self.children(node):
                self._emit(child, depth)
            return
        if _is_text(node):
            if node.name.strip():
                self.lines.append(f"{indent}- text: {yaml_value(node.name)}")
            return
        role = _role(node)
        parts = [role]
        if node.name:
            parts.append(json.dumps(node.name, ensure_ascii=False))
        parts.extend(_attrs(node, role))
        if role == "link":
            parts.append("[cursor=pointer]")
        if node.reason is not None:
            parts.append(f"[interactive={node.reason}]")  # extended mode only (docs/extended.md)
        if self.refs is not None and node.backend_node_id is not None:
            ref = self.refs.assign(node.session, node.frame_id, node.backend_node_id, node.role, node.identity_name)
            parts.insert(len(parts) - (1 if role == "link" else 0), f"[ref={ref}]")
        head = f"{indent}- {' '.join(parts)}"
        children = self.children(node)
        props: list[str] = []
        href = node.attributes.get("href") if role == "link" else None
        if role == "link" and href is None and isinstance(node.properties.get("url"), str):
            href = node.properties["url"]
        if href is not None:
            props.append(f"{indent}  - /url: {yaml_value(href)}")
        placeholder = node.attributes.get("placeholder")
        if placeholder and placeholder != node.name:
            props.append(f"{indent}  - /placeholder: {yaml_value(placeholder)}")
        inline: str | None = None
        options = [c for c in children if _role(c) == "option"]
        if role == "combobox" and options:
            children = options  # a <select>: its selected option is marked, the value is not repeated
        elif role in VALUE_ROLES and node.value:
            inline = node.value
        texts = [c for c in children if _is_text(c)]
        if inline is None and children and len(texts) == len(children):
            text = join_rendered([(c.attributes.get("#text") or c.name, c.box) for c in texts])
            children = []
            if text and text != node.name:
                inline = text
        if inline is not None and not children and not props:
            self.lines.append(f"{head}: {yaml_value(inline)}")
            return
        if not children and not props and inline is None:
            self.lines.append(head)
            return
        self.lines.append(head + ":")
        if inline is not None:
            self.lines.append(f"{indent}  - text: {yaml_value(inline)}")
        self.lines.extend(props)
        for child in children:
            self._emit(child, depth + 1)


def find_frame_root(root: AXNode, cdp_frame: str) -> AXNode | None:
    for node, _ in root.walk():
        if node.frame_id == cdp_frame and node.role in ROOTS:
            return node
    return None


def find_backend_node(root: AXNode, session_id: str, backend_node_id: int) -> AXNode | None:
    for node, _ in root.walk():
        if node.backend_node_id == backend_node_id and (node.session.id or "") == session_id:
            return node
    return None


def render(root: AXNode | None, refs: RefRegistry | None, *, include_root: bool = False, view: View = FULL) -> str:
    if root is None:
        return ""
    writer = SnapshotWriter(refs, view)
    if include_root and root.role not in ROOTS:
        return writer.render([root])
    return writer.render(writer.children(root) if root.role in ROOTS else [root])
