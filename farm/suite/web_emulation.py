"""A web target's keys that say who and where the page's user is: the browser permissions the
case grants (``permissions``), a fixed ``geolocation``, ``locale``, ``timezoneId`` and
``colorScheme``. Midscene's YAML has none of them; they are named as Playwright names its
browser-context options. Without them the page was denied the clipboard, its position and
notifications, and said so in its own words ("location unavailable").

Checked when the suite loads: a value Chromium refuses (a latitude of 91, a time zone it does
not know) failed every case at its start, as the browser's fault, retried.
"""

from __future__ import annotations

import functools
import re

from farm.suite.checks import KEYWORD_FIELD, Problems, got, suggest
from farm.suite.yamlpos import Node

# The permissions Playwright grants a Chromium context (its names, as the Permissions API's)
PERMISSIONS = ("accelerometer", "ambient-light-sensor", "background-sync", "camera",
               "clipboard-read", "clipboard-write", "geolocation", "gyroscope",
               "local-fonts", "local-network-access", "magnetometer", "microphone", "midi",
               "midi-sysex", "notifications", "payment-handler", "screen-wake-lock",
               "storage-access")
COLOR_SCHEMES = ["light", "dark", "no-preference"]
KEYS = {"permissions", "geolocation", "locale", "timezoneId", "colorScheme"}
# which WebTarget fields each key sets (a batch file's shared settings)
KEY_FIELDS = {"permissions": ("permissions",), "geolocation": ("geolocation",),
              "locale": ("locale",), "timezoneId": ("timezone_id",),
              "colorScheme": ("color_scheme",)}
# A BCP 47 language tag as Chromium takes one (en, en-GB, zh-Hant-TW; Playwright turns en_GB
# into en-GB): letters, then parts of letters and digits
_LOCALE = re.compile(r"[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*")
_RANGES = {"latitude": (-90.0, 90.0), "longitude": (-180.0, 180.0), "accuracy": (0.0, None)}


def read_emulation(section: str, items: dict[str, Node], p: Problems) -> dict:
    """The WebTarget fields the section's emulation keys set (None where a key is absent)."""
    scheme = p.choice(items.get("colorScheme"), f"{section}.colorScheme", COLOR_SCHEMES)
    return {"permissions": _permissions(items.get("permissions"), section, p),
            "geolocation": _geolocation(items.get("geolocation"), section, p),
            "locale": _locale(items.get("locale"), section, p),
            "timezone_id": _time_zone(items.get("timezoneId"), section, p),
            "color_scheme": scheme}


def _permissions(node: Node | None, section: str, p: Problems) -> list[str] | None:
    """``permissions: [geolocation, clipboard-read]`` (one name alone is a list of one)."""
    where = f"{section}.permissions"
    if node is None or node.is_null:
        return None
    names = [node] if node.kind == "scalar" else p.sequence(
        node, where, f"a list of permissions to grant (some of: {', '.join(PERMISSIONS)})")
    out: list[str] = []
    for item in names or []:
        given = p.expand(item, where, KEYWORD_FIELD)
        name = p.text(given, f"{where} item", required=True, empty_ok=False,
                      expected="a permission's name")
        if name is None or given is None:
            continue
        if name not in PERMISSIONS:
            p.add(item, f"{where}: {got(given, name)} is no permission Chromium grants"
                        f"{suggest(name, PERMISSIONS)}; expected some of: "
                        f"{', '.join(PERMISSIONS)}")
        elif name not in out:
            out.append(name)
    return out


def _geolocation(node: Node | None, section: str, p: Problems) -> dict[str, float] | None:
    """``geolocation: {latitude, longitude, accuracy?}`` (degrees; accuracy in metres)."""
    where = f"{section}.geolocation"
    if node is None or node.is_null:
        return None
    items = p.mapping(node, where, "a mapping with latitude: and longitude: (degrees) and "
                                   "optionally accuracy: (metres)")
    if items is None:
        return None
    misspelt = p.keys(node, _RANGES, f"{where}:")
    out: dict[str, float] = {}
    for name, (low, high) in _RANGES.items():
        value = _degrees(items.get(name), f"{where}.{name}", low, high, p)
        if value is not None:
            out[name] = value
        elif name != "accuracy" and name not in items and name not in misspelt:
            p.add(node, f"{where}.{name} is missing: expected `{name}: <degrees>`")
    return out if "latitude" in out and "longitude" in out else None


def _degrees(node: Node | None, where: str, low: float, high: float | None,
             p: Problems) -> float | None:
    node = p.expand(node, where)
    if node is None or node.is_null:
        return None
    v = node.value
    if (node.kind == "scalar" and isinstance(v, (int, float)) and not isinstance(v, bool)
            and low <= v and (high is None or v <= high)):
        return float(v)
    span = f"from {low:g} to {high:g}" if high is not None else f">= {low:g}"
    p.add(node, f"{where}: expected a number {span}, got {node.describe()}")
    return None


def _locale(node: Node | None, section: str, p: Problems) -> str | None:
    where = f"{section}.locale"
    given = p.expand(node, where, "a language tag")
    text = p.text(given, where, empty_ok=False, expected="a language tag such as en-GB or de-DE")
    if text is not None and given is not None and not _LOCALE.fullmatch(text):
        p.add(node, f"{where}: {got(given, text)} is no language tag Chromium takes (such as en-GB, "
                    "de-DE, zh-Hant-TW)")
        return None
    return text


def _time_zone(node: Node | None, section: str, p: Problems) -> str | None:
    where = f"{section}.timezoneId"
    given = p.expand(node, where, "a time zone")
    text = p.text(given, where, empty_ok=False, expected="a time zone such as Europe/Paris")
    if text is None or given is None:
        return None
    known = _time_zones()
    if known and text not in known:
        p.add(node, f"{where}: {got(given, text)} is no time zone Chromium knows{suggest(text, known)} "
                    "(an IANA name such as Europe/Paris, America/New_York or UTC)")
        return None
    return text


@functools.lru_cache(maxsize=1)
def _time_zones() -> frozenset[str]:
    """The IANA time zones this machine knows (empty without a time zone database: then
    Chromium's own answer is the check); read once (a walk of /usr/share/zoneinfo), and
    only for a case that names one."""
    import zoneinfo
    try:
        return frozenset(zoneinfo.available_timezones())
    except Exception:     # (no tzdata at all)
        return frozenset()
