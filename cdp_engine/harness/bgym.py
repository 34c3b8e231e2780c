"""BrowserGym-style action strings (``click('12')``, ``fill('12', 'text')`` …) parsed without eval.

Why: benchmark harnesses and the models trained on them speak BrowserGym's high-level action
set, not the element index protocol's JSON. The text is parsed with ``ast`` into a list of
`BGymCall`; only calls of known names with literal arguments are accepted, so nothing in the
text ever runs. A malformed string raises `ActionValidationError` (code ACTION_VALIDATION_FAILED)
before anything is sent to the page. Several calls on separate lines (or separated by ``;``)
are one multi-action step. A ``bid`` is an element index of the current state (``'12'`` or ``12``).

Mapping (``P`` = runs as that element index protocol action, exactly; ``E`` = run by the harness
with the engine's trusted input and the same settle as the protocol's actions):

=============================================  ====================================================
BrowserGym action                              cdp-engine
=============================================  ====================================================
``click(bid, button='left', modifiers=[])``    P ``click_element``; other buttons or modifiers: E
``dblclick(bid, button='left', modifiers=[])`` E trusted double click at the element's visible point
``hover(bid)``                                 E mouse moved to the element's visible point
``fill(bid, value)``                           P ``input_text`` with ``overwrite: true``
``clear(bid)``                                 P ``input_text`` with ``text: ''``, ``overwrite: true``
``select_option(bid, options)``                P ``select_option``; the option is found by value, then
                                               by label (text); one option (a list of one is fine)
``check(bid)`` / ``uncheck(bid)``              P ``click_element`` when ``checked`` differs, else nothing
                                               (an element without ``checked``: ELEMENT_NOT_INTERACTIVE)
``press(bid, key_comb)``                       E focus the element, then ``keys.chord_events`` (Playwright
                                               names: ``Enter``, ``Control+a``, ``Shift+Tab``)
``focus(bid)``                                 E ``element.focus()``
``scroll(delta_x, delta_y)``                   P ``scroll`` when one axis moves; both axes: E ``scrollBy``
``goto(url)``                                  P ``navigate``
``go_back()`` / ``go_forward()``               E history step, then settle
``new_tab()``                                  E a blank tab in the episode's context, made active
``tab_focus(index)``                           E make the index-th open tab (opening order) active
``tab_close()``                                E close the active tab; the previous one becomes active
``noop(wait_ms=1000)``                         E wait, then observe
``send_msg_to_user(text)``                     P ``finish_task`` (the message); ends the episode
``report_infeasible(reason)``                  P ``fail_task`` (the reason); ends the episode
``keyboard_press(key)``                        E ``chord_events`` to the focused element
``keyboard_down(key)`` / ``keyboard_up(key)``  E ``key_down_events`` / ``key_up_events``
``keyboard_type(text)``                        E ``Input.insertText`` into the focused element
``keyboard_insert_text(text)``                 E ``Input.insertText``
``mouse_move(x, y)``                           E trusted mouse move (viewport CSS pixels)
``mouse_click(x, y, button='left')``           E trusted click at the point
``mouse_dblclick(x, y, button='left')``        E trusted double click at the point
``mouse_down(x, y, button='left')`` / ``up``   E press / release at the point
``drag_and_drop(from_bid, to_bid)``            E press on one element, move, release on the other
``mouse_drag_and_drop(fx, fy, tx, ty)``        E the same between two points
``upload_file(bid, file)``                     E ``DOM.setFileInputFiles`` (paths on the browser's host)
=============================================  ====================================================
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..core.keys import UnknownKeyError, parse_chord
from ..index.actions import ActionValidationError

__all__ = ["BGYM_ACTIONS", "BGymCall", "is_bgym_text", "parse_bgym", "to_protocol"]

_REQUIRED = object()
BUTTONS = ("left", "middle", "right")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


@dataclass(frozen=True)
class _Param:
    name: str
    kind: str  # bid | str | num | int | options | key | button | modifiers | files
    default: Any = _REQUIRED


def _p(name: str, kind: str, default: Any = _REQUIRED) -> _Param:
    return _Param(name, kind, default)


# name -> parameters, in BrowserGym's order and with its defaults.
BGYM_ACTIONS: dict[str, tuple[_Param, ...]] = {
    "noop": (_p("wait_ms", "num", 1000),),
    "send_msg_to_user": (_p("text", "str"),),
    "report_infeasible": (_p("reason", "str"),),
    "scroll": (_p("delta_x", "num"), _p("delta_y", "num")),
    "fill": (_p("bid", "bid"), _p("value", "str")),
    "clear": (_p("bid", "bid"),),
    "select_option": (_p("bid", "bid"), _p("options", "options")),
    "click": (_p("bid", "bid"), _p("button", "button", "left"), _p("modifiers", "modifiers", ())),
    "dblclick": (_p("bid", "bid"), _p("button", "button", "left"), _p("modifiers", "modifiers", ())),
    "hover": (_p("bid", "bid"),),
    "check": (_p("bid", "bid"),),
    "uncheck": (_p("bid", "bid"),),
    "press": (_p("bid", "bid"), _p("key_comb", "key")),
    "focus": (_p("bid", "bid"),),
    "drag_and_drop": (_p("from_bid", "bid"), _p("to_bid", "bid")),
    "upload_file": (_p("bid", "bid"), _p("file", "files")),
    "goto": (_p("url", "str"),),
    "go_back": (),
    "go_forward": (),
    "new_tab": (),
    "tab_close": (),
    "tab_focus": (_p("index", "int"),),
    "keyboard_press": (_p("key", "key"),),
    "keyboard_down": (_p("key", "key"),),
    "keyboard_up": (_p("key", "key"),),
    "keyboard_type": (_p("text", "str"),),
    "keyboard_insert_text": (_p("text", "str"),),
    "mouse_move": (_p("x", "num"), _p("y", "num")),
    "mouse_click": (_p("x", "num"), _p("y", "num"), _p("button", "button", "left")),
    "mouse_dblclick": (_p("x", "num"), _p("y", "num"), _p("button", "button", "left")),
    "mouse_down": (_p("x", "num"), _p("y", "num"), _p("button", "button", "left")),
    "mouse_up": (_p("x", "num"), _p("y", "num"), _p("button", "button", "left")),
    "mouse_drag_and_drop": (_p("from_x", "num"), _p("from_y", "num"), _p("to_x", "num"), _p("to_y", "num")),
}


@dataclass(frozen=True)
class BGymCall:
    """One parsed call: its name, its arguments bound by parameter name (defaults filled), its text."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def __getitem__(self, key: str) -> Any:
        return self.args[key]


