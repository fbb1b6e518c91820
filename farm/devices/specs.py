"""Device specs (``browser:2``, ``android:1``, ``ios-sim:2``) and the one factory of devices.

`farm run` (local devices) and `farm worker` (one device per process) both build devices here.
Built-in kinds: ``browser`` (Debian's Chromium through Playwright), ``android`` (phones on the
adb server, honouring ANDROID_SERIAL), ``ios`` (WDA endpoints in FARM_IOS_WDA_URLS), and
``android-sim`` / ``ios-sim`` (simulators a local run starts through its `SimFleet`).

More kinds come from *device plugins*: modules named in ``FARM_DEVICE_PLUGINS`` (comma-separated)
that define ``farm_device_kinds() -> dict[str, DeviceKind]``. A plugin kind works in
``farm run --devices KIND:N`` and ``farm worker --devices KIND:N`` alike.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from farm.config import Settings
from farm.devices.base import Device
from farm.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from farm.devices.sim.fleet import SimFleet

# Built-in kind → platform it serves.
BUILTIN_KINDS = {"browser": "web", "android": "android", "android-sim": "android",
                 "ios": "ios", "ios-sim": "ios"}

SIM_KINDS = ("android-sim", "ios-sim")     # simulators a local run starts (`SimFleet`)

_SPEC = re.compile(r"^\s*([a-z][a-z0-9_-]*)\s*(?::\s*(\d+))?\s*$", re.I)   # Browser:1 too


@dataclass(frozen=True)
class DeviceKind:
    """A plugin's device kind: its platform and how to build its ``index``-th device."""

    platform: str
    build: Callable[[str, Settings, int], Device]      # (name, settings, index) -> Device


@dataclass(frozen=True)
class DeviceSpec:
    kind: str
    count: int
    platform: str


def plugin_kinds(settings: Settings) -> dict[str, DeviceKind]:
    """Kinds the configured device plugins add (a broken plugin is a configuration error)."""
    kinds: dict[str, DeviceKind] = {}
    for module in settings.device_plugins:
        try:
            found = importlib.import_module(module).farm_device_kinds()
        except Exception as exc:
            raise ConfigError(f"device plugin {module!r} (FARM_DEVICE_PLUGINS): {exc}") from None
        kinds.update(found)
    return kinds


def known_kinds(settings: Settings) -> dict[str, str]:
    """Every usable kind → its platform."""
    plugins = plugin_kinds(settings) if settings.device_plugins else {}
    return {**BUILTIN_KINDS, **{k: v.platform for k, v in plugins.items()}}


def parse_device_specs(text: str, settings: Settings | None = None) -> list[DeviceSpec]:
    """``"browser:2,android:1"`` → specs. A missing count means 1; a kind given twice is
    refused (which count was meant?), and so is an empty spec or item (``browser:1,,``: a
    kind left out?)."""
    if not text.strip():
        raise ConfigError(f"--devices {text!r}: no devices given: use e.g. --devices browser:2")
    kinds = known_kinds(settings) if settings is not None else BUILTIN_KINDS
    specs: list[DeviceSpec] = []
    given: dict[str, tuple[str, int]] = {}      # kind → (as written, count)
    for part in text.split(","):
        if not part.strip():
            raise ConfigError(f"--devices {text!r}: an empty item between commas: write "
                              "KIND[:COUNT] items joined by commas, e.g. browser:2,android:1")
        m = _SPEC.match(part)
        if not m:
            raise ConfigError(f"bad device spec {part.strip()!r}: expected KIND[:COUNT], "
                              f"e.g. browser:2")
        kind, count = m.group(1).lower(), int(m.group(2) or 1)
        if kind not in kinds:
            raise ConfigError(f"unknown device kind {kind!r}: expected one of "
                              + ", ".join(kinds))
        if count < 1:
            raise ConfigError(f"device count must be at least 1 in {part.strip()!r}")
        if kind in given:
            first, before = given[kind]
            raise ConfigError(f"device kind {kind!r} is given twice ({first} and "
                              f"{part.strip()}): give it once with the number of devices "
                              f"wanted, e.g. {kind}:{before + count}")
        given[kind] = (part.strip(), count)
        specs.append(DeviceSpec(kind, count, kinds[kind]))
    return specs


NO_CHROMIUM = ("no Chromium found: install Debian's chromium (apt-get install chromium) or set "
               "FARM_CHROMIUM_PATH")


