"""`aiKeyboardPress: Space` in an iOS case was refused at load with "did you mean 'backspace'?"
(following it deletes a character instead of typing a space). iOS types it into the focused
field, as Android presses KEYCODE_SPACE."""

from __future__ import annotations

from farm.devices.keys import IOS_TYPED, unknown_key
from tests.unit.test_midscene_yaml_s41 import _steps


def test_space_loads_on_ios_and_is_typed_as_a_space(tmp_path) -> None:
    [step] = _steps(tmp_path, "      - aiKeyboardPress: Space\n", platform="ios")
    assert step.kind == "aiKeyboardPress"
    assert unknown_key("Space", "ios") is None
    assert IOS_TYPED["space"] == " "
