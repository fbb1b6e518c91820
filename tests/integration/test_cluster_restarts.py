"""`farm worker` started again, as Compose's ``restart: unless-stopped`` or a Deployment does:
a quarantined device keeps its name and its quarantine; what a worker prints is what its
operator needs (no Celery banner, no warning block per device). Real redis-server, real
`farm worker` processes on the ``fake`` kind of the test device plugin, `farm run --broker`."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, leases, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, by_name, results, wait_for
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def devices(farm: FarmCli, url: str, *args: str):
    return farm.run("devices", "--broker", url, *args, timeout=60, **CLUSTER_ENV)


def test_a_quarantined_worker_started_again_keeps_its_name_and_serves_only_once_released(
        tmp_path, redis_url, workers, farm):
    first = workers("fake:1", FARM_TEST_FAKE_FAIL="1", FARM_WORKER_HOST="vm")
    wait_idle(redis_url, 1)
    done = run_on(farm, redis_url, sleep_suite(tmp_path / "a", 3, 100), tmp_path / "a-run",
                  "--devices", "fake:1", FARM_CLUSTER_DEVICE_WAIT="3")
    assert done.finish() and done.returncode == 3
    assert first.wait(60) == 0                          # quarantined: drained and gone
    again = workers("fake:1", FARM_WORKER_HOST="vm")    # its device fixed, or not: restarted
    said = wait_for(lambda: next((line for line in farm.worker_logs().splitlines()
                                  if "fake-1@vm is quarantined" in line), None), 90,
                    "the restarted worker saying its device is quarantined")
    assert said == ("farm worker: device fake-1@vm is quarantined (3 infrastructure errors in "
                    "a row): not serving it until it is released; once it is fixed: farm "
                    f"devices --broker {redis_url} --release fake-1@vm"), said
    # before: it came back as fake-2@vm and took cases (and was quarantined in turn)
    assert {n: lease["state"] for n, lease in leases(redis_url).items()} == {
        "fake-1@vm": "quarantined"}
    listed = devices(farm, redis_url).stdout
    assert "quarantined: 3 infrastructure errors in a row" in listed and "fake-2" not in listed
    idle = run_on(farm, redis_url, sleep_suite(tmp_path / "b", 1, 100), tmp_path / "b-run",
                  "--devices", "fake:1", FARM_CLUSTER_DEVICE_WAIT="3")
    out = idle.finish()
    assert idle.returncode == 3, out            # nothing served it
    assert "no usable web worker" in results(tmp_path / "b-run")["cases"][0]["error"]["message"]
    released = devices(farm, redis_url, "--release", "fake-1@vm")
    assert "fake-1@vm: released" in released.stdout, released.stdout + released.stderr
    assert set(wait_idle(redis_url, 1)) == {"fake-1@vm"}       # the same worker, serving now
    served = run_on(farm, redis_url, sleep_suite(tmp_path / "c", 1, 100), tmp_path / "c-run",
                    "--devices", "fake:1")
    out = served.finish()
    assert served.returncode == 0, out
    assert by_name(results(tmp_path / "c-run"))["c00"]["device"] == "fake-1@vm"
    assert again.poll() is None


def test_worker_output_is_its_own_lines_not_celery_s_banner(tmp_path, redis_url, workers, farm):
    """Each device's process said Celery's ASCII banner and, as root, a SecurityWarning block:
    container logs full of them. Now: the ready lines (and one root warning per `farm
    worker`, when root)."""
    workers("fake:2")
    wait_idle(redis_url, 2)
    done = run_on(farm, redis_url, sleep_suite(tmp_path / "s", 2, 100), tmp_path / "run",
                  "--devices", "fake:2")
    assert done.finish() and done.returncode == 0    # both Celery workers consumed: started
    logs = farm.worker_logs()
    lines = [line for line in logs.splitlines() if line.strip()]
    assert len([line for line in lines if " ready (queues " in line]) == 2, logs
    for noise in ("[queues]", "[config]", "-------------- ", "SecurityWarning", "superuser"):
        assert noise not in logs, logs
    assert logs.count("running as root") <= 1, logs
