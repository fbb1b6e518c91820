"""Key names: what suites write ("enter", "Page Down", "ctrl+a") to Playwright's names."""

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
    return "+".join(out)
