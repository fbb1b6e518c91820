"""Key names: what suites write ("enter", "Page Down", "ctrl+a") to what each platform's device
presses (Playwright's names, Android keycodes, iOS keys), and what the suite loader checks
a step's key against."""

from __future__ import annotations

import re

_KEYS = {
    "enter": "Enter", "return": "Enter", "esc": "Escape", "escape": "Escape", "tab": "Tab",
    "backspace": "Backspace", "delete": "Delete", "del": "Delete", "space": "Space",
    "spacebar": "Space", "insert": "Insert", "home": "Home", "end": "End",
    "pageup": "PageUp", "pgup": "PageUp", "pagedown": "PageDown", "pgdn": "PageDown",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
    "arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight", "ctrl": "Control", "control": "Control", "shift": "Shift",
    "alt": "Alt", "option": "Alt", "meta": "Meta", "cmd": "Meta", "command": "Meta",
    "win": "Meta", "capslock": "CapsLock",
}


def normalize_key(key: str) -> str:
    """Map a human key name ("enter", "Page Down", "ctrl+a") to Playwright's key name."""
    key = key.strip()
    if len(key) == 1:
        return key
    parts = key.split("+") if "+" in key[:-1] else [key]
    out = []
    for part in parts:
        p = part.strip()
        compact = re.sub(r"[\s_-]+", "", p).lower()
        if len(p) == 1:
            out.append(p)
        elif compact in _KEYS:
            out.append(_KEYS[compact])
        elif re.fullmatch(r"f\d{1,2}", compact):
            out.append(compact.upper())
        else:
            out.append(p)  # already a Playwright name ("NumpadEnter") or unknown: let it decide
    # "Control+K" is the K key with Control, as a keyboard gives it (event.key "k"): Playwright
    # would send "K", the shifted letter, which a page's `event.key === "k"` shortcut misses
    if len(out) > 1 and "Shift" not in out[:-1] and len(out[-1]) == 1 and out[-1].isupper() \
            and out[-1].isascii():
        out[-1] = out[-1].lower()
    return "+".join(out)


# Playwright's key names, as its Keyboard.press resolves them (playwright-core's
# usKeyboardLayout.ts and input.ts): every key code, the modifiers by name, and the printable
# ASCII characters. Anything else is "Unknown key" at run time.
_PLAYWRIGHT_CODES = """
Escape F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12 Backquote Digit1 Digit2 Digit3 Digit4 Digit5
Digit6 Digit7 Digit8 Digit9 Digit0 Minus Equal Backslash Backspace Tab KeyQ KeyW KeyE KeyR KeyT
KeyY KeyU KeyI KeyO KeyP BracketLeft BracketRight CapsLock KeyA KeyS KeyD KeyF KeyG KeyH KeyJ
KeyK KeyL Semicolon Quote Enter ShiftLeft KeyZ KeyX KeyC KeyV KeyB KeyN KeyM Comma Period Slash
ShiftRight ControlLeft MetaLeft AltLeft Space AltRight AltGraph MetaRight ContextMenu
ControlRight PrintScreen ScrollLock Pause PageUp PageDown Insert Delete Home End ArrowLeft
ArrowUp ArrowRight ArrowDown AudioVolumeMute AudioVolumeDown AudioVolumeUp MediaTrackNext
MediaTrackPrevious MediaPlayPause NumLock NumpadDivide NumpadMultiply NumpadSubtract Numpad7
Numpad8 Numpad9 Numpad4 Numpad5 Numpad6 NumpadAdd Numpad1 Numpad2 Numpad3 Numpad0 NumpadDecimal
NumpadEnter""".split()
PLAYWRIGHT_KEYS = frozenset(_PLAYWRIGHT_CODES) | {
    "Shift", "Control", "Alt", "Meta", "ControlOrMeta", "\n", "\r"} | {
    chr(c) for c in range(0x20, 0x7F)}

# Key names → keycodes, as Midscene's Android pressKey has them: Home is the Home button (3),
# not KEYCODE_MOVE_HOME (122, a text-cursor key; still reachable as "KEYCODE_MOVE_HOME").
ANDROID_KEYCODES = {
    "enter": 66, "return": 66, "tab": 61, "escape": 111, "esc": 111, "backspace": 67,
    "delete": 112, "del": 112, "space": 62, "home": 3, "end": 123, "pageup": 92, "pagedown": 93,
    "arrowup": 19, "up": 19, "arrowdown": 20, "down": 20, "arrowleft": 21, "left": 21,
    "arrowright": 22, "right": 22, "back": 4, "menu": 82, "power": 26, "search": 84,
    # (the names iOS takes: a suite for both platforms presses them on either)
    "volumeup": 24, "volumedown": 25}

# iOS: keys typed as characters into the focused field, and the buttons WebDriverAgent presses.
IOS_TYPED = {"enter": "\n", "return": "\n", "backspace": "\b", "delete": "\b", "tab": "\t",
             "space": " "}
