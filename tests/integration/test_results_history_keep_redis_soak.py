"""The shared results history in Redis keeps its newest runs: `<prefix>:results:runs` and
`:results:index` gained ~2.4 KB a run for good. Real redis-server."""

from __future__ import annotations

import pytest
import redis

from farm.results_history import RedisResults, record_for
from tests.unit.test_results_history_keep_soak import run

pytestmark = [pytest.mark.integration]


def test_the_redis_history_keeps_its_newest_runs(redis_url):
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    store = RedisResults(r, "keepsoak", keep=4)
    for n in (0, 1, 2, 3, 6, 5, 4):     # (one arriving late, older than the newest)
        store.add(record_for(run(n)))
    assert [x.run_id for x in store.runs()] == ["r003", "r004", "r005", "r006"]
    assert sorted(r.hkeys("keepsoak:results:runs")) == ["r003", "r004", "r005", "r006"]
    assert r.zcard("keepsoak:results:index") == 4
    store.add(record_for(run(4)))       # the same run again: nothing dropped for it
    assert [x.run_id for x in store.recent(10)] == ["r003", "r004", "r005", "r006"]
