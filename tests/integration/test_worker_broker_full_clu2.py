"""A `farm worker` whose Redis refuses writes as it starts (full: maxmemory reached under the
noeviction policy) waits for it, saying so in one line, and serves once Redis takes writes:
each device process died of an OutOfMemoryError traceback and was started again, traceback
after traceback, at each back-off. Real redis-server (the test's own), real `farm worker`."""

from __future__ import annotations

import pytest
import redis

from tests.support.cluster import wait_idle
from tests.support.farm_cli import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_worker_whose_redis_is_full_waits_for_it_in_one_line(private_redis, workers, farm):
    server = private_redis()
    r = redis.Redis.from_url(server.url, decode_responses=True)
    r.config_set("maxmemory-policy", "noeviction")
    r.config_set("maxmemory", 1)                # full: every write refused
    worker = workers("fake:1", broker=server.url)
    try:        # (a worker starting on a loaded machine: its imports alone can take a minute)
        wait_for(lambda: "out of memory" in farm.worker_logs(), 180,
                 "the device process saying why it waits")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the worker's log:\n{farm.worker_logs()[-4000:]}") from None
    assert worker.poll() is None, farm.worker_logs()
    r.config_set("maxmemory", 0)
    wait_idle(server.url, 1)
    logs = farm.worker_logs()
    assert "Traceback" not in logs and "starting it again" not in logs, logs
    assert logs.count("out of memory") == 1, logs
