"""The page side of actionability (core/actionability.py): the scripts that run in the element's document.

What they answer: which running animations move an element (MOVING_ANIMATIONS), when they end (STILL_FUNCTION),
how a covered element is scrolled clear (SCROLL_TO_FUNCTION), what takes the pointer at a point and whether that
is the element (HIT_FUNCTION, which also arms the delivery guard), the guard's verdict (GUARD_VERDICT) and the path
a click bubbles through (CLICK_PATH_FUNCTION, CLICK_EVENTS). Kept apart as settle_page.py is from settle.py: the
Python side reads as the steps of an aim, this one as what the page is asked.
"""

from __future__ import annotations

__all__ = [
    "CLICK_EVENTS",
    "CLICK_PATH_FUNCTION",
    "CONTROLS",
    "FIELD_DEPTH",
    "GUARD_VERDICT",
    "HIT_FUNCTION",
    "MOVING_ANIMATIONS",
    "SCROLL_TO_FUNCTION",
    "STILL_FUNCTION",
]

# The running animations that move an element: those of its geometry (transform, position, margins, size, …;
# not colour, opacity or shadows) on the element or on an element above it in the flat tree (`up`), as a
# person sees it move. A requestAnimationFrame loop that moves it by script is no animation and is not seen.
MOVING_ANIMATIONS = r"""const movingAnimations = (el, up) => {
    const geometry = /^(transform|translate|rotate|scale|offset-.+|left|top|right|bottom|inset(-.*)?|margin(-.*)?|padding(-.*)?|(min-|max-)?(width|height)|(min-|max-)?(block|inline)-size|position|display|flex(-.*)?|grid(-.*)?|order|border(-[a-z]+)*-width|font-size|line-height|zoom|perspective(-origin)?|float|vertical-align|all)$/;
    const kebab = p => p.replace(/[A-Z]/g, c => '-' + c.toLowerCase());
    const moving = [];
    for (let n = el; n && n.getAnimations; n = up(n)) {
      for (const a of n.getAnimations()) {
        if (a.playState !== 'running' || !a.effect || !a.playbackRate) continue;
        const props = a.transitionProperty ? [a.transitionProperty]
          : (a.effect.getKeyframes ? a.effect.getKeyframes() : []).flatMap(k => Object.keys(k));
        if (props.some(p => geometry.test(kebab(p)))) moving.push(a);
      }
    }
    return moving;
  };"""
# Resolves once the finite animations that move the element (`this`) ended, or after `ms`, whichever is first;
# the number of them that were running (0: none).
STILL_FUNCTION = """function(ms) {
  MOVING_ANIMATIONS
  const up = n => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const finite = movingAnimations(this, up).filter(a => Number.isFinite(a.effect.getComputedTiming().endTime));
  if (!finite.length) return 0;
  const ended = Promise.allSettled(finite.map(a => a.finished));
  return Promise.race([ended, new Promise(r => setTimeout(r, ms))]).then(() => finite.length);
}""".replace("MOVING_ANIMATIONS", MOVING_ANIMATIONS)
# Scrolls the element (`this`) to an alignment in every scroll container up to the viewport, at once (a page's
# smooth scrolling would leave it moving): how a target that a sticky or fixed header covers is brought clear.
SCROLL_TO_FUNCTION = """function(align) {
  this.scrollIntoView({block: align, inline: align, behavior: 'instant'});
}"""

