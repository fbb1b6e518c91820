"""A `farm run --broker` started during a Redis blip failed at once, exit 4 ('cannot reach the
broker … Connection refused'), while a worker and a running run wait FARM_CLUSTER_OUTAGE_SECONDS
for it. Now the start of a run whose broker an earlier run (same state dir) reached waits the
same, says so, and ends with exit 3 if Redis stays away; so does a broker never reached (a
Redis restarting as the CI job starts). Real redis-server, real `farm worker`."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results
from tests.support.redis_server import free_port
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_run_started_while_redis_is_away_waits_for_it(tmp_path, private_redis, workers,
                                                        farm):
    server = private_redis()
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    first = run(farm, tmp_path, server.url, "first")
    assert first.returncode == 0, first.stdout + first.stderr
    server.stop()
    proc = farm.start("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", server.url,
                      "--devices", "fake:1", "--report-dir", tmp_path / "run",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    said = proc.wait_for_line("waiting for the broker")
    assert said.startswith(f"farm: waiting for the broker {server.url} ("), said
    assert said.endswith("): up to 60s (FARM_CLUSTER_OUTAGE_SECONDS)"), said
    server.start()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    assert "farm: the broker answers: starting" in out, out
    assert results(tmp_path / "run")["counts"]["passed"] == 1


def run(farm, tmp_path, url: str, name: str, **env: str):
    return farm.run("run", sleep_suite(tmp_path / "s", 1, 10), "--broker", url, "--devices",
                    "fake:1", "--report-dir", tmp_path / name, FARM_DEVICE_PLUGINS=PLUGIN,
                    **{**CLUSTER_ENV, **env})


def test_a_run_whose_redis_stays_away_ends_with_exit_3(tmp_path, private_redis, workers, farm):
    server = private_redis()
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    assert run(farm, tmp_path, server.url, "first").returncode == 0
    server.stop()
    url = server.url
    done = run(farm, tmp_path, url, "run", FARM_CLUSTER_OUTAGE_SECONDS="1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"farm: waiting for the broker {url} (" in done.stderr, done.stderr
    assert "(waited 1s: FARM_CLUSTER_OUTAGE_SECONDS)" in done.stderr, done.stderr


def test_a_broker_never_reached_is_waited_for_too_then_exit_3(tmp_path, farm):
    """(a CI job that starts while Redis restarts: an infrastructure error, not the user's
    configuration; a host name that does not resolve is still exit 4 at once)"""
    done = run(farm, tmp_path, f"redis://127.0.0.1:{free_port()}/0", "run",
               FARM_CLUSTER_OUTAGE_SECONDS="1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "farm: waiting for the broker" in done.stderr, done.stderr
    assert "(waited 1s: FARM_CLUSTER_OUTAGE_SECONDS)" in done.stderr, done.stderr
    assert results(tmp_path / "run")["cases"][0]["error"]["kind"] == "BrokerLost"
