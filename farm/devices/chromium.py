"""Finding a Chromium binary to drive.

Kept free of Playwright imports: ``farm devices`` calls `find_chromium` and must start fast, and
Playwright's own browser download cannot be relied on (offline machines), so Debian's
``chromium`` package is the normal source.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from farm.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings

# Flags every farm browser gets: no sandbox (containers run as root), no GPU (headless boxes),
# and nothing that phones home or updates itself in the middle of a run.
BROWSER_FLAGS: list[str] = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]

SYSTEM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Debian's chromium-headless-shell package: the same Chromium built for headless use only (what
# Playwright itself runs headless). Preferred for headless devices: measured on the demo suite
# (bench/vs_playwright.py), a run takes 0.6x the time and the browser 0.4x the CPU of
# /usr/bin/chromium, a new context + page 50-60 ms instead of 160-170. The binary itself, not
# Debian's /usr/bin wrapper (a shell that stays in between as Chromium's parent).
HEADLESS_SHELL_PATHS = ("/usr/lib/chromium/chromium-headless-shell",)
HEADLESS_SHELL_NAMES = ("chromium-headless-shell",)

# MAJOR.MINOR.BUILD.PATCH, as every Chromium names itself: a program that is not one
# (FARM_CHROMIUM_PATH=/bin/true: "true (GNU coreutils) 9.1") has no version, not "9.1"
_VERSION_RE = re.compile(r"(?<![\d.])\d+\.\d+\.\d+\.\d+(?![\d.])")


@dataclass(frozen=True)
class ChromiumInfo:
    """A Chromium binary: where it is, its version ("156.0.8078.108") and how it was found."""

    path: str
    version: str
    source: Literal["settings", "system", "playwright"]


def _is_executable(path: str | Path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


@functools.lru_cache(maxsize=16)
def chromium_version(path: str) -> str:
    """The first Chromium version (four numbers) ``<path> --version`` prints, or "unknown".

    Cached per path: every device slot calls `find_chromium` in ``open()``.
    """
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=15,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    # Debian's wrapper script prints a harmless shell warning on stderr; search both streams,
    # stdout first, so the warning's numbers never win.
    for stream in (proc.stdout, proc.stderr):
        m = _VERSION_RE.search(stream or "")
        if m:
            return m.group(0)
    return "unknown"


def playwright_chromium_path() -> str | None:
    """Path of Playwright's bundled Chromium if it was downloaded, without importing Playwright.

    Playwright keeps browsers under ``$PLAYWRIGHT_BROWSERS_PATH`` or ``~/.cache/ms-playwright``
    as ``chromium-<revision>/chrome-linux*/chrome``; the revision is in the driver's
    ``browsers.json``.  Starting the driver to ask would cost ~0.3 s.
    """
    env = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if env == "0":  # browsers installed inside the package
        spec = importlib.util.find_spec("playwright")
        if not spec or not spec.submodule_search_locations:
            return None
        root = Path(list(spec.submodule_search_locations)[0]) / "driver" / "package" / ".local-browsers"
    else:
        root = Path(env) if env else Path.home() / ".cache" / "ms-playwright"
    if not root.is_dir():
        return None
    revision = _playwright_revision()
    dirs = [root / f"chromium-{revision}"] if revision else []
    # fall back to any downloaded revision, newest first
    dirs += sorted(root.glob("chromium-*"), key=lambda p: p.name, reverse=True)
    for d in dirs:
        for sub in ("chrome-linux64/chrome", "chrome-linux/chrome"):
            if _is_executable(d / sub):
                return str(d / sub)
    return None


def _playwright_revision() -> str | None:
    spec = importlib.util.find_spec("playwright")
    if not spec or not spec.submodule_search_locations:
        return None
    browsers = Path(list(spec.submodule_search_locations)[0]) / "driver/package/browsers.json"
    try:
        data = json.loads(browsers.read_text())
    except (OSError, ValueError):
        return None
    for b in data.get("browsers", []):
        if b.get("name") == "chromium":
            return str(b.get("revision"))
    return None


def find_chromium(settings: "Settings | None" = None) -> ChromiumInfo | None:
    """The Chromium to drive, or None when there is none.

    Order: ``settings.chromium_path`` (FARM_CHROMIUM_PATH); for a headless device (the
    default; FARM_HEADLESS=false is a visible one) Debian's chromium-headless-shell; Debian's
    /usr/bin/chromium and friends on PATH; Playwright's bundled build if it is on disk.  An
    explicitly configured path that does not exist raises ConfigError rather than silently
    using another browser.
    """
    configured = getattr(settings, "chromium_path", None) if settings is not None else None
    if configured:
        path = str(Path(configured).expanduser())
        if not _is_executable(path):
            where = getattr(settings, "source", lambda _: None)("chromium_path")
            raise ConfigError(f"chromium_path {path!r} ({where or 'FARM_CHROMIUM_PATH'}) does "
                              "not exist or is not executable")
        return ChromiumInfo(path, chromium_version(path), "settings")

    kinds = [(SYSTEM_PATHS, SYSTEM_NAMES)]
    if getattr(settings, "headless", True):
        kinds.insert(0, (HEADLESS_SHELL_PATHS, HEADLESS_SHELL_NAMES))
    candidates: list[str] = []
    for paths, names in kinds:
        candidates += paths
        candidates += [found for found in map(shutil.which, names) if found]
    for path in candidates:
        if _is_executable(path):
            return ChromiumInfo(path, chromium_version(path), "system")

    bundled = playwright_chromium_path()
    if bundled:
        return ChromiumInfo(bundled, chromium_version(bundled), "playwright")
    return None


def driver_end_seen(pw: object) -> None:
    """A Playwright driver that ended under its Playwright (killed by `BrowserDevice.kill`,
    crashed, or hit by the Ctrl-C that stops `farm sim`): the calls in flight failed with it,
    so its transport's error, kept in a future nothing awaits then, is marked seen (else
    asyncio prints "Future exception was never retrieved ... Connection closed while reading
    from the driver" at exit). ``pw``: what sync_playwright().start() or async_playwright()
    .start() gave; on an async one, call it on the loop's thread."""
    manager = getattr(getattr(pw, "stop", None), "__self__", None)   # (stop(): its __exit__)
    transport = getattr(getattr(manager, "_client", None), "_transport", None)
    ended = getattr(transport, "on_error_future", None)
    if ended is not None and ended.done() and not ended.cancelled():
        ended.exception()
