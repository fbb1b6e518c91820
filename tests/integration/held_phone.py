"""A device plugin for tests/integration/test_report_audit_s41.py: kind ``heldphone``, an
Android-platform `FakeDevice` whose ``open()`` never finishes until it is killed (noting
"opening" in ``FARM_TEST_HELD_NOTE`` first). An android case of the run then stays queued
while the web cases run on other devices: the test can kill farm *between* cases (no case in
flight) at a moment it knows, instead of hoping a kill lands there.

    FARM_DEVICE_PLUGINS=tests.support.devices,tests.integration.held_phone \\
        farm run SUITE --devices fake:1,heldphone:1
"""

from __future__ import annotations

import os
from pathlib import Path

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind


def farm_device_kinds() -> dict[str, DeviceKind]:
    return {"heldphone": DeviceKind(platform="android", build=build)}


def build(name: str, settings: Settings, index: int) -> "HeldPhone":
    return HeldPhone(name=name, platform="android")


class HeldPhone(FakeDevice):
    def open(self) -> None:
        note = os.environ.get("FARM_TEST_HELD_NOTE")
        if note:
            Path(note).write_text("opening")
        self._killed.wait(600)      # (an orphan still ends, long after any test gave up)
        super().open()
