"""A phone lost while its UI tree was read says so: `android-sim-1 lost (uiautomator dump)`,
not `lost (rm)` (the first word of the command line that removes the old dump first)."""

from __future__ import annotations

import pytest
from adbutils.errors import AdbError

from farm.devices.android import AndroidDevice
from farm.errors import DeviceLost


class _Gone:
    def get_features(self) -> str:
        return "shell_v2,cmd"

    def shell2(self, *args, **kw):
        raise AdbError("Unknown data: b''")


def test_a_phone_lost_reading_its_tree_names_the_dump():
    phone = AndroidDevice("android-sim-1", None, "emulator-5554")
    phone._dev = _Gone()
    with pytest.raises(DeviceLost) as lost:
        phone._dump()
    assert str(lost.value) == ("android-sim-1 lost (uiautomator dump): the adb server closed "
                               "the connection without answering")
