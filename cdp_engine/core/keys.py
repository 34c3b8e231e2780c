"""US keyboard model: key names, chords and sequences to `Input.dispatchKeyEvent` params.

Every surface speaks a different key dialect (DOM names, Playwright chords, xdotool / X
keysyms, loose aliases), so one table normalises them all; see browser-toolset.md §15.
Everything here is pure: no I/O, no state, fresh dicts on every call.

Syntax:
- key: a name (case-insensitive) or a single character (case-sensitive; uppercase letters
  and shifted symbols imply Shift unless ``implied_shift=False``, Playwright's rule);
- chord: keys joined by ``+``; every key but the last must be a modifier; a lone ``+`` and a
  trailing ``++`` (``ctrl++``) name the plus key; ``ctrl+ `` is ctrl+Space;
- sequence: chords separated by spaces; a text of only spaces is that many Space presses.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import CDPEngineError

__all__ = [
    "ALT",
    "CONTROL",
    "EDITING_COMMANDS",
    "META",
    "SHIFT",
    "US_LAYOUT",
    "Chord",
    "KeyDef",
    "LayoutKey",
    "UnknownKeyError",
    "chord_events",
    "is_on_layout",
    "key_down_events",
    "key_up_events",
    "modifiers_mask",
    "parse_chord",
    "parse_modifiers",
    "parse_sequence",
    "resolve_key",
    "sequence_events",
    "split_sequence",
    "text_events",
]

# CDP `modifiers` bits (Input.dispatchKeyEvent / dispatchMouseEvent).
ALT, CONTROL, META, SHIFT = 1, 2, 4, 8
_MODIFIER_BITS = {"Alt": ALT, "Control": CONTROL, "Meta": META, "Shift": SHIFT}
_NON_SHIFT_MODIFIERS = ALT | CONTROL | META
_KEYPAD = 3
_SYNTAX_HINT = "Use names like Return, ctrl+a, shift+Tab, Page_Down, KP_0, or a single character."


class UnknownKeyError(CDPEngineError, ValueError):
    """Key text could not be read; the message is fixed and safe to show to the model.

    `name` is the offending token (or None for syntax errors), `text` the whole input.
    """

    def __init__(self, message: str, *, name: str | None = None, text: str | None = None) -> None:
        super().__init__(message)
        self.name = name
        self.text = text


@dataclass(frozen=True, slots=True)
class KeyDef:
    """One resolved key as CDP wants it; `shift` means the key needs Shift held on a US layout."""

    key: str
    code: str
    key_code: int
    text: str
    location: int
    shift: bool = False

    @property
    def modifier_bit(self) -> int:
        """CDP modifier bit this key sets while held (0 for non-modifiers)."""
        return _MODIFIER_BITS.get(self.key, 0)

    @property
    def is_modifier(self) -> bool:
        return self.key in _MODIFIER_BITS

    @property
    def is_keypad(self) -> bool:
        return self.location == _KEYPAD


@dataclass(frozen=True, slots=True)
class LayoutKey:
    """One physical key of the US layout (Puppeteer's USKeyboardLayout entry, NumLock on)."""

    code: str
    key: str
    key_code: int
    text: str = ""
    location: int = 0
    shift_key: str = ""  # key value with Shift held; same key_code on this layout
    shift_text: str = ""

    def unshifted(self) -> KeyDef:
        return KeyDef(self.key, self.code, self.key_code, self.text, self.location)

    def shifted(self) -> KeyDef | None:
        if not self.shift_key:
            return None
        return KeyDef(self.shift_key, self.code, self.key_code, self.shift_text, self.location, True)


Chord = tuple[list[KeyDef], KeyDef]


# --------------------------------------------------------------------------- layout table


def _build_layout() -> dict[str, LayoutKey]:
    keys: list[LayoutKey] = []
    add = keys.append
    for ch in "abcdefghijklmnopqrstuvwxyz":
        up = ch.upper()
        add(LayoutKey(f"Key{up}", ch, ord(up), ch, 0, up, up))
    for digit, shifted in zip("0123456789", ")!@#$%^&*(", strict=True):
        add(LayoutKey(f"Digit{digit}", digit, ord(digit), digit, 0, shifted, shifted))
    for code, base, shifted, vk in (
        ("Minus", "-", "_", 189),
        ("Equal", "=", "+", 187),
        ("BracketLeft", "[", "{", 219),
        ("BracketRight", "]", "}", 221),
        ("Backslash", "\\", "|", 220),
        ("Semicolon", ";", ":", 186),
        ("Quote", "'", '"', 222),
        ("Comma", ",", "<", 188),
        ("Period", ".", ">", 190),
        ("Slash", "/", "?", 191),
        ("Backquote", "`", "~", 192),
    ):
        add(LayoutKey(code, base, vk, base, 0, shifted, shifted))
    add(LayoutKey("Space", " ", 32, " "))
    add(LayoutKey("Enter", "Enter", 13, "\r"))
    for code, vk in (
        ("Tab", 9),
        ("Backspace", 8),
        ("Escape", 27),
        ("Delete", 46),
        ("Insert", 45),
        ("Home", 36),
        ("End", 35),
        ("PageUp", 33),
        ("PageDown", 34),
        ("ArrowLeft", 37),
        ("ArrowUp", 38),
        ("ArrowRight", 39),
        ("ArrowDown", 40),
        ("CapsLock", 20),
        ("NumLock", 144),
        ("ScrollLock", 145),
        ("PrintScreen", 44),
        ("Pause", 19),
        ("ContextMenu", 93),
        ("AltGraph", 225),
        ("BrowserBack", 166),
        ("BrowserForward", 167),
        ("BrowserRefresh", 168),
        ("BrowserStop", 169),
        ("BrowserSearch", 170),
        ("BrowserFavorites", 171),
        ("BrowserHome", 172),
        ("AudioVolumeMute", 173),
        ("AudioVolumeDown", 174),
        ("AudioVolumeUp", 175),
        ("MediaTrackNext", 176),
        ("MediaTrackPrevious", 177),
        ("MediaStop", 178),
        ("MediaPlayPause", 179),
        ("LaunchMail", 180),
    ):
        add(LayoutKey(code, code, vk))
    for n in range(1, 25):
        add(LayoutKey(f"F{n}", f"F{n}", 111 + n))
    for side, location in (("Left", 1), ("Right", 2)):
        add(LayoutKey(f"Shift{side}", "Shift", 16, location=location))
        add(LayoutKey(f"Control{side}", "Control", 17, location=location))
        add(LayoutKey(f"Alt{side}", "Alt", 18, location=location))
    add(LayoutKey("MetaLeft", "Meta", 91, location=1))
    add(LayoutKey("MetaRight", "Meta", 92, location=2))
    for n in range(10):
        add(LayoutKey(f"Numpad{n}", str(n), 96 + n, str(n), _KEYPAD))
    for code, ch, vk in (
        ("NumpadMultiply", "*", 106),
        ("NumpadAdd", "+", 107),
        ("NumpadSubtract", "-", 109),
        ("NumpadDecimal", ".", 110),
        ("NumpadDivide", "/", 111),
        ("NumpadEqual", "=", 187),
    ):
        add(LayoutKey(code, ch, vk, ch, _KEYPAD))
    add(LayoutKey("NumpadEnter", "Enter", 13, "\r", _KEYPAD))
    return {k.code: k for k in keys}


_LAYOUT = _build_layout()
US_LAYOUT: Mapping[str, LayoutKey] = MappingProxyType(_LAYOUT)
"""The US layout keyed by DOM `code` (read-only)."""


def _code(code: str) -> KeyDef:
    return _LAYOUT[code].unshifted()


# Characters typed on the main block (never the numpad: "+" is Shift+Equal, as xdotool does).
_CHARS: dict[str, KeyDef] = {}
for _k in _LAYOUT.values():
    if _k.location == _KEYPAD:
        continue
    if len(_k.key) == 1:
        _CHARS[_k.key] = _k.unshifted()
    _s = _k.shifted()
    if _s is not None:
        _CHARS[_s.key] = _s
_CHARS["\r"] = _CHARS["\n"] = _code("Enter")
_CHARS["\t"] = _code("Tab")


# --------------------------------------------------------------------------- names

_NAMES: dict[str, KeyDef] = {}  # lower-cased name -> key
_DISPLAY: dict[str, str] = {}  # lower-cased name -> spelling shown in "did you mean"


def _alias(kd: KeyDef, *names: str) -> None:
    for name in names:
        low = name.lower()
        _NAMES[low] = kd
        _DISPLAY.setdefault(low, name)


# DOM `code` and `key` names (Playwright, Puppeteer, CDP); single-character keys go through _CHARS.
for _k in _LAYOUT.values():
    _alias(_k.unshifted(), _k.code)
for _k in _LAYOUT.values():
    if len(_k.key) > 1 and _k.key.lower() not in _NAMES:
        _alias(_k.unshifted(), _k.key)
_alias(_code("ShiftLeft"), "Shift")
_alias(_code("ControlLeft"), "Control")
_alias(_code("AltLeft"), "Alt")
_alias(_code("MetaLeft"), "Meta")

# §15 normalisation table (X keysyms and common aliases). The *_R keysyms map to the left
# key, as §15 lists them; the DOM codes ControlRight etc. give the right-hand keys.
_alias(
    _code("ControlLeft"),
    "ctrl",
    "Control_L",
    "Control_R",
    "ctl",
    "ControlOrMeta",
    "CmdOrCtrl",
    "CommandOrControl",
)
_alias(_code("AltLeft"), "Alt_L", "Alt_R", "option", "opt")
_alias(_code("ShiftLeft"), "Shift_L", "Shift_R")
_alias(
    _code("MetaLeft"), "cmd", "command", "super", "Super_L", "Super_R", "win", "windows", "Meta_L", "Meta_R"
)
_alias(_code("Enter"), "Return")
_alias(_code("NumpadEnter"), "KP_Enter")
_alias(_code("Escape"), "esc")
_alias(_code("Delete"), "del")
_alias(_code("Space"), "space", "spacebar")
_alias(_code("PageUp"), "Page_Up", "Prior", "pgup")
_alias(_code("PageDown"), "Page_Down", "Next", "pgdn")
_alias(_code("Insert"), "ins")
_alias(_code("ArrowUp"), "Up")
_alias(_code("ArrowDown"), "Down")
_alias(_code("ArrowLeft"), "Left")
_alias(_code("ArrowRight"), "Right")
_alias(_code("CapsLock"), "Caps_Lock")
_alias(_code("NumLock"), "Num_Lock")
_alias(_code("ScrollLock"), "Scroll_Lock")
_alias(_code("ContextMenu"), "Menu", "apps")
_alias(_code("PrintScreen"), "Print", "Sys_Req", "prtsc")  # X "Print" is the PrintScreen key
_alias(_code("Pause"), "Break")
_alias(_code("AltGraph"), "altgr", "ISO_Level3_Shift", "Mode_switch")
_alias(_code("AudioVolumeUp"), "XF86AudioRaiseVolume")
_alias(_code("AudioVolumeDown"), "XF86AudioLowerVolume")
_alias(_code("AudioVolumeMute"), "XF86AudioMute")
_alias(_code("MediaPlayPause"), "XF86AudioPlay")
_alias(_code("MediaTrackNext"), "XF86AudioNext")
_alias(_code("MediaTrackPrevious"), "XF86AudioPrev")
_alias(_code("MediaStop"), "XF86AudioStop")
_alias(_code("BrowserBack"), "XF86Back")
_alias(_code("BrowserForward"), "XF86Forward")
_alias(_code("BrowserRefresh"), "XF86Reload")
_alias(_code("BrowserHome"), "XF86HomePage")
for _n in range(10):
    _alias(_code(f"Numpad{_n}"), f"KP_{_n}")
_alias(_code("NumpadAdd"), "KP_Add")
_alias(_code("NumpadSubtract"), "KP_Subtract")
_alias(_code("NumpadMultiply"), "KP_Multiply")
_alias(_code("NumpadDivide"), "KP_Divide")
_alias(_code("NumpadDecimal"), "KP_Decimal")
_alias(_code("NumpadEqual"), "KP_Equal")
# Keypad keysyms with NumLock off: the navigation key, reported on the numpad.
for _sym, _code_name, _nav in (
    ("KP_Home", "Numpad7", "Home"),
    ("KP_Up", "Numpad8", "ArrowUp"),
    ("KP_Prior", "Numpad9", "PageUp"),
    ("KP_Page_Up", "Numpad9", "PageUp"),
    ("KP_Left", "Numpad4", "ArrowLeft"),
    ("KP_Begin", "Numpad5", "Clear"),
    ("KP_Right", "Numpad6", "ArrowRight"),
    ("KP_End", "Numpad1", "End"),
    ("KP_Down", "Numpad2", "ArrowDown"),
    ("KP_Next", "Numpad3", "PageDown"),
    ("KP_Page_Down", "Numpad3", "PageDown"),
    ("KP_Insert", "Numpad0", "Insert"),
    ("KP_Delete", "NumpadDecimal", "Delete"),
):
    _vk = 12 if _nav == "Clear" else _LAYOUT[_nav].key_code
    _alias(KeyDef(_nav, _code_name, _vk, "", _KEYPAD), _sym)
_alias(KeyDef("Clear", "Numpad5", 12, "", _KEYPAD), "Clear")
_alias(KeyDef("Tab", "Tab", 9, "", 0, True), "ISO_Left_Tab")  # the keysym of Shift+Tab

# X keysym names of printable characters.
for _sym, _ch in (
    ("minus", "-"),
    ("equal", "="),
    ("bracketleft", "["),
    ("bracketright", "]"),
    ("backslash", "\\"),
    ("semicolon", ";"),
    ("apostrophe", "'"),
    ("quoteright", "'"),
    ("comma", ","),
    ("period", "."),
    ("slash", "/"),
    ("grave", "`"),
    ("quoteleft", "`"),
    ("exclam", "!"),
    ("at", "@"),
    ("numbersign", "#"),
    ("dollar", "$"),
    ("percent", "%"),
    ("asciicircum", "^"),
    ("ampersand", "&"),
    ("asterisk", "*"),
    ("parenleft", "("),
    ("parenright", ")"),
    ("underscore", "_"),
    ("plus", "+"),
    ("braceleft", "{"),
    ("braceright", "}"),
    ("bar", "|"),
    ("colon", ":"),
    ("quotedbl", '"'),
    ("less", "<"),
    ("greater", ">"),
    ("question", "?"),
    ("asciitilde", "~"),
):
    _alias(_CHARS[_ch], _sym)
del _k, _s, _n, _sym, _ch, _code_name, _nav, _vk  # table-building loop names

_SHIFT_KEY = _code("ShiftLeft")

# Editing shortcuts passed as CDP `commands` (Blink editor command names, matched
# case-insensitively by Chromium): (modifier mask, code) -> commands.
EDITING_COMMANDS: Mapping[tuple[int, str], tuple[str, ...]] = MappingProxyType(
    {
        (CONTROL, "KeyA"): ("selectAll",),
        (CONTROL, "KeyC"): ("copy",),
        (CONTROL, "KeyX"): ("cut",),
        (CONTROL, "KeyV"): ("paste",),
        (CONTROL, "KeyZ"): ("undo",),
        (CONTROL | SHIFT, "KeyZ"): ("redo",),
        (CONTROL, "KeyY"): ("redo",),
    }
)


# --------------------------------------------------------------------------- errors


def _q(s: str) -> str:
    """Quote a model-supplied string for an error message, bounded."""
    return repr(s if len(s) <= 40 else s[:40] + "…")


def _empty_error(text: str) -> UnknownKeyError:
    return UnknownKeyError(
        "No key was given; send a key name such as Return, or a chord such as ctrl+s.", text=text
    )


def _chord_error(chord: str) -> UnknownKeyError:
    return UnknownKeyError(
        f"Could not read the key chord {_q(chord)}; join keys with +, as in ctrl+s.", text=chord
    )


def _not_modifier_error(name: str, chord: str) -> UnknownKeyError:
    return UnknownKeyError(
        f"{_q(name)} is not a modifier; only the last key of a chord may be a plain key.",
        name=name,
        text=chord,
    )


def _suggest(name: str) -> str:
    if len(name) > 1 and "-" in name.strip("-"):
        parts = name.split("-")
        if all(p and _lookup(p) is not None for p in parts):
            return "+".join(parts)
    close = difflib.get_close_matches(name.lower(), _NAMES.keys(), n=1, cutoff=0.75)
    return _DISPLAY[close[0]] if close else ""


def _unknown_error(name: str, text: str) -> UnknownKeyError:
    where = "" if name == text else f" in {_q(text)}"
    guess = _suggest(name)
    hint = f" (did you mean {guess}?)" if guess else ""
    return UnknownKeyError(f"Unknown key {_q(name)}{where}{hint}. {_SYNTAX_HINT}", name=name, text=text)


# --------------------------------------------------------------------------- parsing


def _lookup(name: str) -> KeyDef | None:
    if len(name) == 1:
        kd = _CHARS.get(name)
        if kd is None and name.isprintable():
            # Off-layout character (é, €): §15 "itself"; callers type these with insertText.
            kd = KeyDef(name, "", 0, name, 0)
        return kd
    return _NAMES.get(name.lower())


def resolve_key(name: str) -> KeyDef:
    """One key name or character to its KeyDef; raises UnknownKeyError."""
    if name == "":
        raise _empty_error(name)
    kd = _lookup(name)
    if kd is None:
        raise _unknown_error(name, name)
    return kd


def _shifted(kd: KeyDef) -> KeyDef:
    """The key as produced with Shift held (a -> A, 1 -> !); unchanged when Shift changes nothing."""
    if kd.shift:
        return kd
    phys = _LAYOUT.get(kd.code)
    if phys is None or phys.key != kd.key:
        return kd
    return phys.shifted() or kd


def _split_chord(chord: str) -> list[str]:
    if chord in ("+", " "):
        return [chord]
    if chord.endswith(("++", "+ ")):
        head, tail = chord[:-2], chord[-1]
        if not head:
            raise _chord_error(chord)
        parts = [*head.split("+"), tail]
    else:
        parts = chord.split("+")
    if any(p == "" for p in parts):
        raise _chord_error(chord)
    return parts


def _mask(keys: Iterable[KeyDef]) -> int:
    mask = 0
    for kd in keys:
        mask |= kd.modifier_bit
    return mask


def parse_chord(chord: str, *, implied_shift: bool = True) -> Chord:
    """`ctrl+shift+a` -> (held modifiers, main key).

    The last key is the main key, so a modifier-only chord is allowed (`shift` -> ([], Shift)).
    Shift held turns the main key into its shifted form; with `implied_shift` a key that needs
    Shift (`A`, `!`, `plus`) adds Shift to the modifiers, as xdotool does.
    """
    if chord == "":
        raise _empty_error(chord)
    if " " in chord and chord != " " and not (chord.endswith("+ ") and " " not in chord[:-1]):
        raise UnknownKeyError(
            f"{_q(chord)} is a sequence of keys; give one key or chord here, such as ctrl+a.", text=chord
        )
    names = _split_chord(chord)
    defs: list[KeyDef] = []
    for i, name in enumerate(names):
        kd = _lookup(name)
        if kd is None:
            raise _unknown_error(name, chord)
        if i < len(names) - 1 and not kd.is_modifier:
            raise _not_modifier_error(name, chord)
        defs.append(kd)
    main = defs[-1]
    mods: list[KeyDef] = []
    for kd in defs[:-1]:
        if kd.code != main.code and all(kd.code != m.code for m in mods):
            mods.append(kd)
    if _mask(mods) & SHIFT:
        main = _shifted(main)
    elif implied_shift and main.shift:
        mods.append(_SHIFT_KEY)
    return mods, main


def parse_modifiers(text: str) -> list[KeyDef]:
    """A modifiers-only chord such as `ctrl+shift` (click modifiers); blank means none."""
    if text.strip() == "":
        return []
    names = [part.strip() for part in text.split("+")]
    if any(n == "" for n in names):
        raise _chord_error(text)
    out: list[KeyDef] = []
    for name in names:
        kd = _lookup(name)
        if kd is None:
            raise _unknown_error(name, text)
        if not kd.is_modifier:
            raise UnknownKeyError(
                "modifiers takes modifier keys only, such as shift or ctrl+shift.", name=name, text=text
            )
        if all(kd.code != m.code for m in out):
            out.append(kd)
    return out


def modifiers_mask(mods: str | Iterable[KeyDef | str]) -> int:
    """CDP modifier bitmask (Alt=1, Ctrl=2, Meta=4, Shift=8) of modifier keys or a `ctrl+shift` text."""
    keys = parse_modifiers(mods) if isinstance(mods, str) else [_as_key(m) for m in mods]
    for kd in keys:
        if not kd.is_modifier:
            raise UnknownKeyError(
                "modifiers takes modifier keys only, such as shift or ctrl+shift.", name=kd.key
            )
    return _mask(keys)


def _as_key(k: KeyDef | str) -> KeyDef:
    return k if isinstance(k, KeyDef) else resolve_key(k)


def split_sequence(seq: str) -> list[str]:
    """Split a space-separated key sequence into chord texts (see the module doc for spaces)."""
    if seq == "":
        raise _empty_error(seq)
    if seq.strip(" ") == "":
        return [" "] * len(seq)
    parts = seq.split(" ")
    chords: list[str] = []
    i = 0
    while i < len(parts):
        part = parts[i]
        # "ctrl+ " arrives as ["ctrl+", ""]: the space after a dangling + is the Space key.
        dangling = part.endswith("+") and not part.endswith("++") and part != "+"
        if dangling and i + 1 < len(parts) and parts[i + 1] == "":
            chords.append(part + " ")
            i += 2
            continue
        if part:
            chords.append(part)
        i += 1
    return chords


def parse_sequence(seq: str, *, implied_shift: bool = True) -> list[Chord]:
    """`ctrl+a Delete Return` -> one (modifiers, key) per chord; validates the whole text first."""
    return [parse_chord(c, implied_shift=implied_shift) for c in split_sequence(seq)]


# --------------------------------------------------------------------------- events


def _event(
    type_: str, kd: KeyDef, modifiers: int, *, text: bool = False, commands: tuple[str, ...] = ()
) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": type_, "modifiers": modifiers, "key": kd.key}
    if kd.code:
        ev["code"] = kd.code
    if kd.key_code:
        ev["windowsVirtualKeyCode"] = kd.key_code
        ev["nativeVirtualKeyCode"] = kd.key_code
    if text:
        ev["text"] = kd.text
        ev["unmodifiedText"] = kd.text
    if kd.location:
        ev["location"] = kd.location
    if kd.location == _KEYPAD:
        # CDP `location` is a left/right bitmask; only isKeypad gives DOM location 3.
        ev["isKeypad"] = True
    if commands:
        ev["commands"] = list(commands)
    return ev


def _down_events(mods: list[KeyDef], main: KeyDef) -> list[dict[str, Any]]:
    events = []
    held: list[KeyDef] = []
    for kd in mods:
        held.append(kd)
        events.append(_event("rawKeyDown", kd, _mask(held)))
    mods_mask = _mask(held)
    held.append(main)
    mask = _mask(held)
    with_text = bool(main.text) and not mask & _NON_SHIFT_MODIFIERS
    commands = EDITING_COMMANDS.get((mods_mask, main.code), ())
    events.append(
        _event("keyDown" if with_text else "rawKeyDown", main, mask, text=with_text, commands=commands)
    )
    return events


def _up_events(mods: list[KeyDef], main: KeyDef) -> list[dict[str, Any]]:
    held = list(mods)
    events = [_event("keyUp", main, _mask(held))]
    while held:
        kd = held.pop()
        events.append(_event("keyUp", kd, _mask(held)))
    return events


def key_down_events(chord: str, *, implied_shift: bool = True) -> list[dict[str, Any]]:
    """Press and hold a chord (hold_key): keyDown for each modifier, then the main key."""
    return _down_events(*parse_chord(chord, implied_shift=implied_shift))


def key_up_events(chord: str, *, implied_shift: bool = True) -> list[dict[str, Any]]:
    """Release a chord pressed with key_down_events: main key first, modifiers in reverse."""
    return _up_events(*parse_chord(chord, implied_shift=implied_shift))


def chord_events(chord: str, *, implied_shift: bool = True) -> list[dict[str, Any]]:
    """All `Input.dispatchKeyEvent` params to press and release one chord, in order.

    The main key's keyDown carries `text` only when it produces text and no Ctrl/Alt/Meta is
    held (so ctrl+a selects instead of typing), and `commands` for editing shortcuts.
    """
    mods, main = parse_chord(chord, implied_shift=implied_shift)
    return _down_events(mods, main) + _up_events(mods, main)


def sequence_events(seq: str, repeat: int = 1, *, implied_shift: bool = True) -> list[dict[str, Any]]:
    """Events for the `key` member: every chord of `seq` in turn, the whole sequence `repeat` times."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    chords = parse_sequence(seq, implied_shift=implied_shift)
    events: list[dict[str, Any]] = []
    for _ in range(repeat):
        for mods, main in chords:
            events += _down_events(mods, main)
            events += _up_events(mods, main)
    return events


def is_on_layout(ch: str) -> bool:
    """True when `ch` can be typed as key events; other characters go through Input.insertText."""
    return len(ch) == 1 and ch in _CHARS


def text_events(ch: str) -> list[dict[str, Any]]:
    """Type one layout character: keyDown (with text) and keyUp, Shift in `modifiers` when needed.

    No separate Shift key events: typing stays at two round trips a character.
    `\\n`/`\\r` press Enter, `\\t` presses Tab.
    """
    kd = _CHARS.get(ch) if len(ch) == 1 else None
    if kd is None:
        raise UnknownKeyError(
            f"{_q(ch)} is not on the US keyboard layout; send it with Input.insertText.", name=ch, text=ch
        )
    mask = SHIFT if kd.shift else 0
    down = _event("keyDown", kd, mask, text=True) if kd.text else _event("rawKeyDown", kd, mask)
    return [down, _event("keyUp", kd, mask)]
