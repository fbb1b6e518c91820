"""Waiting in cluster mode: a case whose Redis restarts under it, a run with no worker yet.
Real redis-server (a private one where the test restarts it), real `farm worker` processes on
the ``fake`` kind of the test device plugin, `farm run --broker`."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, by_name, results, wait_for
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def test_a_redis_restart_mid_case_does_not_hold_the_case_up(tmp_path, private_redis, workers,
                                                            farm):
    """Redis goes away while a case runs: the case's steps go on meanwhile (their reports
    wait in the worker and are handed in once Redis is back), so the outage never counts
    against the case's clock; it passes on its first attempt. Before, the case stood still
    on its first step's report until Redis came back, and a case with its time nearly used
    up timed out."""
    server = private_redis()
    gate = tmp_path / "go"
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{gate}", "sleep: 10",
                                       "sleep: 10"])
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    run_dir = tmp_path / "run"
    proc = run_on(farm, server.url, tmp_path / "s", run_dir, "--devices", "fake:1",
                  FARM_CLUSTER_OUTAGE_SECONDS="900")    # far beyond this outage, even loaded
    wait_busy(server.url, 1)
    server.stop()
    gate.touch()                # step 1 ends while Redis is away; steps 2 and 3 follow
    wait_for(lambda: any(f"the last: {what} of s/c00 attempt 1" in farm.worker_logs()
                         for what in ("step 3", "the result")), 120,
             "the worker saying the case's last step waits for Redis to be handed in")
    back = datetime.now(timezone.utc)
    server.start()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    case = by_name(results(run_dir))["c00"]
    assert case["status"] == "passed" and case["attempt"] == 1 and not case["previous"], case
    assert [s["status"] for s in case["steps"]] == ["passed"] * 3
    last = case["steps"][-1]        # it ran before Redis was back
    assert datetime.fromisoformat(last["started"]) + timedelta(seconds=last["duration"]) <= back


def test_a_run_started_before_its_workers_says_what_it_waits_for(tmp_path, redis_url, workers,
                                                                  farm):
    """No worker of the run's platform yet: the run says so, once, then runs its cases when
    one comes (before: silent until FARM_CLUSTER_DEVICE_WAIT expired)."""
    proc = run_on(farm, redis_url, sleep_suite(tmp_path / "s", 2, 100), tmp_path / "run",
                  "--devices", "fake:1", FARM_CLUSTER_DEVICE_WAIT="600")
    line = proc.wait_for_line("farm: waiting for", 60)
    assert line == ("farm: waiting for a web worker (none in the cluster yet; "
                    "FARM_CLUSTER_DEVICE_WAIT=600s)"), line
    workers("fake:1")
    out = proc.finish()
    assert proc.returncode == 0, out
    assert results(tmp_path / "run")["counts"]["passed"] == 2
    # said once; a worker seen opening its device meanwhile (a loaded machine) is said too
    said = [s for s in out.splitlines() if s.startswith("farm: waiting for")]
    assert said[0] == line and len(said) <= 2, out
    assert all(s.startswith("farm: waiting for a web worker (fake-1@") and "is starting;" in s
               for s in said[1:]), out
