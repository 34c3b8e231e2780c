"""Focus proven before typing: no key is sent until focus is on the element the action names.

Every surface's text input (the index's input_text, its one-call path in index/one_call.py, MCP's fill and
append) runs FOCUS_FOR_TEXT on the element first and types only on 'ok'; focus_refusal words the rest.
"""

from __future__ import annotations

from typing import Any

# Before any key: the editable element the target names (itself; a label's control; the one field or editing
# host inside it, as a combobox wraps its input), refused when disabled or read-only, focused, and then focus
# checked to be on it (the active element of its own document or shadow root), so that a field that cannot take focus
# (not rendered, inside a closed <details>, inert, hidden) gets no key and no other field does either: the
# keys go where focus is, and focus did not move. Then the caret: the whole text selected (`overwrite`) or
# the caret at its end. Answers 'ok', 'disabled', 'readonly', 'not_editable' or 'unfocusable'.
FOCUS_FOR_TEXT = """function(overwrite) {
    const fields = 'input, textarea, [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';
    const takesText = n => n.localName === 'textarea' || n.localName === 'input' || n.isContentEditable;
    let el = this;
    if (!takesText(el)) {
        const inner = el.localName === 'label' ? [el.control].filter(Boolean) : [...el.querySelectorAll(fields)];
        if (inner.length !== 1 || !takesText(inner[0])) return 'not_editable';
        el = inner[0];
    }
    if (el.disabled) return 'disabled';
    if (el.readOnly) return 'readonly';
    el.focus();
    const active = el.getRootNode().activeElement;  // its shadow root's, when it is in one (closed roots too)
    if (active !== el && !(el.isContentEditable && el.contains(active))) return 'unfocusable';
    if (el.isContentEditable) {
        const r = el.ownerDocument.createRange(); r.selectNodeContents(el);
        if (!overwrite) r.collapse(false);
        const s = el.ownerDocument.getSelection(); s.removeAllRanges(); s.addRange(r);
    } else if (typeof el.select === 'function') {
        try { if (overwrite) el.select(); else { const n = el.value.length; el.setSelectionRange(n, n); } }
        catch (e) { if (overwrite) el.select(); }
    }
    return 'ok';
}"""

FOCUS_REFUSALS = {
    "disabled": "is disabled",
    "readonly": "is read-only",
    "not_editable": "does not take text (not a field, an editable element, a label of one or a wrapper of one)",
    "unfocusable": "cannot take focus (it is not rendered, inert or hidden): nothing was typed",
}


def focus_refusal(answer: Any) -> str | None:
    """What FOCUS_FOR_TEXT's answer says is wrong, in words a surface puts after the element's name; None
    for 'ok'. An answer that is not one of its words (the node went away) is 'unfocusable'."""
    if answer == "ok":
        return None
    return FOCUS_REFUSALS.get(answer if isinstance(answer, str) else "", FOCUS_REFUSALS["unfocusable"])


# The value of the field that has focus in the document of `this` (through shadow roots): read before and after
# typing, it tells a field that ignored the keys (a number field given letters, a full field, a controlled
# input that rejects them) from one that took them. null for a focused element without a value.
FOCUSED_VALUE = """function() {
  let a = this.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && 'value' in a && a.localName !== 'button' ? String(a.value) : null;
}"""


def ignored_text(before: Any, after: Any, text: str, overwrite: bool) -> str | None:
    """Why typing `text` was ignored, from the focused field's value before and after it (FOCUSED_VALUE), in
    words a surface puts after the element's name; None when the value changed or could not."""
    if not isinstance(before, str) or not text or (overwrite and text == before) or after != before:
        return None
    return f"ignored the text: its value did not change (it is still {before[:80]!r})"
