"""Runs whose workers come late or go briefly: `farm run --broker --matrix` started before its
workers, a Redis restart without its data, a run waiting for another run's device. Real
redis-server, real `farm worker` processes on the ``fake`` kind of the test device plugin."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def test_a_matrix_run_started_before_its_workers_runs_on_their_groups(tmp_path, redis_url,
                                                                       workers, farm):
    """--matrix with no worker yet: the run waits for the platform's first worker, then runs
    every case on the groups it finds. Before, every case went to a group named after the
    platform (`web`) that no worker had, and the run ended with exit 3 "no usable web.web
    worker" though its workers came up seconds later."""
    proc = run_on(farm, redis_url, sleep_suite(tmp_path / "s", 2, 100), tmp_path / "run",
                  "--devices", "fake:1", "--matrix", FARM_CLUSTER_DEVICE_WAIT="600")
    line = proc.wait_for_line("farm: waiting for", 60)
    assert line == ("farm: waiting for a web worker (none in the cluster yet; "
                    "FARM_CLUSTER_DEVICE_WAIT=600s)"), line
    workers("fake:1", "--group", "os14")
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    assert sorted(c["case_id"] for c in summary["cases"]) == ["s/c00@os14", "s/c01@os14"], out
    assert summary["counts"]["passed"] == 2
    assert out.count("farm: waiting for") == 1 and "web.web" not in out, out


def test_a_matrix_run_with_no_worker_at_all_fails_as_without_matrix(tmp_path, redis_url, farm):
    """No worker within FARM_CLUSTER_DEVICE_WAIT: the cases end as they do without --matrix
    (exit 3, "no usable web worker ... start one"), after one wait, not two."""
    proc = run_on(farm, redis_url, sleep_suite(tmp_path / "s", 1, 100), tmp_path / "run",
                  "--devices", "fake:1", "--matrix", FARM_CLUSTER_DEVICE_WAIT="3")
    out = proc.finish()
    assert proc.returncode == 3, out
    case, = results(tmp_path / "run")["cases"]
    assert case["case_id"] == "s/c00" and case["status"] == "error", case
    assert case["error"]["message"].startswith(
        "no usable web worker in the cluster for 3s (start one: farm worker)"), case
    assert out.count("farm: waiting for") == 1, out


def test_a_redis_restart_does_not_say_the_workers_are_gone(tmp_path, private_redis, workers,
                                                            farm):
    """Redis restarts empty while a case runs: the workers' leases come back with their next
    heartbeats, so the run says nothing about waiting for a worker. Before, it printed
    "farm: waiting for a web worker (none usable left; ...)" on every such restart."""
    server = private_redis()
    gate = tmp_path / "go"
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{gate}", "sleep: 10"])
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    proc = run_on(farm, server.url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1",
                  FARM_CLUSTER_OUTAGE_SECONDS="900", FARM_CLUSTER_DEVICE_WAIT="600")
    wait_busy(server.url, 1)
    server.stop()
    server.start()
    wait_busy(server.url, 1)        # the worker's lease is back
    gate.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    assert results(tmp_path / "run")["counts"]["passed"] == 1, out
    assert "farm: waiting for" not in out, out


def test_a_run_waiting_for_another_runs_device_says_so(tmp_path, redis_url, workers, farm):
    """The only device is busy with an older run: the newer run says, once, that it waits for
    it, then runs its case when the device is free. Before, it waited in silence."""
    gate = tmp_path / "go"
    write_case(tmp_path / "a", "a00", [f"javascript: farm-test:wait-for:{gate}", "sleep: 10"])
    workers("fake:1")
    wait_idle(redis_url, 1)
    pa = run_on(farm, redis_url, tmp_path / "a", tmp_path / "ra", "--devices", "fake:1")
    wait_busy(redis_url, 1)
    pb = run_on(farm, redis_url, sleep_suite(tmp_path / "b", 1, 10, "b"), tmp_path / "rb",
                "--devices", "fake:1")
    line = pb.wait_for_line("farm: waiting", 120)
    assert line == "farm: waiting: the 1 web device(s) are busy with 1 other run(s)", line
    gate.touch()
    out_a, out_b = pa.finish(), pb.finish()
    assert pa.returncode == 0 and pb.returncode == 0, out_a + out_b
    assert results(tmp_path / "rb")["counts"]["passed"] == 1, out_b
    assert out_b.count("farm: waiting") == 1 and "farm: waiting" not in out_a, out_a + out_b
