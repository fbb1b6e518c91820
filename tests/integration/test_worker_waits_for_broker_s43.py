"""`farm worker` started before its Redis (as Compose starts them): it says it waits, starts
its devices once Redis answers, and serves; the password never shows. A worker whose Redis
never comes ends with exit 3 after FARM_CLUSTER_OUTAGE_SECONDS."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import wait_for
from tests.support.redis_server import RedisServer

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_worker_started_before_its_redis_waits_then_serves(farm):
    server = RedisServer(password="s43-worker-pw")       # its port chosen, nothing there yet
    worker = farm.worker("browser:1", broker=server.url)
    try:
        wait_for(lambda: "waiting for the broker" in farm.worker_logs(), 60,
                 "the worker saying it waits for its broker")
        assert worker.poll() is None, farm.worker_logs()
        server.start()
        wait_for(lambda: " ready (queues " in farm.worker_logs(), 120, "the worker ready")
    finally:
        farm.close()
        server.stop()
    logs = farm.worker_logs()
    assert "farm worker: the broker answers: starting" in logs, logs
    assert "s43-worker-pw" not in logs
    assert "Traceback" not in logs


def test_a_worker_whose_redis_never_comes_exits_3(farm):
    url = RedisServer(password="s43-worker-pw").url       # nothing listens there
    worker = farm.worker("browser:1", broker=url, FARM_CLUSTER_OUTAGE_SECONDS="1")
    assert worker.wait(120) == 3, farm.worker_logs()
    logs = farm.worker_logs()
    assert "(waited 1s: FARM_CLUSTER_OUTAGE_SECONDS)" in logs, logs
    assert "s43-worker-pw" not in logs and "Traceback" not in logs
