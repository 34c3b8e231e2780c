"""The change probe: whether a tab's state could differ from a cached one, and whether its pixels could.

Why its own module: the state cache (snapshot/capture.py), an index's version-key check before an action
(index/perform.py) and the screenshot reuse all ask the same question of the page: has anything a state
depends on changed? An observer in the engine's isolated world of every frame document counts each change
(mutations, scrolls of elements, input, loads, fonts, transitions) and reports the window's size, its scroll
offsets and the visual viewport with it; a capture sends the probe first in its burst, so the answer describes
the page at or before the snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from ..cdp.connection import CDPSession
from ..core.scripts import retrieve_quietly
from ..core.worlds import Worlds
from ..errors import CDPEngineError

if TYPE_CHECKING:
    from ..core.browser import Tab

__all__ = ["PROBE_SCRIPT", "STILL_PROBE_SCRIPT", "ChangeProbes", "SentProbes"]

# Runs in an isolated world of each frame: counts every change a state could depend on. With `still`
# (asked when a screenshot is wanted) the answer goes on with "|", the device pixel ratio, "|" and whether
# the frame can paint by itself: "0" while anything could change its pixels with no event counted here (a
# running or pending animation or transition, SMIL animation, a canvas, a playing video, a plugin, an image
# of a format that may animate), else "1" and the number of animations in effect (a Web Animation that ran
# and stayed filled between two probes changes it).
PROBE_FUNCTION = """(still) => {
  const s = globalThis.__cdpEngineProbe;
  // Scroll and resize events fire a frame late (an out-of-process frame's first resize can come after its
  // size was read): read the offsets and sizes instead. The visual viewport (size and offset) rides along,
  // so a capture needs no Page.getLayoutMetrics.
  if (s) return s.key(still);
  const p = {v: 1};
  // The key alone is what an index's direct action compares in the page (index/direct.py).
  // While a finite animation of a property that shows, hides or moves something runs (a menu fading in), the
  // state can change with no event: every probe is then a new version, so no state is served from the cache
  // until it ends (endless ones, spinners, do not count). The same criterion as the settle's (settle_page.py).
  const moves = new RegExp('^(opacity|visibility|display|content-?visibility|transform|translate|rotate|scale'
    + '|width|height|min|max|top|left|right|bottom|inset|margin|padding|clip)', 'i');
  const judged = new WeakMap();
  // Every animation of the flat tree: document.getAnimations() leaves out those of elements in shadow trees,
  // which each watched root gives (a web component's popup fading in). The settle reads them here too.
  const watchedRoots = [];
  p.animations = () => {
    const all = document.getAnimations();
    for (let i = watchedRoots.length - 1; i >= 0; i--) {
      const root = watchedRoots[i];
      if (!root.host.isConnected) { watchedRoots.splice(i, 1); roots.delete(root); continue; }
      all.push(...root.getAnimations());
    }
    return all;
  };
  const moving = () => {
    try {
      for (const a of p.animations()) {
        if (a.playState !== 'running' && !a.pending) continue;
        let counts = judged.get(a);
        if (counts === undefined) {
          const t = a.effect ? a.effect.getComputedTiming() : null;
          const props = a.transitionProperty ? [a.transitionProperty]
            : (a.effect && a.effect.getKeyframes ? a.effect.getKeyframes().flatMap(k => Object.keys(k)) : []);
          counts = !!t && isFinite(t.endTime) && props.some(q => moves.test(q));
          judged.set(a, counts);
        }
        if (counts) return true;
      }
    } catch (e) {}
    return false;
  };
  p.key = (still) => {
    if (moving()) p.v++;
    const vv = visualViewport;
    const key = `${p.v}:${scrollX},${scrollY}:${innerWidth},${innerHeight}:` +
      `${vv.width},${vv.height},${vv.pageLeft},${vv.pageTop}`;
    return still ? `${key}|${devicePixelRatio}|${p.still()}` : key;
  };
  const bump = () => { p.v++; };
  // The window's own scroll and size are read in the key above; only scrolls of other elements count as events.
  const scrolled = (e) => { if (e.target !== document && e.target !== window) p.v++; };
  addEventListener('scroll', scrolled, {capture: true, passive: true});
  const watched = {subtree: true, childList: true, attributes: true, characterData: true};
  const observer = new MutationObserver(bump);
  observer.observe(document, watched);
  const roots = new WeakSet();
  const events = ['input', 'change', 'load', 'transitionend', 'animationend', 'toggle',
                  'focusin', 'focusout', 'pageshow', 'hashchange', 'popstate', 'fullscreenchange',
                  'transitioncancel', 'animationcancel', 'mouseover', 'mouseout'];
  for (const t of events) addEventListener(t, bump, {capture: true, passive: true});
  // Shadow roots are watched once a capture has seen shadow content (ChangeProbes.watch_shadow_roots): the
  // document's observer does not reach into them, and events that do not cross a root's boundary (scroll,
  // change, toggle, load) are heard on the root itself. sweep() finds the open ones (and those inside a
  // root it is given: a closed one, handed over by the engine); watching a new one counts as a change, so a
  // state read before its watch began is never served again.
  p.watch = (root) => {
    if (roots.has(root)) return 0;
    roots.add(root);
    watchedRoots.push(root);
    observer.observe(root, watched);
    root.addEventListener('scroll', bump, {capture: true, passive: true});
    for (const t of events) root.addEventListener(t, bump, {capture: true, passive: true});
    p.v++;
    return 1;
  };
  p.sweep = (from) => {
    let added = 0;
    const visit = (root) => {
      for (const el of root.querySelectorAll('*')) {
        const inner = el.shadowRoot;
        if (inner) { added += p.watch(inner); visit(inner); }
      }
    };
    if (from !== document) added += p.watch(from);
    visit(from);
    return added;
  };
  // Loads of images, scripts and frames do not reach the window (load events stop at the document);
  // a web font that arrives changes the text's pixels and boxes.
  for (const t of ['load', 'error']) document.addEventListener(t, bump, {capture: true, passive: true});
  if (document.fonts) document.fonts.addEventListener('loadingdone', bump);
  const live = ['canvas', 'embed', 'object'].map((t) => document.getElementsByTagName(t));
  const smil = ['animate', 'animateMotion', 'animateTransform', 'set'].map(
    (t) => document.getElementsByTagNameNS('http://www.w3.org/2000/svg', t));
  const videos = document.getElementsByTagName('video');
  const animating = /\\.(gif|webp|apng)([?#]|$)|^data:image\\/(gif|webp|apng)[;,]/i;
  p.still = () => {
    try {
      if (live.some((c) => c.length) || smil.some((c) => c.length)) return '0';
      for (const v of videos) if (!v.paused) return '0';
      for (const img of document.images) if (animating.test(img.currentSrc || img.src)) return '0';
      const effects = p.animations();
      for (const a of effects) if (a.playState === 'running' || a.pending) return '0';
      return `1${effects.length}`;
    } catch (e) {
      return '0';  // not provably still; the version key itself is unaffected
    }
  };
  globalThis.__cdpEngineProbe = p;
  return 0;
}"""
PROBE_SCRIPT = f"({PROBE_FUNCTION})(false)"
STILL_PROBE_SCRIPT = f"({PROBE_FUNCTION})(true)"

WATCH_ROOT = "function() { const p = globalThis.__cdpEngineProbe; return p && p.sweep ? p.sweep(this) : -1; }"
SWEEP = "(() => { const p = globalThis.__cdpEngineProbe; return p && p.sweep ? p.sweep(document) : -1; })()"
ROOTS_GROUP = "cdp-engine-roots"

# What send_probes() sent: the tab's frame/navigation event count then, and per frame (frame id, loader id,
# the probe's pending answer or None when the frame has no world yet).
SentProbes = tuple[int, list[tuple[str, str, asyncio.Future[dict[str, Any]] | None]]]


class ChangeProbes:
    """The change probe of one tab's frames: sends it, reads the version key and the still signature."""

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        # The engine's isolated world per frame document (core.worlds); each new one gets the change probe
        # before it is handed out, and each document gets its world as it commits.
        self.worlds = Worlds.of(tab)
        self.worlds.add_init_script(PROBE_SCRIPT)
        self._watched: dict[tuple[str, str], set[int]] = {}  # (frame id, loader id) -> shadow roots watched

    def probe_frames(self) -> list[tuple[str, CDPSession]]:
        """Every frame, same-process iframes included: each document needs its own observer."""
        return [(fid, frame.session) for fid, frame in self.tab.frames.items() if not frame.session.closed]

    def world_context(self, frame_id: str, loader_id: str | None = None) -> int | None:
        """The execution context of the engine's isolated world in a frame's document (the current one,
        or the document of `loader_id`), None when it is not installed."""
        return self.worlds.get(frame_id, loader_id)

    def send_probes(self, *, still: bool = False) -> SentProbes:
        """Send the change probe to every frame now (before anything else), without awaiting; read_probes()
        turns the answers into the version key (and, with `still`, still_signature() into whether a
        screenshot may be reused). A capture sends them first in its burst."""
        probes: list[tuple[str, str, asyncio.Future[dict[str, Any]] | None]] = []
        worlds = self.worlds
        frames = self.tab.frames
        for fid, session in self.probe_frames():
            loader = frames[fid].loader_id
            ctx = worlds.get(fid, loader)
            if ctx is None:
                probes.append((fid, loader, None))  # unknown: this key never matches, so no stale cache
                continue
            future = session.send(
                "Runtime.evaluate",
                {"expression": STILL_PROBE_SCRIPT if still else PROBE_SCRIPT, "contextId": ctx, "returnByValue": True},
                timeout=5.0,
            )
            probes.append((fid, loader, future))
        return self.tab.dom_version, probes

    async def read_probes(self, sent: SentProbes) -> tuple[Any, ...]:
        """The version key from the probes send_probes() sent: (None,) if a frame or navigation event came
        in between (never equal to a cached key), else the event count and each frame's change counter."""
        before, probes = sent
        parts: list[tuple[str, str, Any]] = []
        for fid, loader, future in probes:
            value = None
            if future is not None:
                try:
                    result = await future
                    if "exceptionDetails" not in result:
                        value = result["result"].get("value")
                except CDPEngineError:
                    self.worlds.forget(fid, loader)
            if isinstance(value, str):
                value = value.partition("|")[0]  # the still part is not part of the key
            parts.append((fid, loader, value))
        if self.tab.dom_version != before:
            return (None,)
        return (before, *parts)

    async def still_signature(self, sent: SentProbes) -> tuple[Any, ...] | None:
        """From probes sent with `still`: None when any frame could paint by itself (or did not answer),
        else what each frame said. Two equal signatures around an unchanged version key mean nothing
        the probes watch changed the page's pixels in between, so a screenshot may be reused."""
        before, probes = sent
        parts: list[tuple[str, str, str]] = []
        for fid, loader, future in probes:
            if future is None:
                return None
            try:
                result = await future
            except CDPEngineError:
                return None
            value = result.get("result", {}).get("value")
            fields = value.split("|") if isinstance(value, str) else []
            if len(fields) != 3 or not fields[2].startswith("1"):
                return None
            parts.append((fid, loader, f"{fields[1]}|{fields[2]}"))
        if self.tab.dom_version != before:
            return None
        return (before, *parts)

    async def version_key(self) -> tuple[Any, ...]:
        """What the state depends on: frame/navigation events seen, and each frame's change counter."""
        return await self.read_probes(self.send_probes())

    async def device_scale(self, sent: SentProbes) -> float:
        """The main frame's devicePixelRatio from probes sent with `still` (1.0 when it did not say)."""
        for fid, _loader, future in sent[1]:
            if fid == self.tab.main_frame_id and future is not None:
                try:
                    fields = str((await future)["result"]["value"]).split("|")
                    return float(fields[1]) if len(fields) == 3 else 1.0
                except (CDPEngineError, KeyError, TypeError, ValueError):
                    return 1.0
        return 1.0

    async def viewport(
        self, sent: tuple[int, list[tuple[str, str, Any]]]
    ) -> tuple[float, float, float, float]:
        """Width, height and page offset of the visual viewport, from the main frame's probe (answered before
        the snapshot); Page.getLayoutMetrics only when the probe has no answer."""
        for fid, _loader, future in sent[1]:
            if fid == self.tab.main_frame_id and future is not None:
                try:
                    value = (await future)["result"]["value"].partition("|")[0]
                    numbers = [float(v) for v in value.rsplit(":", 1)[1].split(",")]
                    width, height, left, top = (int(v) if v.is_integer() else v for v in numbers)
                    return (width, height, left, top)
                except (CDPEngineError, KeyError, TypeError, ValueError, AttributeError):
                    break
        vp = (await self.tab.session.send("Page.getLayoutMetrics"))["cssVisualViewport"]
        return (vp["clientWidth"], vp["clientHeight"], vp["pageX"], vp["pageY"])

    async def watch_shadow_roots(self, shadowed: dict[tuple[CDPSession, str], list[int]]) -> None:
        """Have the probe of each document a capture found shadow content in (`shadowed`: (session, frame id)
        to the backend node ids of the hosts of its closed roots) watch its shadow roots: the open ones it
        finds itself (a sweep of the document), each closed one handed to it once (DOM.describeNode names
        the roots of its host and of the hosts inside them; the probe cannot reach them). A closed root
        attached inside another one after its host was first seen is not found (docs/real-web.md)."""
        frames = self.tab.frames
        jobs: list[Awaitable[Any]] = []
        for (session, fid), hosts in shadowed.items():
            frame = frames.get(fid)
            ctx = self.worlds.get(fid) if frame is not None else None
            if frame is None or ctx is None:
                continue
            for old in [k for k in self._watched if k[0] == fid and k[1] != frame.loader_id]:
                del self._watched[old]  # that document is gone
            seen = self._watched.setdefault((fid, frame.loader_id), set())
            jobs.append(session.send("Runtime.evaluate", {"expression": SWEEP, "contextId": ctx, "returnByValue": True}))
            new = [h for h in hosts if h not in seen]
            if new:
                jobs.append(self._watch_closed(session, ctx, new, seen))
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)

    @staticmethod
    async def _watch_closed(session: CDPSession, ctx: int, hosts: list[int], seen: set[int]) -> None:
        def roots_in(node: dict[str, Any]) -> list[dict[str, Any]]:
            """The shadow roots of the host and of every host inside them (a closed root in a closed root's tree:
            the snapshot cannot tell its host from the outer tree's nodes, DOM.describeNode pierces both)."""
            found = []
            for root in node.get("shadowRoots", []):
                found.append(root)
                found += roots_in(root)
            for child in node.get("children", []):
                found += roots_in(child)
            return found

        async def one(host: int) -> None:
            described = await session.send("DOM.describeNode", {"backendNodeId": host, "depth": -1, "pierce": True})
            for root in roots_in(described["node"]):
                params = {"backendNodeId": root["backendNodeId"], "executionContextId": ctx, "objectGroup": ROOTS_GROUP}
                resolved = await session.send("DOM.resolveNode", params)
                answer = await session.send(
                    "Runtime.callFunctionOn",
                    {"objectId": resolved["object"]["objectId"], "functionDeclaration": WATCH_ROOT, "returnByValue": True},
                )
                if isinstance((answer.get("result") or {}).get("value"), int) and answer["result"]["value"] >= 0:
                    seen.add(host)

        try:
            await asyncio.gather(*[one(h) for h in hosts], return_exceptions=True)
        finally:
            if not session.closed:
                session.send("Runtime.releaseObjectGroup", {"objectGroup": ROOTS_GROUP}).add_done_callback(retrieve_quietly)

    @staticmethod
    def key_is_stable(key: tuple[Any, ...]) -> bool:
        return key[0] is not None and all(part[2] not in (None, 0) for part in key[1:])