IOS_BUTTONS = ("home", "volumeup", "volumedown")
# ... and the navigation keys an iPhone has a gesture for instead: Back (Android's, a suite
# for both platforms presses it) is the swipe from the screen's left edge, as iOS goes back.
# Not offered for "did you mean" (`key_names`): a near miss of "back" is no navigation.
IOS_GESTURES = ("back",)


def android_keycode(key: str) -> int | str | None:
    """What `adb shell input keyevent` gets for ``key``: a keycode, a KEYCODE_* name as
    written, or None when Android has no such key. A single letter is its letter key
    (KEYCODE_A..Z, 29-54), as Midscene's Android keyboardPress sends it, and a digit its
    digit key (KEYCODE_0..9, 7-16)."""
    one = key.strip()
    if len(one) == 1 and one.isascii() and one.isalnum():
        return 7 + int(one) if one.isdigit() else 29 + ord(one.lower()) - ord("a")
    code = ANDROID_KEYCODES.get(re.sub(r"[\s_-]+", "", key).lower())
    # (a name as KeyEvent has them: anything else went into the shell line as it was, where
    # "KEYCODE_HOME; …" ran on, and a stray "&" or space was the phone's error)
    if code is None and re.fullmatch(r"KEYCODE_[A-Z0-9_]+", one.upper()):
        return one.upper()
    return code


def _playwright_tokens(name: str) -> list[str]:
    """``name`` split at '+' as Playwright's Keyboard.press splits it ("Control++" is
    Control and +)."""
    tokens, building = [], ""
    for char in name:
        if char == "+" and building:
            tokens.append(building)
            building = ""
        else:
            building += char
    return tokens + [building]


def unknown_key(key: str, platform: str) -> str | None:
    """The part of ``key`` that the ``platform``'s device cannot press (the whole key, or one
    part of a web combination like ``Control+Entr``), else None. The devices' own tables:
    what this accepts, their ``press`` presses."""
    if platform == "android":
        return None if android_keycode(key) is not None else key
    if platform == "ios":
        k = key.strip().lower()
        return None if k in IOS_TYPED or k in IOS_BUTTONS or k in IOS_GESTURES else key
    return next((t for t in _playwright_tokens(normalize_key(key))
                 if t not in PLAYWRIGHT_KEYS), None)


def key_names(platform: str) -> list[str]:
    """The key names a ``platform``'s device knows, for "did you mean" (a later name wins
    over an earlier one spelt the same but for case)."""
    if platform == "android":
        return list(ANDROID_KEYCODES)
    if platform == "ios":
        return [*IOS_TYPED, *IOS_BUTTONS]
    return [*_KEYS, *(k for k in _PLAYWRIGHT_CODES if len(k) > 1), "Shift", "Control",
            "Alt", "Meta"]


# Key names in Chinese, as a suite written in Chinese may say them ("aiKeyboardPress: 回车"): not
# pressed as such (a device takes its own names only), but named in the error of one that is
# not a key ("did you mean 'Enter'?"). A trailing 键 ("回车键", "Tab键") is the word "key".
NATIVE_KEY_NAMES = {
    "回车": "Enter", "换行": "Enter", "退格": "Backspace", "删除": "Delete",
    "空格": "Space", "制表": "Tab", "制表符": "Tab", "返回": "Back", "后退": "Back",
    "主页": "Home", "主屏幕": "Home", "首页": "Home", "行首": "Home", "行尾": "End",
    "结尾": "End", "退出": "Escape", "插入": "Insert", "上一页": "PageUp", "下一页": "PageDown",
    "向上翻页": "PageUp", "向下翻页": "PageDown", "上": "ArrowUp", "向上": "ArrowUp",
    "上箭头": "ArrowUp", "方向上": "ArrowUp", "下": "ArrowDown", "向下": "ArrowDown",
    "下箭头": "ArrowDown", "方向下": "ArrowDown", "左": "ArrowLeft", "向左": "ArrowLeft",
    "左箭头": "ArrowLeft", "方向左": "ArrowLeft", "右": "ArrowRight", "向右": "ArrowRight",
    "右箭头": "ArrowRight", "方向右": "ArrowRight", "音量加": "VolumeUp", "音量+": "VolumeUp",
    "音量减": "VolumeDown", "音量-": "VolumeDown", "电源": "Power", "菜单": "Menu",
}


def native_key(key: str, platform: str) -> str | None:
    """The key name a ``platform``'s device knows for ``key`` written in Chinese ("回车",
    "回车键", "Tab键": `NATIVE_KEY_NAMES`), for a "did you mean"; None when there is none
    (返回, Back, on a web page)."""
    word = re.sub(r"\s+", "", key)
    word = word[:-1] if len(word) > 1 and word.endswith("键") else word
    name = NATIVE_KEY_NAMES.get(word) or (word if word.isascii() and word else None)
    if name is None or unknown_key(name, platform) is not None:
        return None
    return normalize_key(name) if platform == "web" else name
