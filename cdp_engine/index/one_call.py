"""The index's script actions in one call: find the node, prove it is the state's, arm the settle, act.

Why: input_text and select_option run a script on an element. The long way sends the settle's arming,
the identity check (the version-key probe) and DOM.resolveNode in one burst, then the script once they
answer: a round trip before the action can start. When the page is provably the one the state was read
from, one call in the engine's isolated world of the main frame does it all: it reads the document's
change counter (the capture's probe, snapshot/probes.py) and compares it with the state's, follows the
node's path from the snapshot (snapshot/node_path.py, each level's child count checked), checks the
tag, arms the settle's observer (core/settle_page.py) and runs the action's script on the node.

Anything that does not hold (another frame on the page, a node in a shadow tree, a counter or a scroll
offset that moved, a world without the probe or the observer, a context that went away) answers null
before anything is armed or done, and the action takes the long way, with its checks and its errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.settle import SettleOptions
from ..core.text_focus import FOCUS_FOR_TEXT
from ..core.worlds import Worlds
from ..errors import JavaScriptError, ProtocolError
from ..snapshot.node_path import NodePath, node_path

if TYPE_CHECKING:
    from ..core.tab import Tab
    from ..snapshot.capture import Capture, Element

__all__ = ["CHOOSE_OPTION", "FOCUS_FOR_TEXT", "Direct", "install", "plan", "send"]

# input_text, on the field (`this`): core/text_focus.FOCUS_FOR_TEXT (focus proven on the field before any key).
# select_option, on the option (`this`): no trusted path exists for a native select's popup in headless
# Chromium, so select by script and fire the input and change events the browser fires (documented).
CHOOSE_OPTION = """function() {
    const select = this.closest('select');
    if (!select) return false;
    select.focus();
    if (this.selected) return true;
    this.selected = true;
    select.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
    select.dispatchEvent(new Event('change', {bubbles: true}));
    return true;
}"""

# null: take the long way (nothing armed, nothing done); {readonly: true}: refused before the arming;
# {value}: armed, then the action's script answered `value`. Installed in each world by INSTALL_SCRIPT, so a
# call sends one line (CALL) instead of this source; a world without it answers null (the long way).
_DIRECT_FUNCTION = f"""function(path, tag, key, quiet, op, arg) {{
  let node = document;
  try {{
    const probe = globalThis.__cdpEngineProbe, settle = globalThis.__cdpEngineSettle;
    if (!probe || !probe.key || !settle || !settle.armFn || probe.key(false) !== key) return null;
    for (const [position, count] of path) {{
      const children = node.childNodes;
      if (children.length !== count) return null;
      node = children[position];
    }}
    if (!node || node.nodeType !== 1 || node.nodeName.toLowerCase() !== tag) return null;
    if (op === 'text' && node.readOnly) return {{readonly: true}};
    if (typeof settle.armFn(quiet) !== 'number') return null;
  }} catch (e) {{
    return null;
  }}
  const act = op === 'text' ? ({FOCUS_FOR_TEXT}) : ({CHOOSE_OPTION});
  return {{value: act.call(node, arg)}};
}}"""
INSTALL_SCRIPT = f"(() => {{ globalThis.__cdpEngineDirect = {_DIRECT_FUNCTION}; return 0; }})()"
CALL = (
    "function(path, tag, key, quiet, op, arg) { const f = globalThis.__cdpEngineDirect;"
    " return f ? f(path, tag, key, quiet, op, arg) : null; }"
)


def install(tab: Tab) -> None:
    """Put the direct function in every world of the tab (idempotent): each document's as it is created."""
    Worlds.of(tab).add_init_script(INSTALL_SCRIPT)


@dataclass(frozen=True)
class Direct:
    """Where a direct call runs and what it checks: the main frame's isolated world, the node's path, the
    change counter the state was read with."""

    context: int
    path: NodePath
    key: str
    element: Element


def plan(tab: Tab, capture: Capture, element: Element) -> Direct | None:
    """The direct call for `element` of `capture`, or None when the page may not be the capture's any more or
    the node cannot be found by a path (then the action takes the long way)."""
    key = capture.version_key
    if capture.tree is None or len(tab.frames) != 1 or len(key) != 2 or key[0] != tab.dom_version:
        return None
    frame_id, loader, value = key[1]
    frame = tab.frames.get(frame_id)
    if frame is None or frame_id != tab.main_frame_id or frame.loader_id != loader or not isinstance(value, str):
        return None
    if element.session is not tab.session or element.frame_id != frame_id or element.loader_id != loader:
        return None
    context = Worlds.of(tab).get(frame_id, loader)
    path = node_path(capture.tree, element.node)
    if context is None or path is None:
        return None
    return Direct(context, path, value, element)


async def send(tab: Tab, direct: Direct, op: str, arg: Any = None) -> dict[str, Any] | None:
    """Run the direct call (`op`: 'text' focuses a field for typing, 'option' chooses an option); its answer,
    None when the action must take the long way. JavaScriptError when the action's own script threw."""
    quiet = SettleOptions.of(tab).quiet_ms
    args = [direct.path, direct.element.tag, direct.key, quiet, op, arg]
    try:
        result = await tab.session.send(
            "Runtime.callFunctionOn",
            {
                "functionDeclaration": CALL,
                "executionContextId": direct.context,
                "arguments": [{"value": a} for a in args],
                "returnByValue": True,
                "userGesture": True,
            },
        )
    except ProtocolError:
        if tab.closed:
            raise
        return None  # refused, so nothing ran (the world went away with its document: a navigation since)
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        text = (details.get("exception") or {}).get("description") or details.get("text", "")
        raise JavaScriptError(f"the action's script threw: {text}")
    value = (result.get("result") or {}).get("value")
    return value if isinstance(value, dict) else None