def check_browser(specs: list[DeviceSpec], settings: Settings) -> None:
    """A browser device (or a simulator's screen) needs a Chromium: a FARM_CHROMIUM_PATH that
    is not one, or none at all, is a ConfigError said before the run starts anything (not
    after a run of cases that all ended "not run")."""
    kinds = {s.kind for s in specs}
    if "browser" not in kinds and not (settings.chromium_path and kinds & set(SIM_KINDS)):
        return
    from farm.devices.chromium import find_chromium
    if find_chromium(settings) is None and "browser" in kinds:
        raise ConfigError(NO_CHROMIUM)


def check_pins(pins: dict[str, tuple[str, str]], devices: list[Device]) -> None:
    """Cases pinned (Midscene ``deviceId``, ``wdaHost``/``wdaPort``) to a device the run did
    not take can never run: a ConfigError naming the first, the run's devices of its platform
    and how to take the device. ``pins``: the pinned case's file → (platform, pin)."""
    for where, (platform, pin) in pins.items():
        mine = [d for d in devices if d.platform == platform]
        if any(pin in (d.name, *getattr(d, "aliases", ())) for d in mine):
            continue
        how = {"android": "ANDROID_SERIAL", "ios": "FARM_IOS_WDA_URLS"}.get(platform)
        raise ConfigError(
            f"{where}: pinned to {pin} (Midscene deviceId / wdaHost:wdaPort), which this run "
            f"did not take: its {platform} devices are "
            f"{', '.join(sorted(d.name for d in mine)) or 'none'}; give --devices "
            f"{platform}:N to take more" + (f", or choose them with {how}" if how else ""))


# ---- discovery --------------------------------------------------------------------------------
def adb_phones() -> list[tuple[str, str]]:
    """(serial, state) of every phone the adb server lists, ready ("device") or not
    ("unauthorized", "offline", ...). Empty when no adb server answers (none is started)."""
    from farm.devices.android import adb_client

    try:
        return [(i.serial, i.state) for i in adb_client(socket_timeout=5).list()]
    except Exception:
        return []


def android_serials(settings: Settings) -> list[str]:
    """Serials of Android devices in state "device" on the adb server (ANDROID_SERIAL: only
    that one). Empty when no adb server answers (none is started)."""
    found = [serial for serial, state in adb_phones() if state == "device"]
    only = settings.android_serial
    return [s for s in found if s == only] if only else found


def android_not_ready(settings: Settings,
                      phones: list[tuple[str, str]] | None = None) -> list[str]:
    """Phones the adb server lists (or ``phones``, as `adb_phones` gives them) that cannot be
    used yet, each with its state and what to do ("R58M12345 (unauthorized: accept the USB
    debugging prompt on the phone)"); ANDROID_SERIAL narrows them as it narrows the ready
    ones. For `farm devices` and the --devices error."""
    from farm.devices.android import adb_state_words

    only = settings.android_serial
    return [f"{serial} ({adb_state_words(state)})"
            for serial, state in (adb_phones() if phones is None else phones)
            if state != "device" and (not only or serial == only)]


def _too_few_android(count: int, settings: Settings, where: str) -> str:
    """Why ``--devices android:COUNT`` cannot be served: the ready phones, the ones that are
    not ready and why, and what ANDROID_SERIAL left out."""
    phones = adb_phones()
    ready = [serial for serial, state in phones if state == "device"]
    only = settings.android_serial
    head = f"--devices android:{count}: "
    if only and only not in {serial for serial, _ in phones}:
        return (head + f"ANDROID_SERIAL={only} names no phone on the adb server {where} (it "
                f"lists {', '.join(s for s, _ in phones) or 'none'}): unset ANDROID_SERIAL, "
                "or set it to one of those")
    if only and only in ready:
        return (head + f"ANDROID_SERIAL={only} limits farm to that one phone: unset it to "
                f"use {count} ({len(ready)} ready on {where}: {', '.join(ready)})")
    usable = [s for s in ready if not only or s == only]
    not_ready = android_not_ready(settings, phones)
    text = (head + f"the adb server {where} has {len(usable)} device(s) ready "
            f"({', '.join(usable) or 'none'})")
    if not_ready:
        text += "; not ready: " + ", ".join(not_ready)
    return text + "; try android-sim for simulated ones"


