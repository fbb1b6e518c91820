"""A worker with a model builds its model clients before it says it is ready: litellm takes
seconds to import, and the first case of each device process paid for it on its own clock (a
case of ``timeout: 2`` that a local run passes timed out on a fresh worker; its duration, in
the report and the cluster's history, seconds too long). Real redis-server, real `farm
worker` (the test plugin tests/integration/note_litellm.py notes what was imported as each
case is taken)."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_the_first_case_of_a_worker_does_not_wait_for_the_model_import(
        tmp_path, redis_url, workers, farm: FarmCli, model_server):
    server = model_server(['<complete success="true">done</complete>'])
    noted = tmp_path / "litellm"
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker", FARM_DEVICE_PLUGINS="tests.integration."
            "note_litellm", FARM_TEST_NOTE_LITELLM=str(noted))
    wait_idle(redis_url, 1)
    done = farm.run("run", sleep_suite(tmp_path / "s", 2, 10), "--broker", redis_url,
                    "--devices", "fake:1", "--report-dir", tmp_path / "run", "--no-progress",
                    timeout=300, **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    assert done.returncode == 0, done.stdout + done.stderr + farm.worker_logs()
    assert {c["status"] for c in results(tmp_path / "run")["cases"]} == {"passed"}
    assert noted.read_text().split() == ["yes", "yes"]
