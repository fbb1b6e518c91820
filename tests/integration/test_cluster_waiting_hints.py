"""What a `farm run --broker` waiting for workers tells the operator to start. A --matrix
case of a device group whose workers are gone names the group: a plain `farm worker` (the
hint before) serves the kind's own group, never that one. Real redis-server and `farm worker`
processes on the ``fake`` kind of the test device plugin."""

from __future__ import annotations

import signal

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, results
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_matrix_case_whose_group_is_gone_names_the_group_to_start(tmp_path, redis_url,
                                                                   workers, farm):
    worker = workers("fake:1", "--group", "os14")
    wait_idle(redis_url, 1)
    run_dir = tmp_path / "run"
    proc = farm.start("run", sleep_suite(tmp_path / "s", 2, 3000), "--broker", redis_url,
                      "--report-dir", run_dir, "--devices", "fake:1", "--matrix",
                      FARM_DEVICE_PLUGINS=PLUGIN, FARM_CLUSTER_DEVICE_WAIT="2", **CLUSTER_ENV)
    wait_busy(redis_url, 1)
    worker.send_signal(signal.SIGTERM)      # drains: its case ends, the other never starts
    out = proc.finish()
    assert proc.returncode == 3, out
    errors = [c for c in results(run_dir)["cases"] if c["status"] == "error"]
    assert len(errors) == 1, out
    assert errors[0]["error"]["message"] == (
        "no usable web.os14 worker in the cluster for 2s (start one: farm worker --group os14)")
    assert "farm: waiting for a web worker of group os14 (none usable left;" in out, out


def test_a_run_waiting_for_an_ios_worker_says_so_in_english(tmp_path, redis_url, farm):
    suite = tmp_path / "s"
    write_case(suite, "phone", ["sleep: 100"])
    (suite / "phone.yaml").write_text((suite / "phone.yaml").read_text().replace(
        "web:\n  url: about:blank", "ios:\n  launch: com.example.app"))
    done = farm.run("run", suite, "--broker", redis_url, "--devices", "ios:1",
                    "--report-dir", tmp_path / "run", FARM_CLUSTER_DEVICE_WAIT="1",
                    **CLUSTER_ENV)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "farm: waiting for an ios worker (none in the cluster yet;" in done.stderr
