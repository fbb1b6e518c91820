"""Each line a `farm worker`'s device processes log names its device: through a Redis outage
every device said "redis unavailable (heartbeat: ...)" and Celery's "Cannot connect to
redis://...", line for line alike, none saying which device. Real redis-server (the test's
own, stopped), real `farm worker` on the test device plugin's ``fake`` kind."""

from __future__ import annotations

import re

import pytest

from tests.support.cluster import wait_idle
from tests.support.farm_cli import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_what_devices_log_through_a_redis_outage_names_each_device(private_redis, workers,
                                                                   farm):
    server = private_redis()
    workers("fake:2", broker=server.url)
    wait_idle(server.url, 2)
    server.stop()
    wait_for(lambda: farm.worker_logs().count("redis unavailable") >= 2, 60,
             "each device's heartbeat failing")
    # (logging's lines, in the worker's own style at its default level: `farm worker: <device>`)
    logged = [line for line in farm.worker_logs().splitlines()
              if line.startswith("farm worker: ") and "fake-" in line]
    assert logged
    for device in ("fake-1@", "fake-2@"):
        assert any(device in line and "redis unavailable" in line for line in logged), logged
    assert all(re.match(r"farm worker: (error: )?fake-[12]@\S+ ", line) for line in logged), \
        logged
    assert not any(re.match(r"\d{4}-\d\d-\d\d ", line)      # no dated line among them
                   for line in farm.worker_logs().splitlines()), farm.worker_logs()
