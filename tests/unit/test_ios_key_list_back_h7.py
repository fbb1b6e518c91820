"""An unknown key on iOS lists the keys an iPhone presses, back (the swipe from the screen's
left edge) among them, so a user who reads the list knows `aiKeyboardPress: Back` works there;
a near miss of back is still not taken for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

HEAD = "ios:\n  launch: com.example.app\ntasks:\n  - name: t\n    flow:\n"


def errors_of(tmp_path: Path, key: str) -> list[str]:
    path = tmp_path / "c.yaml"
    path.write_text(f"{HEAD}      - aiKeyboardPress: {key}\n", encoding="utf-8")
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={})
    return [str(e) for e in info.value.errors]


def test_ios_unknown_key_lists_back_with_what_it_does(tmp_path: Path):
    [err] = errors_of(tmp_path, "Escape")
    assert "c.yaml:6:26: aiKeyboardPress: unknown key 'Escape' on iOS; expected one of " \
           "enter, return, backspace, delete, tab, space, home, volumeup, volumedown, back " \
           "(iOS presses home and the volume keys as buttons, goes back with the swipe from " \
           "the screen's left edge and types the others into the focused field)" in err


def test_a_near_miss_of_back_is_not_suggested_as_back(tmp_path: Path):
    [err] = errors_of(tmp_path, "Bakc")
    assert "did you mean 'back'" not in err.lower() and ", back (" in err


def test_back_itself_loads_on_ios(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text(f"{HEAD}      - aiKeyboardPress: Back\n", encoding="utf-8")
    [case] = [c for s in load_suites([path], env={}) for c in s.cases]
    assert case.tasks[0].steps[0].value == "Back"
