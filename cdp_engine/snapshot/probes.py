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
from typing import TYPE_CHECKING, Any, NamedTuple

from ..cdp.connection import CDPSession
from ..core.scripts import retrieve_quietly
from ..core.worlds import Worlds
from ..errors import CDPEngineError

if TYPE_CHECKING:
    from ..core.tab import Tab

__all__ = ["PROBE_SCRIPT", "STILL_PROBE_SCRIPT", "ChangeProbes", "FieldChanges", "SentProbes", "TypedField"]

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
  // v counts every change; `other` is the count at the latest change p.since() cannot place (anything but
  // typing into a text field, a mutation, focus or hover); `values`, `targets`, `focus` and `hover` hold, per
  // field, mutated node or element, the count at its latest change.
  const p = {v: 1, other: 1, values: new Map(), targets: new Map(), focus: new Map(), hover: new Map()};
  // The key alone is what an index's direct action compares in the page (index/one_call.py).
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
    if (moving()) { p.v++; p.other = p.v; }
    // A hidden page draws no frames, and scroll events come with a frame: an element's scroll would not be
    // counted until the page shows again. Its key is then unknown ("0"), so nothing is served from a cache.
    if (document.hidden) return still ? `0|${devicePixelRatio}|0` : 0;
    const vv = visualViewport;
    // Whether the page has focus (its tab in front): the accessibility tree's focused flags follow it, and no
    // event in the document says when it changes.
    const key = `${p.v}:${scrollX},${scrollY}:${innerWidth},${innerHeight}:${document.hasFocus() ? 1 : 0}:` +
      `${vv.width},${vv.height},${vv.pageLeft},${vv.pageTop}`;
    return still ? `${key}|${devicePixelRatio}|${p.still()}` : key;
  };
  const bump = () => { p.v++; p.other = p.v; };
  // The window's own scroll and size are read in the key above; only scrolls of other elements count as events.
  const scrolled = (e) => { if (e.target !== document && e.target !== window) bump(); };
  addEventListener('scroll', scrolled, {capture: true, passive: true});
  const watched = {subtree: true, childList: true, attributes: true, characterData: true};
  // Mutated nodes are remembered (at most TARGETS; more is a change p.since() cannot place), with whether an
  // attribute of the node itself changed (its own style may then differ, not only its children's).
  const TARGETS = 256;
  const observer = new MutationObserver((records) => {
    p.v++;
    if (p.targets.size + records.length > TARGETS) { p.other = p.v; p.targets.clear(); return; }
    for (const r of records) {
      const seen = p.targets.get(r.target);
      p.targets.set(r.target, [p.v, (seen !== undefined && seen[1]) || r.type === 'attributes']);
    }
  });
  observer.observe(document, watched);
  const roots = new WeakSet();
  // Typing into a text field: only its value differs (p.since); any other input or change event is a change.
  const TEXT_TYPES = new Set(['text', 'search', 'email', 'tel', 'url', 'password', 'number']);
  const typed = (e) => {
    const t = e.composedPath()[0];
    if (t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && TEXT_TYPES.has(t.type))) {
      p.v++;
      p.values.set(t, p.v);
    } else bump();
  };
  // Focus and hover change only what :focus and :hover rules style (p.since judges those): the elements whose
  // state changed, each with the count at its latest change (at most TARGETS: more is a change not placed).
  const noted = (map) => (e) => {
    p.v++;
    if (map.size >= TARGETS) { p.other = p.v; map.clear(); return; }
    if (e.target instanceof Element) map.set(e.target, p.v);
    if (e.relatedTarget instanceof Element) map.set(e.relatedTarget, p.v);
  };
  const focused = noted(p.focus), hovered = noted(p.hover);
  const events = ['load', 'transitionend', 'animationend', 'toggle', 'pageshow', 'hashchange', 'popstate',
                  'fullscreenchange', 'transitioncancel', 'animationcancel'];
  const listen = (target) => {
    for (const t of events) target.addEventListener(t, bump, {capture: true, passive: true});
    for (const t of ['input', 'change']) target.addEventListener(t, typed, {capture: true, passive: true});
    for (const t of ['focusin', 'focusout']) target.addEventListener(t, focused, {capture: true, passive: true});
    for (const t of ['mouseover', 'mouseout']) target.addEventListener(t, hovered, {capture: true, passive: true});
  };
  listen(window);
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
    listen(root);
    bump();
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
  // What p.since() needs to answer (docs/incremental.md): whether the page's style sheets could restyle
  // something a state reads because of a kind of change. A rule matters when its selector names such a state
  // (a field's value: :placeholder-shown, :invalid, …; focus; hover; what a subtree holds: :has, :empty) and
  // it sets anything but paint (colours, outlines, shadows, decorations: nothing a state reads). For value,
  // focus and hover, each compound of the selector that names the state, less that state and pseudo-elements,
  // is kept: the rule can restyle something only if an element whose state changed, or one of its ancestors,
  // matches such a compound. A compound that cannot be read that way (the state inside :not() or :is(), a
  // nesting selector, an escape) and any :has or :empty rule count against every change of their kind; so
  // does a sheet that cannot be read (another origin's). Kept while the sheets' rule counts stay.
  const KINDS = {
    value: 'placeholder-shown|valid|invalid|user-valid|user-invalid|in-range|out-of-range|blank|autofill|-webkit-autofill',
    focus: 'focus|focus-within|focus-visible',
    hover: 'hover|active',
    subtree: 'has|empty',
  };
  const names = (kind, flags) => new RegExp(`:(${KINDS[kind]})(?![-_a-zA-Z0-9])`, flags);
  const PAINT = new RegExp('^(color|caret-color|accent-color|fill|stroke|text-shadow|box-shadow|outline-(color|style|width|offset)'
    + '|background-(color|image|position-x|position-y|size|repeat|attachment|origin|clip|blend-mode)'
    + '|border-(top|right|bottom|left|block-start|block-end|inline-start|inline-end)-color'
    + '|text-decoration-(line|color|style|thickness)|text-underline-offset|text-emphasis-color'
    + '|transition-(property|duration|delay|timing-function|behavior)|-webkit-tap-highlight-color'
    + '|-webkit-text-fill-color|-webkit-text-stroke-color)$');
  const paintOnly = (style) => {
    for (let i = 0; i < style.length; i++) if (!PAINT.test(style[i])) return false;
    return true;
  };
  // Top-level pieces of a selector, split at any of `seps` outside brackets, parentheses and quotes.
  const split = (text, seps) => {
    const parts = [];
    let depth = 0, quote = null, piece = '';
    for (const ch of text) {
      if (quote) { if (ch === quote) quote = null; }
      else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') depth--;
      else if (depth === 0 && seps.includes(ch)) { parts.push(piece); piece = ''; continue; }
      piece += ch;
    }
    parts.push(piece);
    return parts.map((x) => x.trim()).filter(Boolean);
  };
  const PSEUDO_ELEMENT = /::?(before|after|first-line|first-letter|marker|placeholder|selection|backdrop|file-selector-button|-webkit-[-a-z]+)(\\([^)]*\\))?/gi;
  // What a rule's selector says for a kind: null when it names no state of that kind, true when it cannot be
  // read compound by compound, else the compounds (less the state) an element must match to be restyled.
  const compounds = (selector, kind) => {
    if (!names(kind).test(selector)) return null;
    if (kind === 'subtree' || selector.includes('&') || selector.includes('\\\\')) return true;
    const found = [];
    for (const complex of split(selector, ',')) {
      for (const compound of split(complex, ' >+~')) {
        if (!names(kind).test(compound)) continue;
        if (!names(kind).test(compound.replace(/\\([^()]*\\)/g, '()'))) return true;  // only inside :not(…) and the like
        const rest = compound.replace(names(kind, 'g'), '').replace(PSEUDO_ELEMENT, '');
        if (names(kind).test(rest)) return true;
        found.push(rest || '*');
      }
    }
    return found;
  };
  const sheetCompounds = (rules, kind, out) => {
    for (const r of rules) {
      if (r.styleSheet) { if (!readSheet(r.styleSheet, kind, out)) return false; continue; }
      if (r.selectorText !== undefined && !paintOnly(r.style)) {
        const c = compounds(r.selectorText, kind);
        if (c === true) return false;
        if (c) out.push(...c);
      }
      if (r.start !== undefined && names(kind).test(`${r.start} ${r.end || ''}`)) return false;  // @scope
      if (r.cssRules && !sheetCompounds(r.cssRules, kind, out)) return false;  // grouping and nested rules
    }
    return true;
  };
  const readSheet = (sheet, kind, out) => { try { return sheetCompounds(sheet.cssRules, kind, out); } catch (e) { return false; } };
  const sheetAnswers = {};
  // The compounds of a kind in the page's sheets, or null when any of its changes may restyle anything.
  const kindCompounds = (kind) => {
    const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
    let key;
    try { key = sheets.map((x) => x.cssRules.length).join(','); } catch (e) { return null; }
    const known = sheetAnswers[kind];
    if (known && known[0] === key) return known[1];
    const out = [];
    const answer = sheets.every((x) => readSheet(x, kind, out)) ? [...new Set(out)] : null;
    sheetAnswers[kind] = [key, answer];
    return answer;
  };
  // Whether a change of `kind` on `elements` may restyle something: some element or ancestor matches a compound.
  const restyles = (kind, elements) => {
    if (!elements.length) return false;
    const found = kindCompounds(kind);
    if (found === null) return true;
    if (!found.length) return false;
    const chain = new Set();
    for (let e of elements) for (; e && !chain.has(e); e = e.parentElement) chain.add(e);
    try {
      for (const e of chain) for (const c of found) if (e.matches(c)) return true;
    } catch (err) { return true; }
    return false;
  };
  // The outermost element with display: none that holds a change, when nothing can carry the change out of
  // it (no style sheet, head or option inside, no shadow root, in the document's own tree); null otherwise.
  // A change to a node's attributes must lie strictly inside it (the node's own style may change); a change
  // to a node's children may be the element itself (its children do not style it: no :empty, no :has).
  const CARRIERS = new Set(['head', 'style', 'link', 'meta', 'base', 'title', 'option', 'optgroup', 'select',
                            'datalist']);
  const hiddenRoot = (node, own) => {
    if (node.getRootNode() !== document) return null;
    let outer = null;
    for (let e = own && node.nodeType === 1 ? node : node.parentElement; e; e = e.parentElement) {
      if (CARRIERS.has(e.localName)) return null;
      if (getComputedStyle(e).display === 'none') outer = e;
    }
    if (!outer || outer === document.documentElement || outer.shadowRoot
        || outer.querySelector('option, optgroup, style, link')) return null;
    return outer;
  };
  // Whether an accessible name other than those of the field and its ancestors may hold the field's value: an
  // aria-labelledby that names the field or an element around it, or a label around it that labels another
  // control. Only the accessibility tree's increment asks (snapshot/ax_capturer.py).
  const namesElsewhere = (field) => {
    for (let e = field.parentElement; e; e = e.parentElement) {
      if (e.localName === 'label' && e.control !== field) return true;
    }
    for (const e of document.querySelectorAll('[aria-labelledby]')) {
      for (const id of e.getAttribute('aria-labelledby').split(/\\s+/)) {
        const named = id && document.getElementById(id);
        if (named && named.contains(field)) return true;
      }
    }
    return false;
  };
  // Since version `v0` (a capture's key): null when any change cannot be placed, else {count: the document's
  // inputs and textareas, fields: [place among them, tag, value, box in page coordinates, whether a name
  // elsewhere may hold the value] of each text field typed into, hidden: how many changes lay in hidden
  // subtrees, focus: whether focus moved} (docs/incremental.md). Entries at or before `floor` are dropped:
  // no view the engine keeps builds on a count older than that (the state and the accessibility tree each
  // hold their own: ChangeProbes.hold).
  p.since = (v0, floor) => {
    if (p.other > v0) return null;
    const fields = [];
    for (const [field, v] of p.values) {
      if (v <= v0) { if (v <= floor) p.values.delete(field); continue; }
      if (!field.isConnected || field.getRootNode() !== document) return null;
      fields.push(field);
    }
    let hidden = 0;
    for (const [node, [v, attributes]] of p.targets) {
      if (v <= v0) { if (v <= floor) p.targets.delete(node); continue; }
      if (!node.isConnected) continue;  // removed since: its parent's change says where
      if (hiddenRoot(node, !attributes) === null) return null;
      hidden++;
    }
    const since = (map) => {
      const changed = [];
      for (const [e, v] of map) {
        if (v <= v0) { if (v <= floor) map.delete(e); }
        else if (e.isConnected) changed.push(e);
      }
      return changed;
    };
    const focus = since(p.focus);
    if (restyles('value', fields) || (hidden && kindCompounds('subtree') === null)
        || restyles('focus', focus) || restyles('hover', since(p.hover))) return null;
    // Each field by its place among the document's text fields in tree order (the engine counts the same in its
    // snapshot, and checks the count, the tag and the box), its value and its box in page coordinates.
    const all = fields.length ? [...document.querySelectorAll('input, textarea')] : [];
    const info = [];
    for (const f of fields) {
      if (getComputedStyle(f).fieldSizing === 'content') return null;
      const r = f.getBoundingClientRect();
      info.push([all.indexOf(f), f.localName, f.value, r.left + scrollX, r.top + scrollY, r.width, r.height,
                 namesElsewhere(f)]);
    }
    return {count: all.length, fields: info, hidden, focus: focus.length > 0};
  };
  globalThis.__cdpEngineProbe = p;
  return 0;
}"""
PROBE_SCRIPT = f"({PROBE_FUNCTION})(false)"
STILL_PROBE_SCRIPT = f"({PROBE_FUNCTION})(true)"

WATCH_ROOT = "function() { const p = globalThis.__cdpEngineProbe; return p && p.sweep ? p.sweep(this) : -1; }"
SWEEP = "(() => { const p = globalThis.__cdpEngineProbe; return p && p.sweep ? p.sweep(document) : -1; })()"
ROOTS_GROUP = "cdp-engine-roots"

class TypedField(NamedTuple):
    """A text field typed into since a capture: what the probe's since() says of it."""

    place: int  # its index among the document's <input> and <textarea> elements in tree order (-1: not found)
    tag: str
    value: str
    box: tuple[float, float, float, float]  # x, y, width, height in its document's page coordinates
    names_elsewhere: bool = True  # an accessible name beyond the field's and its ancestors' may hold the value


