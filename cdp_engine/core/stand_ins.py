"""Stand-ins: a keyboard target a library keeps visually hidden, offered as the control it stands for.

The snapshot offers such an element as what it stands for (snapshot/capture.py's `_stand_for` applies the
same rule to its columns); pointer input aimed at it goes to that control (actionability's aim asks here
only when the element has no visible area).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError
from . import scripts
from .page_rules import RENDERED_JS, VISIBLE_JS


class Target(Protocol):
    """An element to aim at (actionability.Target)."""

    @property
    def session(self) -> CDPSession: ...

    @property
    def backend_node_id(self) -> int: ...


# A keyboard target drawn by something else: a library keeps its focusable input 1 px wide, scaled down or
# clipped (react-select's non-searchable select), and draws the control around it. Such an element is
# offered as what it stands for: the pointer goes to the nearest ancestor a person sees (at least 8x8 px, not
# hidden, not transparent), whose handlers are the control's. An element that is not a keyboard target
# (tabindex -1, aria-hidden: a library's hidden original <select>) stands for nothing, nor does one that is not
# rendered: a stand-in has a layout box (client rects: a 1 px or clipped input has one; a display:none element,
# or one inside a display:none ancestor, has none) and is not visibility:hidden (it could not take focus). A
# control hidden after the agent looked is refused as not rendered, never clicked at the ancestor around it.
STAND_IN_FUNCTION = """function() {
  RENDERED_JS
  VISIBLE_JS
  const el = this;
  const r = el.getBoundingClientRect();
  if (r.width > 2 && r.height > 2) return null;
  if (el.getAttribute('aria-hidden') === 'true' || el.tabIndex < 0) return null;
  if (!rendered(el)) return null;
  for (let n = el.parentElement || (el.parentNode && el.parentNode.host), i = 0; n && i < 6;
       n = n.parentElement || (n.parentNode && n.parentNode.host), i++) {
    const b = n.getBoundingClientRect();
    if (b.width >= 8 && b.height >= 8 && visible(n)) return n;
  }
  return null;
}""".replace("RENDERED_JS", RENDERED_JS).replace("VISIBLE_JS", VISIBLE_JS)


@dataclass(frozen=True)
class _StandFor:
    """The element a stand-in's pointer input goes to (a Target with the stand-in's frame)."""

    session: CDPSession
    backend_node_id: int
    frame_id: str | None
    loader_id: str | None


async def stand_in(target: Target) -> Target:
    """What the pointer aims at for `target`: the target itself, or the ancestor a visually hidden keyboard
    target stands for (STAND_IN_FUNCTION)."""
    session = target.session
    try:
        result = await scripts.call_on_node(
            session, target.backend_node_id, STAND_IN_FUNCTION, by_value=False
        )
    except CDPEngineError:
        return target  # gone, or no answer: the aim itself will say so
    object_id = result.get("objectId")
    if not object_id:
        return target
    try:
        node = await scripts.describe_node(session, object_id)
    except CDPEngineError:
        return target
    finally:
        scripts.release(session, object_id)
    return _StandFor(
        session,
        int(node["backendNodeId"]),
        getattr(target, "frame_id", None),
        getattr(target, "loader_id", None),
    )
