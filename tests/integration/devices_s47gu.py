"""A device plugin for test_cluster_give_up_s47gu.py (kinds ``stuck`` and ``blind``, web
devices in memory, as the ``fake`` kind of tests/support/devices.py):

    - ``stuck``: ``javascript: farm-test:stuck`` blocks through kill() (a driver call kill()
      does not reach) until the process ends (at most 600 s): farm gives the device up
    - ``blind``: every screenshot() raises DeviceError (its camera is off): the report has no
      images, the case passes
"""

from __future__ import annotations

import threading
from typing import Any

from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind
from farm.errors import DeviceError

STUCK = "farm-test:stuck"
NEVER = threading.Event()       # (never set: the call ends with its process)


def farm_device_kinds() -> dict[str, DeviceKind]:
    return {"stuck": DeviceKind(platform="web", build=StuckDevice),
            "blind": DeviceKind(platform="web", build=BlindDevice)}


class StuckDevice(FakeDevice):
    def __init__(self, name: str, settings: Settings, index: int) -> None:
        super().__init__(name=name, platform="web", scripts={STUCK: self._stuck})

    def _stuck(self, _device: Any) -> None:
        NEVER.wait(600)


class BlindDevice(FakeDevice):
    def __init__(self, name: str, settings: Settings, index: int) -> None:
        super().__init__(name=name, platform="web")

    def screenshot(self) -> bytes:
        raise DeviceError(f"{self.name}: the camera is off")
