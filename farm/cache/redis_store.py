"""The shared cache store: every worker of a cluster reads what any of them solved.

Entries are JSON strings under ``<prefix>:<key>`` with Redis' own expiry; the default prefix
(``farm:cache``) keeps them apart from the cluster's keys when the broker's Redis is reused.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from farm.cache.store import Entry

_GLOB = re.compile(r"([*?\[\]\\])")


def redis_where(url: str, prefix: str = "farm:cache") -> str:
    """How messages name a store: its URL with the password masked, and its prefix."""
    from farm.config import mask_url
    return f"{mask_url(url)} ({prefix.rstrip(':')}:*)"


class RedisStore:
    def __init__(self, url: str, prefix: str = "farm:cache") -> None:
        import redis   # lazy: embedded runs never import it
        self.where = redis_where(url, prefix)
        self.prefix = prefix.rstrip(":") + ":"
        self._r: Any = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10,
                                            health_check_interval=30)

    def get(self, key: str) -> Entry | None:
        raw = self._r.get(self.prefix + key)
        return None if raw is None else json.loads(raw)

    def put(self, key: str, value: Entry, ttl: float | None = None) -> None:
        data = json.dumps(value, ensure_ascii=False)
        if ttl is None:
            self._r.set(self.prefix + key, data)
        else:
            self._r.set(self.prefix + key, data, px=max(1, int(ttl * 1000)))

    def _keys(self, prefix: str) -> list[str]:
        pattern = _GLOB.sub(r"\\\1", self.prefix + prefix) + "*"
        keys = {k.decode() if isinstance(k, bytes) else k
                for k in self._r.scan_iter(match=pattern, count=500)}
        return sorted(keys)

    def items(self, prefix: str = "") -> Iterator[tuple[str, Entry]]:
        keys = self._keys(prefix)
        for start in range(0, len(keys), 200):
            chunk = keys[start:start + 200]
            for key, raw in zip(chunk, self._r.mget(chunk)):
                if raw is not None:
                    yield key[len(self.prefix):], json.loads(raw)

    def delete(self, prefix: str = "") -> int:
        keys = self._keys(prefix)
        removed = 0
        for start in range(0, len(keys), 500):
            removed += self._r.delete(*keys[start:start + 500])
        return removed

    def check(self) -> None:
        """PING; a ConfigError naming the store (password masked) when Redis is not there
        or refuses us."""
        import redis

        from farm.errors import ConfigError
        try:
            self._r.ping()
        except redis.AuthenticationError as exc:
            raise ConfigError(f"the cache store {self.where} refused the password: {exc}") \
                from None
        except (redis.RedisError, OSError) as exc:
            raise ConfigError(f"cannot reach the cache store {self.where}: {exc}") from None

    def close(self) -> None:
        self._r.close()
