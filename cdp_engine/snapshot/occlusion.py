"""What covers an element and what clips it: the state build's occlusion, read from the snapshot's paint order
and boxes, and settled, where the geometry leaves it open, by one isolated-world call per frame (verify).

Why its own module: a newcomer asking "is this element hidden under an overlay?" finds the answer here; the
state build (snapshot/capture.py's StateBuilder) mixes it in, so the walk calls these as its own methods.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..core.scripts import retrieve_quietly
from ..core.worlds import Worlds
from ..errors import CDPEngineError
from .roles import CANDIDATE_TAGS
from .snapshot_doc import SnapshotDoc

GRID = 256.0  # px, cell size of the occlusion grid (big cells: fewer registrations, short lists)
VERIFY_GROUP = "cdp-engine-verify"
# Runs in the isolated world with the uncertain nodes as arguments: the first `clips` are elements that
# lie wholly outside an ancestor's box (is anything left once the overflow-clipping ancestors they do not
# escape by positioning have cut them?), the rest are boxes covering an element (null when clicks pass
# through them, pointer-events:none; else the part their own clipping ancestors leave visible).
VERIFY_SCRIPT = """function(clips, ...nodes) {
  const up = (n) => n.parentElement || (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null);
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
    const position = getComputedStyle(e).position;
    let escaping = position === 'absolute';
    for (let p = position === 'fixed' ? null : up(e); p; p = up(p)) {
      const style = getComputedStyle(p);
      if (!escaping && style.overflow !== 'visible' && p.localName !== 'body' && p.localName !== 'html') {
        const c = p.getBoundingClientRect();
        left = Math.max(left, c.left); top = Math.max(top, c.top);
        right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
      }
      if (escaping && style.position !== 'static') escaping = false;
      if (style.position === 'fixed') break;
      if (style.position === 'absolute') escaping = true;
    }
    return [left, top, right, bottom];
  };
  return nodes.map((n, i) => {
    if (i < clips) { const [l, t, r, b] = visible(n); return r <= l || b <= t; }
    return getComputedStyle(n).pointerEvents === 'none' ? null : visible(n);
  });
}"""



def opacity_product(doc: SnapshotDoc, node: int) -> float:
    """The node's opacity times its ancestors': 0 when it or one above it is transparent (checkOpacity's answer)."""
    op, opacity, parent = 1.0, doc.opacity, doc.parent
    while node >= 0 and op > 0:
        op *= opacity.get(node, 1.0)
        node = parent[node]
    return op

def _origin(doc: SnapshotDoc, node: int) -> int:
    """The element a ::before or ::after box belongs to (a hit on it is a hit on that element), else the node."""
    return doc.parent[node] if doc.names[node].startswith("::") and doc.parent[node] >= 0 else node


class Occlusion:
    """The occlusion and clipping checks of the state build (StateBuilder sets the attributes)."""

    viewport: tuple[float, float, float, float]
    docs: dict[str, list[SnapshotDoc]]
    worlds: Worlds | None
    clip: dict[int, tuple[float, float, float, float]]
    verified: int
    _grids: dict[int, dict[tuple[int, int], list[tuple[int, float, float, float, float, int]]]]
    _view: dict[int, tuple[set[int], dict[int, int]]]

    def _in_view(self, doc: SnapshotDoc) -> tuple[set[int], dict[int, int]]:
        """The boxes that meet the document's visible clip, found in one pass over its layout.

        Returns the nodes with such a box plus all their ancestors (once page_content is full, only
        these subtrees can still hold an indexable element), and the paint order of each such node's
        first box (for occlusion).
        """
        cached = self._view.get(id(doc))
        if cached is not None:
            return cached
        ox, oy = doc.offset
        cx, cy, cw, ch = self.clip.get(id(doc), (0.0, 0.0, self.viewport[0], self.viewport[1]))
        left, top, right, bottom = cx - ox, cy - oy, cx + cw - ox, cy + ch - oy
        bounds, node_index, rects, paints, parent = (
            doc.bounds,
            doc.node_index,
            doc.rects,
            doc.paints,
            doc.parent,
        )
        hits = [
            li
            for li, r in enumerate(bounds)
            if r[1] < bottom and r[1] + r[3] > top and r[0] < right and r[0] + r[2] > left
        ]
        if doc.unrendered:  # boxes Chromium keeps but does not paint: neither shown nor covering
            hits = [li for li in hits if node_index[li] not in doc.unrendered]
        live: set[int] = set()
        paint: dict[int, int] = {}
        for li in hits:
            ni = node_index[li]
            if paints and rects[ni] is bounds[li]:
                paint[ni] = paints[li]
            while ni >= 0 and ni not in live:
                live.add(ni)
                ni = parent[ni]
        self._view[id(doc)] = (live, paint)
        return live, paint

    def _occluded(self, doc: SnapshotDoc, node: int, box: tuple[float, float, float, float]) -> bool:
        """Wholly covered by a later-painted element that lets no click through (pointer-events) and that
        its own overflow-clipping ancestors leave over the element."""
        x, y, w, h = box
        x0, y0 = x - doc.offset[0], y - doc.offset[1]
        for cover in self._covering(doc, node, box):
            origin = _origin(doc, cover)
            if origin in doc.no_pointer:
                continue
            # A pseudo-element's box covers whole (its own clip is not asked): it lets clicks through as its element does.
            rect = doc.cover_rect.get(cover) if origin == cover else None
            if rect is None or (rect[0] <= x0 and rect[1] <= y0 and rect[2] >= x0 + w and rect[3] >= y0 + h):
                return True
        return False

    def _covering(self, doc: SnapshotDoc, node: int, box: tuple[float, float, float, float]) -> list[int]:
        """Later-painted boxes of the same document that wholly cover the element and are not inside it.

        Only boxes containing the element's centre can cover it: a coarse grid over the viewport
        finds them without scanning the page.
        """
        po = self._in_view(doc)[1].get(node)
        if po is None:
            return []
        x, y, w, h = box
        ox, oy = doc.offset
        x0, y0, x1, y1 = x - ox, y - oy, x - ox + w, y - oy + h
        grid = self._cover_grid(doc)
        cell = (int((x0 + w / 2 + ox) // GRID), int((y0 + h / 2 + oy) // GRID))
        found = []
        for cpo, cx0, cy0, cx1, cy1, cnode in grid.get(cell, ()):
            if cpo <= po:
                break
            if cx0 <= x0 and cy0 <= y0 and cx1 >= x1 and cy1 >= y1 and cnode != node:
                p = doc.parent[cnode]
                while p >= 0 and p != node:
                    p = doc.parent[p]
                if p != node:  # not the element's own content
                    found.append(cnode)
        return found

    def _cover_grid(
        self, doc: SnapshotDoc
    ) -> dict[tuple[int, int], list[tuple[int, float, float, float, float, int]]]:
        grid = self._grids.get(id(doc))
        if grid is not None:
            return grid
        grid = {}
        ox, oy = doc.offset
        cx, cy, cw, ch = self.clip.get(id(doc), (0.0, 0.0, self.viewport[0], self.viewport[1]))
        types, visibility, opacity = doc.types, doc.visibility, doc.opacity
        for ni, po in self._in_view(doc)[1].items():
            r = doc.rects[ni]
            if types[ni] != 1 or r[2] <= 0 or r[3] <= 0 or ni in visibility:
                continue
            if opacity.get(ni, 1.0) == 0:
                continue
            vx0, vy0 = max(r[0] + ox, cx), max(r[1] + oy, cy)
            vx1, vy1 = min(r[0] + ox + r[2], cx + cw), min(r[1] + oy + r[3], cy + ch)
            item = (po, r[0], r[1], r[0] + r[2], r[1] + r[3], ni)
            for gx in range(int(vx0 // GRID), int((vx1 - 0.001) // GRID) + 1):
                for gy in range(int(vy0 // GRID), int((vy1 - 0.001) // GRID) + 1):
                    grid.setdefault((gx, gy), []).append(item)
        for items in grid.values():
            items.sort(reverse=True)
        self._grids[id(doc)] = grid
        return grid

    def _uncertain(self, doc: SnapshotDoc) -> tuple[list[int], list[int]]:
        """Possible index candidates the snapshot's geometry leaves open, and the styles that settle them.

        Returns elements wholly outside an ancestor's box (clipped, if that ancestor clips its overflow and
        they do not escape it by positioning) and boxes covering an element (no cover if they have
        pointer-events:none). Ordinary pages have none of either.
        """
        clip_check: list[int] = []
        cover_check: dict[int, None] = {}
        transparent_page = 0.0 in doc.opacity.values()
        types, names, rects, parent, flagged = doc.types, doc.names, doc.rects, doc.parent, doc.flagged
        ox, oy = doc.offset
        for node in self._in_view(doc)[1]:
            name = names[node]
            if types[node] != 1 or not (name in CANDIDATE_TAGS or node in flagged or node in doc.extended):
                continue
            r = rects[node]
            if r[2] <= 0 or r[3] <= 0:
                continue
            x0, y0, x1, y1 = r[0], r[1], r[0] + r[2], r[1] + r[3]
            p = parent[node]
            while p >= 0:
                c = rects.get(p)
                if (
                    c is not None
                    and (x1 <= c[0] or y1 <= c[1] or x0 >= c[0] + c[2] or y0 >= c[1] + c[3])
                    and names[p] != "body"
                    and names[p] != "html"
                ):
                    clip_check.append(node)
                    break
                p = parent[p]
            for cover in self._covering(doc, node, (r[0] + ox, r[1] + oy, r[2], r[3])):
                cover_check[_origin(doc, cover)] = None  # a pseudo-element cannot be resolved: its element is asked
            if transparent_page and opacity_product(doc, node) <= 0:
                cover_check[node] = None  # transparent: offered only if it takes the pointer (_offered)
        return clip_check, list(cover_check)

    async def verify(self) -> None:
        """Settle the uncertain nodes of every document with one isolated-world call per frame.

        A resolveNode burst and one callFunctionOn: two round trips, and only on pages that need them.
        Without a usable isolated world (not installed yet, or gone with its document) one is asked for
        first; only if that fails too does the geometry stand: not clipped, covered.
        """
        worlds = self.worlds
        if worlds is None:
            return
        jobs = []
        for docs in self.docs.values():
            for doc in docs:
                if id(doc) not in self.clip:
                    continue  # never placed (a frame outside the page): nothing in it is indexed
                clip_check, cover_check = self._uncertain(doc)
                if clip_check or cover_check:
                    ctx = worlds.get(doc.frame_id)
                    self.verified += len(clip_check) + len(cover_check)
                    jobs.append(self._verify_doc(worlds, doc, ctx, clip_check, cover_check))
        if jobs:
            await asyncio.gather(*jobs)

    async def _verify_doc(
        self, worlds: Worlds, doc: SnapshotDoc, ctx: int | None, clip_check: list[int], cover_check: list[int]
    ) -> None:
        result = await self._ask_styles(doc, ctx, clip_check + cover_check, len(clip_check)) if ctx else None
        if result is None:  # the world was not installed yet, or went with its document: install it now
            worlds.forget(doc.frame_id)
            ctx = await worlds.ensure(doc.frame_id)
            if ctx is None:
                return
            result = await self._ask_styles(doc, ctx, clip_check + cover_check, len(clip_check))
            if result is None:
                return
        answers = result.get("result", {}).get("value")
        nodes = clip_check + cover_check
        if "exceptionDetails" in result or not isinstance(answers, list) or len(answers) != len(nodes):
            return
        doc.clipped.update(n for n, yes in zip(clip_check, answers, strict=False) if yes)
        sx, sy = doc.scroll  # client coordinates of the frame -> its document's coordinates
        for n, rect in zip(cover_check, answers[len(clip_check) :], strict=True):
            if rect is None:
                doc.no_pointer.add(n)
            else:
                doc.cover_rect[n] = (rect[0] + sx, rect[1] + sy, rect[2] + sx, rect[3] + sy)

    @staticmethod
    async def _ask_styles(doc: SnapshotDoc, ctx: int, nodes: list[int], clips: int) -> dict[str, Any] | None:
        """VERIFY_SCRIPT's raw answer for the nodes, in the given world; None if the world or a node is gone."""
        session = doc.session
        try:
            resolved = await asyncio.gather(
                *[
                    session.send(
                        "DOM.resolveNode",
                        {
                            "backendNodeId": doc.backend[n],
                            "executionContextId": ctx,
                            "objectGroup": VERIFY_GROUP,
                        },
                    )
                    for n in nodes
                ]
            )
            ids = [r["object"]["objectId"] for r in resolved]
            result = await session.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": ids[0],
                    "functionDeclaration": VERIFY_SCRIPT,
                    "arguments": [{"value": clips}, *({"objectId": i} for i in ids)],
                    "returnByValue": True,
                },
            )
        except CDPEngineError:
            return None
        finally:
            session.send("Runtime.releaseObjectGroup", {"objectGroup": VERIFY_GROUP}).add_done_callback(retrieve_quietly)
        return result