def is_bgym_text(text: str) -> bool:
    """True when text looks like a call (``name(``) rather than a protocol action's JSON."""
    stripped = _strip_fence(text)
    return not stripped.startswith(("{", "[", '"'))


def _strip_fence(text: str) -> str:
    """Models often wrap the action in a Markdown code fence: accept ```click('3')``` too."""
    s = text.strip()
    if s.startswith("```") and s.endswith("```") and len(s) >= 6:
        s = s[3:-3]
        first, _, rest = s.partition("\n")
        if first.strip().isidentifier() and rest.strip():  # ```python\nclick('3')\n```
            s = rest
        s = s.strip()
    return s


def _fail(message: str, text: str) -> ActionValidationError:
    return ActionValidationError(message, failed_action=text)


def _signature(name: str) -> str:
    params = BGYM_ACTIONS[name]
    parts = [p.name if p.default is _REQUIRED else f"{p.name}={p.default!r}" for p in params]
    return f"{name}({', '.join(parts)})"


def _check(param: _Param, value: Any, name: str, text: str) -> Any:
    """Coerce and check one argument; the message names the call and the parameter."""
    where = f"{name}: argument {param.name!r}"
    kind = param.kind
    if kind == "bid":
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise _fail(f"{where} must be an element index such as '12', got {value!r}", text)
        s = str(value).strip()
        if not (s.isascii() and s.isdigit()):
            raise _fail(
                f"{where} must be an element index from the state's element_index (digits), got {value!r}",
                text,
            )
        return int(s)
    if kind == "str":
        if not isinstance(value, str):
            raise _fail(f"{where} must be a string, got {type(value).__name__} {value!r}", text)
        return value
    if kind == "num":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(f"{where} must be a number, got {value!r}", text)
        if value != value or value in (float("inf"), float("-inf")):
            raise _fail(f"{where} must be a finite number, got {value!r}", text)
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise _fail(f"{where} must be an integer, got {value!r}", text)
        return value
    if kind == "options":
        options = [value] if isinstance(value, str) else value
        if not isinstance(options, (list, tuple)) or not all(isinstance(o, str) for o in options):
            raise _fail(f"{where} must be a string or a list of strings, got {value!r}", text)
        if len(options) != 1:
            raise _fail(
                f"{where}: exactly one option can be selected (multi-select is not supported), got {value!r}",
                text,
            )
        return options[0]
    if kind == "key":
        if not isinstance(value, str) or not value:
            raise _fail(f"{where} must be a key name such as 'Enter' or 'Control+a', got {value!r}", text)
        try:
            parse_chord(value, implied_shift=False)
        except UnknownKeyError as exc:
            raise _fail(f"{where}: {exc}", text) from None
        return value
    if kind == "button":
        if value not in BUTTONS:
            raise _fail(f"{where} must be one of {', '.join(BUTTONS)}, got {value!r}", text)
        return value
    if kind == "modifiers":
        mods = list(value) if isinstance(value, (list, tuple)) else None
        if mods is None or not all(m in MODIFIERS for m in mods):
            raise _fail(f"{where} must be a list of {', '.join(MODIFIERS)}, got {value!r}", text)
        return tuple(mods)
    if kind == "files":
        files = [value] if isinstance(value, str) else value
        if (
            not isinstance(files, (list, tuple))
            or not files
            or not all(isinstance(f, str) and f for f in files)
        ):
            raise _fail(f"{where} must be a file path or a list of paths, got {value!r}", text)
        return tuple(files)
    raise AssertionError(kind)


