"""A name one suite of a run declares secret is secret in every case of it, on a worker as in a
local run: the model reads another case's ``${OWN_SEC}`` as its placeholder, never its value
(before, the task carried the case's own ``secrets:`` only and the worker sent the value).
Real redis-server, a real `farm worker`, a scripted model server that keeps every request."""

from __future__ import annotations

import json

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

VALUE = "S3CR3T-13-ownsecret"


def test_another_suites_secret_reaches_no_model_from_a_worker(
        tmp_path, redis_url, workers, farm: FarmCli, model_server):
    server = model_server(['{"pass": true, "thought": "ok"}'])
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "x_own.yaml").write_text(
        "name: own\nsecrets: [OWN_SEC]\nweb:\n  url: about:blank\ntasks:\n  - name: t\n"
        "    flow:\n      - sleep: 1\n")
    (suite / "y_other.yaml").write_text(
        "name: other\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
        '      - aiAssert: "page shows ${OWN_SEC}"\n')
    workers("fake:1", FARM_MODEL="openai/scripted", FARM_MODEL_BASE_URL=server.base_url,
            FARM_MODEL_API_KEY="sk-test-worker")
    wait_idle(redis_url, 1)
    done = farm.run("run", suite, "--broker", redis_url, "--devices", "fake:1",
                    "--report-dir", tmp_path / "run", "--no-progress", timeout=300,
                    **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, "OWN_SEC": VALUE})
    assert done.returncode == 0, done.stdout + done.stderr + farm.worker_logs()
    assert {c["status"] for c in results(tmp_path / "run")["cases"]} == {"passed"}
    sent = b"".join(server.raw).decode()
    assert server.requests and "page shows ${OWN_SEC}" in json.dumps(server.requests)
    assert VALUE not in sent
    assert VALUE not in farm.worker_logs()
