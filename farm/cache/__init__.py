"""The locate / plan cache: what a solved case needs to run again without the model.

    store.py         CacheStore protocol (+ MemoryStore, the unit tests' fake)
    sqlite_store.py  embedded default: .farm/cache.db, safe for several local workers
    redis_store.py   shared: FARM_CACHE_URL, or the cluster's broker Redis under its own prefix
    keys.py          keys (suite/case, platform, app version, kind, n-th use, prompt), modes
    case.py          CaseCache: one attempt's view; `count`: the one place a lookup result is recorded
    xpaths.py        XPath generation per platform, and the checks a cached XPath must pass
    locate.py        the locate-cache tier of the locator chain, and storing after a hit
    plan.py          the plan cache: record an ai step's actions, replay them with no model
    export.py        ``farm cache export``: a solved case as a YAML flow that needs no model
    run_store.py     the store a run used (recorded in its run directory), for export from
                     anywhere; the read-only commands never create a store
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from farm.cache.store import CacheStore
    from farm.config import Settings


def open_store(settings: "Settings") -> "CacheStore | None":
    """The configured store: FARM_CACHE_URL's Redis; in cluster mode the broker's Redis under
    ``<cluster prefix>:cache``; else ``<state dir>/cache.db``. None when the cache is off."""
    from farm.cache.run_store import redis_url
    if settings.cache == "off":
        return None
    url = redis_url(settings)
    if url is not None:
        from farm.cache.redis_store import RedisStore
        return RedisStore(url, prefix=f"{settings.cluster_prefix}:cache")
    from farm.cache.sqlite_store import SqliteStore
    return SqliteStore(Path(settings.state_dir) / "cache.db")
