"""The CacheStore seam: namespaced get/put of JSON entries with a time to live.

Two real stores: `farm.cache.sqlite_store.SqliteStore` (embedded default, ``.farm/cache.db``)
and `farm.cache.redis_store.RedisStore` (shared by a cluster's workers). `MemoryStore` is the
fake the unit tests use. Keys are built by `farm.cache.keys`; values are JSON objects.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Iterator, Protocol

Entry = dict[str, Any]


def decoded(raw: str | bytes) -> Entry | None:
    """A stored value as an entry; None when it is not one (not JSON, or not a JSON object:
    written by hand or by another program): read as no entry, so a run locates or plans
    again and writes a good one over it, and `farm cache ls` lists the others (both ended in
    an internal error)."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class StoreReadOnly(Exception):
    """The store reads but takes no writes: a cache.db the user may not write (a read-only
    file or mount), a Redis replica. A case then reads it and writes nothing."""


class CacheStore(Protocol):
    """Where cache entries live. Every method may be called from several threads."""

    where: str          # for messages: a file path, or a Redis URL with the password masked

    def get(self, key: str) -> Entry | None:
        """The entry, or None when absent or expired."""

    def put(self, key: str, value: Entry, ttl: float | None = None) -> None:
        """Store (replace) ``value``; ``ttl`` seconds, None for no expiry."""

    def items(self, prefix: str = "") -> Iterator[tuple[str, Entry]]:
        """Every live entry whose key starts with ``prefix``, in key order."""

    def delete(self, prefix: str = "") -> int:
        """Remove every entry whose key starts with ``prefix``; how many were removed."""

    def touch(self, keys: list[str], ttl: float) -> None:
        """Give each of ``keys`` that is still there ``ttl`` more seconds to live (an entry
        in use nightly must not expire the month after it was written)."""

    def check(self) -> None:
        """Raise ConfigError naming the store (``where``) when it cannot be reached: what the
        ``farm cache`` commands say instead of a traceback. (A run never calls it: there a
        failing store only turns the cache off.)"""

    def close(self) -> None: ...


class MemoryStore:
    """A CacheStore in a dict (unit tests). ``clock`` lets a test move time on."""

    where = "memory"

    def __init__(self, clock: Any = time.time) -> None:
        self._data: dict[str, tuple[Entry, float | None]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def get(self, key: str) -> Entry | None:
        with self._lock:
            found = self._data.get(key)
        if found is None or (found[1] is not None and found[1] <= self._clock()):
            return None
        return dict(found[0])

    def put(self, key: str, value: Entry, ttl: float | None = None) -> None:
        with self._lock:
            self._data[key] = (dict(value), None if ttl is None else self._clock() + ttl)

    def items(self, prefix: str = "") -> Iterator[tuple[str, Entry]]:
        with self._lock:
            keys = sorted(k for k in self._data if k.startswith(prefix))
        for key in keys:
            value = self.get(key)
            if value is not None:
                yield key, value

    def delete(self, prefix: str = "") -> int:
        with self._lock:
            gone = [k for k in self._data if k.startswith(prefix)]
            for key in gone:
                del self._data[key]
        return len(gone)

    def touch(self, keys: list[str], ttl: float) -> None:
        with self._lock:
            for key in keys:
                found = self._data.get(key)
                if found is not None and (found[1] is None or found[1] > self._clock()):
                    self._data[key] = (found[0], self._clock() + ttl)

    def check(self) -> None:
        pass

    def close(self) -> None:
        pass
