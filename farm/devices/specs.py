"""Device specs (``browser:2``, ``android:1``, ``ios-sim:2``) and the one factory of devices.

`farm run` (local devices) and `farm worker` (one device per process) both build devices here.
Built-in kinds: ``browser`` (Debian's Chromium through Playwright), ``android`` (phones on the
adb server, honouring ANDROID_SERIAL), ``ios`` (WDA endpoints in FARM_IOS_WDA_URLS), and
``android-sim`` / ``ios-sim`` (simulators a local run starts through its `SimFleet`).

More kinds come from *device plugins*: modules named in ``FARM_DEVICE_PLUGINS`` (comma-separated)
that define ``farm_device_kinds() -> dict[str, DeviceKind]``. A plugin kind works in
``farm run --devices KIND:N`` and ``farm worker --devices KIND:N`` alike. A plugin may say
which version of this contract it is written for (``FARM_DEVICE_API = 1``): a farm that
does not know that version refuses it, saying so, rather than drive it wrong.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable

from farm.config import Settings
from farm.devices.base import (DEVICE_METHODS, Device, PluginDevice, error_words, raised_at,
                               source_place)
from farm.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from farm.devices.sim.fleet import SimFleet

# Built-in kind → platform it serves.
BUILTIN_KINDS = {"browser": "web", "android": "android", "android-sim": "android",
                 "ios": "ios", "ios-sim": "ios"}

SIM_KINDS = ("android-sim", "ios-sim")     # simulators a local run starts (`SimFleet`)
PHONE_PROBE_S = 5.0  # how long a listed phone's shell has to answer as a run takes it
WDA_PROBE_S = 3.0    # how long a listed WebDriverAgent has to answer /status before a run

_SPEC = re.compile(r"^\s*([a-z][a-z0-9_-]*)\s*(?::\s*([-+]?\d+))?\s*$", re.I)   # Browser:1 too


@dataclass(frozen=True)
class DeviceKind:
    """A plugin's device kind: the platform whose cases it runs ("web", "android" or "ios":
    a case's ``web:`` / ``android:`` / ``ios:`` section) and how to build its ``index``-th
    device. ``build`` only makes the object (it connects to nothing: ``open()`` does, where a
    failure takes only that device out of the run). ``open_timeout``: seconds ``open()`` may
    take before farm calls ``kill()`` and counts the device lost."""

    platform: str
    build: Callable[[str, Settings, int], Device]      # (name, settings, index) -> Device
    open_timeout: float = 300.0


@dataclass(frozen=True)
class DeviceSpec:
    kind: str
    count: int
    platform: str
    serials: tuple[str, ...] = ()   # android:SERIAL items: these phones, no others

    def written(self, cap: int | None = None) -> str:
        """As --devices writes it (at most ``cap`` devices): ``android:2`` or
        ``android:emulator-5554,android:emulator-5556``."""
        if self.serials:
            return ",".join(f"{self.kind}:{s}" for s in self.serials[:cap])
        return f"{self.kind}:{self.count if cap is None else min(self.count, cap)}"


_NAMED = re.compile(r"^\s*(android)\s*:\s*(\S*[^\s\d+-]\S*)\s*$", re.I)   # android:SERIAL


PLATFORMS = ("web", "android", "ios")
ENTRY = "farm_device_kinds"
API = "FARM_DEVICE_API"
DEVICE_API = 1          # the version of the device plugin contract this farm speaks
_KIND_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
CONTRACT = ("a device plugin module defines farm_device_kinds() returning {kind: "
            "farm.devices.specs.DeviceKind(platform, build)}, e.g. {'tv': DeviceKind('android', "
            "TvDevice)}")


def plugin_kinds(settings: Settings) -> dict[str, DeviceKind]:
    """Kinds the configured device plugins add (a broken plugin is a configuration error)."""
    return {kind: found for kind, (_, found) in _plugins(settings).items()}


def plugin_modules(settings: Settings) -> dict[str, tuple[str, DeviceKind]]:
    """kind → (the plugin module adding it, its DeviceKind), for `farm devices`."""
    return _plugins(settings)


def _plugins(settings: Settings) -> dict[str, tuple[str, DeviceKind]]:
    """kind → (the plugin module adding it, its DeviceKind). A kind given by two plugins, or
    by a plugin and farm, is refused: which one was meant?"""
    kinds: dict[str, tuple[str, DeviceKind]] = {}
    for module in settings.device_plugins:
        for kind, found in _plugin_kinds_of(module).items():
            where = f"device plugin {module!r} (FARM_DEVICE_PLUGINS)"
            if kind in BUILTIN_KINDS:
                raise ConfigError(f"{where}: its kind {kind!r} is one of farm's own "
                                  f"({', '.join(BUILTIN_KINDS)}): give it another name")
            if kind in kinds and kinds[kind][0] != module:
                raise ConfigError(f"{where}: its kind {kind!r} is also a kind of device "
                                  f"plugin {kinds[kind][0]!r}: give one of them another name")
            kinds[kind] = (module, found)
    return kinds


def _plugin_kinds_of(module: str) -> dict[str, DeviceKind]:
    """What ``module``'s farm_device_kinds() returns, checked."""
    where = f"device plugin {module!r} (FARM_DEVICE_PLUGINS)"
    imported = _import_plugin(module, where)
    _check_api(where, getattr(imported, API, DEVICE_API))
    entry = getattr(imported, ENTRY, None)
    if entry is None:
        raise ConfigError(f"{where} defines no {ENTRY}(): {_imported_from(imported)}")
    if not callable(entry):
        raise ConfigError(f"{where}: its {ENTRY} is a {type(entry).__name__}, not a function: "
                          f"{CONTRACT}")
    try:
        found = entry()
    except Exception as exc:
        raise ConfigError(f"{where}: {ENTRY}() raised {type(exc).__name__}: "
                          f"{error_words(exc)} (at {raised_at(exc)})") from None
    if not isinstance(found, dict):
        raise ConfigError(f"{where}: {ENTRY}() returned a {type(found).__name__}: {CONTRACT}")
    for kind, value in found.items():
        _check_kind(where, kind, value)
    return found


