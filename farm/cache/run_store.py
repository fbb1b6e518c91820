"""Which cache store a run used, so that ``farm cache export RUN_DIR`` reads that one from any
working directory (the default store, ``.farm/cache.db``, is relative to where a run starts).

A run records its store in ``<run dir>/cache-store.json``: the SQLite file's absolute path,
or a Redis store as its masked URL (the password is never written: the export then needs
FARM_CACHE_URL or --broker naming the same store). For a run directory without that record
(written by an older farm), the store is looked for: the configured one when it is set
explicitly, ``<state dir>/cache.db`` when the run directory is ``<state dir>/runs/<id>``, a
``.farm/cache.db`` in the run directory or a folder above it, or beside the run's case files
or above them (the nearest folders first); the working directory's last. An export read from
the wrong store still cannot replace a richer one (`farm.cache.export.refuse_poorer`).

The read-only commands never create a store: `missing_cache` / `existing_store` say "no cache
at PATH".
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from farm.errors import ConfigError

if TYPE_CHECKING:
    from farm.cache.store import CacheStore
    from farm.config import Settings
    from farm.suite.model import Case

log = logging.getLogger("farm.cache")

RECORD = "cache-store.json"
DEFAULT_STATE = Path(".farm")


def redis_url(settings: "Settings") -> str | None:
    """The Redis URL `farm.cache.open_store` uses (FARM_CACHE_URL, else the broker's)."""
    url = settings.cache_url or settings.broker_url
    return url.get_secret_value() if url is not None and url.get_secret_value() else None


def described(settings: "Settings") -> dict[str, str]:
    """What a run records of its store: ``{"sqlite": absolute path}``, ``{"redis": masked
    URL and prefix}`` (as `CacheStore.where` names it), or ``{"off": ""}``."""
    if settings.cache == "off":
        return {"off": ""}
    url = redis_url(settings)
    if url is not None:
        from farm.cache.redis_store import redis_where   # only for Redis: a cold import
        return {"redis": redis_where(url, f"{settings.cluster_prefix}:cache")}
    return {"sqlite": str((Path(settings.state_dir) / "cache.db").resolve())}


def record_store(run_dir: Path, settings: "Settings") -> None:
    """Write ``<run_dir>/cache-store.json`` (a run calls it once; a failure is only logged:
    the export then looks for the store)."""
    from farm.report.paths import replace_file     # whole or not at all (a full disk)
    try:
        replace_file(Path(run_dir) / RECORD, (json.dumps(described(settings)) + "\n").encode())
    except OSError as exc:
        log.warning("cannot write %s: %s", Path(run_dir) / RECORD, exc)


def missing_cache(settings: "Settings") -> Path | None:
    """The configured store's SQLite file when it does not exist (None: it does, or the
    store is Redis): a read-only command says "no cache at PATH" instead of creating it."""
    if redis_url(settings) is not None:
        return None
    path = Path(settings.state_dir) / "cache.db"
    return None if path.exists() else path      # a directory there: "cannot open" says so


def existing_store(settings: "Settings", hint: str) -> "CacheStore":
    """The configured store, answering; ConfigError ``no cache at PATH: <hint>`` when it is a
    SQLite file that does not exist."""
    missing = missing_cache(settings)
    if missing is not None:
        raise ConfigError(f"no cache at {missing}: {hint}")
    return _opened(settings)


def _opened(settings: "Settings", path: Path | None = None) -> "CacheStore":
    import sqlite3

    from farm.cache import open_store
    from farm.cache.sqlite_store import SqliteStore
    where = path or Path(settings.state_dir) / "cache.db"
    try:
        store = SqliteStore(path) if path is not None else open_store(
            settings.model_copy(update={"cache": None}))
    except (OSError, sqlite3.Error) as exc:
        raise ConfigError(f"cannot open the cache store {where}: {exc}") from None
    assert store is not None
    try:
        store.check()
    except ConfigError:
        store.close()       # a corrupt file may be moved aside next (`farm cache clear`)
        raise
    return store


def case_file_hint(case_file: Path) -> str:
    """What ``farm cache export FILE`` adds to "no cache at PATH": the store beside the case's
    folders when there is one (the run was started there), else how to make or name one."""
    top = case_file.resolve().parent
    near = next((d / DEFAULT_STATE for d in (top, *top.parents)
                 if (d / DEFAULT_STATE / "cache.db").is_file()), None)
    if near is not None:
        return f"nothing to export from here; its run's store may be {near}: FARM_STATE_DIR={near}"
    return (f"nothing to export from; run the case first (farm run {case_file}), or set "
            "FARM_STATE_DIR to the state directory its run used")


def run_store(run_dir: Path, settings: "Settings", cases: Iterable["Case"] = ()) -> "CacheStore":
    """The store the run in ``run_dir`` used (see the module docstring); ConfigError naming
    it, and how to point at it, when it cannot be opened."""
    recorded = _recorded(run_dir)
    if "sqlite" in recorded:
        path = Path(recorded["sqlite"])
        if not path.is_file():
            raise ConfigError(f"no cache at {path}, the store the run {run_dir} used (its "
                              f"{RECORD}): nothing to export from")
        return _opened(settings, path)
    if "redis" in recorded:
        url = redis_url(settings)
        from farm.cache.redis_store import redis_where
        now = redis_where(url, f"{settings.cluster_prefix}:cache") if url else None
        if now != recorded["redis"]:
            raise ConfigError(f"the run {run_dir} used the cache store {recorded['redis']} "
                              f"(its {RECORD}); set FARM_CACHE_URL (or --broker) to that "
                              f"Redis to export from it (now: {now or 'no Redis set'})")
        return _opened(settings)
    return _found(run_dir, settings, cases)


def _recorded(run_dir: Path) -> dict[str, str]:
    try:
        data = json.loads((run_dir / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)}   # hand-edited: not a path


def _found(run_dir: Path, settings: "Settings", cases: Iterable["Case"]) -> "CacheStore":
    """A run that recorded no store (or ran with the cache off): an explicitly configured
    store, else the first cache.db found where the run's state directory would be."""
    if redis_url(settings) is not None:
        return _opened(settings)
    places = _places(run_dir, settings, cases)
    for path in places:
        if path.is_file():
            return _opened(settings, path)
    raise ConfigError(f"no cache found for the run {run_dir} (it recorded no {RECORD}); "
                      f"looked at {', '.join(map(str, places))}: set FARM_STATE_DIR to the "
                      "state directory the run used (its cache.db), or FARM_CACHE_URL")


def _places(run_dir: Path, settings: "Settings", cases: Iterable["Case"]) -> list[Path]:
    """Where the cache.db of a run that did not record its store may be, most likely first."""
    state = Path(settings.state_dir)
    explicit = [state / "cache.db"] if settings.source("state_dir") else []
    here = run_dir.resolve()
    runs = [here.parent.parent / "cache.db"] if here.parent.name == "runs" else []
    folders = [here, *here.parents]
    for case in cases:
        top = case.file.resolve().parent
        folders += [top, *top.parents]
    # the nearest first: a project's .farm before one in /tmp or the home directory
    folders.sort(key=lambda d: -len(d.parts))
    beside = [d / DEFAULT_STATE / "cache.db" for d in folders]
    return list(dict.fromkeys([*explicit, *runs, *beside, (state / "cache.db").resolve()]))
