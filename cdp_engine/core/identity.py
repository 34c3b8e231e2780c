"""One identity check: is a node handed out earlier still the element it named?

Why one: the element index (numbers) and the refs (ref_N, eN) promise the same thing — an action
never lands on a different element than the one named — so the proof lives here once. A handle is
(session, frame id, document loader id, backendNodeId); a `Look` says what the element looked like
when it was named (DOM fingerprint or accessible role and name). `verify` answers with a `Verdict`:
same element, or why not (frame closed or detached, document navigated, element removed, changed
was/now). Each surface maps the verdict to its own words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..cdp.connection import CDPSession
from ..errors import CDPEngineError, JavaScriptError
from .input import call_function_on
from .page_rules import SEEN_JS

if TYPE_CHECKING:
    from .tab import Tab

__all__ = [
    "AX_LOOK",
    "DOM_LOOK",
    "Look",
    "NodeHandle",
    "Reason",
    "Verdict",
    "ax_name",
    "ax_role",
    "verify",
]

Reason = Literal["same", "frame_closed", "frame_detached", "navigated", "removed", "changed"]


class NodeHandle(Protocol):
    """Anything that names one node of one document (capture Elements, NodeRefs)."""

    @property
    def session(self) -> CDPSession: ...
    @property
    def frame_id(self) -> str: ...
    @property
    def loader_id(self) -> str: ...
    @property
    def backend_node_id(self) -> int: ...


@dataclass(frozen=True)
class Verdict:
    """The answer of `verify`: `reason` is "same" when the node is still the element it named."""

    reason: Reason
    was: tuple[Any, ...] | None = None
    now: tuple[Any, ...] | None = None

    @property
    def same(self) -> bool:
        return self.reason == "same"


class Look(Protocol):
    """Reads what a node looks like now; None when the node is no longer in its document."""

    async def read(self, node: NodeHandle) -> tuple[Any, ...] | None: ...


# tag, aria-label, name, type, text: what the element index promises an index still names.
FINGERPRINT_SCRIPT = """function() {
    if (!this.isConnected) return null;
    const tag = this.localName;
    let text = null;
    if (tag === 'select') { const o = this.selectedOptions[0]; text = o ? o.text.replace(/\\s+/g, ' ').trim() : ''; }
    else if (tag === 'option') text = this.text.replace(/\\s+/g, ' ').trim();
    else if (tag !== 'input' && tag !== 'textarea') {
        text = this.innerText || '';
        if (!text.trim() && (this.shadowRoot || this.querySelector('slot'))) {
            // innerText does not follow slots: read the text the flat tree shows (a label slotted into a button).
            const parts = [];
            SEEN_JS
            const walk = (n) => {
                if (n.nodeType === 3) { parts.push(n.data); return; }
                if ((n.nodeType !== 1 && n.nodeType !== 11) || n.localName === 'script' || n.localName === 'style') return;
                if (n.nodeType === 1 && !seen(n)) return;  // a transparent resting label: no one reads it
                if (n.localName === 'slot') {
                    const assigned = n.assignedNodes({flatten: true});
                    (assigned.length ? assigned : [...n.childNodes]).forEach(walk);
                    return;
                }
                [...(n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes)].forEach(walk);
            };
            walk(this);
            text = parts.join('');
        }
        text = text.replace(/\\s+/g, ' ').trim().slice(0, 200);
    }
    let type = null;
    if (tag === 'input') type = this.type; else if (tag === 'button') type = this.type;
    return [tag, this.getAttribute('aria-label'), this.getAttribute('name'), type, text === '' ? null : text];
}""".replace("SEEN_JS", SEEN_JS)


class _DomLook:
    """The DOM fingerprint (tag, aria-label, name, type, text), one resolveNode + callFunctionOn."""

    async def read(self, node: NodeHandle) -> tuple[Any, ...] | None:
        try:
            value = await call_function_on(node.session, node.backend_node_id, FINGERPRINT_SCRIPT)
        except JavaScriptError:
            raise
        except CDPEngineError:
            return None
        return tuple(value) if value is not None else None


class _AxLook:
    """The accessible (role, name), and the node still connected; AX and resolveNode sent together."""

    async def read(self, node: NodeHandle) -> tuple[Any, ...] | None:
        session = node.session
        ax: dict[str, Any] | BaseException
        resolved: dict[str, Any] | BaseException
        ax, resolved = await asyncio.gather(
            session.send(
                "Accessibility.getPartialAXTree", {"backendNodeId": node.backend_node_id, "fetchRelatives": False}
            ),
            session.send("DOM.resolveNode", {"backendNodeId": node.backend_node_id}),
            return_exceptions=True,
        )
        object_id = resolved["object"]["objectId"] if isinstance(resolved, dict) else None
        try:
            if isinstance(ax, BaseException) or object_id is None:
                if isinstance(ax, BaseException) and not isinstance(ax, CDPEngineError):
                    raise ax
                return None
            nodes = ax.get("nodes") or []
            if not nodes:
                return None
            try:
                result = await session.send(
                    "Runtime.callFunctionOn",
                    {
                        "objectId": object_id,
                        "functionDeclaration": "function() { return this.isConnected; }",
                        "returnByValue": True,
                    },
                )
            except CDPEngineError:
                return None
            if not result.get("result", {}).get("value"):
                return None
            return (ax_role(nodes[0]), ax_name(nodes[0]))
        finally:
            if object_id is not None:
                session.send("Runtime.releaseObject", {"objectId": object_id}).add_done_callback(
                    lambda f: f.cancelled() or f.exception()
                )


DOM_LOOK: Look = _DomLook()
AX_LOOK: Look = _AxLook()


async def verify(
    tab: Tab,
    node: NodeHandle,
    seen: tuple[Any, ...] | None = None,
    look: Look | None = None,
    *,
    unchanged: Callable[[], Awaitable[bool]] | None = None,
) -> Verdict:
    """Whether `node` is still the element that looked like `seen` (under `look`) when it was named.

    The liveness checks (session open, frame attached, same document) cost no round trip. Then
    `unchanged`, when given, is the fast path: True means nothing on the page changed since the node
    was named, so it is exact without asking the page. Without a look only liveness is checked.
    """
    if node.session.closed:
        return Verdict("frame_closed")
    frame = tab.frames.get(node.frame_id)
    if frame is None:
        return Verdict("frame_detached")
    if frame.loader_id != node.loader_id:
        return Verdict("navigated")
    if look is None or seen is None:
        return Verdict("same")
    if unchanged is not None and await unchanged():
        return Verdict("same")
    now = await look.read(node)
    if now is None:
        return Verdict("removed", seen)
    if not _same_look(seen, now):
        return Verdict("changed", seen, now)
    return Verdict("same")


def _same_look(seen: tuple[Any, ...], now: tuple[Any, ...]) -> bool:
    """Equal field by field, texts compared without their whitespace: where a capture reads a space between
    two rendered pieces and the page's innerText a line break (or none), the element is still the same."""
    if len(seen) != len(now):
        return False
    for a, b in zip(seen, now, strict=True):
        if isinstance(a, str) and isinstance(b, str):
            if "".join(a.split()) != "".join(b.split()):
                return False
        elif a != b:
            return False
    return True


def ax_role(node: dict[str, Any]) -> str:
    """The role of an Accessibility node, '' when it has none."""
    role = node.get("role") or {}
    return str(role.get("value") or "")


def ax_name(node: dict[str, Any]) -> str:
    """The accessible name of an Accessibility node, whitespace collapsed."""
    name = node.get("name") or {}
    return " ".join(str(name.get("value") or "").split())
