"""The shared Redis cache store once Redis has been away: it is used again soon after Redis
answers again (within RETRY_MAX s; it stayed off for 5 minutes, every case logging "caching is
off for this case", and a configured model was paid for meanwhile), and while Redis is still
away it is asked less and less often (one connection attempt a period, not one a case).
Real redis-server; the store's clock is the test's, so no test waits out a back-off."""

from __future__ import annotations

import socket
import threading

import pytest

from farm.cache import redis_store
from farm.cache.redis_store import RedisStore, StoreDown
from tests.support.farm_cli import wait_for

pytestmark = [pytest.mark.integration]


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(redis_store.time, "monotonic", lambda: now[0])
    return now


def test_the_cache_is_used_again_soon_after_redis_is_back(private_redis, clock):
    server = private_redis()
    store = RedisStore(server.url, prefix="s43:cache")
    store.put("k", {"v": 1})
    server.stop()
    with pytest.raises(Exception) as down:
        store.get("k")
    assert not isinstance(down.value, StoreDown)
    with pytest.raises(StoreDown, match=r"not asked again for 5 s"):
        store.get("k")
    server.start()          # same port; it kept no data
    clock[0] += 5           # (it was 300 s)
    assert store.get("k") is None           # answered: the cache is on again
    store.put("k", {"v": 2})
    assert store.get("k") == {"v": 2}
    store.close()


class HungRedis:
    """Accepts every connection and never answers; counts them."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.sock.getsockname()[1]}/0"
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


def test_a_redis_still_away_is_asked_less_and_less_often(monkeypatch, clock):
    monkeypatch.setattr(redis_store, "SOCKET_TIMEOUT", 0.2)     # (a hung Redis: each ask
    monkeypatch.setattr(redis_store, "PROBE_TIMEOUT", 0.2)      # waits this long)
    hung = HungRedis()
    store = RedisStore(hung.url)
    start, asked = clock[0], []
    for second in range(300):               # a case a second, five minutes long
        clock[0] = start + second
        try:
            store.get("k")
        except StoreDown:
            continue
        except Exception:
            asked.append(second)
    # 5 s, then twice as long each time, up to 30 s between asks
    assert asked == [0, 5, 15, 35, 65, 95, 125, 155, 185, 215, 245, 275], asked
    wait_for(lambda: len(hung.accepted) >= len(asked), 10, "the connections made")
    assert len(hung.accepted) == len(asked)
    store.close()
    hung.close()