class FieldChanges(NamedTuple):
    """probes.changes_since()'s answer: how many inputs and textareas the document holds, the typed ones, how many
    changes lay inside hidden subtrees and whether focus moved."""

    total: int
    fields: list[TypedField]
    hidden: int = 0
    focus: bool = False


# What send_probes() sent: the tab's frame/navigation event count then, and per frame (frame id, loader id,
# the probe's pending answer or None when the frame has no world yet).
SentProbes = tuple[int, list[tuple[str, str, asyncio.Future[dict[str, Any]] | None]]]


class ChangeProbes:
    """The change probe of one tab's frames: sends it, reads the version key and the still signature.
    `ChangeProbes.of(tab)` is the tab's one instance (the state and the accessibility tree share it)."""

    @classmethod
    def of(cls, tab: Tab) -> ChangeProbes:
        return tab.extension(cls)

    def __init__(self, tab: Tab) -> None:
        self.tab = tab
        # The engine's isolated world per frame document (core.worlds); each new one gets the change probe
        # before it is handed out, and each document gets its world as it commits.
        self.worlds = Worlds.of(tab)
        self.worlds.add_init_script(PROBE_SCRIPT)
        self._watched: dict[tuple[str, str], set[int]] = {}  # (frame id, loader id) -> shadow roots watched
        # Per view the engine builds on a capture (the state, the accessibility tree): the version key it builds on.
        # since() forgets only what is older than every one of them (hold).
        self._holds: dict[str, tuple[Any, ...]] = {}

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
                except (CDPEngineError, KeyError, TypeError, ValueError, AttributeError, IndexError):
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

    def hold(self, view: str, key: tuple[Any, ...] | None) -> None:
        """`view` (a name) builds its next increment on `key` (None: on nothing): what changes_since() answers any
        view keeps what happened after it."""
        if key is None:
            self._holds.pop(view, None)
        else:
            self._holds[view] = key

    def _floor(self, frame_id: str, loader_id: str, version: int) -> int:
        """The oldest count any view holds for a frame's document, at most `version`."""
        floor = version
        for key in self._holds.values():
            for part in key[1:]:
                if part[0] == frame_id and part[1] == loader_id and isinstance(part[2], str):
                    count = part[2].partition(":")[0]
                    if count.isdigit():
                        floor = min(floor, int(count))
        return floor

    async def changes_since(self, frame_id: str, loader_id: str, version: int) -> FieldChanges | None:
        """What changed in a frame's document since its probe counted `version` (a capture's key), when the
        probe can place every change (docs/incremental.md): the text fields typed into (each by its place among
        the document's inputs and textareas in tree order, with its value and box in page coordinates) and how
        many such elements the document holds; no fields when every change lies inside a hidden subtree or only
        restyles paint. None when anything else changed or the answer cannot be read. One round trip."""
        frame = self.tab.frames.get(frame_id)
        ctx = self.worlds.get(frame_id, loader_id)
        if frame is None or ctx is None:
            return None
        try:
            answer = await frame.session.send(
                "Runtime.evaluate",
                {"expression": f"globalThis.__cdpEngineProbe.since({int(version)}, {self._floor(frame_id, loader_id, version)})",
                 "contextId": ctx,
                 "returnByValue": True},
                timeout=5.0,
            )  # fmt: skip
            value = (answer.get("result") or {}).get("value")
            if "exceptionDetails" in answer or not isinstance(value, dict):
                return None
            fields = [
                TypedField(int(place), str(tag), str(text), (float(x), float(y), float(w), float(h)), bool(named))
                for place, tag, text, x, y, w, h, named in value["fields"]
            ]
            return FieldChanges(int(value["count"]), fields, int(value["hidden"]), bool(value["focus"]))
        except (CDPEngineError, KeyError, TypeError, ValueError):
            return None

    @staticmethod
    def key_is_stable(key: tuple[Any, ...]) -> bool:
        """Whether a version key can match another: every frame answered, with a known count (not 0: the probe
        was just installed, or the page is hidden)."""
        return key[0] is not None and all(part[2] not in (None, 0, "0") for part in key[1:])

    @staticmethod
    def moved_counts(key: tuple[Any, ...], base: tuple[Any, ...]) -> list[tuple[str, str, int]] | None:
        """(frame id, loader id, the count in `base`) of each frame whose change count moved from `base` to
        `key`, two stable keys: what changes_since() is asked. None when anything else differs: the frames or
        documents, or a window's scroll offsets, size, visual viewport or focus (every box may be elsewhere)."""
        stable = ChangeProbes.key_is_stable
        if not stable(key) or not stable(base) or key[0] != base[0] or len(key) != len(base):
            return None
        moved: list[tuple[str, str, int]] = []
        for (fid, loader, now), (then_fid, then_loader, then) in zip(key[1:], base[1:], strict=True):
            if fid != then_fid or loader != then_loader:
                return None
            count_now, _, where_now = str(now).partition(":")
            count_then, _, where_then = str(then).partition(":")
            if where_now != where_then:
                return None
            if count_now != count_then:
                moved.append((fid, loader, int(count_then)))
        return moved
