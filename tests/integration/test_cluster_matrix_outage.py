"""`farm run --broker --matrix` started before its workers, while Redis is away for a moment:
it waits for the broker as the rest of a cluster run does (FARM_CLUSTER_OUTAGE_SECONDS).
Real redis-server of the test's own (stopped and started again), real `farm worker` processes
on the ``fake`` kind of the test device plugin."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV
from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def client_log(run_dir) -> str:
    log = run_dir / "farm.log"
    return log.read_text(errors="replace") if log.exists() else ""


def test_a_matrix_run_waiting_for_its_workers_waits_out_a_redis_restart(
        tmp_path, private_redis, workers, farm):
    """Redis restarts while the run waits for its platform's first worker: the run says once
    that the broker is unreachable, waits for it, then runs on the workers that come. Before,
    it ended at once, every case an error "lost the broker" (exit 3)."""
    server = private_redis()
    run_dir = tmp_path / "run"
    proc = run_on(farm, server.url, sleep_suite(tmp_path / "s", 2, 100), run_dir,
                  "--devices", "fake:1", "--matrix", FARM_CLUSTER_DEVICE_WAIT="600",
                  FARM_CLUSTER_OUTAGE_SECONDS="900")
    proc.wait_for_line("farm: waiting for", 60)
    server.stop()
    wait_for(lambda: "broker unreachable" in client_log(run_dir) or proc.popen.poll() is not None,
             120, "the run noticing the outage")
    assert proc.popen.poll() is None, proc.finish()     # still waiting, not given up
    server.start()
    wait_for(lambda: "broker reachable again" in client_log(run_dir), 120,
             "the run back on the broker")
    workers("fake:1", "--group", "os14", broker=server.url)
    out = proc.finish()
    assert proc.returncode == 0, out + client_log(run_dir) + farm.worker_logs()
    summary = results(run_dir)
    assert sorted(c["case_id"] for c in summary["cases"]) == ["s/c00@os14", "s/c01@os14"], out
    assert summary["counts"]["passed"] == 2, out
    assert client_log(run_dir).count("broker unreachable") == 1, client_log(run_dir)
    assert out.count("farm: waiting for") == 1 and "lost the broker" not in out, out


def test_a_matrix_run_whose_broker_stays_away_ends_as_any_run_does(tmp_path, private_redis,
                                                                    farm):
    """Redis away for longer than FARM_CLUSTER_OUTAGE_SECONDS while the run waits for its
    workers: exit 3, every case an error naming the broker and how long it was away."""
    server = private_redis()
    run_dir = tmp_path / "run"
    proc = run_on(farm, server.url, sleep_suite(tmp_path / "s", 2, 100), run_dir,
                  "--devices", "fake:1", "--matrix", FARM_CLUSTER_DEVICE_WAIT="600",
                  FARM_CLUSTER_OUTAGE_SECONDS="3")
    proc.wait_for_line("farm: waiting for", 60)
    server.stop()
    out = proc.finish()
    assert proc.returncode == 3, out
    cases = results(run_dir)["cases"]
    assert sorted(c["case_id"] for c in cases) == ["s/c00", "s/c01"], out
    for case in cases:
        assert case["status"] == "error", case
        assert case["error"]["message"].startswith(
            f"lost the broker {server.url} for 3s: "), case
    assert client_log(run_dir).count("broker unreachable") == 1, client_log(run_dir)
