"""`farm run --broker --matrix --devices KIND:N`: N is how many cluster devices the run holds
at once (README, Cluster), across all the device groups it runs on, as without --matrix.
Before, each group got up to N, so `--devices fake:1 --matrix` on two groups ran two cases at
once and took a device a team had left to the other runs. Real redis-server and `farm worker`
processes on the ``fake`` kind of the test device plugin."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def spans(summary: dict) -> list[tuple[float, float, str]]:
    """(start, end, case id) of each case, in the workers' clock (one host here)."""
    out = []
    for c in summary["cases"]:
        start = datetime.fromisoformat(c["started"]).timestamp()
        out.append((start, start + c["duration"], c["case_id"]))
    return sorted(out)


def test_a_matrix_run_holds_no_more_devices_than_devices_gives(tmp_path, redis_url, workers,
                                                               farm):
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    run_dir = tmp_path / "run"
    proc = farm.start("run", sleep_suite(tmp_path / "s", 2, 1500), "--broker", redis_url,
                      "--report-dir", run_dir, "--devices", "fake:1", "--matrix",
                      FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(run_dir)
    assert summary["counts"]["passed"] == 4, out
    runs = spans(summary)
    for (_, end, first), (start, _, second) in zip(runs, runs[1:]):
        assert start >= end, f"{first} and {second} ran at once with --devices fake:1:\n{out}"