# The hit test and the delivery guard, in the element's own document (its frame's isolated world when there
# is one), with `this` the element and (x, y) the point in its local root's client coordinates (its layout
# viewport's CSS pixels). As Playwright's expectHitTarget: the point is moved into this document's client coordinates (the
# offsets of same-process frames above it taken off), each shadow root from the document down is asked what
# is there (elementsFromPoint: a closed root works too, as the walk starts from the element), and the hit
# element climbs the flat tree (assignedSlot before parent, shadow roots to their hosts), so a label slotted
# into a shadow button counts as the button. A label whose control is the element counts as the element.
# With the hit right, a guard is armed: capturing listeners on the document's window check the first trusted
# pointer event of the click where it is delivered (the press may land elsewhere: the move before it can
# open a hover card or a menu over the element); when it is not the element, that event and every later one
# of the click are stopped before the page sees them, and the verdict says what intercepted it. The guard
# lives until it is read (GUARD_VERDICT) or for 5 s, whichever comes first.
# What a person can operate (HIT_FUNCTION's own-decoration rule: a field's placeholder is none of these).
CONTROLS = repr(
    "a[href], area[href], button, input, select, textarea, summary, [contenteditable=''], [contenteditable=true],"
    " [tabindex]:not([tabindex='-1']), [role=button], [role=link], [role=checkbox], [role=radio], [role=switch],"
    " [role=option], [role=menuitem], [role=tab], [role=combobox], [role=textbox], [role=slider], [role=spinbutton]"
)
FIELD_DEPTH = 3  # how far above a combobox the field that draws its placeholder may be (el-select's: 2)
HIT_FUNCTION = """function(x, y, arm) {
  MOVING_ANIMATIONS
  const target = this;
  const doc = target.ownerDocument, win = doc && doc.defaultView;
  if (!win || !target.isConnected) return {ok: false, reason: 'detached'};
  try {
    for (let w = win; w.frameElement; w = w.parent) {
      const f = w.frameElement, r = f.getBoundingClientRect(), s = f.ownerDocument.defaultView.getComputedStyle(f);
      x -= r.left + f.clientLeft + parseFloat(s.paddingLeft);
      y -= r.top + f.clientTop + parseFloat(s.paddingTop);
    }
  } catch (e) {}
  // Shadow roots on the way from the element up (a closed one is known only from this side): the flat tree's
  // parent of a host's light child is the slot it is assigned to, which assignedSlot hides for a closed root.
  const known = new Map();
  for (let n = target; n; ) {
    const root = n.getRootNode();
    if (root.nodeType !== 11) break;
    known.set(root.host, root);
    n = root.host;
  }
  const slotOf = n => {
    if (n.assignedSlot) return n.assignedSlot;
    const host = n.parentElement, root = host && known.get(host);
    if (!root) return null;
    for (const slot of root.querySelectorAll('slot')) if (slot.assignedNodes().includes(n)) return slot;
    return null;
  };
  const up = n => slotOf(n) || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const describe = n => {
    if (!n) return 'nothing';
    let d = '<' + n.localName;
    if (n.id) d += ' id="' + n.id + '"';
    const c = typeof n.className === 'string' ? n.className.trim() : '';
    if (c) d += ' class="' + c.split(/\\s+/).slice(0, 3).join(' ') + '"';
    d += '>';
    const t = (n.textContent || '').replace(/\\s+/g, ' ').trim();
    if (t) d += (t.length > 40 ? t.slice(0, 40) + '…' : t) + '</' + n.localName + '>';
    return d;
  };
  const hitAt = (px, py) => {
    const roots = [];
    for (let n = target; n; ) {
      const root = n.getRootNode();
      roots.push(root);
      if (root.nodeType === 9) break;
      n = root.host;
    }
    let hit = null;
    for (let i = roots.length - 1; i >= 0; i--) {
      const root = roots[i];
      if (!root.elementsFromPoint) break;
      const els = root.elementsFromPoint(px, py);
      const single = root.elementFromPoint(px, py);
      if (els[0] && els[0].shadowRoot === root && els[1] === single) els.shift();
      if (!els[0]) break;
      hit = els[0];
      if (i && hit !== roots[i - 1].host) break;
    }
    if (!hit) return {ok: false, reason: 'outside', by: 'nothing'};
    for (let n = hit; n; n = up(n)) {
      if (n === target) return {ok: true};
      if (n.localName === 'label' && n.control === target) return {ok: true};
    }
    // A target that takes no pointer events (pointer-events: none, a combobox's input drawn by its field) is
    // where a person's click on the wrapper that draws it goes: a hit on one of its flat-tree ancestors (short
    // of the body and the root) is the target's; anything else over it still covers it.
    if (passesThrough()) {
      for (let n = up(target); n && n !== doc.body && n !== doc.documentElement; n = up(n)) {
        if (n === hit) return {ok: true};
      }
    }
    if (ownDecoration(hit)) return {ok: true};
    return {ok: false, reason: 'covered', by: describe(hit)};
  };
  // A combobox field drawn under its own placeholder or shown value (Element Plus's el-select: a readonly input
  // under an absolutely placed placeholder, the field's wrapper listening) takes a person's click on that
  // decoration. Only for a combobox that is no button or link (no activation of its own a missed click would
  // skip), only when the nearest ancestor of the target that holds the hit (at most FIELD_DEPTH up) holds no
  // control but the target, and nothing on the hit's way up is a control: such a click can reach no other
  // control, and what hears it is what hears a click on the field.
  const ownDecoration = h => {
    if ((target.getAttribute('role') || '') !== 'combobox' || /^(a|button|summary)$/.test(target.localName)) return false;
    const above = [];
    for (let n = up(target); n && n !== doc.body && n !== doc.documentElement && above.length < FIELD_DEPTH; n = up(n)) above.push(n);
    for (let n = h; n; n = up(n)) {
      if (above.includes(n)) return [...n.querySelectorAll(CONTROLS)].every(c => c === target || target.contains(c));
      if (n.matches && n.matches(CONTROLS)) return false;
    }
    return false;
  };
  let through = null;
  const passesThrough = () => {
    if (through === null) through = win.getComputedStyle(target).pointerEvents === 'none';
    return through;
  };
  if (arm) {
    // A click is refused on a disabled element, as Playwright's enabled check: natively disabled (a disabled
    // <fieldset> included), or aria-disabled on a control, inherited from the nearest ancestor that says. A
    // label is judged by its control (Playwright's follow-label): a click on it acts on the control or on nothing.
    const judged = target.localName === 'label' && target.control ? target.control : target;
    if (judged.matches(':disabled')) return {ok: false, reason: 'disabled'};
    const roled = judged.hasAttribute('role') || /^(a|button|input|select|textarea|summary|option)$/.test(judged.localName);
    for (let n = judged; roled && n; n = up(n)) {
      const a = n.getAttribute && (n.getAttribute('aria-disabled') || '').toLowerCase();
      if (a === 'true') return {ok: false, reason: 'disabled'};
      if (a === 'false') break;
    }
  }
  // A target still moving (an animation of its geometry on it or an element above it in the flat tree) is
  // not aimed at: the point would be one it is leaving. Finite ones are waited for (STILL_FUNCTION), endless
  // ones refuse the input. A page without running animations pays one getAnimations() per ancestor.
  let endless = false, finite = false;
  for (const m of movingAnimations(target, up)) {
    if (Number.isFinite(m.effect.getComputedTiming().endTime)) finite = true; else endless = true;
  }
  if (endless || finite) return {ok: false, reason: 'moving', endless};
  const verdict = hitAt(x, y);
  if (!verdict.ok || !arm) return verdict;
  const old = win.__cdpEngineGuard;
  if (old) old.stop();
  const types = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
  const guard = {seen: false, by: null, until: performance.now() + 5000, changes: 0};
  // Whether the page reacted at once (a change in the document or a shadow root on the element's way up
  // since the aim), and whether the element or one above it has a default action a click performs: the
  // verdict asks for the page's listeners only when neither shows (read_guard), so a click nothing handles
  // is reported as ignored, never as a success that changed nothing.
  const changes = new MutationObserver(records => { guard.changes += records.length; });
  const watch = {subtree: true, childList: true, attributes: true, characterData: true};
  changes.observe(doc, watch);
  for (const root of known.values()) changes.observe(root, watch);
  const focused = () => { let a = doc.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; };
  const focusedBefore = focused(), selectedBefore = String(win.getSelection());
  guard.reacts = () => {
    guard.changes += changes.takeRecords().length;
    // Focus leaving an element (a blur: a field's change, a popup closing) is a reaction; focus moving from
    // nowhere onto the element itself (a dead button takes focus) is not.
    const blurred = focused() !== focusedBefore && focusedBefore && focusedBefore !== doc.body;
    if (guard.changes || blurred || String(win.getSelection()) !== selectedBefore) return true;
    for (let n = target; n; n = up(n)) {
      const t = n.localName;
      if ((t === 'a' || t === 'area') && n.hasAttribute('href')) return true;
      if (/^(input|select|textarea|option|summary|video|audio|iframe|embed|object)$/.test(t)) return true;
      if (t === 'label' && n.control) return true;
      if (t === 'button' && ((n.form && n.type !== 'button') || n.hasAttribute('popovertarget') || n.hasAttribute('commandfor'))) return true;
      if (n.isContentEditable) return true;
    }
    return false;
  };
  const listener = ev => {
    if (!ev.isTrusted) return;
    if (!guard.seen) {
      // Only the press this guard was armed for: another one (later, elsewhere) is none of its business.
      if (performance.now() > guard.until || Math.abs(ev.clientX - x) > 1 || Math.abs(ev.clientY - y) > 1) {
        guard.stop();
        return;
      }
      guard.seen = true;
      const v = hitAt(ev.clientX, ev.clientY);
      if (!v.ok) guard.by = v.by;
    }
    if (guard.by !== null) { ev.preventDefault(); ev.stopImmediatePropagation(); }
  };
  guard.stop = () => {
    changes.disconnect();
    for (const t of types) win.removeEventListener(t, listener, true);
    if (win.__cdpEngineGuard === guard) delete win.__cdpEngineGuard;
  };
  for (const t of types) win.addEventListener(t, listener, {capture: true, passive: false});
  win.__cdpEngineGuard = guard;
  target.__cdpEngineGuard = guard;
  return verdict;
}""".replace("MOVING_ANIMATIONS", MOVING_ANIMATIONS).replace("FIELD_DEPTH", str(FIELD_DEPTH)).replace("CONTROLS", CONTROLS)
GUARD_VERDICT = """function() {
  const guard = this.__cdpEngineGuard;
  if (!guard) return null;
  delete this.__cdpEngineGuard;
  const verdict = {by: guard.by, seen: guard.seen, reacts: guard.seen && guard.by === null ? guard.reacts() : true};
  guard.stop();
  return verdict;
}"""
# The element and everything a click on it bubbles through (the flat tree up, its document, its window), in
# the page's own world: DOMDebugger.getEventListeners on each says whether the page handles the click (a
# listener of the engine's isolated world is not listed for a page-world object).
CLICK_PATH_FUNCTION = """function() {
  const path = [];
  const up = n => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
  for (let n = this; n; n = up(n)) path.push(n);
  const doc = this.ownerDocument;
  path.push(doc, doc.defaultView);
  return path;
}"""
# The events by which a page takes a click (one of them on the path is a handler of the click).
CLICK_EVENTS = frozenset(
    {"click", "mousedown", "mouseup", "pointerdown", "pointerup", "auxclick", "dblclick", "contextmenu",
     "touchstart", "touchend", "focus", "focusin", "blur", "focusout", "mouseover", "mouseenter", "pointerover",
     "pointerenter", "mousemove", "pointermove", "select", "selectstart"}
)  # fmt: skip
