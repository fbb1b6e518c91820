"""A cluster run whose only worker dies mid-case, so the case's retry finds no worker left.
Real redis-server, a real `farm worker` (the test device plugin's ``fake`` kind), `farm run
--broker`.

What a user sees, as a local run says it of a device killed mid-case: the case keeps the
attempt that ran (attempt 1, its device, the real error: the worker stopped answering
mid-case) and says why it was not retried. Before, the retry's "no usable web worker in the
cluster for 2s" replaced the real error (attempt 2, device None, 0.0 s), which only survived
under ``previous``.
"""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, kill_tree, results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_retry_with_no_worker_left_keeps_the_attempt_that_ran(tmp_path, redis_url, workers,
                                                                farm):
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{tmp_path / 'never'}"])
    worker = workers("fake:1")
    (name, _), = wait_idle(redis_url, 1).items()
    run_dir = tmp_path / "run"
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                      "--report-dir", run_dir, FARM_DEVICE_PLUGINS=PLUGIN,
                      FARM_CLUSTER_DEVICE_WAIT="2", **CLUSTER_ENV)
    wait_busy(redis_url)
    kill_tree(worker)           # the only worker, mid-case: no device is left for the retry
    out = proc.finish()

    case, = results(run_dir)["cases"]
    assert (case["status"], case["attempt"], case["device"]) == ("error", 1, name), (case, out)
    assert case["error"]["kind"] == "DeviceLost", case
    assert case["error"]["message"].startswith(f"worker of {name} stopped answering mid-case"), (
        case, out)
    assert case["reason"] == ("not retried: no usable web worker in the cluster for 2s "
                              "(start one: farm worker)"), case
    said, = [ln for ln in out.splitlines() if ln.startswith("ERROR s/c00")]   # the end's
    assert f"worker of {name} stopped answering mid-case" in said, out
    assert proc.returncode == 3, out
