"""`/ready` of a `farm worker` device while its Redis is away: 503 (its Celery consumer reads
nothing then), 200 again once Redis answers. Real redis-server, real `farm worker`."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.support.cluster import wait_idle
from tests.support.farm_cli import wait_for
from tests.support.redis_server import free_port

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def ready_status(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_ready_is_503_while_the_worker_cannot_reach_its_broker(private_redis, workers, farm):
    server = private_redis()
    port = free_port()
    workers("fake:1", "--metrics-port", str(port), broker=server.url, FARM_WORKER_HOST="vm")
    wait_idle(server.url, 1)
    wait_for(lambda: ready_status(port) == 200, 30, "/ready 200 once the device serves")
    server.stop()
    wait_for(lambda: ready_status(port) == 503, 30, "/ready 503 while Redis is down")
    server.start()
    wait_for(lambda: ready_status(port) == 200, 60, "/ready 200 once Redis answers again")
