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
    assert healthy(port) == 1
    server.stop()
    wait_for(lambda: ready_status(port) == 503, 30, "/ready 503 while Redis is down")
    wait_for(lambda: healthy(port) == 0, 30, "farm_device_healthy 0 while Redis is down")
    server.start()
    wait_for(lambda: ready_status(port) == 200, 60, "/ready 200 once Redis answers again")
    wait_for(lambda: healthy(port) == 1, 30, "farm_device_healthy 1 once Redis answers again")


def healthy(port: int) -> float | None:
    from prometheus_client.parser import text_string_to_metric_families
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return next((s.value for f in text_string_to_metric_families(text) for s in f.samples
                 if s.name == "farm_device_healthy"), None)


def test_farm_devices_names_the_build_each_worker_runs(workers, farm, redis_url):
    """A worker on a days-old checkout looked like one on today's code everywhere."""
    from farm import metrics
    from tests.support.cluster import CLUSTER_ENV
    workers("fake:1", FARM_WORKER_HOST="vm")
    wait_idle(redis_url, 1)
    listed = farm.run("devices", "--broker", redis_url, timeout=60, **CLUSTER_ENV)
    line = next(x for x in listed.stdout.splitlines() if x.startswith("  fake-1@vm"))
    assert f" idle  (farm {metrics.build_version()})" in line, listed.stdout
