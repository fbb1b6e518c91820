"""Cluster operations: what happens when workers go away at awkward moments, what `farm devices`
says and does, what travels through Redis. Real redis-server, real `farm worker` processes on the
``fake`` kind of the test device plugin (tests/support/devices.py), `farm run --broker`."""

from __future__ import annotations

import signal

import psutil
import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, ROOT, FarmCli, kill_tree, results, wait_for
from tests.support.redis_server import DATABASES, free_port
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def test_a_retry_queued_to_a_device_that_dies_ends_as_an_error(tmp_path, redis_url, workers,
                                                                 farm):
    """A steered retry sits in one device's own queue (farm.dev.<device>) when that worker,
    and then every other, goes away: the run still ends, the case an error."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    failing = workers("fake:1", FARM_TEST_FAKE_FAIL="1")     # every attempt: an infra error
    bad = next(iter(wait_idle(redis_url, 1)))
    healthy = workers("fake:1")
    good = next(n for n in wait_idle(redis_url, 2) if n != bad)
    # the healthy worker dies while its lease still says "idle" (as it does for up to 10 s
    # after a kill): the test holds the lease there until the retry has been sent to it
    lease = f"{PREFIX}:lease:{good}"
    r.persist(lease)
    kill_tree(healthy)
    r.persist(lease)
    assert r.ttl(lease) == -1 and leases(redis_url)[good]["state"] == "idle"
    proc = run_on(farm, redis_url, sleep_suite(tmp_path / "s", 1, 100), tmp_path / "run",
                  "--devices", "fake:2", FARM_CLUSTER_DEVICE_WAIT="3")
    own_queue = f"{PREFIX}:celery:farm.dev.{good}"
    wait_for(lambda: r.llen(own_queue), 90, f"the retry waiting in {own_queue}")
    kill_tree(failing)           # now every worker is gone ...
    r.delete(lease)              # ... and the dead one's lease has expired
    out = proc.finish(180)       # before the fix: waited for that queue forever
    assert proc.returncode == 3, out
    case = results(tmp_path / "run")["cases"][0]
    # the attempt that ran keeps the case's verdict, and says why the retry was not run
    assert (case["status"], case["attempt"], case["device"]) == ("error", 1, bad), case
    assert case["reason"].startswith("not retried: no usable web worker in the cluster for 3s"), (
        case)


def devices(farm: FarmCli, url: str, *args: str):
    return farm.run("devices", "--broker", url, *args, timeout=60, **CLUSTER_ENV)


def test_release_resets_the_infra_error_streak(tmp_path, redis_url, farm):
    """A released device starts a new streak: one more error must not quarantine it again."""
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    name = "fake-1@gone-host"
    r.hset(f"{PREFIX}:quarantine", name, "3 infrastructure errors in a row")
    r.set(f"{PREFIX}:streak:{name}", 3)
    done = devices(farm, redis_url, "--release", name)
    assert f"{name}: released" in done.stdout, done.stdout + done.stderr
    assert not r.hexists(f"{PREFIX}:quarantine", name)
    assert r.get(f"{PREFIX}:streak:{name}") is None


def test_devices_with_an_unusable_broker_lists_local_devices_then_exits_4(farm, private_redis,
                                                                            redis_server):
    server = private_redis(password="right-pw")
    wrong_pw = server.url.replace(":right-pw@", ":bob-wrong-pw@")
    closed = f"redis://127.0.0.1:{free_port()}/0"
    no_db = redis_server.url_for(DATABASES + 1)
    for url, says in ((wrong_pw, "refused the password"), (closed, "cannot reach the broker"),
                      (no_db, "cannot reach the broker")):
        done = devices(farm, url)
        assert done.returncode == 4, done.stdout + done.stderr
        assert "internal error" not in done.stderr and says in done.stderr, done.stderr
        assert "bob-wrong-pw" not in done.stdout + done.stderr
        assert done.stdout.startswith("browser "), done.stdout    # this machine's, listed first
        assert "ios " in done.stdout and "cluster " not in done.stdout


def test_the_supervisor_reports_and_restarts_a_killed_device_process(redis_url, workers, farm):
    sup = workers("fake:2")
    before = wait_idle(redis_url, 2)
    victim = min(before)
    psutil.Process(before[victim]["pid"]).kill()
    wait_for(lambda: f"device {victim} was killed by SIGKILL: starting it again" in
             farm.worker_logs(), 60, "the supervisor reporting the dead device process")
    after = wait_for(lambda: (found := wait_idle(redis_url, 2)).get(victim, {}).get("pid") not in
                     (None, before[victim]["pid"]) and found, 90, "the device started again")
    assert sorted(after) == sorted(before)       # the same device names, a new process
    # a device process that exits on purpose (drained: SIGTERM, quarantine) stays down
    other = max(before)
    psutil.Process(after[other]["pid"]).send_signal(signal.SIGTERM)
    wait_for(lambda: other not in leases(redis_url), 60, "the drained device leaving")
    assert sup.poll() is None and f"device {other}" not in farm.worker_logs()
    assert set(wait_idle(redis_url, 1)) == {victim}


def test_a_killed_farm_worker_s_device_process_ends_and_the_next_takes_its_name_back(
        tmp_path, redis_url, workers, farm):
    """kill -9 of a `farm worker` left its device process serving with its parent gone (pid
    1), nobody to drain or restart it; the `farm worker` started again added fake-2@vm on the
    next port, the scraped one staying "down". Now the device process ends with its
    supervisor, draining a case it runs first, and the next `farm worker` takes back its name
    and its port (waiting for a case in flight to finish)."""
    port = free_port()
    first = workers("fake:1", "--metrics-port", str(port), FARM_WORKER_HOST="vm")
    idle_pid = wait_idle(redis_url, 1)["fake-1@vm"]["pid"]
    first.kill()
    first.wait(30)
    psutil.Process(idle_pid).wait(60)           # an idle device process: ends at once
    second = workers("fake:1", "--metrics-port", str(port), FARM_WORKER_HOST="vm")
    busy_pid = wait_idle(redis_url, 1)["fake-1@vm"]["pid"]
    go = tmp_path / "go"
    write_case(tmp_path / "s", "held", [f"javascript: farm-test:wait-for:{go}"])
    run = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1")
    wait_busy(redis_url, 1)
    second.kill()
    second.wait(30)
    workers("fake:1", "--metrics-port", str(port), FARM_WORKER_HOST="vm")
    wait_for(lambda: "fake-1@vm: waiting for its previous process" in farm.worker_logs(), 90,
             "the new worker waiting for the device process that runs a case")
    go.touch()
    out = run.finish()
    assert run.returncode == 0, out
    case = results(tmp_path / "run")["cases"][0]
    assert (case["status"], case["device"]) == ("passed", "fake-1@vm")
    psutil.Process(busy_pid).wait(60) if psutil.pid_exists(busy_pid) else None
    after = wait_idle(redis_url, 1)
    assert set(after) == {"fake-1@vm"} and after["fake-1@vm"]["pid"] != busy_pid
    for log in ("worker-2.log", "worker-3.log"):
        ready = wait_for(lambda: next((line for line in (tmp_path / log).read_text().splitlines()
                                       if " ready (queues " in line), None), 60, log)
        assert ready.startswith("farm worker: fake-1@vm ready") and f"metrics :{port})" in ready


def test_two_farm_workers_never_drive_one_phone(tmp_path, redis_url, workers, farm):
    port = free_port()
    sim = farm.start("sim", "android", "--count", "1", "--app", ROOT / "suites" / "demo" / "app",
                     "--package", "com.farm.demo.shop", "--port", str(port))
    sim.wait_for_line("Ctrl-C stops", 60)
    workers("android:1", ANDROID_ADB_SERVER_PORT=str(port))
    (name, lease), = wait_idle(redis_url, 1).items()
    assert lease["target"].startswith("emulator-"), lease       # which phone android-1@host is
    second = workers("android:1", ANDROID_ADB_SERVER_PORT=str(port))
    assert second.wait(120) == 4, farm.worker_logs()            # refused: no free phone
    assert f"{lease['target']} is driven by {name}" in farm.worker_logs()
    assert list(leases(redis_url)) == [name]
    listed = devices(farm, redis_url).stdout
    assert f"on {lease['target']}" in next(line for line in listed.splitlines()
                                           if line.strip().startswith(name)), listed
