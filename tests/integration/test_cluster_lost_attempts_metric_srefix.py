"""A worker killed mid-case: the case was retried and passed, and no metric counted the
attempt lost nor the retry. `farm run`'s metrics.prom now has farm_attempts_lost_total and
farm_attempts_retried_total by platform. Real redis-server, real `farm worker`."""

from __future__ import annotations

import json

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.cluster import CLUSTER_ENV, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, results, wait_for
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def started(run_dir, case_id: str) -> bool:
    path = run_dir / "results.jsonl"
    for text in path.read_text().splitlines() if path.exists() else []:
        try:
            line = json.loads(text)
        except ValueError:      # a line being written
            continue
        if (line.get("journal"), line.get("case_id")) == ("start", case_id):
            return True
    return False


def samples(path) -> dict[str, float]:
    return {s.name + json.dumps(s.labels, sort_keys=True): s.value
            for f in text_string_to_metric_families(path.read_text()) for s in f.samples}


def test_an_attempt_lost_to_a_killed_worker_is_counted_lost_and_retried(
        tmp_path, redis_url, workers, farm):
    go = tmp_path / "go"
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{go}"])
    workers("fake:1")
    wait_idle(redis_url, 1)
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--report-dir",
                      tmp_path / "run", "--devices", "fake:1",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    busy, = wait_busy(redis_url)
    wait_for(lambda: started(tmp_path / "run", "s/c00"), 60, "the run hearing the case start")
    psutil.Process(busy["pid"]).kill()
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    case, = results(tmp_path / "run")["cases"]
    assert (case["status"], case["attempt"]) == ("passed", 2), case
    got = samples(tmp_path / "run" / "metrics.prom")
    platform = json.dumps({"platform": case["platform"]}, sort_keys=True)
    assert got["farm_attempts_lost_total" + platform] == 1, got
    assert got["farm_attempts_retried_total" + platform] == 1, got
