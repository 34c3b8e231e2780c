"""The change probe's page half: the script every frame document runs in the engine's isolated world. It counts
every change a state could depend on, keeps where each happened, and answers since(): which of those changes a
state built on the last one can place (docs/incremental.md).

Why its own module: the engine half (snapshot/probes.py: sending the probe, reading keys, asking since()) is
Python a reader follows call by call; this is one JavaScript closure a reader follows top to bottom, and each
half changes without the other.
"""

from __future__ import annotations

from ..core.page_rules import SHOWS_OR_MOVES_JS
from .probe_reach import REACH_FUNCTIONS

__all__ = ["PROBE_FUNCTION", "PROBE_SCRIPT", "STILL_PROBE_SCRIPT"]

# Runs in an isolated world of each frame: counts every change a state could depend on. With `still`
# (asked when a screenshot is wanted) the answer goes on with "|", the device pixel ratio, "|" and whether
# the frame can paint by itself: "0" while anything could change its pixels with no event counted here (a
# running or pending animation or transition, SMIL animation, a canvas, a playing video, a plugin, an image
# of a format that may animate), else "1" and the number of animations in effect (a Web Animation that ran
# and stayed filled between two probes changes it).
PROBE_FUNCTION = (
    """(still) => {
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
  SHOWS_OR_MOVES_JS
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
          counts = !!t && isFinite(t.endTime) && props.some(q => showsOrMoves.test(q));
          judged.set(a, counts);
        }
        if (counts) return true;
      }
    } catch (e) {}
    return false;
  };
  // The first key after such an animation ended is a new version too: a state read while it ran (the read a
  // settle sends behind its look) saw it midway, so it must not match the key the page has once it ends.
  let wasMoving = false;
  p.key = (still) => {
    const now = moving();
    if (now || wasMoving) { p.v++; p.other = p.v; }
    wasMoving = now;
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
  // attribute of the node itself changed (its own style may then differ, not only its children's), whether
  // that attribute names something elsewhere (id, for, form, name) and whether children were removed. Added
  // nodes are remembered too (p.added: where a structural change begins, and which elements a snapshot lacks);
  // p.removed is the count at the latest element removal. Whether a `style` or `align` attribute changed is kept
  // too: it may have floated the element, or stopped floating it (beyondReach's pruning). A form control's id decides whether a <label> far
  // away is a control's label (the state build's labelled ids): adding, removing or renaming one is a change
  // p.since() cannot place.
  const TARGETS = 256;
  const LABELLED = 'input,textarea,select,button,meter,output,progress';
  const LABELLED_IDS = 'input[id],textarea[id],select[id],button[id],meter[id],output[id],progress[id]';
  const labels = (n) => n.nodeType === 1 && (n.matches(LABELLED_IDS) || n.querySelector(LABELLED_IDS) !== null);
  const NAMING = new Set(['id', 'for', 'form', 'name']);
  const INLINE_LAYOUT = new Set(['style', 'align']);  // attributes that may float an element by themselves
  p.added = new Map();
  p.removed = 0;
  const observer = new MutationObserver((records) => {
    p.v++;
    if (p.targets.size + records.length > TARGETS) { p.other = p.v; p.targets.clear(); p.added.clear(); return; }
    for (const r of records) {
      const seen = p.targets.get(r.target) || [0, false, false, false, false];
      let naming = seen[2], removal = seen[3], inline = seen[4];
      if (r.type === 'attributes') {
        naming = naming || NAMING.has(r.attributeName);
        inline = inline || INLINE_LAYOUT.has(r.attributeName);
        if (r.attributeName === 'id' && r.target.matches(LABELLED)) p.other = p.v;
      } else if (r.type === 'childList') {
        for (const n of r.addedNodes) { p.added.set(n, p.v); if (labels(n)) p.other = p.v; }
        for (const n of r.removedNodes) {
          removal = true;
          if (n.nodeType === 1) p.removed = p.v;
          if (labels(n)) p.other = p.v;
        }
      }
      p.targets.set(r.target, [p.v, seen[1] || r.type === 'attributes', naming, removal, inline]);
    }
    if (p.added.size > TARGETS) { p.other = p.v; p.added.clear(); }
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
    // Rules that restyle an element for siblings after it: a node added after it changes them.
    last: 'last-child|only-child',
    lastType: 'last-of-type|only-of-type',
    nthLast: 'nth-last-child|nth-last-of-type',
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
    if (kind === 'subtree' || kind === 'last' || kind === 'lastType' || kind === 'nthLast' || selector.includes('&') || selector.includes('\\\\')) return true;
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
  // What `compute` finds in the page's sheets, kept under `name` while their rule counts stay; `failed` when a
  // sheet cannot be read.
  const sheetAnswers = {};
  const bySheets = (name, compute, failed) => {
    const sheets = [...document.styleSheets, ...(document.adoptedStyleSheets || [])];
    let key;
    try { key = sheets.map((x) => x.cssRules.length).join(','); } catch (e) { return failed; }
    const known = sheetAnswers[name];
    if (known && known[0] === key) return known[1];
    let answer;
    try { answer = compute(sheets); } catch (e) { answer = failed; }
    sheetAnswers[name] = [key, answer];
    return answer;
  };
  // The compounds of a kind in the page's sheets, or null when any of its changes may restyle anything.
  const kindCompounds = (kind) => bySheets(kind, (sheets) => {
    const out = [];
    return sheets.every((x) => readSheet(x, kind, out)) ? [...new Set(out)] : null;
  }, null);
  // Whether any rule of the page's sheets (imported and nested ones included) passes `test`.
  const anyRule = (name, test) => {
    const walk = (rules) => {
      for (const r of rules) {
        if (test(r) || (r.styleSheet && walk(r.styleSheet.cssRules)) || (r.cssRules && walk(r.cssRules))) return true;
      }
      return false;
    };
    return bySheets(name, (sheets) => sheets.some((x) => walk(x.cssRules)), true);
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
  // subtrees, focus: whether focus moved, structural: how many changes lay beyond what the state shows}
  // (docs/incremental.md). Entries at or before `floor` are dropped: no view the engine keeps builds on a count
  // older than that (the state and the accessibility tree each hold their own: ChangeProbes.hold).
  // `reach` places the other mutations (insertions, attribute and text changes): absent, they cannot be placed;
  // true, the answer is {reach: true} when they are all that stands in the way (the engine then sends what
  // its state shows: beyondReach); an object, beyondReach() judges them.
  p.since = (v0, floor, reach) => {
    if (reach && reach.cands) p.cands = [reach.id, JSON.parse(reach.cands)];  // sent once per reach (pruning)
    if (p.other > v0) return null;
    const fields = [];
    for (const [field, v] of p.values) {
      if (v <= v0) { if (v <= floor) p.values.delete(field); continue; }
      if (!field.isConnected || field.getRootNode() !== document) return null;
      fields.push(field);
    }
    let hidden = 0;
    const changed = [], parents = new Set();  // attribute or text changes; nodes whose children were added
    let inlined = false;  // a style or align attribute changed
    // Nodes changed since the snapshot but before v0 (the state stood after them): the judgement beyond reach
    // reads what they may have moved box by box, never as a subtree judged whole.
    const earlier = [];
    const snap = reach && reach !== true ? reach.snap : v0;
    for (const [node, [v, attributes, naming, removal, inline]] of p.targets) {
      if (v <= v0) {
        if (v <= floor) p.targets.delete(node);
        else if (v > snap && node.isConnected) { earlier.push(node); inlined = inlined || inline; }
        continue;
      }
      if (!node.isConnected) continue;  // removed since: its parent's change says where
      if (hiddenRoot(node, !attributes) !== null) { hidden++; continue; }
      if (!reach || naming || removal) return null;
      inlined = inlined || inline;
      if (attributes || node.nodeType !== 1) changed.push(node);
      else parents.add(node);
    }
    const added = [], inserted = [];  // elements added since the snapshot; nodes added since v0 where they show
    for (const [n, v] of p.added) {
      if (v <= floor) { p.added.delete(n); continue; }
      if (!reach || !n.isConnected || (reach !== true && v <= reach.snap)) continue;
      if (v > v0 && parents.has(n.parentNode)) inserted.push(n);
      if (n.nodeType === 1) added.push(n);
    }
    if (parents.size && new Set(inserted.map((n) => n.parentNode)).size !== parents.size) return null;
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
    const structural = changed.length + inserted.length;
    if (structural) {
      if (fields.length) return null;
      if (reach === true) return {reach: true};
      if (p.removed > reach.snap || !beyondReach(reach, changed, inserted, added, earlier, inlined)) return null;
    }
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
    return {count: all.length, fields: info, hidden, focus: focus.length > 0, structural};
  };
"""
    + REACH_FUNCTIONS
    + """  globalThis.__cdpEngineProbe = p;
  return 0;
}"""
).replace("SHOWS_OR_MOVES_JS", SHOWS_OR_MOVES_JS)
PROBE_SCRIPT = f"({PROBE_FUNCTION})(false)"
STILL_PROBE_SCRIPT = f"({PROBE_FUNCTION})(true)"
