"""A `farm worker` whose Redis fails over (the server it talks to becomes a replica: Celery's
consumer dies of "UNBLOCKED … master -> replica", an unrecoverable error) starts its device
process again, and serves once Redis takes writes again. Before, the device process exited
0, taken for a device that drained on purpose: never started again, `farm worker` ended
with exit 0 (a supervisor restarting on failure left it down), no device left in the
cluster. The failover and the process started again while Redis is still a replica (which
waits) are said in a line each, where each printed a ReadOnlyError traceback (at each back-off). Real redis-server (the test's own), real `farm worker`, `farm run --broker`."""

from __future__ import annotations

import re

import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results, wait_for
from tests.support.redis_server import free_port
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_worker_whose_redis_failed_over_starts_its_device_again(tmp_path, private_redis,
                                                                   workers, farm):
    server = private_redis()
    worker = workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    r = redis.Redis.from_url(server.url, decode_responses=True)
    r.replicaof("127.0.0.1", free_port())       # demoted: its primary is elsewhere now
    wait_for(lambda: "exited with 1: starting it again" in farm.worker_logs(), 60,
             "the device process ending on the failover, and started again")
    wait_for(lambda: "waiting for it to take writes again" in farm.worker_logs(), 60,
             "the device process started again saying why it waits")
    assert worker.poll() is None, farm.worker_logs()
    r.replicaof("NO", "ONE")                    # a primary again: takes writes
    wait_for(lambda: farm.worker_logs().count(" ready (queues ") == 2, 120,
             "the device ready again")
    # said in a line each, not a ReadOnlyError traceback at the failover and at each restart
    logs = farm.worker_logs()
    assert "Traceback" not in logs, logs
    assert re.search(r"fake-1@\S+: the broker is a read-only replica now", logs), logs
    restarted = logs.split("starting it again", 1)[1]
    assert "starting it again" not in restarted, restarted
    assert restarted.count("waiting for it to take writes again") == 1, restarted
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", server.url,
                    "--devices", "fake:1", "--report-dir", tmp_path / "run",
                    FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert done.returncode == 0, done.stdout + done.stderr + farm.worker_logs()
    assert results(tmp_path / "run")["counts"]["passed"] == 1
