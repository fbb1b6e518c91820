"""Device specs (``browser:2``) → Device objects for one run.

Each device kind lives in its own module; this is the one place that maps kinds to them.
"""

from __future__ import annotations

from farm.config import Settings
from farm.devices.base import Device
from farm.errors import ConfigError
from farm.schedule import DeviceSpec


def make_devices(specs: list[DeviceSpec], settings: Settings) -> list[Device]:
    devices: list[Device] = []
    for spec in specs:
        if spec.kind == "browser":
            from farm.devices.browser import BrowserDevice
            from farm.devices.chromium import find_chromium
            chromium = find_chromium(settings)
            if chromium is None:
                raise ConfigError("no Chromium found: install Debian's chromium "
                                  "(apt-get install chromium) or set FARM_CHROMIUM_PATH")
            start = sum(1 for d in devices if d.platform == "web")
            devices += [BrowserDevice(f"browser-{start + i + 1}", settings, chromium)
                        for i in range(spec.count)]
        else:
            raise ConfigError(f"device kind {spec.kind!r} is not available in this version "
                              "of farm (browser only)")
    return devices
