"""A cluster run's model is each worker's (README: the run's own --model is not sent to the
workers): a case that needs a model goes to a worker whatever the coordinator has, and the
worker's model answers it. Real redis-server, real `farm worker`, a scripted model server."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_model_case_runs_on_a_worker_with_a_model_when_the_coordinator_has_none(
        tmp_path, redis_url, workers, farm: FarmCli, model_server):
    server = model_server(['{"pass": true, "thought": "the page is blank"}'])
    write_case(tmp_path / "s", "judged", ["aiAssert: the page is blank"])
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker")
    wait_idle(redis_url, 1)
    done = farm.run("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                    "--report-dir", tmp_path / "run", "--no-progress", timeout=300,
                    **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    assert done.returncode == 0, done.stdout + done.stderr
    [case] = results(tmp_path / "run")["cases"]
    assert case["status"] == "passed" and case["device"].startswith("fake-1@"), case
    assert len(server.requests) >= 1            # the worker's model judged it


def test_a_worker_without_a_model_runs_a_case_up_to_its_first_model_step(
        tmp_path, redis_url, workers, farm: FarmCli):
    """As a local run without a model: the check before the aiAssert runs (and fails the run
    on the fake device's empty page); a case whose very first step needs a model is skipped
    without opening a session."""
    write_case(tmp_path / "s", "checked", ["assertText: Order placed", "aiAssert: it is blue"])
    write_case(tmp_path / "s", "judged_first", ["aiAssert: it is blue", "assertText: Order"])
    journal = tmp_path / "journal"
    journal.mkdir()
    workers("fake:1", FARM_TEST_FAKE_JOURNAL=str(journal))
    wait_idle(redis_url, 1)
    done = farm.run("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                    "--report-dir", tmp_path / "run", "--no-progress", timeout=300,
                    **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "run")["cases"]}
    assert cases["s/checked"]["status"] == "failed", cases["s/checked"]
    skipped = cases["s/judged_first"]
    assert (skipped["status"], skipped["reason"]) == (
        "skipped", "needs a model (set FARM_MODEL): aiAssert at line 7"), skipped
    [log] = journal.glob("*.log")
    assert log.read_text().splitlines().count("session") == 1     # the checked case's only


def test_a_cluster_run_stops_taking_cases_once_its_model_budget_is_spent(
        tmp_path, redis_url, workers, farm: FarmCli, model_server):
    """The coordinator counts what the workers' results say they spent: --max-model-tokens
    stops a cluster run as it stops a local one."""
    server = model_server(['{"pass": true, "thought": "the page is blank"}'])
    for name in ("a", "b", "c"):
        write_case(tmp_path / "s", name, ["aiAssert: the page is blank"])
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker")
    wait_idle(redis_url, 1)
    done = farm.run("run", tmp_path / "s", "--broker", redis_url, "--devices", "fake:1",
                    "--report-dir", tmp_path / "run", "--no-progress", "--max-model-tokens",
                    "1", timeout=300, **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    assert done.returncode == 3, done.stdout + done.stderr
    summary = results(tmp_path / "run")
    assert summary["counts"]["passed"] == 1 and summary["counts"]["skipped"] == 2, summary
    assert len(server.requests) == 1
    assert summary["stopped"].startswith("the run's model budget (--max-model-tokens 1) was "
                                         "spent: "), summary["stopped"]
    assert "2 case(s) not run" in done.stdout
