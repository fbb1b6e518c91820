"""Device specs (``browser:2``, ``android:1``, ``ios-sim:2``) → Device objects for one run.

Each device kind lives in its own module; this is the one place that maps kinds to them.
``android``/``ios`` use devices found (adb server at ANDROID_ADB_SERVER_HOST/PORT, honouring
ANDROID_SERIAL; WDA endpoints from FARM_IOS_WDA_URLS, comma-separated); ``*-sim`` kinds start
simulators through the run's `SimFleet`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from farm.config import Settings
from farm.devices.base import Device
from farm.errors import ConfigError
from farm.schedule import DeviceSpec

if TYPE_CHECKING:  # pragma: no cover
    from farm.devices.sim.fleet import SimFleet


def android_serials() -> list[str]:
    """Serials of Android devices in state "device" on the adb server (ANDROID_SERIAL: only
    that one). Empty when no adb server answers."""
    import adbutils

    try:
        found = [i.serial for i in adbutils.AdbClient(socket_timeout=5).list()
                 if i.state == "device"]
    except Exception:
        return []
    only = os.environ.get("ANDROID_SERIAL")
    return [s for s in found if s == only] if only else found


def ios_urls() -> list[str]:
    """WDA endpoints configured in FARM_IOS_WDA_URLS (real iPhones, behind iproxy/usbmux)."""
    raw = os.environ.get("FARM_IOS_WDA_URLS", "")
    return [u.strip() for u in raw.split(",") if u.strip()]


def make_devices(specs: list[DeviceSpec], settings: Settings,
                 sims: "SimFleet | None" = None) -> list[Device]:
    """Devices for ``specs``; ``sims`` starts the simulators ``*-sim`` kinds need."""
    devices: list[Device] = []

    def taken(platform: str) -> int:
        return sum(1 for d in devices if d.platform == platform)

    for spec in specs:
        if spec.kind == "browser":
            from farm.devices.browser import BrowserDevice
            from farm.devices.chromium import find_chromium
            chromium = find_chromium(settings)
            if chromium is None:
                raise ConfigError("no Chromium found: install Debian's chromium "
                                  "(apt-get install chromium) or set FARM_CHROMIUM_PATH")
            start = taken("web")
            devices += [BrowserDevice(f"browser-{start + i + 1}", settings, chromium)
                        for i in range(spec.count)]
        elif spec.kind == "android":
            from farm.devices.android import AndroidDevice
            serials = android_serials()
            if len(serials) < spec.count:
                raise ConfigError(f"--devices android:{spec.count}: the adb server has "
                                  f"{len(serials)} device(s) ready ({', '.join(serials) or 'none'}"
                                  "); try android-sim for simulated ones")
            devices += [AndroidDevice(s, settings, s) for s in serials[:spec.count]]
        elif spec.kind == "ios":
            from farm.devices.ios import IosDevice
            urls = ios_urls()
            if len(urls) < spec.count:
                raise ConfigError(f"--devices ios:{spec.count}: FARM_IOS_WDA_URLS lists "
                                  f"{len(urls)} WebDriverAgent endpoint(s); try ios-sim")
            start = taken("ios")
            devices += [IosDevice(f"iphone-{start + i + 1}", settings, u)
                        for i, u in enumerate(urls[:spec.count])]
        elif spec.kind in ("android-sim", "ios-sim"):
            if sims is None:
                raise ConfigError(f"{spec.kind} devices are started by `farm run` "
                                  "(or `farm sim`), backed by a suite's apps")
            devices += _simulated(spec, settings, sims, taken)
        else:
            raise ConfigError(f"unknown device kind {spec.kind!r}")
    return devices


def _simulated(spec: DeviceSpec, settings: Settings, sims: "SimFleet",
               taken) -> list[Device]:
    if spec.kind == "android-sim":
        from farm.devices.android import AndroidDevice
        sim = sims.android(spec.count)
        start = taken("android")
        return [AndroidDevice(f"android-sim-{start + i + 1}", settings, s, host="127.0.0.1",
                              port=sim.port) for i, s in enumerate(sim.serials)]
    from farm.devices.ios import IosDevice
    isim = sims.ios(spec.count)
    start = taken("ios")
    return [IosDevice(f"iphone-sim-{start + i + 1}", settings, u)
            for i, u in enumerate(isim.urls)]
