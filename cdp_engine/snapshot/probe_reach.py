"""The change probe's judgement of structural changes (part of the page half, snapshot/probe_script.py): whether
insertions and attribute or text changes lie beyond everything the state shows, and which subtrees may be
judged by one box (docs/incremental.md, "A structural change lies beyond what the state shows").

Why its own module: it is the one part of the probe that reasons about layout (where a change reaches, which
boxes may move into view) and the part a reader checks against the docs' argument; the probe's closure
includes it as text (the functions below use the probe's helpers: p, bySheets, anyRule, kindCompounds).
"""

from __future__ import annotations

__all__ = ["REACH_FUNCTIONS"]

REACH_FUNCTIONS = """  // Whether insertions and attribute or text changes lie beyond everything the state shows (docs/incremental.md):
  // after the node where page_content stopped (reach.trunc), reaching no element in the viewport's band, and
  // moving no box into the band or within it, but for the blocks around them that only grew or shrank.
  // `reach`: id (each reach its own), snap (the snapshot's count), count (its elements), top and bottom (the band:
  // the viewport, in page coordinates), ranks and rects (each element in the band then: its place among the
  // document's elements in tree order, and its box), trunc; the subtrees to judge whole came with the first
  // call (p.cands: pruning). `added`: the elements added since the snapshot (it does not hold them).
  const BARRED = new Set(['style', 'link', 'meta', 'base', 'title', 'iframe', 'frame', 'frameset', 'object', 'embed',
                          'form', 'input', 'select', 'textarea', 'option', 'optgroup', 'datalist', 'label', 'fieldset',
                          'legend', 'details', 'summary', 'dialog', 'slot', 'template', 'html', 'head', 'body']);
  const CANDIDATE = 'a,button,input,textarea,select,option,label,[contenteditable]';
  const ROLES = new Set(['button', 'link', 'menuitem', 'checkbox', 'radio', 'switch', 'textbox', 'searchbox',
                         'combobox', 'listbox', 'option']);
  const candidate = (e) => e.matches(CANDIDATE) || ROLES.has((e.getAttribute('role') || '').trim().toLowerCase().split(' ')[0]);
  const FRAMES = new Set(['iframe', 'frame', 'object', 'embed']);  // a box that places a document
  const FOLLOWING = Node.DOCUMENT_POSITION_FOLLOWING, INSIDE = Node.DOCUMENT_POSITION_CONTAINED_BY;
  const barred = (e) => BARRED.has(e.localName) || e.localName.includes('-') || !!e.shadowRoot
    || ['::before', '::after'].some((where) => !['static', 'relative'].includes(getComputedStyle(e, where).position));
  // Rules whose reach no node's place bounds: container queries (a block that grows restyles what it holds),
  // @scope, reversed counters (an item added at the end renumbers those before it).
  const anyUnbounded = () => anyRule(' unbounded', (r) => r instanceof CSSContainerRule
    || (typeof CSSScopeRule !== 'undefined' && r instanceof CSSScopeRule)
    || (!!r.style && (r.style.counterReset || '').includes('reversed')));
  // Counters carry a change to every later element that shows one (generated content).
  const anyCounters = () => anyRule(' counters',
    (r) => !!r.style && !!(r.style.counterIncrement || r.style.counterSet || r.style.counterReset));
  // Pruning (docs/incremental.md, "Subtrees judged by one box"): the engine lists, once per snapshot
  // (reach.cands, CAND numbers each), the children of the band's ancestors with a subtree worth judging whole:
  // its place among the document's elements, how many elements it holds, its box then (y, width, height;
  // height -1: no box anywhere in it) and how far its subtree's boxes reached then (top, bottom). Laid out
  // apart from everything around it but its own box, such a subtree moves as its box moves: when the box kept
  // its size and, moved as it moved, the subtree's reach then stays outside the band, no box in it is read.
  const CAND = 7;
  // Displays of a box whose inside is laid out from its own size; of a parent that stacks its children as blocks.
  const WHOLE = new Set(['block', 'list-item', 'flow-root', 'flex', 'grid', 'table', 'inline-block', 'inline-flex',
                         'inline-grid', 'inline-table']);
  const STACKS = new Set(['block', 'list-item', 'flow-root', 'inline-block', 'table-cell', 'table-caption']);
  // Tags the user agent's sheet lays out as blocks, list items or tables, whatever their attributes.
  const BLOCK_TAGS = new Set(['address', 'article', 'aside', 'blockquote', 'center', 'dd', 'div', 'dl', 'dt', 'fieldset',
                              'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header',
                              'hgroup', 'hr', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'search', 'section',
                              'table', 'ul']);
  // Displays that open a formatting context of their own (floats outside cannot reach in).
  const OPENS = new Set(['flow-root', 'inline-block', 'table', 'inline-table', 'flex', 'inline-flex', 'grid',
                         'inline-grid', 'table-cell', 'table-caption', 'flow-root list-item']);
  const SCROLLS = (v) => v !== 'visible' && v !== 'clip';
  const opens = (e, cs) => {
    if (e === document.documentElement || OPENS.has(cs.display) || cs.float !== 'none'
        || cs.position === 'absolute' || cs.position === 'fixed') return true;
    if ((cs.display === 'block' || cs.display === 'list-item') && (SCROLLS(cs.overflowX) || SCROLLS(cs.overflowY))) return true;
    if (/layout|paint|strict|content/.test(cs.contain)) return true;
    const up = e.parentElement;
    return !!up && /(^|-)(flex|grid)$/.test(getComputedStyle(up).display);  // a flex or grid item
  };
  // Selectors of the rules that may take an element out of flow (position absolute, fixed, sticky), float it
  // or set its display ({pos, float, display}; posOwn and floatOwn: of elements whose pseudo-element a rule
  // may take out of flow or float, the pseudo-element dropped from the selector), or null when a rule may lay
  // a subtree out from outside it (columns, container queries, content-visibility) or such a rule cannot be
  // matched by its selector (a nested rule, a keyframe).
  const PLACED_APART = 'dialog, [popover], :fullscreen, marquee';  // the user agent's sheet places them apart
  const layoutApart = (st) => (!!st.columnCount && st.columnCount !== 'auto') || (!!st.columnWidth && st.columnWidth !== 'auto')
    || (!!st.containerType && st.containerType !== 'normal') || (!!st.contentVisibility && st.contentVisibility !== 'visible');
  const outOfFlowRules = () => bySheets(' outOfFlow', (sheets) => {
    const pos = [], float = [], display = [], posOwn = [], floatOwn = [];
    const walk = (rules, nested) => {
      for (const r of rules) {
        if (r.styleSheet) { walk(r.styleSheet.cssRules, nested); continue; }
        const st = r.style;
        if (st) {
          if (layoutApart(st)) throw new Error('apart');
          const moves = !!st.all || (!!st.position && st.position !== 'static' && st.position !== 'relative');
          const floats = !!st.all || (!!st.float && st.float !== 'none');
          const shows = !!st.all || !!st.display;
          if (moves || floats || shows) {
            if (r.selectorText === undefined || nested) throw new Error('unmatched');
            // A pseudo-element's box lies in its element's subtree: the element itself holds it.
            const sel = r.selectorText, own = ONE_PSEUDO.test(sel) ? sel.replace(PSEUDO_ELEMENT, '') : null;
            if (moves) (own === null ? pos : posOwn).push(own || sel);
            if (floats) (own === null ? float : floatOwn).push(own || sel);
            if (shows && own === null) display.push(sel);
          }
        }
        if (r.cssRules) walk(r.cssRules, nested || r.selectorText !== undefined);
      }
    };
    for (const x of sheets) walk(x.cssRules, false);
    return {pos, float, display, posOwn, floatOwn};
  }, null);
  const ONE_PSEUDO = new RegExp(PSEUDO_ELEMENT.source, 'i');
  const matching = (selectors) => {
    try { return selectors.length ? [...document.querySelectorAll(selectors.join(','))] : []; } catch (e) { return null; }
  };
  // The pruning of one judgement: {cands, skip(e, r, c)}, or null when no subtree may be judged by its box.
  // Of every change since the snapshot: `from`, the changed, inserted and added nodes (their ancestors hold a
  // change); `begins`, where each begins to reach (its later siblings are restyled); `inlined`, a style or
  // align attribute changed; `floats`, an element inserted now floats. `sy`: the window's scroll.
  const pruning = (reach, begins, from, inlined, floats, counted, sy, top, bottom) => {
    const cands = p.cands && p.cands[0] === reach.id ? p.cands[1] : null;
    if (!cands || !cands.length || counted) return null;
    const rules = outOfFlowRules();
    if (rules === null) return null;
    // What the selectors match, once per snapshot and rules: only an element some change reaches can match
    // otherwise since, and every element a change since the snapshot reaches is read, never judged whole
    // (`from` holds every change since the snapshot: the state built on it stands until the next full capture).
    let apart = p.apart;
    if (!apart || apart.id !== reach.id || apart.rules !== rules) {
      // The user agent's and the attributes' part: one query, each style attribute read as the rules are.
      let blocked = false;
      const movedHere = [], floatedHere = [];
      for (const e of document.querySelectorAll(`[style], [align], [hidden], ${PLACED_APART}`)) {
        const st = e.style;
        if ((e.getAttribute('hidden') || '').toLowerCase() === 'until-found' || layoutApart(st)) blocked = true;
        if (st.all || (st.position && st.position !== 'static' && st.position !== 'relative') || e.matches(PLACED_APART)) movedHere.push(e);
        if (st.all || (st.float && st.float !== 'none') || e.hasAttribute('align')) floatedHere.push(e);
      }
      const moved = matching(rules.pos), movedOwn = matching(rules.posOwn), floatedOwn = matching(rules.floatOwn);
      const floated = matching(rules.float);
      if (moved !== null) moved.push(...movedHere);
      if (floated !== null) floated.push(...floatedHere);
      const holders = new Set();
      for (const m of moved || []) for (let e = m.parentElement; e && !holders.has(e); e = e.parentElement) holders.add(e);
      for (const m of movedOwn || []) for (let e = m; e && !holders.has(e); e = e.parentElement) holders.add(e);
      apart = p.apart = {id: reach.id, rules, holders, floated: floated || [], floatedOwn: floatedOwn || [],
                         ok: !blocked && ![moved, movedOwn, floated, floatedOwn].includes(null)};
    }
    if (!apart.ok) return null;
    const holders = apart.holders, floated = apart.floated, displays = rules.display.length > 0;
    const touched = new Set(), reached = new Set();
    for (const n of [...from, ...begins]) {
      for (let e = n.nodeType === 1 ? n : n.parentElement; e && !touched.has(e); e = e.parentElement) touched.add(e);
    }
    for (const b of begins) for (let x = b.nextSibling; x && !reached.has(x); x = x.nextSibling) reached.add(x);
    const own = new Map();  // element -> whether it opens a formatting context
    const opensOwn = (e) => { let v = own.get(e); if (v === undefined) { v = opens(e, getComputedStyle(e)); own.set(e, v); } return v; };
    const contextOf = (node) => {
      let e = node.parentElement;
      while (e && !opensOwn(e)) e = e.parentElement;
      return e || document.documentElement;
    };
    // Floats reach what shares their formatting context; a change may have floated something, or stopped it.
    const floatRoots = new Set(floated.filter((f) => f.isConnected).map(contextOf));
    for (const f of apart.floatedOwn) if (f.isConnected) floatRoots.add(opensOwn(f) ? f : contextOf(f));
    if (rules.float.length || rules.floatOwn.length || floated.length || inlined || floats) {
      for (const b of begins) floatRoots.add(contextOf(b));
    }
    const stacks = new Map();
    const skip = (e, r, c, all, at) => {
      if (touched.has(e) || holders.has(e) || reached.has(e)) return -1;
      const k = cands[c + 1], h = cands[c + 4];
      if (h < 0) {
        if (r.top !== 0 || r.left !== 0 || r.width !== 0 || r.height !== 0) return -1;
      } else {
        if (r.width !== cands[c + 3] || r.height !== h) return -1;
        const dy = r.top + sy - cands[c + 2];
        if (!(cands[c + 6] + dy <= top - 1 || cands[c + 5] + dy >= bottom + 1)) return -1;
        const up = e.parentElement;
        if (!up) return -1;
        let stacked = stacks.get(up);
        if (stacked === undefined) { stacked = STACKS.has(getComputedStyle(up).display); stacks.set(up, stacked); }
        if (!stacked) return -1;
        // Its display: the tag's own (the user agent's sheet) unless a rule or its style attribute may set one.
        const cs = displays || floatRoots.size || !BLOCK_TAGS.has(e.localName) || e.hasAttribute('style')
          ? getComputedStyle(e) : null;
        if (cs !== null && !WHOLE.has(cs.display)) return -1;
        if (floatRoots.size && !opens(e, cs) && floatRoots.has(contextOf(e))) return -1;
      }
      // The k elements after it are its subtree (the document holds the snapshot's elements, none added in it).
      return k > 0 && at + k < all.length && e.contains(all[at + k]) && (at + k + 1 === all.length || !e.contains(all[at + k + 1])) ? k : -1;
    };
    return {cands, skip};
  };
  const beyondReach = (reach, changed, inserted, added, earlier, inlined) => {
    const trunc = reach.trunc;
    if (!trunc || !trunc.isConnected || trunc.getRootNode() !== document) return false;
    if (kindCompounds('subtree') === null || anyUnbounded() || document.querySelector('ol[reversed]')) return false;
    for (const a of p.animations()) if (a.timeline && !(a.timeline instanceof DocumentTimeline)) return false;
    const last = kindCompounds('last') === null, lastType = kindCompounds('lastType') === null;
    const nthLast = kindCompounds('nthLast') === null;
    // The sibling before `n` that rules about last children may restyle once `n` follows it.
    const before = (n) => {
      if (nthLast) return n.parentNode.firstChild;
      let b = n;
      if (lastType && n.nodeType === 1) {
        for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === n.localName) { b = s; break; }
      }
      const previous = last && n.previousElementSibling;
      return previous && previous.compareDocumentPosition(b) & FOLLOWING ? previous : b;
    };
    // Where each change begins to reach (it restyles that node's subtree and the siblings after it, with theirs):
    // the changed node; an inserted node, or the sibling before it that rules about last children restyle.
    const begins = [];
    for (const n of changed) {
      if (n.getRootNode() !== document || (n.nodeType === 1 && barred(n))) return false;
      begins.push(n);
    }
    let floats = false;  // an inserted element floats (beyondReach's pruning)
    const floating = (e) => getComputedStyle(e).float !== 'none';
    for (const n of inserted) {
      if (n.getRootNode() !== document) return false;
      if (n.nodeType === 1) {
        if (barred(n)) return false;
        floats = floats || floating(n);
        for (const e of n.querySelectorAll('*')) {
          if (barred(e)) return false;
          floats = floats || floating(e);
        }
      }
      begins.push(before(n));
    }
    for (const b of begins) {
      if (b.parentElement && b.parentElement.closest('[dir=auto i], bdi')) return false;  // its text sets a direction
      const where = trunc.compareDocumentPosition(b);
      if (!(where & FOLLOWING) || (where & INSIDE)) return false;  // page_content may hold it
    }
    // The snapshot's elements, each by its place among them (those added since set aside): the band's first,
    // found once per reach (kept while they stay in the document; the scan below checks each again).
    const all = document.getElementsByTagName('*');
    const n = all.length, ranks = reach.ranks, fresh = added.length ? new Set(added) : null;
    let band = p.band && p.band[0] === reach.id ? p.band[1] : null;  // [element, its box then]
    if (band === null || band.some(([e]) => !e.isConnected)) {
      band = [];
      if (fresh === null) {  // no element added since: a place is an index into the document's elements
        if (n !== reach.count) return false;
        ranks.forEach((rank, i) => band.push([all[rank], reach.rects[i]]));
      } else {
        let place = 0;
        for (let at = 0, found = 0; at < n; at++) {
          const e = all[at];
          if (fresh.has(e)) { at += e.getElementsByTagName('*').length; continue; }
          if (place === ranks[found]) band.push([e, reach.rects[found++]]);
          place++;
        }
        if (place !== reach.count || band.length !== ranks.length) return false;  // they are not the snapshot's
      }
      p.band = [reach.id, band];
    }
    // Every element in the band lies before each change, holds it (and then is no index candidate, whose text
    // would hold it) or lies beyond what it restyles (counters reach every later element). Judged before any
    // box is read: a change that reaches the band costs no scan.
    const counted = anyCounters();
    const final = band.length ? band[band.length - 1][0] : null;  // the band's last element in tree order
    for (const b of begins) {
      // When the band's last element neither holds b nor comes after it, no element of the band comes after
      // it (one that did would hold that last one, and so b): one comparison, which on a long list of siblings
      // walks them, instead of one per element of the band.
      const ahead = final === null || (final !== b && !final.contains(b) && (final.compareDocumentPosition(b) & FOLLOWING));
      for (const [e] of band) {
        if (ahead) {
          if (e !== b && e.contains(b) && candidate(e)) return false;
          continue;
        }
        const where = e.compareDocumentPosition(b);
        if (where & FOLLOWING) {
          if ((where & INSIDE) && candidate(e)) return false;
        } else if (counted || b.parentNode.contains(e)) return false;
      }
    }
    // Every element's box now (once per element of the page: kept to locals): the band's are kept; any other,
    // and any the snapshot lacks, must lie outside the band (a pixel of margin: boxes that only touch it count).
    const sx = scrollX, sy = scrollY, top = reach.top - 1, bottom = reach.bottom + 1;
    const inBand = (r) => {
      const y = r.top + sy, h = r.height;
      return y < bottom && y + h > top && (r.top !== 0 || h !== 0 || r.left !== 0 || r.width !== 0);
    };
    const now = [];
    // Pruning must know every change since the snapshot, those the state already stood after included.
    const since = [...begins, ...earlier, ...added.filter((e) => e.isConnected && e.parentNode).map(before)];
    const prune = pruning(reach, since, [...changed, ...inserted, ...added, ...earlier], inlined, floats, counted, sy, top, bottom);
    const cands = prune === null ? [] : prune.cands;
    let seen = 0, wholes = 0;
    for (let at = 0, found = 0, next = ranks.length ? ranks[0] : -1, c = 0, cand = cands.length ? cands[0] : -1; at < n; at++) {
      const e = all[at];
      if (fresh !== null && fresh.has(e)) {
        const inner = e.getElementsByTagName('*').length;
        for (let q = at; q <= at + inner; q++) if (inBand(all[q].getBoundingClientRect())) return false;
        at += inner;
        continue;
      }
      const r = e.getBoundingClientRect();
      if (seen === next) {
        if (e !== band[found][0]) return false;
        now.push([r.left + sx, r.top + sy, r.width, r.height]);
        next = ++found < ranks.length ? ranks[found] : -1;
      } else {
        const y = r.top + sy, h = r.height;  // inBand(r), inlined: this line runs for every element
        if (y < bottom && y + h > top && (r.top !== 0 || h !== 0 || r.left !== 0 || r.width !== 0)) return false;
        if (seen === cand) {  // a subtree the engine listed: judged by this one box when it can be
          const inner = prune.skip(e, r, c, all, at);
          c += CAND;
          cand = c < cands.length ? cands[c] : -1;
          if (inner > 0) { at += inner; seen += inner; wholes++; }
        }
      }
      seen++;
    }
    if (seen !== reach.count || now.length !== band.length) return false;  // not the snapshot's elements
    p.wholes = wholes;  // how many subtrees the last judgement took whole (the tests read it)
    // Each element in the band has the same box, or only grew or shrank in height, covering and clipping the
    // others as it did, and is neither an index candidate nor a frame. (Text boxes place nothing a state shows:
    // page_content follows the tree, and only elements cover others.)
    const same = (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
    const holds = (o, r) => o[0] <= r[0] && o[1] <= r[1] && o[0] + o[2] >= r[0] + r[2] && o[1] + o[3] >= r[1] + r[3];
    const apart = (o, r) => r[0] + r[2] <= o[0] || r[1] + r[3] <= o[1] || r[0] >= o[0] + o[2] || r[1] >= o[1] + o[3];
    const meets = (r) => r[1] < reach.bottom && r[1] + r[3] > reach.top;
    const kept = [], grown = [];
    band.forEach(([e, then], index) => (same(then, now[index]) ? kept : grown).push([e, then, now[index]]));
    for (const [e, then, box] of grown) {
      if (then[0] !== box[0] || then[1] !== box[1] || then[2] !== box[2] || meets(then) !== meets(box)
          || candidate(e) || FRAMES.has(e.localName)) return false;
      for (const [, r] of kept) if (holds(then, r) !== holds(box, r) || apart(then, r) !== apart(box, r)) return false;
    }
    return true;
  };
"""
