"""A run on redis db /3 with its workers on /0 said only 'no usable web worker in the cluster
for 15s (start one: farm worker)': now it names the database the workers are on. Real
redis-server, real `farm worker`."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_run_on_another_database_than_its_workers_says_where_they_are(
        tmp_path, private_redis, workers, farm):
    server = private_redis()
    workers("fake:1", broker=server.url_for(0))
    wait_idle(server.url_for(0), 1)
    done = farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", server.url_for(3),
                    "--devices", "fake:1", "--report-dir", tmp_path / "run",
                    FARM_DEVICE_PLUGINS=PLUGIN,
                    **{**CLUSTER_ENV, "FARM_CLUSTER_DEVICE_WAIT": "1"})
    assert done.returncode == 3, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert (f"(workers are registered on {server.url_for(0)} of the same Redis: give the run "
            "and the workers the same database)") in out, out
    assert "start one: farm worker" not in out, out
