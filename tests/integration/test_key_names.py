"""The key names the suite loader accepts for a web case are the ones the browser device
presses: every name of farm's table is pressed in real Chromium, and every name it refuses
fails there as "unknown key" (what a mistyped key did at run time before the loader checked)."""

from __future__ import annotations

import pytest

from farm.devices.browser import BrowserDevice
from farm.devices.keys import _KEYS, PLAYWRIGHT_KEYS, unknown_key
from farm.errors import StepFailed

pytestmark = pytest.mark.integration

# (a key that is only white space is nothing once farm strips it, there and here)
REFUSED = ["Entr", "F13", "Control+Entr", "Ctrl2+A", "é", "Clear", "Page Dwn", " ", "\n"]
COMBOS = ["Control+A", "Meta+a", "ctrl+shift+k", "Shift+Tab", "Control++", "ControlOrMeta+a",
          "Page Down", "page_up", "f5"]


def test_the_loader_accepts_exactly_the_keys_the_browser_presses(page: BrowserDevice) -> None:
    accepted = sorted(k for k in PLAYWRIGHT_KEYS if k.strip()) + list(_KEYS) + COMBOS
    assert all(unknown_key(k, "web") is None for k in accepted)
    assert all(unknown_key(k, "web") is not None for k in REFUSED)
    for key in accepted:
        page.press(key)         # raises StepFailed("unknown key ...") for a name it lacks
    for key in REFUSED:
        with pytest.raises(StepFailed, match="unknown key"):
            page.press(key)


def test_a_shortcut_written_with_a_capital_is_the_key_a_keyboard_sends(page: BrowserDevice
                                                                       ) -> None:
    """`aiKeyboardPress: Control+K` reached the page as Control with "K" (the shifted letter),
    which a page's `event.ctrlKey && event.key === "k"` shortcut (a command palette, a search
    box) never matched; now as a keyboard's Ctrl+K: "k", no Shift."""
    page.run_script("window.seen = []; addEventListener('keydown', (e) => window.seen.push("
                    "[e.key, e.ctrlKey, e.shiftKey]))", 5)
    page.press("Control+K")
    page.press("Control+Shift+K")
    assert page.run_script("window.seen.filter((k) => k[0].length === 1)", 5) == [
        ["k", True, False], ["K", True, True]]
