"""A Midscene case pinned with `deviceId: emulator-5554` runs on the simulated phone that is
emulator-5554 (`--devices android-sim:1` names it android-sim-1): the run was refused with
"its android devices are android-sim-1", though that phone is emulator-5554. A pin the run
did not take lists each device with the names a pin may give it."""

from __future__ import annotations

import pytest

from farm.devices.android import AndroidDevice
from farm.devices.ios import IosDevice
from farm.devices.specs import check_pins
from farm.errors import ConfigError


def test_an_android_sim_answers_to_its_serial():
    sims = [AndroidDevice(f"android-sim-{i + 1}", None, f"emulator-555{4 + 2 * i}")
            for i in range(2)]
    check_pins({"c.yaml": ("android", "emulator-5556")}, sims)       # no error
    assert AndroidDevice("emulator-5554", None, "emulator-5554").aliases == ()


def test_a_pin_the_run_did_not_take_lists_the_devices_with_their_other_names():
    devices = [AndroidDevice("android-sim-1", None, "emulator-5554"),
               IosDevice("iphone-1", None, "http://10.0.0.5:8100")]
    with pytest.raises(ConfigError) as refused:
        check_pins({"c.yaml": ("android", "emulator-5558")}, devices)
    assert "this run's android devices are android-sim-1 (emulator-5554) " in str(refused.value)
    with pytest.raises(ConfigError) as refused:
        check_pins({"c.yaml": ("ios", "10.0.0.5:8101")}, devices)
    assert "ios devices are iphone-1 (10.0.0.5:8100)" in str(refused.value)     # (its other name)