def ios_urls(settings: Settings) -> list[str]:
    """WDA endpoints configured in FARM_IOS_WDA_URLS (real iPhones, behind iproxy/usbmux)."""
    return list(settings.ios_wda_urls)


def attach_targets(kind: str, count: int, settings: Settings, every: bool = False) -> list[str]:
    """What each of ``count`` devices of ``kind`` attaches to: a distinct adb serial or WDA URL
    for phones (two workers must never drive one phone), nothing for other kinds. ``every``:
    all the phones found (at least ``count``), for `farm worker` to pick the ones no other
    worker drives (worker.main)."""
    if kind in SIM_KINDS:
        raise ConfigError(f"workers attach to running devices: start simulators with "
                          f"`farm sim {kind[:-4]} --count N --app ...` and use "
                          f"--devices {kind[:-4]}:N")
    if kind == "android":
        from farm.devices.android import adb_client, adb_server_answers
        client = adb_client(socket_timeout=5)
        if not adb_server_answers(client):
            raise ConfigError(f"--devices {kind}:{count}: no adb server answers on "
                              f"{client.host}:{client.port} (start one with `adb start-server`"
                              f", or use {kind}-sim for simulated phones)")
        found = android_serials(settings)
        if len(found) < count:
            raise ConfigError(_too_few_android(count, settings, f"{client.host}:{client.port}"))
    elif kind == "ios":
        found = ios_urls(settings)
        if len(found) < count:
            raise ConfigError(f"--devices {kind}:{count}: FARM_IOS_WDA_URLS lists {len(found)} "
                              f"device(s) ready ({', '.join(found) or 'none'}); try {kind}-sim "
                              "for simulated ones")
    else:
        return [""] * count
    return found if every else found[:count]


# ---- construction -----------------------------------------------------------------------------
def build_device(kind: str, name: str, settings: Settings, target: str = "",
                 index: int = 0) -> Device:
    """One device of ``kind`` called ``name``; phones attach to ``target`` (serial / WDA URL)."""
    if kind == "browser":
        from farm.devices.browser import BrowserDevice
        from farm.devices.chromium import find_chromium
        chromium = find_chromium(settings)
        if chromium is None:
            raise ConfigError(NO_CHROMIUM)
        return BrowserDevice(name, settings, chromium)
    if kind == "android":
        from farm.devices.android import AndroidDevice
        return AndroidDevice(name, settings, target)
    if kind == "ios":
        from farm.devices.ios import IosDevice
        return IosDevice(name, settings, target)
    plugins = plugin_kinds(settings)
    if kind in plugins:
        return plugins[kind].build(name, settings, index)
    raise ConfigError(f"{kind} devices are started by `farm run` (or `farm sim`)"
                      if kind in BUILTIN_KINDS else f"unknown device kind {kind!r}")


def make_devices(specs: list[DeviceSpec], settings: Settings,
                 sims: "SimFleet | None" = None) -> list[Device]:
    """The devices of a local run; ``sims`` starts the simulators ``*-sim`` kinds need."""
    devices: list[Device] = []
    for spec in specs:
        taken = sum(1 for d in devices if d.platform == spec.platform)
        if spec.kind in SIM_KINDS:
            if sims is None:
                raise ConfigError(f"{spec.kind} devices are started by `farm run` "
                                  "(or `farm sim`), backed by a suite's apps")
            devices += _simulated(spec, settings, sims, taken)
            continue
        targets = attach_targets(spec.kind, spec.count, settings)
        for i, target in enumerate(targets):
            name = {"android": target, "ios": f"iphone-{taken + i + 1}"}.get(
                spec.kind, f"{spec.kind}-{taken + i + 1}")
            devices.append(build_device(spec.kind, name, settings, target, i))
    return devices


def _simulated(spec: DeviceSpec, settings: Settings, sims: "SimFleet",
               taken: int) -> list[Device]:
    if spec.kind == "android-sim":
        from farm.devices.android import AndroidDevice
        sim = sims.android(spec.count)
        return [AndroidDevice(f"android-sim-{taken + i + 1}", settings, s, host="127.0.0.1",
                              port=sim.port) for i, s in enumerate(sim.serials)]
    from farm.devices.ios import IosDevice
    isim = sims.ios(spec.count)
    return [IosDevice(f"iphone-sim-{taken + i + 1}", settings, u)
            for i, u in enumerate(isim.urls)]
