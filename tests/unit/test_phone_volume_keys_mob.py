"""VolumeUp / VolumeDown, which an iOS case presses, are Android's volume keys too: a suite
for both platforms was refused on Android ("unknown key 'VolumeUp' on Android")."""

from __future__ import annotations

import pytest

from farm.devices.keys import android_keycode, unknown_key


@pytest.mark.parametrize("key, code", [("VolumeUp", 24), ("volume_down", 25),
                                       ("Volume Up", 24)])
def test_the_volume_keys_are_androids_as_ios_names_them(key, code):
    assert android_keycode(key) == code
    assert unknown_key(key, "android") is None and unknown_key("VolumeUp", "ios") is None
