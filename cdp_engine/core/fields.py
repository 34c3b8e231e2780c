"""Form fields set as a person's value: one home for the page scripts every surface runs to set a field that takes
a value rather than keystrokes (date, time, month, week, datetime-local, colour, range, and any field set
directly), to choose options of a select, and to announce the change as the browser does for user input.

Why one home: the toolset's form_input, MCP's fill and select and the element index's input_text on a date or a
range each carried a copy, and the copies differed (page world against isolated world, composed events or not,
a disabled optgroup seen or not, a clamped value reported as set). Every script here runs in the engine's
isolated world of the element's frame (a page that redefines `Event` or the value setter cannot break it), and
checks the value on a scratch field of the same type and bounds before the real one is touched, so a value the
browser would clamp or drop is refused with the field unchanged and no event fired.
"""

from __future__ import annotations

from typing import Any

from . import scripts
from .actionability import InputTab, Target, world_context_of

# Input types whose value is set, not typed: a person picks it in a widget the keyboard does not type into.
VALUE_TYPES = frozenset({"date", "time", "month", "week", "datetime-local", "color", "range"})

# (el, text) => null when the field would keep `text` as its value, else what the field accepts (a hint for
# the refusal). The scratch field has the element's type and bounds; value sanitization (HTML's "value
# sanitization algorithm") turns a value the field cannot hold into another one, and a range clamps it.
VALUE_CHECK = """((el, text) => {
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  const formats = {date: 'a date as YYYY-MM-DD', time: 'a time as HH:MM or HH:MM:SS', month: 'a month as YYYY-MM',
    week: 'a week as YYYY-Www', 'datetime-local': 'a date and time as YYYY-MM-DDTHH:MM', color: 'a colour as #rrggbb'};
  const bounds = () => {
    const min = el.getAttribute('min'), max = el.getAttribute('max');
    const lo = min !== null ? min : (type === 'range' ? '0' : null), hi = max !== null ? max : (type === 'range' ? '100' : null);
    if (lo !== null && hi !== null) return ' from ' + lo + ' to ' + hi;
    if (lo !== null) return ' of at least ' + lo;
    return hi !== null ? ' of at most ' + hi : '';
  };
  if (!(type in formats) && type !== 'range' && type !== 'number') return null;
  const scratch = el.ownerDocument.createElement('input');
  scratch.type = type;
  for (const a of ['min', 'max', 'step']) if (el.hasAttribute(a)) scratch.setAttribute(a, el.getAttribute(a));
  scratch.value = text;
  if (type === 'range' || type === 'number') {
    const numeric = text.trim() !== '' && Number.isFinite(Number(text));
    const v = scratch.validity;
    if (!numeric || Number(scratch.value) !== Number(text) || v.rangeOverflow || v.rangeUnderflow)
      return 'a number' + bounds();
    return null;
  }
  const kept = type === 'color' ? scratch.value === text.toLowerCase() : scratch.value === text;
  if (!kept && text !== '') return formats[type];
  if (scratch.validity.rangeOverflow || scratch.validity.rangeUnderflow) return formats[type] + bounds();
  return null;
})"""

# (el) => the events a browser fires for a value a person set: input (composed, so a listener outside the
# field's shadow root hears it, as it hears a person's) and change.
ANNOUNCE = """((el) => {
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
})"""

# (el, text) => set the value with the native setter (the one a framework's own setter wraps on the instance is
# bypassed, so a React field sees the change), after VALUE_CHECK; the outcome as a word.
SET_VALUE = f"""((el, text) => {{
  if (el.disabled) return 'disabled';
  if (el.readOnly && !['color', 'range'].includes((el.type || '').toLowerCase())) return 'readonly';
  const refused = {VALUE_CHECK}(el, text);
  if (refused !== null) return 'rejected:' + refused;
  const proto = el.localName === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  el.focus();
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
  {ANNOUNCE}(el);
  return 'ok';
}})"""

# (el, values, loose) => choose the options of a <select> named by value, else by label (loose: also by label
# regardless of case, as the toolset's form_input matches visible text); {error: word} or {selected: [values]}.
# An option is disabled when it or its optgroup is (`:disabled`), and a disabled one is never chosen.
CHOOSE = f"""((el, values, loose) => {{
  if (el.localName !== 'select') return {{error: 'not_select'}};
  if (!el.multiple && values.length > 1) return {{error: 'not_multiple'}};
  const options = [...el.options];
  const norm = s => s.replace(/\\s+/g, ' ').trim();
  const pick = v => options.find(o => o.value === v) || options.find(o => norm(o.label) === norm(v))
    || (loose ? options.find(o => norm(o.label).toLowerCase() === norm(v).toLowerCase()) : undefined);
  const missing = values.filter(v => !pick(v));
  if (missing.length) return {{error: 'no_option', missing}};
  if (el.matches(':disabled')) return {{error: 'disabled'}};
  const chosen = values.map(pick);
  if (chosen.some(o => o.matches(':disabled'))) return {{error: 'option_disabled'}};
  const want = new Set(chosen);
  if (el.multiple) for (const o of options) o.selected = want.has(o);
  else el.value = chosen[0].value;
  {ANNOUNCE}(el);
  return {{selected: options.filter(o => o.selected).map(o => o.value)}};
}})"""


async def call_in_world(tab: InputTab, target: Target, function: str, *args: Any) -> Any:
    """Call `function` with `this` bound to the element, in its frame's isolated world (the page's own world
    only while that world is not there yet); its JSON value."""
    context = world_context_of(tab, target)
    result = await scripts.call_on_node(
        target.session, target.backend_node_id, function, *args, context_id=context
    )
    return result.get("value")


async def set_value(tab: InputTab, target: Target, text: str) -> str:
    """Set a field's value as a person's pick (SET_VALUE): 'ok', 'disabled', 'readonly' or
    'rejected:<what the field accepts>', with the field unchanged and no event fired unless 'ok'."""
    answer = await call_in_world(tab, target, "function(text) { return (" + SET_VALUE + ")(this, text); }", text)
    return str(answer)


async def choose(tab: InputTab, target: Target, values: list[str], *, loose: bool = False) -> dict[str, Any]:
    """Choose options of a select (CHOOSE): {'selected': [...]} or {'error': word, ...}, unchanged on error."""
    answer = await call_in_world(
        tab, target, "function(values, loose) { return (" + CHOOSE + ")(this, values, loose); }", values, loose
    )
    return dict(answer) if isinstance(answer, dict) else {"error": "not_select"}


def rejected_hint(outcome: str) -> str | None:
    """What the field accepts, from a 'rejected:<hint>' outcome of set_value (None for other outcomes)."""
    return outcome.split(":", 1)[1] if outcome.startswith("rejected:") else None
