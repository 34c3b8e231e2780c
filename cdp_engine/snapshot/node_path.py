"""Where a snapshot node sits in its document's DOM: a path of child positions a script can follow.

Why: an action that runs a script on an element (the index's input_text and select_option) needs the node
in the page. DOM.resolveNode costs a round trip before the script can go out; a path read off the snapshot
the state came from lets one call in the engine's isolated world find the node, check it is the one the
state named and act (index/one_call.py). The call trusts the path only while the document's change counter
still reads what it read with the snapshot (then the DOM is the snapshot's), and checks each level's
child count and the node's tag on the way; anything else sends the action the long way round.

DOMSnapshot lists a document's nodes in tree order, doctype, text and comment nodes included, so a node's
position among its parent's DOM children is its position among the parent's snapshot children. Two kinds
of snapshot node are no DOM children: pseudo-elements, and nodes of shadow trees, which the snapshot hangs
in the flat tree (under their host, slotted nodes under their slot). A node on such a chain gets no path.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

__all__ = ["DocTree", "NodePath", "node_path"]

# (position among the parent's DOM children, how many DOM children the parent has), from the document down.
NodePath = list[tuple[int, int]]


@dataclass(frozen=True)
class DocTree:
    """The tree of one snapshot document: each node's parent, where its subtree ends (pre-order), and the
    nodes that are not DOM children (pseudo-elements, nodes of shadow trees)."""

    parent: list[int]
    end: list[int]  # node i's subtree is the index range [i + 1, end[i])
    pseudo: Container[int]
    in_shadow: Container[int]


def node_path(tree: DocTree, node: int) -> NodePath | None:
    """The child positions from the document (node 0) down to `node`, or None when a node on the way is not
    a DOM child (a shadow tree's, a pseudo-element) or the index is out of range."""
    parent, end = tree.parent, tree.end
    if not 0 < node < len(parent):
        return None
    steps: NodePath = []
    current = node
    while current != 0:
        if current in tree.in_shadow or current in tree.pseudo:
            return None
        up = parent[current]
        if up < 0:
            return None
        position, count, child = -1, 0, up + 1
        while child < end[up]:  # the parent's children, hopping over each one's subtree
            if child not in tree.pseudo and child not in tree.in_shadow:
                if child == current:
                    position = count
                count += 1
            child = end[child]
        if position < 0:
            return None
        steps.append((position, count))
        current = up
    steps.reverse()
    return steps
