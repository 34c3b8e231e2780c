"""Unit tests for the keyboard model (no browser): names, chords, sequences, CDP event params."""

from __future__ import annotations

import dataclasses
import re

import pytest

from cdp_engine.core.keys import (
    ALT,
    CONTROL,
    META,
    SHIFT,
    US_LAYOUT,
    KeyDef,
    UnknownKeyError,
    chord_events,
    is_on_layout,
    key_down_events,
    key_up_events,
    modifiers_mask,
    parse_chord,
    parse_modifiers,
    parse_sequence,
    resolve_key,
    sequence_events,
    split_sequence,
    text_events,
)
from cdp_engine.errors import CDPEngineError


def kinds(events: list[dict]) -> list[tuple[str, str, int]]:
    return [(e["type"], e["key"], e["modifiers"]) for e in events]


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "key", "code", "vk"),
    [
        ("ctrl", "Control", "ControlLeft", 17),
        ("CONTROL", "Control", "ControlLeft", 17),
        ("Control_L", "Control", "ControlLeft", 17),
        ("Control_R", "Control", "ControlLeft", 17),  # §15 maps the *_R keysyms to the left key
        ("ctl", "Control", "ControlLeft", 17),
        ("alt", "Alt", "AltLeft", 18),
        ("option", "Alt", "AltLeft", 18),
        ("opt", "Alt", "AltLeft", 18),
        ("Alt_L", "Alt", "AltLeft", 18),
        ("shift", "Shift", "ShiftLeft", 16),
        ("Shift_R", "Shift", "ShiftLeft", 16),
        ("cmd", "Meta", "MetaLeft", 91),
        ("command", "Meta", "MetaLeft", 91),
        ("super", "Meta", "MetaLeft", 91),
        ("Super_L", "Meta", "MetaLeft", 91),
        ("win", "Meta", "MetaLeft", 91),
        ("windows", "Meta", "MetaLeft", 91),
        ("meta", "Meta", "MetaLeft", 91),
        ("Meta_L", "Meta", "MetaLeft", 91),
        ("Return", "Enter", "Enter", 13),
        ("return", "Enter", "Enter", 13),
        ("enter", "Enter", "Enter", 13),
        ("Escape", "Escape", "Escape", 27),
        ("esc", "Escape", "Escape", 27),
        ("Tab", "Tab", "Tab", 9),
        ("BackSpace", "Backspace", "Backspace", 8),
        ("backspace", "Backspace", "Backspace", 8),
        ("Delete", "Delete", "Delete", 46),
        ("del", "Delete", "Delete", 46),
        ("Insert", "Insert", "Insert", 45),
        ("ins", "Insert", "Insert", 45),
        ("space", " ", "Space", 32),
        (" ", " ", "Space", 32),
        ("Home", "Home", "Home", 36),
        ("End", "End", "End", 35),
        ("Page_Up", "PageUp", "PageUp", 33),
        ("pageup", "PageUp", "PageUp", 33),
        ("Prior", "PageUp", "PageUp", 33),
        ("pgup", "PageUp", "PageUp", 33),
        ("Page_Down", "PageDown", "PageDown", 34),
        ("PageDown", "PageDown", "PageDown", 34),
        ("Next", "PageDown", "PageDown", 34),
        ("pgdn", "PageDown", "PageDown", 34),
        ("Up", "ArrowUp", "ArrowUp", 38),
        ("down", "ArrowDown", "ArrowDown", 40),
        ("Left", "ArrowLeft", "ArrowLeft", 37),
        ("right", "ArrowRight", "ArrowRight", 39),
        ("ArrowLeft", "ArrowLeft", "ArrowLeft", 37),
        ("arrowup", "ArrowUp", "ArrowUp", 38),
        ("Caps_Lock", "CapsLock", "CapsLock", 20),
        ("numlock", "NumLock", "NumLock", 144),
        ("Menu", "ContextMenu", "ContextMenu", 93),
        ("PrintScreen", "PrintScreen", "PrintScreen", 44),
        ("F1", "F1", "F1", 112),
        ("f12", "F12", "F12", 123),
        ("F24", "F24", "F24", 135),
    ],
)
def test_named_keys(name: str, key: str, code: str, vk: int) -> None:
    kd = resolve_key(name)
    assert (kd.key, kd.code, kd.key_code) == (key, code, vk)


