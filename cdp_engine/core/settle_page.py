"""The settle's in-page half (core/settle.py runs it): the observer in the engine's isolated world of each
document, the arming before an input and the look after it.

Why in the page: whether the DOM changed, while which event, and which animations run is known there
without a round trip per question; one call arms, one call resolves when the document settled by the
rule in core/settle.py's docstring. Isolated world: the page sees neither the observer nor its listeners.
"""

from __future__ import annotations

from .page_rules import SHOWS_OR_MOVES_JS

__all__ = ["ARM_FULL", "ARM_FUNCTION", "DISARM_FUNCTION", "LOOK_FULL", "LOOK_FUNCTION", "OBSERVE_SCRIPT"]

# The observer in the engine's isolated world of a document, installed on first use. It counts mutation
# batches (n, the last at `last`) and, apart, the ones not made while a trusted input event was being
# dispatched, nor while one nested in it (later, lastLater): a handler's own changes are the input's effect, a timer's or a response's
# come after it. `seen` is the count the latest look ended with.
_STATE = """const g = globalThis; let s = g.__cdpEngineSettle;
  // The flat tree's animations: the change probe's (snapshot/probes.py) include those in watched shadow roots.
  const allAnimations = () => g.__cdpEngineProbe && g.__cdpEngineProbe.animations
    ? g.__cdpEngineProbe.animations() : document.getAnimations();
  if (!s) {
    s = g.__cdpEngineSettle = {n: 0, last: -1, later: 0, lastLater: -1, recent: [], ours: false,
                               streaming: false, inputs: 0, events: [], arm: null, seen: 0, wake: null,
                               before: null, ends: new WeakMap(), born: -1};
    // From when the page's own changes count (born): the task after DOMContentLoaded, whose task still
    // delivers the parser's last mutations; at once in a document already parsed.
    const born = () => { s.born = performance.now(); };
    if (document.readyState === 'loading') addEventListener('DOMContentLoaded', () => setTimeout(born, 0), {once: true});
    else born();
    new MutationObserver(() => {
      const now = performance.now();
      s.n++; s.last = now;
      if (!s.events.some(e => e.eventPhase)) {
        // The page's own last three changes: outside any input and any settle (an action's late renders are
        // its own), one per task (batches within a millisecond are one), not the parser's (the observer is in
        // place as the document is created: its loading is not the page changing by itself).
        if (!s.ours && now - s.lastLater > 1 && s.born >= 0) {
          s.recent.push(now); if (s.recent.length > 3) s.recent.shift();
        }
        s.later++; s.lastLater = now;
      }
      if (s.wake) s.wake();
    }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    // The latest trusted input events: a handler's change may come while an event it caused nests inside
    // (removing the focused button fires blur and focusout within the click), so any of them still being
    // dispatched makes a change the input's own.
    const input = (e) => { if (e.isTrusted) { s.inputs++; s.events.push(e); if (s.events.length > 8) s.events.shift(); } };
    for (const t of ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'mousemove', 'mouseover', 'mouseout',
                     'click', 'auxclick', 'dblclick', 'contextmenu', 'keydown', 'keypress', 'keyup', 'beforeinput',
                     'input', 'change', 'focusin', 'focusout', 'submit', 'wheel'])
      addEventListener(t, input, {capture: true, passive: true});
    // A wheel scrolls after its event, on the compositor: note whether something under it can scroll that way,
    // so a look waits for the scroll to end (scrollend). Listened to from the arming to the end of the look,
    // not passive: Chromium then dispatches the wheel before it acknowledges it, as it does a click, so the
    // look after the input sees it (outside a settle the page's wheel scrolling is left alone).
    const room = (el, dx, dy) => {
      for (; el; el = el.parentElement || (el.getRootNode && el.getRootNode().host) || null) {
        const st = getComputedStyle(el), root = el === document.scrollingElement;
        if (dy && (root || /auto|scroll|overlay/.test(st.overflowY))
            && (dy > 0 ? el.scrollTop + el.clientHeight < el.scrollHeight - 1 : el.scrollTop > 0)) return true;
        if (dx && (root || /auto|scroll|overlay/.test(st.overflowX))
            && (dx > 0 ? el.scrollLeft + el.clientWidth < el.scrollWidth - 1 : el.scrollLeft > 0)) return true;
      }
      return false;
    };
    s.wheels = 0; s.scrollEnds = 0; s.wheel = null;
    s.onWheel = (e) => {
      if (!e.isTrusted) return;
      s.wheels++;
      let scrolls = false;
      try { scrolls = e.target.nodeType === 1 && room(e.target, e.deltaX, e.deltaY); } catch (x) { /* no wait */ }
      s.wheel = {n: s.wheels, ends: s.scrollEnds, event: e, scrolls};
    };
    addEventListener('scrollend', () => { s.scrollEnds++; if (s.wake) s.wake(); }, {capture: true, passive: true});
    // A key that scrolls (PageDown, Space, arrows, Home, End) does so after its keydown, smoothly: noted the same
    // way, so the look waits for that scroll to end too; not in a field, a select or an editable region (the key
    // edits there), nor Space on a button or summary (it activates them).
    const KEYS = {PageDown: [0, 1], PageUp: [0, -1], ArrowDown: [0, 1], ArrowUp: [0, -1], ArrowRight: [1, 0],
                  ArrowLeft: [-1, 0], End: [0, 1], Home: [0, -1], ' ': [0, 1]};
    addEventListener('keydown', (e) => {
      const d = KEYS[e.key], t = e.target;
      if (!e.isTrusted || !d || e.ctrlKey || e.altKey || e.metaKey) return;
      if (t && t.nodeType === 1 && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)
          || (e.key === ' ' && /^(BUTTON|SUMMARY)$/.test(t.tagName)))) return;
      s.wheels++;
      let scrolls = false;
      try {
        scrolls = room(t && t.nodeType === 1 ? t : document.scrollingElement, d[0], e.key === ' ' && e.shiftKey ? -1 : d[1]);
      } catch (x) { /* no wait */ }
      s.wheel = {n: s.wheels, ends: s.scrollEnds, event: e, scrolls};
    }, {capture: true, passive: true});
  }"""

