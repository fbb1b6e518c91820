"""CaseCache: one case attempt's view of the cache store.

It knows the namespace (suite/case, platform, app version), the mode, and how often each
prompt has been used so far (the n-th use of a prompt is its n-th entry). `CaseCache.count`
is the one place where a lookup's result (hit, miss, stale, replanned) is recorded.
A store that fails (Redis away, disk full) turns the cache off for the attempt with one
warning: the cache only ever saves time, it never fails a case.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Callable

from farm import metrics
from farm.cache.keys import Kind, Namespace, reads, writes
from farm.cache.store import CacheStore, Entry
from farm.results import CacheUse

log = logging.getLogger("farm.cache")

DEFAULT_TTL = 30 * 86400.0


class CaseCache:
    def __init__(self, store: CacheStore, ns: Namespace, mode: str,
                 mask: Callable[[str], str] = lambda text: text, package: str | None = None,
                 ttl: float | None = DEFAULT_TTL) -> None:
        self.store, self.ns, self.mode = store, ns, mode
        self.mask, self.package, self.ttl = mask, package, ttl
        self._uses: dict[tuple[str, str], int] = {}
        self._step_enabled = True
        self.step = CacheUse(mode=mode)
        self.broken = False

    # ---- per step ----------------------------------------------------------------------------
    def begin_step(self, cacheable: bool = True) -> None:
        """A step starts: ``cacheable: false`` keeps this step out of the cache."""
        self._step_enabled = cacheable
        self.step = CacheUse(mode=self.mode if cacheable else "off")

    def end_step(self) -> CacheUse | None:
        """What the cache did during the step (None when it did nothing)."""
        used, self.step = self.step, CacheUse(mode=self.mode)
        self._step_enabled = True
        return used if used.touched else None

    @property
    def active(self) -> bool:
        return self._step_enabled and not self.broken and self.mode != "off"

    @property
    def reading(self) -> bool:
        return self.active and reads(self.mode)

    @property
    def writing(self) -> bool:
        return self.active and writes(self.mode)

    # ---- entries -----------------------------------------------------------------------------
    def slot(self, kind: Kind, prompt: str) -> str:
        """The key of the next use of ``prompt`` in this attempt."""
        n = self._uses.get((kind, prompt), 0)
        self._uses[(kind, prompt)] = n + 1
        return self.ns.key(kind, prompt, n)

    def lookup(self, key: str) -> Entry | None:
        """The stored entry (None: none, not reading, or the store failed). The caller
        decides what it means and reports it once through `count`."""
        if not self.reading:
            return None
        try:
            return self.store.get(key)
        except Exception as exc:   # the store is an optimisation: never fail a case over it
            self._broke(exc)
            return None

    def count(self, kind: Kind, result: str) -> None:
        """The one place a lookup's result is recorded (instrument metrics here). Locate:
        hit | miss | stale (found, but its XPath no longer selects one element on screen).
        Plan: hit | miss | replanned (replayed, a step failed, the model planned the rest)."""
        metrics.cache_request(kind, result)
        if kind == "plan":
            self.step.plan = result
        elif result in ("hit", "miss", "stale"):
            attr = {"hit": "hits", "miss": "misses", "stale": "stale"}[result]
            setattr(self.step, attr, getattr(self.step, attr) + 1)

    def save(self, key: str, kind: Kind, prompt: str, value: Entry) -> bool:
        """Store an entry (in a writing mode); never one that holds a secret value."""
        if not self.writing:
            return False
        entry = {"type": kind, "prompt": prompt, **value, "updated": time.time()}
        if not self.safe(json.dumps(entry, ensure_ascii=False)):
            log.warning("not cached: the %s entry for %r would hold a secret value", kind, prompt)
            return False
        try:
            self.store.put(key, entry, self.ttl)
        except Exception as exc:
            self._broke(exc)
            return False
        self.step.written += 1
        return True

    def safe(self, text: str) -> bool:
        """Whether ``text`` may be stored (holds no secret value)."""
        return self.mask(text) == text

    def _broke(self, exc: BaseException) -> None:
        if not self.broken:
            log.warning("cache store %s failed (%s: %s); caching is off for this case",
                        self.store.where, type(exc).__name__, self.mask(str(exc))[:300])
        self.broken = True

