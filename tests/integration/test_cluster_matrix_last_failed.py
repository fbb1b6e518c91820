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


def test_shard_timings_from_a_matrix_run_plan_the_shards(tmp_path, redis_url, workers, farm):
    """Its results.json times each case once per group (``case@group``): a shard plan on it
    counts each case's groups together. Before, it was 'planned on the timings of 0 of 2
    case(s)', every case weighed by its steps as if there were no timings."""
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    suite = tmp_path / "s"
    write_case(suite, "long", ["sleep: 1500"])
    write_case(suite, "short", ["sleep: 10"])
    env = {"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV}
    done = farm.run("run", suite, "--broker", redis_url, "--devices", "fake:2", "--matrix",
                    "--report-dir", tmp_path / "one", **env)
    assert done.returncode == 0, done.stdout + done.stderr
    plan = farm.run("run", suite, "--shard", "1/2", "--shard-timings",
                    tmp_path / "one" / "results.json", "--collect-only", **env)
    said = plan.stdout + plan.stderr
    assert plan.returncode == 0, said
    assert "--shard 1/2: planned on the timings of 2 of 2 case(s)" in said, said