def test_modifier_locations_and_right_hand_codes() -> None:
    assert resolve_key("ctrl").location == 1
    right = resolve_key("ControlRight")
    assert (right.key, right.code, right.location) == ("Control", "ControlRight", 2)
    assert resolve_key("MetaRight").key_code == 92
    assert resolve_key("ShiftRight").location == 2


@pytest.mark.parametrize(
    ("sym", "ch", "code", "vk"),
    [
        ("minus", "-", "Minus", 189),
        ("equal", "=", "Equal", 187),
        ("bracketleft", "[", "BracketLeft", 219),
        ("bracketright", "]", "BracketRight", 221),
        ("backslash", "\\", "Backslash", 220),
        ("semicolon", ";", "Semicolon", 186),
        ("apostrophe", "'", "Quote", 222),
        ("comma", ",", "Comma", 188),
        ("period", ".", "Period", 190),
        ("slash", "/", "Slash", 191),
        ("grave", "`", "Backquote", 192),
    ],
)
def test_keysym_punctuation(sym: str, ch: str, code: str, vk: int) -> None:
    kd = resolve_key(sym)
    assert (kd.key, kd.code, kd.key_code, kd.text, kd.shift) == (ch, code, vk, ch, False)
    assert resolve_key(ch) == kd


@pytest.mark.parametrize(
    ("sym", "ch", "code"),
    [
        ("exclam", "!", "Digit1"),
        ("at", "@", "Digit2"),
        ("numbersign", "#", "Digit3"),
        ("dollar", "$", "Digit4"),
        ("percent", "%", "Digit5"),
        ("asciicircum", "^", "Digit6"),
        ("ampersand", "&", "Digit7"),
        ("asterisk", "*", "Digit8"),
        ("parenleft", "(", "Digit9"),
        ("parenright", ")", "Digit0"),
        ("underscore", "_", "Minus"),
        ("plus", "+", "Equal"),
        ("braceleft", "{", "BracketLeft"),
        ("braceright", "}", "BracketRight"),
        ("bar", "|", "Backslash"),
        ("colon", ":", "Semicolon"),
        ("quotedbl", '"', "Quote"),
        ("less", "<", "Comma"),
        ("greater", ">", "Period"),
        ("question", "?", "Slash"),
        ("asciitilde", "~", "Backquote"),
    ],
)
def test_keysym_shifted_symbols(sym: str, ch: str, code: str) -> None:
    kd = resolve_key(sym)
    assert (kd.key, kd.code, kd.text, kd.shift) == (ch, code, ch, True)
    assert kd.key_code == US_LAYOUT[code].key_code  # the base key's VK
    assert resolve_key(ch) == kd


def test_numpad_keys() -> None:
    for n in range(10):
        kd = resolve_key(f"KP_{n}")
        assert (kd.key, kd.code, kd.key_code, kd.text, kd.location) == (
            str(n),
            f"Numpad{n}",
            96 + n,
            str(n),
            3,
        )
        assert resolve_key(f"Numpad{n}") == kd
    expected = {
        "KP_Add": ("+", "NumpadAdd", 107),
        "KP_Subtract": ("-", "NumpadSubtract", 109),
        "KP_Multiply": ("*", "NumpadMultiply", 106),
        "KP_Divide": ("/", "NumpadDivide", 111),
        "KP_Decimal": (".", "NumpadDecimal", 110),
    }
    for name, (key, code, vk) in expected.items():
        kd = resolve_key(name)
        assert (kd.key, kd.code, kd.key_code, kd.location, kd.text) == (key, code, vk, 3, key)
    enter = resolve_key("KP_Enter")
    assert (enter.key, enter.code, enter.key_code, enter.text, enter.location) == (
        "Enter",
        "NumpadEnter",
        13,
        "\r",
        3,
    )
    assert resolve_key("KP_Home") == KeyDef("Home", "Numpad7", 36, "", 3)


