"""What makes an element interactive, defined once for every view (tests/unit/test_architecture.py fails on a
second set of interactive roles elsewhere), and the roles Chromium computes for common elements without asking
it: the HTML-AAM mapping where it is unambiguous, so a capture saves an Accessibility round trip per element
(tests/index/test_regressions.py checks every entry against Chromium's own answer).

- the strict set (the seed's): INTERACTIVE_TAGS, a <label> of a control, INTERACTIVE_ROLES, an editable element;
- the extended set adds EXTENDED_ROLES and the reasons of snapshot/extended.py;
- the accessibility views (read_page, find, the MCP snapshot) read Chromium's roles: INTERACTIVE_AX_ROLES (with
  Chromium's internal names for a native select's parts) or focusable; CONTROL_ROLES are the targets a view
  leaves out when the page keeps one at no size standing for nothing (capture.py: _offered).
"""

from __future__ import annotations

__all__ = [
    "CANDIDATE_TAGS", "CONTROL_ROLES", "EXTENDED_ROLES", "FIELD_TAGS", "INTERACTIVE_AX_ROLES", "INTERACTIVE_ROLES", "INTERACTIVE_TAGS",
    "STRICT_TAGS", "implicit_role",
]  # fmt: skip

INTERACTIVE_TAGS = frozenset({"a", "button", "input", "textarea", "select", "option"})
FIELD_TAGS = frozenset({"input", "textarea", "select"})  # the form fields: a value a person sets
CANDIDATE_TAGS = (INTERACTIVE_TAGS - {"option"}) | {"label"}  # options ride on their select's box
# Roles that make an element interactive in the strict set (snapshot/extended.py adds widget roles beyond these).
INTERACTIVE_ROLES = frozenset(
    {"button", "link", "menuitem", "checkbox", "radio", "switch", "textbox", "searchbox", "combobox", "listbox", "option"}
)  # fmt: skip
# Widget roles the extended set adds (not row or gridcell: explicit on every row of many read-only grids; a clickable
# row has a listener or cursor).
EXTENDED_ROLES = frozenset({"tab", "treeitem", "menuitemcheckbox", "menuitemradio", "slider", "spinbutton"})
STRICT_TAGS = INTERACTIVE_TAGS | {"label"}  # a label of a control is a target of its own
INTERACTIVE_AX_ROLES = (
    INTERACTIVE_ROLES
    | EXTENDED_ROLES
    | {"ListBoxOption", "MenuListOption", "MenuListPopup", "PopUpButton", "scrollbar", "gridcell"}
)
CONTROL_ROLES = INTERACTIVE_ROLES | {"tab", "slider", "spinbutton"}
TEXTBOX_INPUTS = frozenset({"text", "email", "tel", "url", "password"})
INPUT_ROLES = {
    "search": "searchbox", "checkbox": "checkbox", "radio": "radio", "number": "spinbutton", "range": "slider",
    "button": "button", "submit": "button", "reset": "button", "image": "button",
}  # fmt: skip


def implicit_role(name: str, attrs: dict[str, str], input_type: str | None) -> str | bool | None:
    """The role Chromium computes for common elements without a role attribute; False when unsure.

    Saves an Accessibility round trip per element where the HTML-AAM mapping is unambiguous;
    tests/index/test_regressions.py checks every entry against Chromium's own answer.
    """
    explicit = attrs.get("role")
    if explicit is not None:
        # On a div or span (no semantics of their own), a valid widget role is exactly what Chromium
        # computes; "option" depends on its context (generic outside a listbox), so it is asked.
        token = explicit.strip().lower().split(" ")[0]
        return (
            token if name in ("div", "span") and token in INTERACTIVE_ROLES and token != "option" else False
        )
    if "list" in attrs:
        return False
    if name == "button":
        return "button"
    if name == "a":
        return "link" if "href" in attrs else False
    if name == "textarea":
        return "textbox"
    if name == "option":
        return "option"
    if name == "label":
        return None  # Chromium has only an internal role for labels
    if name == "select":
        size = attrs.get("size", "").strip()
        return "listbox" if "multiple" in attrs or (size.isdigit() and int(size) > 1) else "combobox"
    if name == "input" and input_type is not None:
        if input_type in TEXTBOX_INPUTS:
            return "textbox"
        return INPUT_ROLES.get(input_type, False)
    return False
