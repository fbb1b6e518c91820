"""FARM_CHROMIUM_PATH naming a program that is no Chromium (a wrapper script, /bin/true): the
device's failure to start says that program names no Chromium version, not only Playwright's
"Target page, context or browser has been closed", which reads as a browser that crashed.
A real Playwright launch of the program."""

from __future__ import annotations

import pytest

from farm.config import Settings
from farm.devices.browser import BrowserDevice
from farm.errors import DeviceError


def test_a_program_that_is_no_chromium_is_said_so() -> None:
    device = BrowserDevice("itest-not-chromium", Settings(chromium_path="/bin/true"))
    with pytest.raises(DeviceError) as failed:
        device.open()
    assert str(failed.value).startswith("cannot launch Chromium /bin/true for "
                                        "itest-not-chromium: "), failed.value
    assert str(failed.value).endswith(" (/bin/true --version names no Chromium version: is "
                                      "it Chromium?)"), failed.value
