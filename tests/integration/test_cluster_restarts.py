"""`farm worker` started again, as Compose's ``restart: unless-stopped`` or a Deployment does:
a quarantined device keeps its name and its quarantine; what a worker prints is what its
operator needs (no Celery banner, no warning block per device). Real redis-server, real
`farm worker` processes on the ``fake`` kind of the test device plugin, `farm run --broker`."""

from __future__ import annotations

import signal
import urllib.error
import urllib.request

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, by_name, results, wait_for
from tests.support.redis_server import free_port
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def devices(farm: FarmCli, url: str, *args: str):
    return farm.run("devices", "--broker", url, *args, timeout=60, **CLUSTER_ENV)


def quarantined_gauge(port: int, device: str) -> float | None:
    """``farm_device_quarantined{device}`` on the /metrics of ``port`` (None: not there)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            text = r.read().decode()
    except OSError:
        return None
    return next((s.value for f in text_string_to_metric_families(text) for s in f.samples
                 if s.name == "farm_device_quarantined" and s.labels.get("device") == device),
                None)


def ready_status(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_device_quarantined_mid_run_stays_up_exporting_it_until_released(
        tmp_path, redis_url, workers, farm):
    """Its process SIGTERMed itself at once: with one device the whole `farm worker` exited,
    and no scrape ever saw farm_device_quarantined 1, so FarmDeviceQuarantined (for: 1m)
    could never fire. Now the process closes its device and waits for the release, saying
    1 on /metrics (/ready 503); released, it opens the device and serves again."""
    port = free_port()
    sup = workers("fake:1", "--metrics-port", str(port), FARM_TEST_FAKE_FAIL="1",
                  FARM_WORKER_HOST="vm")
    pid = wait_idle(redis_url, 1)["fake-1@vm"]["pid"]
    done = run_on(farm, redis_url, sleep_suite(tmp_path / "a", 3, 100), tmp_path / "a-run",
                  "--devices", "fake:1", FARM_CLUSTER_DEVICE_WAIT="3")
    assert done.finish() and done.returncode == 3
    wait_for(lambda: quarantined_gauge(port, "fake-1@vm") == 1, 60,
             "farm_device_quarantined 1 on the quarantined device's /metrics")
    assert ready_status(port) == 503
    assert {n: lease["state"] for n, lease in leases(redis_url).items()} == {
        "fake-1@vm": "quarantined"}
    assert sup.poll() is None and psutil.pid_exists(pid)
    assert (f"device fake-1@vm is quarantined (3 infrastructure errors in a row): not serving "
            f"it until it is released; once it is fixed: farm devices --broker {redis_url} "
            "--release fake-1@vm") in farm.worker_logs()
    released = devices(farm, redis_url, "--release", "fake-1@vm")
    assert "fake-1@vm: released" in released.stdout, released.stdout + released.stderr
    # the listing that follows no longer calls it quarantined (its lease says so until the
    # worker's next look)
    listed = [line for line in released.stdout.splitlines() if line.startswith("  fake-1@vm")]
    assert listed and "quarantined" not in listed[0], released.stdout
    assert set(wait_idle(redis_url, 1)) == {"fake-1@vm"}       # the same device, serving
    assert quarantined_gauge(port, "fake-1@vm") == 0 and ready_status(port) == 200
    assert sup.poll() is None


def test_a_quarantined_worker_started_again_keeps_its_name_and_serves_only_once_released(
        tmp_path, redis_url, workers, farm):
    first = workers("fake:1", FARM_TEST_FAKE_FAIL="1", FARM_WORKER_HOST="vm")
    wait_idle(redis_url, 1)
    done = run_on(farm, redis_url, sleep_suite(tmp_path / "a", 3, 100), tmp_path / "a-run",
                  "--devices", "fake:1", FARM_CLUSTER_DEVICE_WAIT="3")
    assert done.finish() and done.returncode == 3
    wait_for(lambda: leases(redis_url).get("fake-1@vm", {}).get("state") == "quarantined", 60,
             "the device waiting for its release")
    first.send_signal(signal.SIGTERM)                   # stopped while it waits: exits 0
    assert first.wait(60) == 0
    port = free_port()
    again = workers("fake:1", "--metrics-port", str(port), FARM_WORKER_HOST="vm")   # restarted
    said = wait_for(lambda: [line for line in farm.worker_logs().splitlines()
                             if "fake-1@vm is quarantined" in line][1:], 90,
                    "the restarted worker saying its device is quarantined")[0]
    assert said == ("farm worker: device fake-1@vm is quarantined (3 infrastructure errors in "
                    "a row): not serving it until it is released; once it is fixed: farm "
                    f"devices --broker {redis_url} --release fake-1@vm"), said
    # it exported no farm_device_* series while it waited: the alert never fired
    wait_for(lambda: quarantined_gauge(port, "fake-1@vm") == 1, 60,
             "farm_device_quarantined 1 on the restarted worker's /metrics")
    # before: it came back as fake-2@vm and took cases (and was quarantined in turn)
    assert {n: lease["state"] for n, lease in leases(redis_url).items()} == {
        "fake-1@vm": "quarantined"}
    listed = devices(farm, redis_url).stdout
    assert "quarantined: 3 infrastructure errors in a row" in listed and "fake-2" not in listed
    idle = run_on(farm, redis_url, sleep_suite(tmp_path / "b", 1, 100), tmp_path / "b-run",
                  "--devices", "fake:1", FARM_CLUSTER_DEVICE_WAIT="3")
    out = idle.finish()
    assert idle.returncode == 3, out            # nothing served it
    assert ("no usable web worker in the cluster for 3s (fake-1@vm is quarantined: 3 "
            "infrastructure errors in a row; once fixed: farm devices --broker "
            f"{redis_url} --release fake-1@vm)") == results(tmp_path / "b-run")["cases"][0][
                "error"]["message"]
    released = devices(farm, redis_url, "--release", "fake-1@vm")
    assert "fake-1@vm: released" in released.stdout, released.stdout + released.stderr
    # the listing that follows no longer calls it quarantined (its lease says so until the
    # worker's next look)
    listed = [line for line in released.stdout.splitlines() if line.startswith("  fake-1@vm")]
    assert listed and "quarantined" not in listed[0], released.stdout
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


def test_a_quarantine_lost_with_redis_s_data_is_kept_not_taken_for_a_release(
        private_redis, workers, farm):
    """Redis restarted without its data (the shipped one had no persistence): the waiting
    worker said "device fake-1@vm released: starting it", though nobody released it, and its
    still broken device took work again. Now it writes its quarantine back and says why."""
    import redis
    server = private_redis()
    r = redis.Redis.from_url(server.url, decode_responses=True)
    r.hset(f"{PREFIX}:quarantine", "fake-1@vm", "3 infrastructure errors in a row")
    workers("fake:1", broker=server.url, FARM_WORKER_HOST="vm")
    wait_for(lambda: "fake-1@vm is quarantined" in farm.worker_logs(), 90,
             "the worker waiting for the release of its device")
    server.stop()
    server.start()                                  # empty: as `--save ""` left it
    said = wait_for(lambda: next((line for line in farm.worker_logs().splitlines()
                                  if "quarantine record" in line), None), 90,
                    "the worker noticing its quarantine record is gone")
    assert said == ("farm worker: the quarantine record of fake-1@vm is gone from Redis (was "
                    "Redis restarted without its data?): recorded it again; the device stays "
                    f"out of service until: farm devices --broker {server.url} --release "
                    "fake-1@vm"), said
    r = redis.Redis.from_url(server.url, decode_responses=True)
    assert r.hget(f"{PREFIX}:quarantine", "fake-1@vm") == "3 infrastructure errors in a row"
    assert wait_for(lambda: leases(server.url).get("fake-1@vm"), 30, "its lease back")[
        "state"] == "quarantined"
    assert "released: starting it" not in farm.worker_logs()
