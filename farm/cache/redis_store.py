"""The shared cache store: every worker of a cluster reads what any of them solved.

Entries are JSON strings under ``<prefix>:<key>`` with Redis' own expiry; the default prefix
(``farm:cache``) keeps them apart from the cluster's keys when the broker's Redis is reused.

A Redis that does not answer (down, refusing us, or hung: a read waits for the socket timeout)
is not asked again for a while: each later call fails at once with the reason, so a run's
cases go uncached without each one waiting out the timeout first (a hung Redis cost every
case of a nightly run 10 s). Then one call probes it with a PING that waits at most
`PROBE_TIMEOUT` s; while it still does not answer, the wait between probes doubles from
`RETRY_FIRST` to `RETRY_MAX` seconds. So the cache is back within `RETRY_MAX` s of Redis (it
stayed off for 5 minutes, and a configured model was paid for meanwhile), at one connection
attempt per process and period while Redis is away.
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
RETRY_FIRST = 5.0       # seconds a store that did not answer is not asked again, at first,
RETRY_MAX = 30.0        # doubling while it still does not, up to this
PROBE_TIMEOUT = 1.0     # seconds the PING asking it again may take (a hung Redis: each probe)


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
        self._probe: Any = redis.Redis.from_url(url, socket_timeout=PROBE_TIMEOUT,
                                                socket_connect_timeout=PROBE_TIMEOUT)
        self._lock = threading.Lock()
        self._down_until = 0.0          # time.monotonic() before which no call is made
        self._down_why = ""
        self._retry_in = RETRY_FIRST    # the wait after the next failure

    def _call(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``call(*args)`` on Redis, unless it did not answer a moment ago (`StoreDown` at
        once). Once that moment is over, the first call PINGs it first (`PROBE_TIMEOUT`);
        the others are still refused meanwhile."""
        import redis
        with self._lock:
            now = time.monotonic()
            if now < self._down_until:
                raise StoreDown(f"{self._down_why} (not asked again for "
                                f"{self._down_until - now:.0f} s)")
            probing = bool(self._down_why)
            if probing:
                self._down_until = now + self._retry_in
        try:
            if probing:
                self._probe.ping()
            result = call(*args, **kwargs)
        except redis.ReadOnlyError as exc:
            raise StoreReadOnly(f"the cache store {self.where} is a read-only replica "
                                f"({exc})") from None
        except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
            self._failed(exc)
            raise
        with self._lock:
            self._down_until, self._down_why, self._retry_in = 0.0, "", RETRY_FIRST
        return result

    def _failed(self, exc: BaseException) -> None:
        """Redis did not answer: not asked again for a while, longer each time in a row."""
        with self._lock:
            self._down_until = time.monotonic() + self._retry_in
            self._down_why = f"{type(exc).__name__}: {exc}"
            self._retry_in = min(self._retry_in * 2, RETRY_MAX)

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
        self._probe.close()