def test_numpad_events_carry_location_and_keypad_flag() -> None:
    down, up = chord_events("KP_5")
    assert down == {
        "type": "keyDown",
        "modifiers": 0,
        "key": "5",
        "code": "Numpad5",
        "windowsVirtualKeyCode": 101,
        "nativeVirtualKeyCode": 101,
        "text": "5",
        "unmodifiedText": "5",
        "location": 3,
        "isKeypad": True,
    }
    assert up["type"] == "keyUp" and up["location"] == 3 and up["isKeypad"] is True
    assert "text" not in up


def test_single_characters() -> None:
    a = resolve_key("a")
    assert (a.key, a.code, a.key_code, a.text, a.shift) == ("a", "KeyA", 65, "a", False)
    big = resolve_key("A")
    assert (big.key, big.code, big.key_code, big.text, big.shift) == ("A", "KeyA", 65, "A", True)
    assert resolve_key("7") == KeyDef("7", "Digit7", 55, "7", 0)
    assert resolve_key("+").code == "Equal"  # main block, not the numpad
    assert resolve_key("-").code == "Minus"
    assert resolve_key("\n").key == "Enter"
    off = resolve_key("é")
    assert (off.key, off.code, off.key_code, off.text) == ("é", "", 0, "é")


def test_playwright_code_names() -> None:
    assert resolve_key("KeyA") == resolve_key("a")
    assert resolve_key("Digit1") == resolve_key("1")
    assert resolve_key("Backquote") == resolve_key("`")
    mods, main = parse_chord("Control+Shift+KeyA")
    assert [m.key for m in mods] == ["Control", "Shift"]
    assert (main.key, main.code, main.text) == ("A", "KeyA", "A")
    assert parse_chord("ControlOrMeta+a")[0][0].key == "Control"


def test_layout_table_is_consistent() -> None:
    assert all(k.code == code for code, k in US_LAYOUT.items())
    assert all(0 < k.key_code < 256 for k in US_LAYOUT.values())
    assert all(is_on_layout(chr(c)) for c in range(0x20, 0x7F))
    with pytest.raises(TypeError):
        US_LAYOUT["KeyA"] = US_LAYOUT["KeyB"]  # type: ignore[index]


# --------------------------------------------------------------------------- chords


def test_ctrl_a_has_no_text_and_selects_all() -> None:
    assert chord_events("ctrl+a") == [
        {
            "type": "rawKeyDown",
            "modifiers": CONTROL,
            "key": "Control",
            "code": "ControlLeft",
            "windowsVirtualKeyCode": 17,
            "nativeVirtualKeyCode": 17,
            "location": 1,
        },
        {
            "type": "rawKeyDown",
            "modifiers": CONTROL,
            "key": "a",
            "code": "KeyA",
            "windowsVirtualKeyCode": 65,
            "nativeVirtualKeyCode": 65,
            "commands": ["selectAll"],
        },
        {
            "type": "keyUp",
            "modifiers": CONTROL,
            "key": "a",
            "code": "KeyA",
            "windowsVirtualKeyCode": 65,
            "nativeVirtualKeyCode": 65,
        },
        {
            "type": "keyUp",
            "modifiers": 0,
            "key": "Control",
            "code": "ControlLeft",
            "windowsVirtualKeyCode": 17,
            "nativeVirtualKeyCode": 17,
            "location": 1,
        },
    ]


@pytest.mark.parametrize(
    ("chord", "command"),
    [
        ("ctrl+a", "selectAll"),
        ("ctrl+c", "copy"),
        ("ctrl+x", "cut"),
        ("ctrl+v", "paste"),
        ("ctrl+z", "undo"),
        ("ctrl+shift+z", "redo"),
        ("ctrl+Z", "redo"),  # uppercase implies Shift
        ("ctrl+y", "redo"),
    ],
)
def test_editing_commands(chord: str, command: str) -> None:
    main_down = next(e for e in chord_events(chord) if e["type"] != "keyUp" and "Key" in e.get("code", ""))
    assert main_down["commands"] == [command]
    assert "text" not in main_down


