"""`farm run --broker --matrix --last-failed`: the cases whose runs failed last time, on every
group. A matrix run records its failures as ``case@group`` (its results' ids); before, none of
those matched a selected case, so --lf said 'none of the 2 recorded failure(s) is among the
selected cases' and ran the whole suite again. Real redis-server and `farm worker` processes
on the ``fake`` kind of the test device plugin."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_last_failed_after_a_matrix_run_reruns_only_the_failed_cases(tmp_path, redis_url,
                                                                     workers, farm):
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    suite = tmp_path / "s"
    write_case(suite, "good", ["sleep: 10"])
    write_case(suite, "bad", ["assertText: not on the empty page"])
    env = {"FARM_DEVICE_PLUGINS": PLUGIN, "FARM_STATE_DIR": str(tmp_path / "state"),
           **CLUSTER_ENV}
    args = ["--broker", redis_url, "--devices", "fake:2", "--matrix"]
    first = farm.run("run", suite, *args, "--report-dir", tmp_path / "one", **env)
    assert first.returncode == 1, first.stdout + first.stderr
    again = farm.run("run", suite, *args, "--last-failed", "--report-dir", tmp_path / "two",
                     **env)
    assert again.returncode == 1, again.stdout + again.stderr
    said = again.stdout + again.stderr
    assert "--last-failed: running 1 case(s) that failed last time" in said, said
    ran = sorted(c["case_id"] for c in results(tmp_path / "two")["cases"])
    assert ran == ["s/bad@os14", "s/bad@os15"], said
