"""Cache keys and modes: pure functions.

A key names one entry: ``v1|<case id>|<platform>|<app version>|<kind>|<n>|<prompt digest>``.
``<platform>`` is the case's (``web``, ``android``, ``ios``) on farm's own devices, a simulator
included (android-sim runs the same app as a phone), and ``<platform>:<kind>`` on a device
plugin's kind (``web:fake``): its screens are not the browser's, so what a browser found is
not looked for there, nor the other way round (`cache_platform`).
The case id starts with the suite's name; the app version is the user's (``cache.key`` in
farm.yaml and/or Midscene's ``agent.cache.id``), so two apps or two versions never share an
entry. ``n`` counts uses of the same prompt within one case attempt: a prompt used three times
has three entries (Midscene matches each entry once per run).
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

KEY_VERSION = "v1"
Kind = Literal["plan", "locate"]
MODES = ("read-write", "read-only", "write-only", "off")


@dataclass(frozen=True)
class Namespace:
    case_id: str
    platform: str
    version: str = ""

    @property
    def prefix(self) -> str:
        return f"{KEY_VERSION}|{self.case_id}|{self.platform}|{self.version}|"

    def key(self, kind: Kind, prompt: str, n: int) -> str:
        digest = hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return f"{self.prefix}{kind}|{n}|{digest}"


def cache_platform(platform: str, device: object | None = None) -> str:
    """The ``<platform>`` part of the keys of a case run on ``device``: ``platform`` for
    farm's own kinds (keys as they always were), ``platform:kind`` for a device plugin's
    (a `farm.devices.base.PluginDevice`: the kind it was built as, local or on a worker)."""
    from farm.devices.base import PluginDevice
    if not isinstance(device, PluginDevice):
        return platform
    return f"{platform}:{(device.kind_name or type(device).__name__).replace('|', '_')}"


def context_key(context: str) -> str:
    """What an ai step's plan key adds for the case's ``aiActContext`` as the model read it
    (a digest): a plan made with one context (``sign in as ${ACCOUNT}`` = alice) is never
    replayed under another (bob). Nothing without one: those keys are as they were."""
    if not context:
        return ""
    digest = hashlib.sha256(context.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f" [context #{digest}]"


def withheld_key(key: str) -> str:
    """Where a run notes that the entry ``key`` was not stored because it would hold a secret
    value (no value of it kept): `farm cache export` says why that plan is missing. Outside
    ``v1|``, so `farm cache ls` and `clear CASE` never count it as an entry."""
    return f"withheld|{key}"


def case_prefix(case_id: str = "") -> str:
    """Prefix of every entry of ``case_id`` (``""``: every entry farm wrote)."""
    return f"{KEY_VERSION}|{case_id}|" if case_id else f"{KEY_VERSION}|"


def selection_prefixes(case: str = "") -> list[str]:
    """Key prefixes of what ``farm cache ls|clear CASE`` means: every entry (``""``), the case
    ``CASE`` exactly, its runs on each device group of a ``--matrix`` run (``CASE@group``),
    and the cases under it at a ``/`` boundary (``demo`` and ``demo/`` are the suite;
    ``demo/login`` is not ``demo/login_success``)."""
    if not case:
        return [case_prefix()]
    if case.endswith("/"):
        return [case_prefix() + case]
    if "@" in case:                 # one device group's entries: demo/login@pixel
        return [case_prefix(case)]
    return [case_prefix(case), case_prefix() + case + "@", case_prefix() + case + "/"]


def split_key(key: str) -> dict[str, Any]:
    """The parts of a key, for listing."""
    parts = key.split("|")
    if len(parts) < 7 or parts[0] != KEY_VERSION:
        return {}
    # a case id may itself hold "|": everything between the version and the last five fields
    case_id = "|".join(parts[1:-5])
    platform, version, kind, n, digest = parts[-5:]
    return {"case": case_id, "platform": platform, "version": version, "kind": kind,
            "n": int(n) if n.isdigit() else 0, "digest": digest}


def near_selections(case: str, keys: Iterable[str], n: int = 3) -> list[str]:
    """The case ids and suites (``demo/``) that hold entries among ``keys`` whose names are
    nearest ``case``, closest first: what a mistyped ``farm cache ls|clear CASE`` (which
    said only "0 entries") may have meant. A ``--matrix`` run's ``demo/login@pixel`` is
    offered as ``demo/login``, which takes its entries too."""
    names: set[str] = set()
    for key in keys:
        case_id = split_key(key).get("case", "")
        if not case_id:
            continue
        case_id = case_id.split("@", 1)[0]
        names.add(case_id)
        parts = case_id.split("/")
        names.update("/".join(parts[:i]) + "/" for i in range(1, len(parts)))
    case = case.split("@", 1)[0]
    started = _started_by(case, names)
    if started:
        return started
    scored = sorted(((_likeness(case, name), name) for name in names),
                    key=lambda pair: (-pair[0], pair[1]))
    best = scored[0][0] if scored else 0.0
    # as close as the closest, or nearly: demo/logn is demo/login, not also demo/
    return [name for score, name in scored[:n] if score >= max(0.6, best - 0.1)]


def _started_by(typed: str, names: set[str], most: int = 5) -> list[str]:
    """The ids that begin with what was typed, case aside (``demo/login``: demo/login_failure
    and demo/login_success), a folder in place of the cases under it; none when an id is it
    but for its case (``Shop/Login`` meant shop/login). A longer id that only ends alike
    (demo/mobile/ios_login) was offered before them."""
    typed = typed.lower()
    if not typed or any(name.rstrip("/").lower() == typed.rstrip("/") for name in names):
        return []
    hits = sorted(name for name in names if name.lower().startswith(typed))
    return [name for name in hits
            if not any(o != name and o.endswith("/") and name.startswith(o) for o in hits)][:most]


def _likeness(typed: str, name: str) -> float:
    """How alike two ids are (0..1), case aside: the whole and the last part (the suite
    both share made shop/nothing look like shop/login)."""
    typed, name = typed.rstrip("/").lower(), name.rstrip("/").lower()
    return min(difflib.SequenceMatcher(None, a, b).ratio()
               for a, b in ((typed, name), (typed.rsplit("/", 1)[-1], name.rsplit("/", 1)[-1])))


def app_version(suite_key: str | None, agent: dict[str, Any]) -> str:
    """The user's app version: farm.yaml ``cache.key`` and Midscene's ``agent.cache.id``."""
    cache = agent.get("cache")
    cache_id = cache.get("id") if isinstance(cache, dict) else None
    return "/".join(str(v) for v in (suite_key, cache_id) if v not in (None, ""))


def case_mode(setting: str | None, agent: dict[str, Any]) -> str:
    """The mode for a case: ``--cache`` / FARM_CACHE when given, else the case's Midscene
    ``agent.cache`` (``false`` is off; ``strategy``), else read-write."""
    if setting:
        return setting
    cache = agent.get("cache")
    if cache is False:
        return "off"
    if isinstance(cache, dict) and cache.get("strategy") in MODES:
        return str(cache["strategy"])
    return "read-write"


def reads(mode: str) -> bool:
    return mode in ("read-write", "read-only")


def writes(mode: str) -> bool:
    return mode in ("read-write", "write-only")