# OBSERVE_SCRIPT (below, with the arming and the look) is installed in each new document's world as it is created,
# so the first action there knows the page's past.

# Before the input: where the counts are, whether the page was changing by itself (its last three changes
# outside any input and any settle all within 100 ms, or three quiet windows if longer, before the arming; for
# an observer younger than that, one such change within the last three quiet windows;
# or the last look ran to its deadline on changes that never paused, and they still have not: a stream,
# whose changes that go on are not the input's; an earlier action's late renders are not), and the
# animations already running. From here to the end of the look the changes are the settle's own.
_ARM_BODY = """
  const now = performance.now();
  if (now - s.lastLater >= quiet) s.streaming = false;
  // An observer younger than that window (a page armed right after it loaded) has less to go by: one change of
  // the page's own within the last three quiet windows (a timer late on a busy machine still counts).
  const window = Math.max(3 * quiet, 100);
  const busy = s.streaming || (s.recent.length === 3 && now - s.recent[0] < window)
    || (s.born >= 0 && now - s.born < window && s.recent.length > 0 && now - s.recent[s.recent.length - 1] < 3 * quiet);
  s.ours = true;
  s.arm = {n: s.n, later: s.later, inputs: s.inputs, wheels: s.wheels, busy};
  addEventListener('wheel', s.onWheel, {capture: true, passive: false});
  try { s.before = new Set(allAnimations()); } catch (e) { s.before = null; }
  return s.n;"""


# An arming no look will follow (the action was refused after it): the page's changes are its own again.
DISARM_FUNCTION = """function() { const s = globalThis.__cdpEngineSettle;
  if (s) { s.ours = false; removeEventListener('wheel', s.onWheel, {capture: true}); } return 0; }"""