def test_no_commands_elsewhere() -> None:
    for chord in ("a", "shift+a", "alt+a", "cmd+a", "ctrl+alt+a", "ctrl+b"):
        assert all("commands" not in e for e in chord_events(chord)), chord


@pytest.mark.parametrize("chord", ["alt+a", "cmd+a", "ctrl+Return", "ctrl+shift+a", "alt+KP_1"])
def test_no_text_under_non_shift_modifiers(chord: str) -> None:
    events = chord_events(chord)
    assert all("text" not in e for e in events)
    assert events[len(events) // 2 - 1]["type"] == "rawKeyDown"


def test_shift_gives_shifted_key_with_text() -> None:
    events = chord_events("shift+a")
    assert kinds(events) == [
        ("rawKeyDown", "Shift", SHIFT),
        ("keyDown", "A", SHIFT),
        ("keyUp", "A", SHIFT),
        ("keyUp", "Shift", 0),
    ]
    assert events[1]["text"] == "A" and events[1]["unmodifiedText"] == "A"
    _, one = parse_chord("shift+1")
    assert (one.key, one.text, one.code) == ("!", "!", "Digit1")
    _, tab = parse_chord("shift+Tab")
    assert tab.key == "Tab" and tab.text == ""
    _, ret = parse_chord("shift+Return")
    assert ret.text == "\r"


def test_uppercase_and_shifted_symbols_imply_shift() -> None:
    assert kinds(chord_events("A")) == [
        ("rawKeyDown", "Shift", SHIFT),
        ("keyDown", "A", SHIFT),
        ("keyUp", "A", SHIFT),
        ("keyUp", "Shift", 0),
    ]
    mods, main = parse_chord("exclam")
    assert [m.key for m in mods] == ["Shift"] and main.key == "!"
    assert parse_chord("shift+A")[0] == [resolve_key("shift")]  # no double Shift


def test_implied_shift_off_is_playwright_style() -> None:
    mods, main = parse_chord("Control+A", implied_shift=False)
    assert [m.key for m in mods] == ["Control"]
    assert main.key == "A"
    events = chord_events("Control+A", implied_shift=False)
    assert kinds(events) == [
        ("rawKeyDown", "Control", CONTROL),
        ("rawKeyDown", "A", CONTROL),
        ("keyUp", "A", CONTROL),
        ("keyUp", "Control", 0),
    ]
    assert events[1]["commands"] == ["selectAll"]
    assert kinds(chord_events("A", implied_shift=False)) == [("keyDown", "A", 0), ("keyUp", "A", 0)]


def test_plain_keys() -> None:
    events = chord_events("Return")
    assert kinds(events) == [("keyDown", "Enter", 0), ("keyUp", "Enter", 0)]
    assert events[0]["text"] == "\r"
    assert kinds(chord_events("Tab")) == [("rawKeyDown", "Tab", 0), ("keyUp", "Tab", 0)]
    assert kinds(chord_events("Escape")) == [("rawKeyDown", "Escape", 0), ("keyUp", "Escape", 0)]
    assert chord_events(" ")[0]["text"] == " "
    assert chord_events("a")[0]["text"] == "a"


def test_plus_and_minus_keys() -> None:
    mods, main = parse_chord("ctrl++")
    assert mods[0].key == "Control" and main.key == "+"
    assert [m.key for m in mods] == ["Control", "Shift"]  # + is Shift+= on a US layout
    assert parse_chord("+")[1].key == "+"
    assert parse_chord("ctrl+-")[1].key == "-"
    assert parse_chord("-") == ([], resolve_key("minus"))
    assert parse_chord("ctrl+shift++")[1].key == "+"
    assert parse_chord("ctrl+plus") == parse_chord("ctrl++")


def test_ctrl_space() -> None:
    mods, main = parse_chord("ctrl+ ")
    assert [m.key for m in mods] == ["Control"] and main.code == "Space"
    assert parse_chord("ctrl+space") == (mods, main)


def test_modifier_only_chords() -> None:
    assert parse_chord("shift") == ([], resolve_key("Shift"))
    assert kinds(chord_events("shift")) == [("rawKeyDown", "Shift", SHIFT), ("keyUp", "Shift", 0)]
    assert kinds(chord_events("ctrl+shift")) == [
        ("rawKeyDown", "Control", CONTROL),
        ("rawKeyDown", "Shift", CONTROL | SHIFT),
        ("keyUp", "Shift", CONTROL),
        ("keyUp", "Control", 0),
    ]


def test_masks_accumulate_and_release_in_reverse() -> None:
    events = chord_events("cmd+alt+shift+p")
    assert kinds(events) == [
        ("rawKeyDown", "Meta", META),
        ("rawKeyDown", "Alt", META | ALT),
        ("rawKeyDown", "Shift", META | ALT | SHIFT),
        ("rawKeyDown", "P", META | ALT | SHIFT),
        ("keyUp", "P", META | ALT | SHIFT),
        ("keyUp", "Shift", META | ALT),
        ("keyUp", "Alt", META),
        ("keyUp", "Meta", 0),
    ]


def test_duplicate_modifiers_collapse() -> None:
    assert parse_chord("ctrl+control+Control_L+a")[0] == [resolve_key("ctrl")]


def test_hold_events_split_the_chord() -> None:
    down = key_down_events("ctrl+shift+a")
    up = key_up_events("ctrl+shift+a")
    assert down + up == chord_events("ctrl+shift+a")
    assert [e["type"] for e in down] == ["rawKeyDown"] * 3
    assert [e["type"] for e in up] == ["keyUp"] * 3
    assert kinds(key_down_events("shift")) == [("rawKeyDown", "Shift", SHIFT)]


def test_modifiers_mask() -> None:
    assert modifiers_mask("ctrl+shift") == CONTROL | SHIFT
    assert modifiers_mask("cmd+alt") == META | ALT
    assert modifiers_mask([resolve_key("alt"), "cmd"]) == ALT | META
    assert modifiers_mask([]) == 0
    assert modifiers_mask("") == 0
    assert modifiers_mask("Control_R+Super_L+Shift_L+option") == 15
    assert parse_modifiers("ctrl + shift") == [resolve_key("ctrl"), resolve_key("shift")]
    with pytest.raises(UnknownKeyError, match="modifier keys only"):
        modifiers_mask("ctrl+a")
    with pytest.raises(UnknownKeyError, match="modifier keys only"):
        modifiers_mask([resolve_key("a")])


# --------------------------------------------------------------------------- sequences


def test_sequences() -> None:
    assert split_sequence("ctrl+a Delete Return") == ["ctrl+a", "Delete", "Return"]
    chords = parse_sequence("ctrl+a Delete Return")
    assert [main.key for _, main in chords] == ["a", "Delete", "Enter"]
    assert split_sequence("Backspace Backspace Delete") == ["Backspace", "Backspace", "Delete"]
    assert split_sequence(" ") == [" "]
    assert split_sequence("   ") == [" ", " ", " "]
    assert split_sequence(" a  b ") == ["a", "b"]
    assert split_sequence("ctrl+ ") == ["ctrl+ "]
    assert split_sequence("ctrl+  a") == ["ctrl+ ", "a"]
    assert split_sequence("ctrl++ a") == ["ctrl++", "a"]
    assert split_sequence("a + b") == ["a", "+", "b"]


def test_sequence_events_and_repeat() -> None:
    once = sequence_events("ctrl+a Delete")
    assert kinds(once) == [
        ("rawKeyDown", "Control", CONTROL),
        ("rawKeyDown", "a", CONTROL),
        ("keyUp", "a", CONTROL),
        ("keyUp", "Control", 0),
        ("rawKeyDown", "Delete", 0),
        ("keyUp", "Delete", 0),
    ]
    assert sequence_events("ctrl+a Delete", repeat=3) == once * 3
    assert len(sequence_events("Backspace", repeat=100)) == 200
    with pytest.raises(ValueError):
        sequence_events("a", repeat=0)


def test_sequence_validates_before_any_event() -> None:
    with pytest.raises(UnknownKeyError, match="Retrun"):
        sequence_events("a b Retrun")


# --------------------------------------------------------------------------- typing


def test_text_events() -> None:
    assert text_events("a") == [
        {
            "type": "keyDown",
            "modifiers": 0,
            "key": "a",
            "code": "KeyA",
            "windowsVirtualKeyCode": 65,
            "nativeVirtualKeyCode": 65,
            "text": "a",
            "unmodifiedText": "a",
        },
        {
            "type": "keyUp",
            "modifiers": 0,
            "key": "a",
            "code": "KeyA",
            "windowsVirtualKeyCode": 65,
            "nativeVirtualKeyCode": 65,
        },
    ]
    assert kinds(text_events("A")) == [("keyDown", "A", SHIFT), ("keyUp", "A", SHIFT)]
    assert kinds(text_events("?")) == [("keyDown", "?", SHIFT), ("keyUp", "?", SHIFT)]
    enter = text_events("\n")
    assert enter[0]["key"] == "Enter" and enter[0]["text"] == "\r"
    assert kinds(text_events("\t")) == [("rawKeyDown", "Tab", 0), ("keyUp", "Tab", 0)]
    assert text_events(" ")[0]["code"] == "Space"


def test_is_on_layout() -> None:
    for ch in "aZ09 !~\n\t":
        assert is_on_layout(ch), ch
    for ch in ("é", "€", "日", "😀", "ab", ""):
        assert not is_on_layout(ch), ch
    with pytest.raises(UnknownKeyError, match="insertText"):
        text_events("é")


# --------------------------------------------------------------------------- errors


def test_unknown_key_message() -> None:
    with pytest.raises(UnknownKeyError) as info:
        chord_events("ctrl+Retrun")
    msg = str(info.value)
    assert msg.startswith("Unknown key 'Retrun' in 'ctrl+Retrun' (did you mean Return?).")
    assert "Page_Down" in msg and "KP_0" in msg
    assert info.value.name == "Retrun" and info.value.text == "ctrl+Retrun"
    assert isinstance(info.value, ValueError) and isinstance(info.value, CDPEngineError)


def test_unknown_key_without_guess() -> None:
    with pytest.raises(UnknownKeyError) as info:
        resolve_key("Xyzzyq")
    assert str(info.value).startswith("Unknown key 'Xyzzyq'. Use names like Return")


def test_dash_chord_suggests_plus() -> None:
    with pytest.raises(UnknownKeyError, match=r"did you mean ctrl\+a\?"):
        chord_events("ctrl-a")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "No key was given"),
        ("ctrl+", "Could not read the key chord 'ctrl+'"),
        ("ctrl++a", "Could not read the key chord"),
        ("++", "Could not read the key chord"),
        ("a+ctrl", "'a' is not a modifier"),
        ("ctrl+a+b", "'a' is not a modifier"),
        ("ctrl+a Delete", "is a sequence of keys"),
        ("\x00", "Unknown key"),
    ],
)
def test_syntax_errors(text: str, fragment: str) -> None:
    with pytest.raises(UnknownKeyError, match=re.escape(fragment)):
        chord_events(text)


def test_error_echo_is_bounded() -> None:
    with pytest.raises(UnknownKeyError) as info:
        resolve_key("x" * 500)
    assert len(str(info.value)) < 200


def test_empty_sequence() -> None:
    with pytest.raises(UnknownKeyError, match="No key was given"):
        sequence_events("")


# --------------------------------------------------------------------------- purity


def test_repeat_safe_purity() -> None:
    first = chord_events("ctrl+a")
    first[1]["commands"].append("paste")
    first[0]["modifiers"] = 99
    first.clear()
    again = chord_events("ctrl+a")
    assert again[1]["commands"] == ["selectAll"]
    assert again[0]["modifiers"] == CONTROL
    assert chord_events("ctrl+a") == again
    assert again[1] is not chord_events("ctrl+a")[1]
    seq = sequence_events("shift+Tab", repeat=2)
    assert seq[0] == seq[4] and seq[0] is not seq[4]


def test_keydef_is_frozen() -> None:
    kd = resolve_key("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        kd.key = "b"  # type: ignore[misc]
    assert resolve_key("a") == KeyDef("a", "KeyA", 65, "a", 0)
