"""The page scripts of extended mode's actions (docs/extended.md): a custom listbox's option check and the
scroll that reaches inner scroll containers. Data only; index/element_index.py runs them."""

# Extended mode: select_option on an element of these roles (not a <select>) clicks the option (_select_custom).
LISTBOX_ROLES = frozenset({"listbox", "combobox", "menu", "tree", "grid", "radiogroup", "tablist"})
# `this`: the listbox; true when the element marked with the token is inside it or in what it controls/owns.
OPTION_OF_SCRIPT = r"""function(token) {
    const root = this.getRootNode();
    const ids = `${this.getAttribute('aria-controls') || ''} ${this.getAttribute('aria-owns') || ''}`;
    const scopes = [this, ...ids.split(/\s+/).filter(Boolean).map((id) =>
        (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id)).filter(Boolean)];
    for (const scope of scopes)
        for (const e of scope.querySelectorAll('*')) if (e.__cdpEngineOption === token) return true;
    return false;
}"""
# Extended mode's scroll: the window; when it cannot move that way, the largest visible element that can
# (a list in a fixed-height box), by `pixels` or, without them, one of its own client heights (widths).
SCROLL_INNER_SCRIPT = """(dx, dy, byOwnSize) => {
    const x = scrollX, y = scrollY;
    window.scrollBy({left: dx, top: dy, behavior: 'instant'});
    if (scrollX !== x || scrollY !== y) return 'window';
    let best = null, bestArea = 0;
    for (const e of document.body ? document.body.querySelectorAll('*') : []) {
        const room = dy > 0 ? e.scrollHeight - e.clientHeight - e.scrollTop : dy < 0 ? e.scrollTop
            : dx > 0 ? e.scrollWidth - e.clientWidth - e.scrollLeft : e.scrollLeft;
        if (room < 1) continue;
        const overflow = getComputedStyle(e)[dy ? 'overflowY' : 'overflowX'];
        if (overflow !== 'auto' && overflow !== 'scroll') continue;
        const r = e.getBoundingClientRect();
        const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0), h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
        if (w > 0 && h > 0 && w * h > bestArea) { best = e; bestArea = w * h; }
    }
    if (!best) return 'none';
    const sx = byOwnSize ? Math.sign(dx) * best.clientWidth : dx, sy = byOwnSize ? Math.sign(dy) * best.clientHeight : dy;
    best.scrollBy({left: sx, top: sy, behavior: 'instant'});
    return 'element';
}"""