# Resolves once the document settled by the rule in the module docstring. mode: "input" (after the input,
# compared with the arming), "response" (after the caused requests, compared with the previous look's end;
# `expect` ms for their first change), "now" (after a load, or no input: what changes from now on).
_LOOK_BODY = """
  const start = performance.now();
  s.ours = true;
  const arm = mode === 'input' && s.arm ? s.arm
    : {n: mode === 'response' ? s.seen : s.n, later: -1, inputs: -1, wheels: s.wheels};
  // With trusted input since the arming, changes outside its dispatch come after it; else after the look began.
  // A page that was changing by itself when armed keeps doing so: that is not waited for.
  const byEvent = arm.inputs >= 0 && s.inputs > arm.inputs, busy = mode !== 'now' && s.arm && s.arm.busy;
  const laterAt = () => busy ? -1
    : byEvent ? (s.later > arm.later ? s.lastLater : -1) : (s.last >= start ? s.last : -1);
  const scrolling = () => s.wheel && s.wheel.n > arm.wheels && s.wheel.scrolls && !s.wheel.event.defaultPrevented
    && s.scrollEnds === s.wheel.ends;
  // Finite animations the input started, of a property that moves or shows something: when they end.
  SHOWS_OR_MOVES_JS
  const animationsEnd = (now) => {
    let end = 0;
    for (const a of allAnimations()) {
      if ((s.before && s.before.has(a)) || a.playState !== 'running') continue;
      let e = s.ends.get(a);
      if (e === undefined) {
        const t = a.effect ? a.effect.getComputedTiming() : null;
        const props = a.transitionProperty ? [a.transitionProperty]
          : (a.effect && a.effect.getKeyframes ? a.effect.getKeyframes().flatMap(k => Object.keys(k)) : []);
        e = t && isFinite(t.endTime) && props.some(p => showsOrMoves.test(p))
          ? now + (t.endTime - (t.localTime || 0)) / (Math.abs(a.playbackRate) || 1) : 0;
        s.ends.set(a, e);
      }
      // The timeline moves with frames: a few more ms for one that has not quite ended at its time.
      end = Math.max(end, e && now >= e && now < e + 50 ? now + 4 : e);
    }
    return end;
  };
  return new Promise(resolve => {
    let timer = 0, continued = false, answered = false, sync = true;  // sync: still within this call
    let waiting = s.n === arm.n && laterAt() < 0, expecting = waiting && expect > 0;
    const finish = (deadline) => {
      s.wake = null; clearTimeout(timer); s.seen = s.n; s.ours = false;
      if (deadline && continued) s.streaming = true;  // the page never paused: a stream of its own
      removeEventListener('wheel', s.onWheel, {capture: true});
      // The change probe's key as the look ends (snapshot/probes.py): a read sent behind the look whose own key
      // is this one saw the page as it is now, so it is the read after the settle even when the look waited.
      let key = null;
      try { const p = globalThis.__cdpEngineProbe; key = p && p.key ? p.key(false) : null; } catch (e) { key = null; }
      resolve({n: s.n, changed: s.n !== arm.n, continued, deadline, sync, key, ms: performance.now() - start});
    };
    const later = (ms) => { clearTimeout(timer); timer = setTimeout(check, Math.max(0, ms)); };
    function check() {
      const now = performance.now(), left = max - (now - start);
      if (left <= 0) return finish(true);
      if (expecting) return now - start >= expect ? finish(false) : later(Math.min(left, expect - (now - start)));
      if (scrolling()) return later(Math.min(left, 50));  // scrollend wakes the look
      const last = answered ? -1 : laterAt();  // changes go on after the trigger: the quiet window
      if (last >= 0) {
        continued = true;
        if (now - last < quiet) return later(Math.min(left, quiet - (now - last)));
      }
      let end = 0;
      try { end = animationsEnd(now); } catch (e) { /* a document without animations support: none */ }
      if (end > now) return later(Math.min(left, end - now));
      finish(false);
    }
    // Waiting for the answers: their first change ends the wait (the rest of its task is its own effect).
    s.wake = () => {
      if (expecting && s.n !== arm.n) { expecting = false; answered = true; check(); }
      else if (!expecting && !scrolling()) check();
    };
    if (waiting && !expecting) later(allowance); else check();
    sync = false;
  });""".replace("SHOWS_OR_MOVES_JS", SHOWS_OR_MOVES_JS)


# The observer with the arming and the look as its own functions (s.armFn, s.lookFn), so the calls a settle sends
# are one line each instead of their whole source (5.8 and 8.8 KB sent and compiled per call: 0.49-0.53 ms a call
# against 0.32-0.35 ms). Installed by OBSERVE_SCRIPT in each new document's world; the full forms below install it
# where it is missing (a short call answers null there).
_INSTALL = (
    _STATE
    + "\n  if (!s.armFn) {\n    s.armFn = function(quiet) { "
    + _ARM_BODY
    + " };\n    s.lookFn = function(mode, expect, allowance, quiet, max) { "
    + _LOOK_BODY
    + " };\n  }"
)

OBSERVE_SCRIPT = "(() => { " + _INSTALL + " return 0; })()"

ARM_FUNCTION = "function(quiet) { const s = globalThis.__cdpEngineSettle; return s && s.armFn ? s.armFn(quiet) : null; }"
LOOK_FUNCTION = (
    "function(mode, expect, allowance, quiet, max) { const s = globalThis.__cdpEngineSettle;"
    " return s && s.lookFn ? s.lookFn(mode, expect, allowance, quiet, max) : null; }"
)
ARM_FULL = "function(quiet) { " + _INSTALL + " return s.armFn(quiet); }"
LOOK_FULL = "function(mode, expect, allowance, quiet, max) { " + _INSTALL + " return s.lookFn(mode, expect, allowance, quiet, max); }"
