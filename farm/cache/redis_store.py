"""The shared cache store: every worker of a cluster reads what any of them solved.

Entries are JSON strings under ``<prefix>:<key>`` with Redis' own expiry; the default prefix
(``farm:cache``) keeps them apart from the cluster's keys when the broker's Redis is reused.

A Redis that does not answer (down, refusing us, or hung: a read waits for the socket timeout)
is not asked again for `DOWN_FOR` seconds: each later call fails at once with the reason, so
a run's cases go uncached without each one waiting out the timeout first (a hung Redis cost
every case of a nightly run 10 s). After that, one call probes it again.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any, Callable, Iterator

from farm.cache.store import Entry, StoreReadOnly, decoded

_GLOB = re.compile(r"([*?\[\]\\])")
SOCKET_TIMEOUT = 10.0   # seconds: connecting, and waiting for each reply
DOWN_FOR = 300.0        # seconds a store that did not answer is not asked again


class StoreDown(ConnectionError):
    """The store did not answer a moment ago: not asked again yet."""


def redis_where(url: str, prefix: str = "farm:cache") -> str:
    """How messages name a store: its URL with the password masked, and its prefix."""
    from farm.config import mask_url
    return f"{mask_url(url)} ({prefix.rstrip(':')}:*)"


class RedisStore:
    def __init__(self, url: str, prefix: str = "farm:cache") -> None:
        import redis   # lazy: embedded runs never import it
        self.where = redis_where(url, prefix)
        self.prefix = prefix.rstrip(":") + ":"
        self._r: Any = redis.Redis.from_url(url, socket_timeout=SOCKET_TIMEOUT,
                                            socket_connect_timeout=SOCKET_TIMEOUT,
                                            health_check_interval=30)
        self._lock = threading.Lock()
        self._down_until = 0.0          # time.monotonic() before which no call is made
        self._down_why = ""

    def _call(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``call(*args)`` on Redis, unless it did not answer less than `DOWN_FOR` s ago
        (`StoreDown` at once). While one call probes a store that was down, the others are
        still refused."""
        import redis
        with self._lock:
            now = time.monotonic()
            if now < self._down_until:
                raise StoreDown(f"{self._down_why} (not asked again for "
                                f"{self._down_until - now:.0f} s)")
            if self._down_why:                  # this call is the probe
                self._down_until = now + DOWN_FOR
        try:
            result = call(*args, **kwargs)
        except redis.ReadOnlyError as exc:
            raise StoreReadOnly(f"the cache store {self.where} is a read-only replica "
                                f"({exc})") from None
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            with self._lock:
                self._down_until = time.monotonic() + DOWN_FOR
                self._down_why = f"{type(exc).__name__}: {exc}"
            raise
        with self._lock:
            self._down_until, self._down_why = 0.0, ""
        return result

    def get(self, key: str) -> Entry | None:
        raw = self._call(self._r.get, self.prefix + key)
        return None if raw is None else decoded(raw)

    def put(self, key: str, value: Entry, ttl: float | None = None) -> None:
        data = json.dumps(value, ensure_ascii=False)
        if ttl is None:
            self._call(self._r.set, self.prefix + key, data)
        else:
            self._call(self._r.set, self.prefix + key, data, px=max(1, int(ttl * 1000)))

    def _keys(self, prefix: str) -> list[str]:
        pattern = _GLOB.sub(r"\\\1", self.prefix + prefix) + "*"
        found = self._call(lambda: list(self._r.scan_iter(match=pattern, count=500)))
        return sorted({k.decode() if isinstance(k, bytes) else k for k in found})

    def items(self, prefix: str = "") -> Iterator[tuple[str, Entry]]:
        keys = self._keys(prefix)
        for start in range(0, len(keys), 200):
            chunk = keys[start:start + 200]
            for key, raw in zip(chunk, self._call(self._r.mget, chunk)):
                entry = None if raw is None else decoded(raw)
                if entry is not None:
                    yield key[len(self.prefix):], entry

    def delete(self, prefix: str = "") -> int:
        keys = self._keys(prefix)
        removed = 0
        for start in range(0, len(keys), 500):
            removed += self._call(self._r.delete, *keys[start:start + 500])
        return removed

    def touch(self, keys: list[str], ttl: float) -> None:
        pipe = self._r.pipeline(transaction=False)
        for key in keys:        # PEXPIRE leaves a key that is gone (expired) gone
            pipe.pexpire(self.prefix + key, max(1, int(ttl * 1000)))
        self._call(pipe.execute)

    def check(self) -> None:
        """PING; a ConfigError naming the store (password masked) when Redis is not there
        or refuses us."""
        import redis

        from farm.errors import ConfigError
        try:
            self._r.ping()
        except redis.AuthenticationError as exc:
            given = self._r.connection_pool.connection_kwargs.get("password")
            if not given and "required" in str(exc).lower():     # NOAUTH: none was given
                raise ConfigError(f"the cache store {self.where} needs a password, and the URL "
                                  "gives none (redis://:PASSWORD@host:port/db)") from None
            raise ConfigError(f"the cache store {self.where} refused the password: {exc}") \
                from None
        except (redis.RedisError, OSError) as exc:
            raise ConfigError(f"cannot reach the cache store {self.where}: {exc}") from None

    def close(self) -> None:
        self._r.close()
