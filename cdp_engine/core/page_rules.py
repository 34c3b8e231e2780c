"""The page-side definitions every layer asks the same question with: whether an element is rendered, whether
it is visible, and which animations change what a person sees. Each is one JavaScript fragment, spliced into
the scripts that need it (the settle's look, the change probe, the stand-in rule, the waits for a text or an
element, MCP's visibility checks), so no script carries its own copy with its own answer.

The capture decides the same from DOMSnapshot's data instead (snapshot/capture.py, snapshot/occlusion.py:
an opacity product of 0 or `visibility: hidden` is invisible, as `checkVisibility` with `checkOpacity` says);
tests/unit/test_architecture.py fails when one of these is written again elsewhere.
"""

from __future__ import annotations

__all__ = ["RENDERED_JS", "SEEN_JS", "SHOWS_OR_MOVES_JS", "VISIBLE_JS"]

# `rendered(el)`: the element has a layout box (client rects: a 1 px or clipped input has one, a display:none
# element or one inside a display:none ancestor has none) and is not visibility:hidden (it could take focus).
RENDERED_JS = """const rendered = (el) => el.getClientRects().length > 0
    && !(el.checkVisibility && !el.checkVisibility({visibilityProperty: true}));"""

# `visible(el)`: connected, rendered, not hidden by visibility or content-visibility, not transparent (its
# opacity or an ancestor's is 0), with an area: what a person could see if it were scrolled into view.
VISIBLE_JS = """const visible = (el) => {
    if (!el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({checkVisibilityCSS: true, checkOpacity: true})) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };"""

# `seen(el)`: whether the text under an element counts as what a person reads, as the capture reads it (snapshot/
# capture.py's _visible_text leaves out a transparent or visibility:hidden element's text): a slot or another
# display:contents element has no box of its own and is judged by what it holds.
SEEN_JS = """const seen = (el) => !el.checkVisibility || getComputedStyle(el).display === 'contents'
    || el.checkVisibility({checkVisibilityCSS: true, checkOpacity: true});"""

# `showsOrMoves`: the animated properties that show, hide or move something (not a colour): a finite animation
# of one of them changes what the state would show until it ends (the settle waits for it, the change probe
# treats the page as changing meanwhile).
SHOWS_OR_MOVES_JS = """const showsOrMoves = new RegExp('^(opacity|visibility|display|content-?visibility|transform|translate|rotate|scale'
    + '|width|height|min|max|top|left|right|bottom|inset|margin|padding|clip)', 'i');"""