def _literal(node: ast.expr, name: str, text: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _fail(
            f"{name}: arguments must be literals (strings, numbers, lists), got {ast.unparse(node)!r}", text
        ) from None


def _bind(call: ast.Call, text: str, source: str) -> BGymCall:
    if not isinstance(call.func, ast.Name):
        raise _fail(f"not a known action: {ast.unparse(call.func)!r}; expected e.g. click('12')", text)
    name = call.func.id
    if name not in BGYM_ACTIONS:
        raise _fail(f"unknown action {name!r}; known: {', '.join(sorted(BGYM_ACTIONS))}", text)
    params = BGYM_ACTIONS[name]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise _fail(f"{name}: *args and **kwargs are not accepted; call {_signature(name)}", text)
    if len(call.args) > len(params):
        raise _fail(
            f"{name} takes {len(params)} argument(s), got {len(call.args)}; call {_signature(name)}", text
        )
    values: dict[str, Any] = {}
    for param, node in zip(params, call.args, strict=False):
        values[param.name] = _literal(node, name, text)
    known = {p.name for p in params}
    for kw in call.keywords:
        if kw.arg not in known:
            raise _fail(f"{name} has no argument {kw.arg!r}; call {_signature(name)}", text)
        if kw.arg in values:
            raise _fail(f"{name}: argument {kw.arg!r} given twice", text)
        values[kw.arg] = _literal(kw.value, name, text)  # type: ignore[index]
    bound: dict[str, Any] = {}
    for param in params:
        if param.name in values:
            bound[param.name] = _check(param, values[param.name], name, text)
        elif param.default is _REQUIRED:
            raise _fail(f"{name}: missing argument {param.name!r}; call {_signature(name)}", text)
        else:
            bound[param.name] = param.default
    return BGymCall(name, bound, source)


def parse_bgym(text: str) -> list[BGymCall]:
    """Parse one step's action text into calls; ActionValidationError (nothing runs) when malformed."""
    if not isinstance(text, str):
        raise ActionValidationError(
            f"an action string is expected, got {type(text).__name__}", failed_action=text
        )
    body = _strip_fence(text)
    if not body:
        raise _fail("empty action: expected e.g. click('12'), fill('3', 'text') or noop()", text)
    try:
        tree = ast.parse(body, mode="exec")
    except SyntaxError as exc:
        raise _fail(
            f"not a valid action call ({exc.msg} at column {exc.offset}): expected e.g. click('12')", text
        ) from None
    calls: list[BGymCall] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            raise _fail(f"only action calls are accepted, not {ast.unparse(stmt)!r}", text)
        calls.append(_bind(stmt.value, text, ast.get_source_segment(body, stmt) or ast.unparse(stmt)))
    if not calls:
        raise _fail("empty action: expected e.g. click('12'), fill('3', 'text') or noop()", text)
    return calls


def _option_for(state: dict[str, Any], select_options: list[int], wanted: str) -> int | None:
    """The option index whose value, else whose label, equals `wanted` (whitespace and case folded last)."""
    index = state.get("element_index", {})
    descs = [(i, index.get(str(i), {})) for i in select_options]
    for i, d in descs:
        if (d.get("attributes") or {}).get("value") == wanted:
            return i
    for i, d in descs:
        if d.get("text_content") == wanted:
            return i
    fold = " ".join(wanted.split()).casefold()
    for i, d in descs:
        text = d.get("text_content") or ""
        if " ".join(text.split()).casefold() == fold:
            return i
    return None


def to_protocol(
    call: BGymCall, state: dict[str, Any], options_of: dict[int, list[int]] | None = None
) -> dict[str, Any] | None:
    """The element index protocol action that does exactly this call, or None (the harness runs it).

    `state` is the state the call was written against; `options_of` maps a select's index to its
    options' indices (select_option needs it; without the select there, None). A select_option whose
    option is not found raises ActionValidationError naming the options there are. check/uncheck
    depend on the element's state and are left to the harness.
    """
    name, a = call.name, call.args
    if name == "click" and a["button"] == "left" and not a["modifiers"]:
        return {"action": "click_element", "element_index": a["bid"]}
    if name == "fill":
        return {"action": "input_text", "element_index": a["bid"], "text": a["value"], "overwrite": True}
    if name == "clear":
        return {"action": "input_text", "element_index": a["bid"], "text": "", "overwrite": True}
    if name == "goto":
        return {"action": "navigate", "url": a["url"]}
    if name == "send_msg_to_user":
        return {"action": "finish_task", "message": a["text"]}
    if name == "report_infeasible":
        return {"action": "fail_task", "message": a["reason"]}
    if name == "scroll":
        dx, dy = a["delta_x"], a["delta_y"]
        if dx == 0 and dy != 0 and float(dy).is_integer():
            return {"action": "scroll", "direction": "down" if dy > 0 else "up", "pixels": abs(int(dy))}
        if dy == 0 and dx != 0 and float(dx).is_integer():
            return {"action": "scroll", "direction": "right" if dx > 0 else "left", "pixels": abs(int(dx))}
        return None
    if name == "select_option":
        options = (options_of or {}).get(a["bid"])
        if options is None:
            return None  # not a select of this state: the harness reports why
        option = _option_for(state, options, a["options"])
        if option is None:
            index = state.get("element_index", {})
            have = [
                f"{(index.get(str(i), {}).get('attributes') or {}).get('value')!r} ({index.get(str(i), {}).get('text_content')!r})"
                for i in options
            ]
            raise ActionValidationError(
                f"select_option: no option with value or label {a['options']!r} in select {a['bid']}; "
                f"options: {', '.join(have) or 'none'}",
                failed_action=call.source,
            )
        return {"action": "select_option", "element_index": a["bid"], "option_index": option}
    return None
