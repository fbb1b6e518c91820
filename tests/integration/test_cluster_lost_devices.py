"""What a `farm run --broker` says of a device whose worker dies: right after it took a case
(it has claimed the attempt in Redis, but neither its lease nor an event has told the run that
it started it), or mid-case and started again by its `farm worker`. Real redis-server, real
`farm worker` processes on the ``fake`` kind of the test device plugin; the moment right after a
claim (a Redis round trip: no timing hits it reliably) is held by the test plugin
tests/integration/stop_at_claim.py."""

from __future__ import annotations

import json

import psutil
import pytest

from tests.support.cluster import CLUSTER_ENV, PREFIX, leases, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

STOP_AT_CLAIM = "tests.integration.stop_at_claim"


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def claims(url: str) -> dict[str, str]:
    """Attempts claimed by a device: ``<run>:<case>:<attempt>`` → the device's name."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        return {k.split(":claim:", 1)[1]: r.get(k) for k in r.scan_iter(f"{PREFIX}:claim:*")}
    finally:
        r.close()


def stopped(pid: int) -> bool:
    return psutil.Process(pid).status() == psutil.STATUS_STOPPED


def started(run_dir, case_id: str) -> bool:
    """The run's journal has the start of ``case_id`` (the run has heard it started)."""
    path = run_dir / "results.jsonl"
    for text in path.read_text().splitlines() if path.exists() else []:
        try:
            line = json.loads(text)
        except ValueError:      # a line being written
            continue
        if (line.get("journal"), line.get("case_id")) == ("start", case_id):
            return True
    return False


def summary_line(out: str) -> str:
    return next(ln for ln in out.splitlines() if ln.startswith("farm: ") and "(run " in ln)


def tick(url: str) -> float:
    """When the run's client last announced itself (it does at the start of each tick)."""
    import redis
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
    try:
        (_, seen), = r.zrange(f"{PREFIX}:runs", 0, -1, withscores=True)
        return seen
    finally:
        r.close()


def wait_ticks(url: str, n: int) -> None:
    """Until the run's client has begun ``n`` more ticks: ``n - 1`` whole ones since now."""
    for _ in range(n):
        last = tick(url)
        wait_for(lambda: tick(url) != last, 60, "the run's next tick")


def test_a_worker_killed_right_after_taking_a_case_is_named_lost(tmp_path, redis_url, workers,
                                                                 farm):
    """The run names the device lost (results.json, the summary line, the report's banner) and
    re-runs the case. Before, the attempt was lost as "the job vanished from the broker before
    any worker took it" and no device was named: the run never heard which one had it."""
    workers("fake:1", FARM_DEVICE_PLUGINS=STOP_AT_CLAIM,
            FARM_TEST_STOP_AT_CLAIM=str(tmp_path / "stopped-once"))
    (name, lease), = wait_idle(redis_url, 1).items()
    proc = run_on(farm, redis_url, sleep_suite(tmp_path / "s", 1, 100), tmp_path / "run",
                  "--devices", "fake:1")
    wait_for(lambda: stopped(lease["pid"]), 120, "the device process stopped at its claim")
    (attempt, claimer), = claims(redis_url).items()
    assert attempt.endswith(":s/c00:1") and claimer == name
    assert leases(redis_url)[name]["state"] == "idle"       # it never said it was busy
    psutil.Process(lease["pid"]).kill()                     # its supervisor starts it again
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    assert (case["status"], case["attempt"], case["device"]) == ("passed", 2, name), case
    lost, = case["previous"]
    assert (lost["device"], lost["error"]["kind"], lost["error"]["message"]) == (
        name, "DeviceLost", f"worker of {name} stopped answering right after taking the case")
    assert summary["lost"] == {name: "its worker stopped answering right after taking the case "
                                     "(s/c00 attempt 1); it came back later in the run"}, out
    assert f"; lost: {name} (came back) (run " in summary_line(out), out
    assert (f"Lost during the run: {name} (its worker stopped answering right after taking "
            "the case") in (tmp_path / "run" / "report.html").read_text()


def test_a_device_started_again_mid_case_is_lost_as_such(tmp_path, redis_url, workers, farm):
    """The only device's process is killed mid-case; its `farm worker` starts it again. The
    run loses the attempt once the new process holds the device and says so: "a new process
    took the device over" (before: "lease expired", its lease never did, and only after the
    14 s lease grace), says nothing of "waiting for a web worker (none usable left)" while the
    device restarts (its lease gone for a second: before, it did), and re-runs the case on
    it."""
    go = tmp_path / "go"
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{go}"])
    workers("fake:1")
    (name, _), = wait_idle(redis_url, 1).items()
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:1")
    busy, = wait_busy(redis_url)
    wait_for(lambda: started(tmp_path / "run", "s/c00"), 60, "the run hearing the case start")
    psutil.Process(busy["pid"]).kill()
    wait_for(lambda: name not in leases(redis_url), 60, "the dead process's lease given up")
    wait_ticks(redis_url, 3)            # the run has looked at the device gone (a whole tick)
    client = psutil.Process(proc.pid)
    client.suspend()        # (however slow the restart: the run must not time the lease out)
    try:
        wait_for(lambda: leases(redis_url).get(name, {}).get("pid", busy["pid"]) != busy["pid"],
                 120, "the device started again")
    finally:
        client.resume()
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out + farm.worker_logs()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    assert (case["status"], case["attempt"], case["device"]) == ("passed", 2, name), case
    assert case["previous"][0]["error"]["message"] == (
        f"worker of {name} stopped answering mid-case (a new process took the device over)")
    assert summary["lost"] == {name: "its worker stopped answering mid-case (s/c00 attempt 1, "
                                     "a new process took the device over); it came back "
                                     "later in the run"}, out
    assert f"; lost: {name} (came back) (run " in summary_line(out), out
    assert "none usable left" not in out, out