def _imported_from(imported: ModuleType) -> str:
    """Which ``imported`` was: a folder without __init__.py found first on sys.path (a checkout
    of the plugin in the working directory) is a namespace package, no plugin's code."""
    if getattr(imported, "__file__", None) is None:
        where = ", ".join(getattr(imported, "__path__", None) or []) or "?"
        return (f"imported {imported.__name__} as a namespace package from {where} (no "
                "__init__.py): a checkout folder shadowing the installed package? (run farm "
                "from another folder)")
    return f"{CONTRACT} (imported from {imported.__file__})"


def _check_api(where: str, api: object) -> None:
    """A plugin's FARM_DEVICE_API: one this farm speaks (its DEVICE_API or an older one)."""
    if not isinstance(api, int) or isinstance(api, bool) or api < 1:
        raise ConfigError(f"{where}: its {API} is {_what(api)}: expected the number of the "
                          f"device API it is written for, e.g. {API} = {DEVICE_API}")
    if api > DEVICE_API:
        raise ConfigError(f"{where} is written for device API {api} ({API} = {api}); this "
                          f"farm speaks device API {DEVICE_API}: upgrade farm, or use a "
                          f"release of the plugin written for device API {DEVICE_API}")


def _import_plugin(module: str, where: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            raise ConfigError(f"{where}: no module named {exc.name!r} can be imported (the "
                              "name is a Python module's, as in `import`: a typo? is its "
                              "package installed, or its folder on PYTHONPATH?)") from None
        raise ConfigError(f"{where}: importing it failed: {exc} (at {raised_at(exc)})") from None
    except SyntaxError as exc:      # (raised in the import machinery: the place is its own)
        raise ConfigError(f"{where}: importing it failed: {type(exc).__name__}: {exc.msg} (at "
                          f"{_syntax_at(exc)})") from None
    except Exception as exc:
        raise ConfigError(f"{where}: importing it failed: {type(exc).__name__}: "
                          f"{error_words(exc)} (at "
                          f"{raised_at(exc)})") from None


def _syntax_at(exc: SyntaxError) -> str:
    """``file:line`` of a syntax error in a plugin's source (relative to the working directory
    when under it)."""
    if not exc.filename:
        return raised_at(exc)
    return source_place(exc.filename, exc.lineno)


def _check_kind(where: str, kind: object, value: object) -> None:
    """One entry of a plugin's farm_device_kinds(), as `--devices KIND:N` can use it."""
    if not isinstance(kind, str) or not _KIND_NAME.match(kind):
        raise ConfigError(f"{where}: kind {kind!r} cannot be written in --devices KIND:N: a "
                          "kind is a lower-case word (letters, digits, - and _), e.g. 'tv'")
    if not isinstance(value, DeviceKind):
        raise ConfigError(f"{where}: kind {kind!r} is a {_what(value)}, not a DeviceKind: "
                          f"{CONTRACT}")
    if value.platform not in PLATFORMS:
        raise ConfigError(f"{where}: kind {kind!r} has platform {value.platform!r}: expected "
                          f"one of {', '.join(PLATFORMS)} (the case section, web: / android: "
                          "/ ios:, whose cases its devices run)")
    if not callable(value.build):
        raise ConfigError(f"{where}: kind {kind!r} has build={_what(value.build)}: expected "
                          "a function (name, settings, index) -> device, or the device class")
    if isinstance(value.build, type) and not hasattr(value.build, "__getattr__"):
        missing = [m for m in DEVICE_METHODS if not callable(getattr(value.build, m, None))]
        if missing:     # (said by `farm devices` too, not only as a run builds one)
            raise ConfigError(f"{where}: kind {kind!r} has build={_what(value.build)}, which "
                              f"has no {', '.join(m + '()' for m in missing)}: a device has "
                              "every method of farm.devices.base.Device")
    if not isinstance(value.open_timeout, (int, float)) or not value.open_timeout > 0:
        raise ConfigError(f"{where}: kind {kind!r} has open_timeout={value.open_timeout!r}: "
                          "expected seconds, more than 0")


def _what(value: object) -> str:
    """``value`` as a message names it: "None", "class TvDevice", "list ['tv']", "a TvDevice"."""
    if value is None or isinstance(value, type):
        return "None" if value is None else f"class {value.__name__}"
    if isinstance(value, (str, int, float, tuple, list, dict, set)):
        text = repr(value)
        return f"{type(value).__name__} {text if len(text) <= 60 else text[:60] + '…'}"
    return f"a {type(value).__name__}"


def known_kinds(settings: Settings) -> dict[str, str]:
    """Every usable kind → its platform."""
    plugins = plugin_kinds(settings) if settings.device_plugins else {}
    return {**BUILTIN_KINDS, **{k: v.platform for k, v in plugins.items()}}


def _plugin_hint(settings: Settings | None) -> str:
    """Where a device plugin's kind comes from, when no plugin is configured."""
    if settings is not None and settings.device_plugins:
        return ""
    return (" (a device plugin's kind needs its module in FARM_DEVICE_PLUGINS, for `farm run "
            "--broker` too)")


def parse_device_specs(text: str, settings: Settings | None = None) -> list[DeviceSpec]:
    """``"browser:2,android:1"`` → specs. A missing count means 1; a kind given twice is
    refused (which count was meant?), and so is an empty spec or item (``browser:1,,``: a
    kind left out?). ``android:SERIAL`` items (``android:emulator-5554,android:emulator-5556``)
    name the phones to take: one spec with those serials."""
    if not text.strip():
        raise ConfigError(f"--devices {text!r}: no devices given: use e.g. --devices browser:2")
    kinds = known_kinds(settings) if settings is not None else BUILTIN_KINDS
    specs: list[DeviceSpec] = []
    given: dict[str, tuple[str, int]] = {}      # kind → (as written, count)
    for part in text.split(","):
        if not part.strip():
            raise ConfigError(f"--devices {text!r}: an empty item between commas: write "
                              "KIND[:COUNT] items joined by commas, e.g. browser:2,android:1")
        named = _NAMED.match(part)
        if named:
            specs = _with_serial(specs, given, part.strip(), named.group(2))
            continue
        m = _SPEC.match(part)
        if not m:
            raise ConfigError(f"bad device spec {part.strip()!r}: expected KIND[:COUNT], "
                              f"e.g. browser:2" + _which_phone_hint(part))
        kind, count = m.group(1).lower(), int(m.group(2) or 1)
        if kind not in kinds:
            import difflib
            near = difflib.get_close_matches(kind, kinds, n=1, cutoff=0.7)
            raise ConfigError(f"unknown device kind {kind!r}"
                              + (f" (did you mean {near[0]!r}?)" if near else "")
                              + ": expected one of " + ", ".join(kinds) + _plugin_hint(settings))
        if count < 1:
            raise ConfigError(f"device count must be at least 1 in {part.strip()!r}")
        if kind in given:
            first, before = given[kind]
            raise ConfigError(f"device kind {kind!r} is given twice ({first} and "
                              f"{part.strip()}): give it once with the number of devices "
                              f"wanted, e.g. {kind}:{before + count}" + _or_serials(kind))
        given[kind] = (part.strip(), count)
        specs.append(DeviceSpec(kind, count, kinds[kind]))
    return specs


def refuse_named(specs: list[DeviceSpec], who: str) -> None:
    """Phones named by serial (``android:SERIAL``) are for a local `farm run`: ``who`` (a
    worker, a cluster run) would take any phones, so it is refused, saying what chooses them."""
    named = next((s for s in specs if s.serials), None)
    if named is not None:
        raise ConfigError(f"{who} --devices {named.written()}: phones are named by serial for "
                          f"a local `farm run` only; give a count (android:{named.count}) and "
                          "choose a `farm worker`'s phones with ANDROID_SERIAL="
                          + ",".join(named.serials))


def _with_serial(specs: list[DeviceSpec], given: dict[str, tuple[str, int]], part: str,
                 serial: str) -> list[DeviceSpec]:
    """``specs`` with the phone ``android:SERIAL`` names added to the android spec of named
    phones (started by the first such item). A count of android phones given as well, or one
    serial twice, is refused: which phones were meant?"""
    first, _ = given.get("android", ("", 0))
    spec = next((s for s in specs if s.kind == "android"), None)
    if spec is not None and not spec.serials:
        raise ConfigError(f"device kind 'android' is given twice ({first} and {part}): give "
                          "either how many phones (android:N) or which ones, each by its "
                          "serial (android:SERIAL,android:SERIAL)")
    if spec is not None and serial in spec.serials:
        raise ConfigError(f"--devices: phone {serial} is named twice ({part}): a phone is "
                          "one device")
    given.setdefault("android", (part, 0))
    serials = (*spec.serials, serial) if spec is not None else (serial,)
    grown = DeviceSpec("android", len(serials), "android", serials)
    return [grown if s is spec else s for s in specs] + ([] if spec is not None else [grown])


def _or_serials(kind: str) -> str:
    return (", or name the phones: android:SERIAL,android:SERIAL (`farm devices` lists them)"
            if kind == "android" else "")


def _which_phone_hint(part: str) -> str:
    """For ``ios:http://…:8100`` (an iPhone named where its count goes): how to choose which
    iPhones a run takes."""
    kind, _, named = part.strip().partition(":")
    how = {"ios": "FARM_IOS_WDA_URLS="}.get(kind.strip().lower())
    if how is None or not named.strip() or named.strip().lstrip("-").isdigit():
        return ""
    from farm.config import usbmux_url
    return (f"; --devices says how many phones, not which: choose them with "
            f"{how}{usbmux_url(named) or named.strip()} (or pin a case to one with Midscene's "
            f"wdaHost/wdaPort)")


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


def check_pins(pins: dict[str, tuple[str, str]], devices: list[Device],
               missing_ok: bool = False) -> dict[str, ConfigError]:
    """Cases pinned (Midscene ``deviceId``, ``wdaHost``/``wdaPort``) to a device the run did
    not take can never run: a ConfigError naming the first (its file:line), the run's devices
    of its platform and how to take the device. ``pins``: the pinned case's file → (platform,
    pin). A serial the adb server does not have at all is "no such device" (a typo, a phone
    not connected), not a device to take: with ``missing_ok`` those are returned (file →
    error) for the caller to end those cases alone, instead of raised."""
    missing: dict[str, ConfigError] = {}
    for where, (platform, pin) in pins.items():
        mine = [d for d in devices if d.platform == platform]
        if any(pin in (d.name, *getattr(d, "aliases", ())) for d in mine):
            continue
        place = _pin_place(where, platform)
        busy = _driven_elsewhere(platform, pin)
        if busy:
            raise ConfigError(f"{place}: pinned to {pin} (Midscene deviceId / wdaHost:wdaPort)"
                              f", which this run could not take: {busy} (a phone runs one farm "
                              "run's cases at a time: wait for that run to end)")
        absent = _no_such_phone(platform, pin, mine)
        if absent and missing_ok:
            missing[where] = ConfigError(f"{place}: {absent}")
            continue
        if absent:
            raise ConfigError(f"{place}: {absent}")
        how = {"android": "ANDROID_SERIAL", "ios": "FARM_IOS_WDA_URLS"}.get(platform)
        raise ConfigError(
            f"{place}: pinned to {pin} (Midscene deviceId / wdaHost:wdaPort), which this run "
            f"did not take: its {platform} devices are "
            f"{', '.join(sorted(_with_aliases(d) for d in mine)) or 'none'}; give --devices "
            f"{platform}:N to take more" + (f", or choose them with {how}" if how else ""))
    return missing


_PIN_KEYS = {"android": re.compile(r"(?<![\w-])deviceId\s*:"),
             "ios": re.compile(r"(?<![\w-])wda(Host|Port)\s*:")}


def _pin_place(where: str, platform: str) -> str:
    """``file:line`` of the key that pins a case (its first ``deviceId:`` / ``wdaHost:`` /
    ``wdaPort:`` line), or ``where`` when the file does not say it (a batch file's override,
    a file gone since it was loaded)."""
    key = _PIN_KEYS.get(platform)
    if key is None:
        return where
    try:
        rows = Path(where).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return where
    line = next((n for n, row in enumerate(rows, 1) if key.search(row.split(" #")[0])), 0)
    return f"{where}:{line}" if line else where


def _no_such_phone(platform: str, pin: str, mine: list[Device]) -> str:
    """For a ``deviceId`` neither the adb server nor this run's (simulated) phones have, what
    is there instead ("deviceId X: no such device: the adb server at 127.0.0.1:5037 lists
    emulator-5554, emulator-5556 ..."); for a ``wdaHost``/``wdaPort`` FARM_IOS_WDA_URLS does
    not list, `_no_such_iphone`; "" for a phone that exists."""
    if platform == "ios":
        return _no_such_iphone(pin, mine)
    if platform != "android":
        return ""
    from farm.devices.android import adb_client, adb_server_problem
    client = adb_client(socket_timeout=5)
    problem = adb_server_problem(client)
    serials = [] if problem else [serial for serial, _ in adb_phones()]
    if pin in serials:
        return ""
    seen = problem or (f"the adb server at {client.host}:{client.port} lists "
                       f"{', '.join(serials) or 'no phone'}")
    sims = [d for d in mine if d.name not in serials]
    if sims:
        seen += (f"; this run's android devices are "
                 f"{', '.join(sorted(_with_aliases(d) for d in sims))}")
    return (f"deviceId {pin}: no such device: {seen} (correct the deviceId, or connect that "
            "phone)")


def _no_such_iphone(pin: str, mine: list[Device]) -> str:
    """For a case pinned (``wdaHost``/``wdaPort``) to a WebDriverAgent neither
    FARM_IOS_WDA_URLS nor this run's devices have, what is there instead; "" when one has it
    (a listed iPhone the run did not take: `check_pins` says how to take it). It was "give
    --devices ios:N to take more", which takes no unlisted iPhone, and all cases ended not run."""
    from farm.config import load_settings, mask_url
    if any(pin in getattr(d, "aliases", ()) for d in mine):
        return ""
    settings = next((d.settings for d in mine if getattr(d, "settings", None) is not None),
                    None) or load_settings()
    listed = list(settings.ios_wda_urls)
    if _wda_spot(f"http://{pin}") in {_wda_spot(url) for url in listed}:
        return ""
    seen = f"it lists {', '.join(map(mask_url, listed))}" if listed else "it is not set"
    if mine:
        seen += (f"; this run's ios devices are "
                 f"{', '.join(sorted(_with_aliases(d) for d in mine))}")
    return (f"wdaHost:wdaPort {pin}: no such iPhone: http://{pin} is not in FARM_IOS_WDA_URLS "
            f"({seen}): add it there, or correct the case's wdaHost/wdaPort")


def _wda_spot(url: str) -> str:
    """host:port of a WebDriverAgent URL, ``localhost`` read as ``127.0.0.1`` (as a pin's
    wdaHost:wdaPort names it)."""
    from urllib.parse import urlsplit

    from farm.devices.android import LOOPBACK_NAMES
    try:
        parts = urlsplit(url.strip())
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return url
    host = "127.0.0.1" if host in LOOPBACK_NAMES else host
    return f"{host}:{port or {'https': 443, 'http': 80}.get(parts.scheme.lower(), 0)}"


def _driven_elsewhere(platform: str, pin: str) -> str:
    """Why a phone a case is pinned to was not taken when another farm run of this machine
    drives it (`PhoneBusy`: the phone and that run's pid; `_free_phones` passed over it),
    else ""."""
    from farm.devices.procs import PhoneBusy, PhoneClaim
    if platform not in ("android", "ios"):
        return ""
    key, shown = _phone_key(platform)
    target = pin if platform == "android" else f"http://{pin}"
    try:
        PhoneClaim.take(key(target), shown(target)).release()
    except PhoneBusy as busy:
        return str(busy)
    return ""


def held_elsewhere(kind: str, target: str) -> str:
    """For `farm devices`: "held by another farm run (pid N)" when another farm process of
    this machine drives the phone (serial / WDA URL), else "". A phone with no lock file is
    not asked (no claim taken: a run starting meanwhile must not find it held by us)."""
    from farm.devices.procs import PhoneBusy, PhoneClaim, claim_path
    key, shown = _phone_key(kind)
    if not claim_path(key(target)).exists():
        return ""
    try:
        PhoneClaim.take(key(target), shown(target)).release()
    except PhoneBusy as busy:
        return f"held by another farm run (pid {busy.pid or 'unknown'})"
    return ""


def _with_aliases(device: Device) -> str:
    """``iphone-1 (localhost:8100, 127.0.0.1:8100)``: a device's name and the other names a
    pin may give it (its WDA's host:port, an android-sim's serial)."""
    other = [a for a in getattr(device, "aliases", ()) if a != device.name]
    return f"{device.name} ({', '.join(other)})" if other else device.name


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
    only = only_serials(settings)
    return [s for s in found if s in only] if only else found


def only_serials(settings: Settings) -> list[str]:
    """The phones ANDROID_SERIAL (FARM_ANDROID_SERIAL) limits farm to: one serial, or several
    joined by commas (``emulator-5554,emulator-5556``); none: every phone."""
    return [s.strip() for s in (settings.android_serial or "").split(",") if s.strip()]


def android_not_ready(settings: Settings,
                      phones: list[tuple[str, str]] | None = None) -> list[str]:
    """Phones the adb server lists (or ``phones``, as `adb_phones` gives them) that cannot be
    used yet, each with its state and what to do ("R58M12345 (unauthorized: accept the USB
    debugging prompt on the phone)"); ANDROID_SERIAL narrows them as it narrows the ready
    ones. For `farm devices` and the --devices error."""
    from farm.devices.android import adb_state_words

    only = only_serials(settings)
    return [f"{serial} ({adb_state_words(state)})"
            for serial, state in (adb_phones() if phones is None else phones)
            if state != "device" and (not only or serial in only)]


def _too_few_android(count: int, settings: Settings, where: str) -> str:
    """Why ``--devices android:COUNT`` cannot be served: the ready phones, the ones that are
    not ready and why, and what ANDROID_SERIAL left out."""
    phones = adb_phones()
    ready = [serial for serial, state in phones if state == "device"]
    only, listed = only_serials(settings), {serial for serial, _ in phones}
    head = f"--devices android:{count}: "
    absent = [s for s in only if s not in listed]
    if absent:
        named = (f"no phone on the adb server {where}" if len(only) == 1 else
                 f"{', '.join(absent)}, not on the adb server {where}")
        return (head + f"ANDROID_SERIAL={settings.android_serial} names {named} (it lists "
                f"{', '.join(s for s, _ in phones) or 'none'}): unset ANDROID_SERIAL, or "
                f"set it to {'one of those' if len(only) == 1 else 'some of those'}")
    if only and set(only) <= set(ready):
        return (head + f"ANDROID_SERIAL={settings.android_serial} limits farm to "
                f"{'that one phone' if len(only) == 1 else f'those {len(only)} phones'}: unset "
                f"it to use {count} ({len(ready)} ready on {where}: {', '.join(ready)})")
    usable = [s for s in ready if not only or s in only]
    not_ready = android_not_ready(settings, phones)
    text = (head + f"the adb server {where} has {len(usable)} device(s) ready "
            f"({', '.join(usable) or 'none'})")
    if not_ready:
        text += "; not ready: " + ", ".join(not_ready)
    if usable:      # (real phones ready: ask for those; simulated ones are no answer)
        return text + f"; give --devices android:{len(usable)} to run on the ready ones"
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
        from farm.devices.android import adb_client, adb_server_problem
        client = adb_client(socket_timeout=5)
        problem = adb_server_problem(client)
        if problem and problem.startswith("no adb server"):
            raise ConfigError(f"--devices {kind}:{count}: no adb server answers on "
                              f"{client.host}:{client.port} (start one with `adb start-server`"
                              f", or use {kind}-sim for simulated phones)")
        if problem:
            raise ConfigError(f"--devices {kind}:{count}: {problem}")
        found = android_serials(settings)
        if len(found) < count:
            raise ConfigError(_too_few_android(count, settings, f"{client.host}:{client.port}"))
    elif kind == "ios":
        from farm.config import mask_url
        listed = ios_urls(settings)
        if not listed:          # (was "FARM_IOS_WDA_URLS lists 0 device(s), 0 ready (none)")
            raise ConfigError(
                f"--devices {kind}:{count}: FARM_IOS_WDA_URLS is not set: list the iPhones' "
                "WebDriverAgent URLs in it, e.g. "
                "export FARM_IOS_WDA_URLS=http://127.0.0.1:8100,http://127.0.0.1:8101 "
                "(`farm sim ios` prints that line for the iPhones it simulates); or use "
                f"{kind}-sim:{count} for simulated ones")
        _without_credentials(listed)
        silent = wda_not_answering(listed)
        found = [url for url in listed if url not in silent]
        if len(found) < count:
            raise ConfigError(f"--devices {kind}:{count}: FARM_IOS_WDA_URLS lists {len(listed)} "
                              f"device(s), {len(found)} ready "
                              f"({', '.join(map(mask_url, found)) or 'none'})" +
                              "".join(f"; {mask_url(url)} {why}" for url, why in silent.items())
                              + f"; try {kind}-sim for simulated ones")
    else:
        return [""] * count
    return found if every else found[:count]


def wda_not_answering(urls: list[str], timeout_s: float = WDA_PROBE_S) -> dict[str, str]:
    """The WebDriverAgent URLs of ``urls`` whose /status does not answer ready within
    ``timeout_s`` (all asked at once), each with why: a run asking for N iPhones is refused up
    front, as for N adb phones, not run on fewer with the others "lost". A USB iPhone's
    ``http+usbmux://`` is left to its device to ask (usbmuxd's part said as it opens)."""
    from concurrent.futures import ThreadPoolExecutor

    from farm.devices.ios import NotWda, unreachable_why, wda_status

    def why(url: str) -> str | None:
        if url.startswith("http+usbmux://"):
            return None
        try:
            value = wda_status(url, timeout_s)
        except NotWda as exc:
            return str(exc)
        except Exception as exc:
            return "is not answering: " + unreachable_why(url, exc)
        return None if value.get("ready", True) else \
            "answers but says WebDriverAgent is not ready"
    if not urls:
        return {}
    with ThreadPoolExecutor(max_workers=min(len(urls), 16)) as pool:
        said = dict(zip(urls, pool.map(why, urls)))
    return {url: words for url, words in said.items() if words}


def _without_credentials(urls: list[str]) -> None:
    """A WDA URL with ``user:password@`` is refused before any device starts: farm's
    WebDriverAgent client sends no credentials, it looks ``user:password@host`` up as a host
    name, and the device ended "lost (status): Name or service not known"."""
    from urllib.parse import urlsplit

    from farm.config import mask_url
    from farm.devices.ios import WDA_SCHEMES, wda_url_path, wda_url_problem
    for url in urls:
        if not url.startswith(WDA_SCHEMES):
            raise ConfigError(f"FARM_IOS_WDA_URLS: {mask_url(url)}: {wda_url_problem(url)}")
        if wda_url_path(url):
            raise ConfigError(f"FARM_IOS_WDA_URLS: {mask_url(url)}: {wda_url_path(url)}")
        try:
            named = urlsplit(url).username is not None
        except ValueError:
            continue        # (the device says what is wrong with it as it starts)
        if named:
            raise ConfigError(f"FARM_IOS_WDA_URLS: {mask_url(url)}: farm's WebDriverAgent "
                              "client sends no user:password; give the URL without them (an "
                              "ssh tunnel's or iproxy's on this machine)")


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
    plugins = _plugins(settings)
    if kind in plugins:
        return _plugin_device(*plugins[kind], kind, name, settings, index)
    raise ConfigError(f"{kind} devices are started by `farm run` (or `farm sim`)"
                      if kind in BUILTIN_KINDS else f"unknown device kind {kind!r}")


def _plugin_device(module: str, found: DeviceKind, kind: str, name: str, settings: Settings,
                   index: int) -> Device:
    """Device ``name`` of plugin ``module``'s ``kind``, checked against the Device protocol and
    wrapped (`PluginDevice`: its failures say which plugin, method and line)."""
    where = f"device plugin {module!r}"
    try:
        device = found.build(name, settings, index)
    except Exception as exc:
        raise ConfigError(f"{where}: building {kind} device {name!r} failed: "
                          f"{type(exc).__name__}: {error_words(exc)} (at {raised_at(exc)}); "
                          "a DeviceKind's build only makes the device: connect in its "
                          "open(), where a failure takes only that device out of the run"
                          ) from None
    built = f"{where}: its {kind} build({name!r}, settings, {index}) returned {_what(device)}"
    missing = [m for m in DEVICE_METHODS if not callable(getattr(device, m, None))]
    if missing:
        raise ConfigError(f"{built}, which has no {', '.join(m + '()' for m in missing)}: a "
                          "device has every method of farm.devices.base.Device")
    if getattr(device, "name", None) != name:
        raise ConfigError(f"{built}, whose name is {getattr(device, 'name', None)!r}: a device "
                          "takes the name farm gives build() (its first argument)")
    if getattr(device, "platform", None) != found.platform:
        raise ConfigError(f"{built}, whose platform is {getattr(device, 'platform', None)!r}: "
                          f"the kind's platform is {found.platform!r}")
    return PluginDevice.around(device, where, float(found.open_timeout),
                               settings.watchdog_grace_seconds, kind=kind)


def make_devices(specs: list[DeviceSpec], settings: Settings, sims: "SimFleet | None" = None,
                 pins: frozenset[tuple[str, str]] = frozenset()) -> list[Device]:
    """The devices of a local run; ``sims`` starts the simulators ``*-sim`` kinds need.
    ``pins``: (platform, pin) of the run's pinned cases (`_free_phones` words its advice
    by them)."""
    devices: list[Device] = []
    for spec in specs:
        taken = sum(1 for d in devices if d.platform == spec.platform)
        if spec.kind in SIM_KINDS:
            if sims is None:
                raise ConfigError(f"{spec.kind} devices are started by `farm run` "
                                  "(or `farm sim`), backed by a suite's apps")
            devices += _simulated(spec, settings, sims, taken)
            continue
        if spec.kind in ("android", "ios"):
            devices += _free_phones(spec, settings, taken, pins)
            continue
        for i, target in enumerate(attach_targets(spec.kind, spec.count, settings)):
            devices.append(build_device(spec.kind, f"{spec.kind}-{taken + i + 1}", settings,
                                        target, i))
    return devices


def _free_phones(spec: DeviceSpec, settings: Settings, taken: int,
                 pins: frozenset[tuple[str, str]] = frozenset()) -> list[Device]:
    """``spec.count`` phones no other farm run of this machine drives (``spec.serials``: those
    phones), each claimed for this one (`PhoneClaim`: two runs driving one phone both failed
    in confusing ways): phones in use are passed over for free ones; a ConfigError naming
    them and their runs' pids when too few are free."""
    from farm.devices.procs import PhoneBusy, PhoneClaim
    found = (_named_phones(spec) if spec.serials else
             attach_targets(spec.kind, spec.count, settings, every=True))
    key, shown = _phone_key(spec.kind)
    found, twice = _one_each(found, key)
    if len(found) < spec.count:
        raise ConfigError(f"--devices {spec.kind}:{spec.count}: FARM_IOS_WDA_URLS lists "
                          f"{len(found)} iPhone(s): " + "; ".join(twice) + " (one iPhone "
                          "driven as two devices: each would take the other's WebDriverAgent "
                          "session)")
    claims: list[tuple[str, PhoneClaim]] = []
    busy: list[tuple[str, PhoneBusy]] = []
    for target in found:
        if len(claims) == spec.count:
            break
        try:
            claims.append((target, PhoneClaim.take(key(target), shown(target))))
        except PhoneBusy as exc:
            busy.append((target, exc))
    if spec.kind == "android" and not spec.serials and len(claims) == spec.count:
        claims = _answering(claims, found[found.index(claims[-1][0]) + 1:], spec.count, key,
                            shown, busy)
    if len(claims) < spec.count:
        for _, claim in claims:
            claim.release()
        raise ConfigError(_too_few_free(spec, len(claims), len(found), busy, pins))
    devices = []
    for i, (target, claim) in enumerate(claims):
        name = target if spec.kind == "android" else f"iphone-{taken + i + 1}"
        device = build_device(spec.kind, name, settings, target, i)
        device.claim = claim        # type: ignore[attr-defined]
        devices.append(device)
    return devices


def _answering(claims: list[tuple[str, "PhoneClaim"]], spare: list[str], count: int,
               key: Callable[[str], str], shown: Callable[[str], str],
               busy: list[tuple[str, Exception]]) -> list[tuple[str, "PhoneClaim"]]:
    """``claims`` with each claimed phone that does not answer its start check (`phone_dead`:
    listed as "device" by the adb server, yet its shell dead) let go and replaced by a free
    one of ``spare`` that answers, said once on stderr: before, the run took the first N
    listed, one of them ended "dead: could not start…" and the run went on one phone short
    while another listed phone stayed free. A dead phone left with no replacement stays in
    (its start says why it is out)."""
    import sys

    from farm.devices.procs import PhoneBusy, PhoneClaim
    kept = list(claims)
    dead = _dead_phones([t for t, _ in kept])
    replaced: list[str] = []
    for target in list(dead):
        while spare:
            other = spare.pop(0)
            try:
                claim = PhoneClaim.take(key(other), shown(other))
            except PhoneBusy as exc:
                busy.append((other, exc))
                continue
            if _dead_phones([other]):
                claim.release()
                continue
            at = next(i for i, (t, _) in enumerate(kept) if t == target)
            kept[at][1].release()
            kept[at] = (other, claim)
            replaced.append(f"{target} {dead[target]}: {other} is taken instead")
            break
    if replaced:
        print("farm: note: " + "; ".join(replaced), file=sys.stderr)
    return kept[:count]


def _dead_phones(serials: list[str]) -> dict[str, str]:
    """The phones of ``serials`` (asked at once) whose shell does not answer within a few
    seconds, each with why ("does not answer: …")."""
    from concurrent.futures import ThreadPoolExecutor

    from farm.devices.android import adb_client, adb_failure

    def why(serial: str) -> str | None:
        try:
            dev = adb_client(socket_timeout=PHONE_PROBE_S).device(serial)
            if dev.get_state() != "device":
                return "is not ready"
            dev.shell("echo farm", timeout=PHONE_PROBE_S)
        except Exception as exc:
            return f"does not answer ({adb_failure(exc)})"
        return None
    if not serials:
        return {}
    with ThreadPoolExecutor(max_workers=min(len(serials), 16)) as pool:
        said = dict(zip(serials, pool.map(why, serials)))
    return {serial: words for serial, words in said.items() if words}


def _too_few_free(spec: DeviceSpec, free: int, found: int, busy: list[tuple[str, Exception]],
                  pins: frozenset[tuple[str, str]]) -> str:
    """Why ``spec`` cannot be served with only ``free`` of the ``found`` phones free: the busy
    ones and their runs' pids, and what would help. Asking for fewer phones helps no case
    pinned to a busy phone, nor a run that named its phones."""
    key, _ = _phone_key(spec.kind)
    pinned = {key(pin if spec.kind == "android" else f"http://{pin}")
              for platform, pin in pins if platform == spec.platform}
    held = [str(exc) for target, exc in busy if key(target) in pinned]
    head = (f"--devices {spec.written()}: " + (f"{free} of {found} {spec.kind} phone(s) free: "
                                              if not spec.serials else "")
            + "; ".join(map(str, (exc for _, exc in busy))))
    wait = " (a phone runs one farm run's cases at a time: wait for that run to end"
    if held:
        return (head + wait + "; a case pinned to it (Midscene deviceId / wdaHost:wdaPort) runs "
                "on that phone only, so asking for fewer phones does not help it)")
    if spec.serials:
        return head + wait + ", or name another phone: `farm devices` shows which are free)"
    return head + wait + (f", or ask for {free})" if free else ")")


def _named_phones(spec: DeviceSpec) -> list[str]:
    """The serials ``android:SERIAL`` items name, each checked on the adb server: one it does
    not list, or not ready (unauthorized, offline), is a ConfigError naming the ones it has."""
    from farm.devices.android import adb_client, adb_server_problem, adb_state_words
    client = adb_client(socket_timeout=5)
    problem = adb_server_problem(client)
    where = f"{client.host}:{client.port}"
    if problem:
        raise ConfigError(f"--devices {spec.written()}: " + (
            f"no adb server answers on {where} (start one with `adb start-server`)"
            if problem.startswith("no adb server") else problem))
    phones = dict(adb_phones())
    listed = ", ".join(f"{s}" + ("" if st == "device" else f" ({st})")
                       for s, st in phones.items()) or "no phone"
    absent = [s for s in spec.serials if s not in phones]
    if absent:
        raise ConfigError(f"--devices {spec.written()}: {', '.join(absent)}: no such phone on "
                          f"the adb server at {where}, which lists {listed} (`adb devices`)")
    for serial in spec.serials:
        if phones[serial] != "device":
            raise ConfigError(f"--devices {spec.written()}: {serial} is not ready "
                              f"({adb_state_words(phones[serial])})")
    return list(spec.serials)


def _one_each(targets: list[str], key: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """``targets`` with each phone once (``http://localhost:8100/`` is
    ``http://127.0.0.1:8100``), and what was left out, said."""
    from farm.config import mask_url
    first: dict[str, str] = {}
    twice: list[str] = []
    for target in targets:
        if key(target) in first:
            twice.append(f"{mask_url(target)} is {mask_url(first[key(target)])} again")
        else:
            first[key(target)] = target
    return list(first.values()), twice


def _phone_key(kind: str) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """For phones of ``kind``: the claim key of a target (serial / WDA URL), and how a message
    names it."""
    if kind == "android":
        from farm.devices.android import adb_client, adb_phone_key
        client = adb_client(socket_timeout=5)
        return (lambda serial: adb_phone_key(client.host, client.port, serial),
                lambda serial: serial)
    from farm.config import mask_url
    from farm.devices.ios import wda_phone_key
    return wda_phone_key, lambda url: f"the iPhone at {mask_url(url)}"


def _simulated(spec: DeviceSpec, settings: Settings, sims: "SimFleet",
               taken: int) -> list[Device]:
    if spec.kind == "android-sim":
        from farm.devices.android import AndroidDevice
        sim = sims.android(spec.count)
        return [AndroidDevice(f"android-sim-{taken + i + 1}", settings, s, host="127.0.0.1",
                              port=sim.port) for i, s in enumerate(sim.serials)]
    from farm.devices.ios import IosDevice
    isim = sims.ios(spec.count)
    return [IosDevice(f"iphone-sim-{taken + i + 1}", settings, u, say_which=False)
            for i, u in enumerate(isim.urls)]
