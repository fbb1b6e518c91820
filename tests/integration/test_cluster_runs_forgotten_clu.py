"""The cluster's set of competing runs (``<prefix>:runs``) forgets a run whose client was
killed (SIGKILL, an OOM kill, a CI job cancelled hard: it never took itself out): before,
each such run stayed in Redis for good. One only silent for a while is kept (a client in a
long Redis outage announces itself again). Real redis-server, `farm run --broker`."""

from __future__ import annotations

import time

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX
from tests.support.farm_cli import PLUGIN
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_run_whose_client_was_killed_is_forgotten(tmp_path, redis_url, farm):
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    now = time.time()
    r.zadd(f"{PREFIX}:runs", {"killed-yesterday": now - 86400, "silent-a-minute": now - 60})
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", redis_url,
                    "--devices", "fake:1", "--report-dir", tmp_path / "run",
                    FARM_DEVICE_PLUGINS=PLUGIN, FARM_CLUSTER_DEVICE_WAIT="1", **CLUSTER_ENV)
    assert "no usable web worker" in done.stdout + done.stderr, done.stdout + done.stderr
    assert r.zrange(f"{PREFIX}:runs", 0, -1) == ["silent-a-minute"]
