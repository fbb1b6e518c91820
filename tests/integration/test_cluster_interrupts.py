"""Runs that stop early in cluster mode: Ctrl-C of `farm run`, a worker killed mid-case. The
workers stop what they run for a run that is over, and the run reports what an attempt that
ended early did (its start, its time, its steps) as a local run does. Real redis-server, real
`farm worker` processes on the ``fake`` kind of the test device plugin, `farm run --broker`.

Cases wait in a step for a file the test creates (``farm-test:wait-for:PATH``), so each fault
lands where the test means it to, however loaded the machine; a file no one creates holds a
step that only a killed device ends (the fake device does not see a cancel there)."""

from __future__ import annotations

import signal
from datetime import datetime, timedelta

import psutil
import pytest
import redis

from tests.support.cluster import CLUSTER_ENV, PREFIX, events, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, by_name, results, wait_for
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def test_ctrl_c_stops_the_steps_running_on_the_workers_and_frees_them(tmp_path, redis_url,
                                                                      workers, farm):
    """Ctrl-C ends the run at once; the workers then stop the steps they are in (a sleep of
    ten minutes; a driver call only a killed device ends) instead of running them out, so the
    next run gets the devices straight away, and nothing is left in Redis for the run that
    ended."""
    never = tmp_path / "never"          # no one creates it
    write_case(tmp_path / "s", "sleeps", ["sleep: 600000"], timeout=900)
    write_case(tmp_path / "s", "hangs", [f"javascript: farm-test:wait-for:{never}"], timeout=900)
    workers("fake:2")
    wait_idle(redis_url, 2)
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "fake:2")
    run_id = wait_busy(redis_url, 2)[0]["run"]
    proc.send_signal(signal.SIGINT)
    out = proc.finish()
    assert proc.returncode == 2, out
    assert results(tmp_path / "run")["counts"]["interrupted"] == 2, out
    # before: both devices stayed busy with the stopped run's steps (up to 15 minutes)
    wait_idle(redis_url, 2, timeout=180)
    after = run_on(farm, redis_url, sleep_suite(tmp_path / "next", 2, 100), tmp_path / "next-run",
                   "--devices", "fake:2")
    out = after.finish()
    assert after.returncode == 0, out + farm.worker_logs()
    assert results(tmp_path / "next-run")["counts"]["passed"] == 2
    # the stopped cases' results came after the run had ended: not pushed into Redis, where
    # no client would ever take them (before: a list of events kept for 24 hours)
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    assert not r.exists(f"{PREFIX}:events:{run_id}"), r.lrange(f"{PREFIX}:events:{run_id}", 0, -1)
    assert "stopping its case" in farm.worker_logs()


def _when(step: dict) -> tuple[datetime, datetime]:
    start = datetime.fromisoformat(step["started"])
    return start, start + timedelta(seconds=step["duration"])


def _waiting_for_events(url: str) -> bool:
    """Is a run's client blocked in Redis waiting for its workers' events (BLMOVE)?"""
    r = redis.Redis.from_url(url, decode_responses=True)
    try:
        return any(c.get("cmd") == "blmove" and "b" in c.get("flags", "")
                   for c in r.client_list())
    finally:
        r.close()


def _report_step_one(proc, url: str, run_id: str, gate) -> None:
    """Let the case's first step end, and wait until its worker has reported it (the run's
    client is held meanwhile, so the report waits in Redis where the test sees it)."""
    client = psutil.Process(proc.pid)
    client.suspend()
    try:
        wait_for(lambda: not _waiting_for_events(url), 60,
                 "the held client's last wait for events over")
        gate.touch()
        wait_for(lambda: any(e["type"] == "step" for e in events(url, run_id)), 60,
                 "the worker reporting step 1")
    finally:
        client.resume()


def test_an_interrupted_case_keeps_its_start_its_time_and_the_steps_it_ran(tmp_path, redis_url,
                                                                           workers, farm):
    """As a local run reports it: the step it was in interrupted, the rest not run, its start
    and its time until Ctrl-C (before: started at the Ctrl-C, 0.0 s, no steps)."""
    gate = tmp_path / "step-1-ends"
    write_case(tmp_path / "s", "long", [f"javascript: farm-test:wait-for:{gate}",
                                        "sleep: 600000", "sleep: 10"], timeout=900)
    workers("fake:1")
    wait_idle(redis_url, 1)
    run_dir = tmp_path / "run"
    proc = run_on(farm, redis_url, tmp_path / "s", run_dir, "--devices", "fake:1")
    run_id = wait_busy(redis_url, 1)[0]["run"]
    _report_step_one(proc, redis_url, run_id, gate)
    wait_for(lambda: not events(redis_url, run_id), 60, "the run's client taking step 1")
    proc.send_signal(signal.SIGINT)
    out = proc.finish()
    assert proc.returncode == 2, out
    case = by_name(results(run_dir))["long"]
    assert case["status"] == "interrupted", case
    assert [(s["kind"], s["status"]) for s in case["steps"]] == [
        ("javascript", "passed"), ("sleep", "interrupted"), ("sleep", "skipped")], case["steps"]
    first_start, first_end = _when(case["steps"][0])
    started = datetime.fromisoformat(case["started"])
    assert started <= first_start and started + timedelta(seconds=case["duration"]) >= first_end
    # the summary names the line of the step it was in (the file's line 9), as a local run's
    assert f"INTERRUPTED s/long ({tmp_path / 's' / 'long.yaml'}:9) — interrupted" in out, out


def test_a_lost_attempt_keeps_its_start_its_time_and_the_steps_its_worker_reported(
        tmp_path, redis_url, workers, farm):
    """A worker SIGKILLed mid-case after reporting step 1: the lost attempt (the retry's
    previous) says when it started, how long it ran, the step it ran, the step it died in,
    and links no image that never came back (before: started at the loss, 0.0 s, no steps)."""
    gate, release = tmp_path / "step-1-ends", tmp_path / "step-2-ends"
    write_case(tmp_path / "s", "c00", [f"javascript: farm-test:wait-for:{gate}",
                                       f"javascript: farm-test:wait-for:{release}"])
    workers("fake:2")
    wait_idle(redis_url, 2)
    run_dir = tmp_path / "run"
    proc = run_on(farm, redis_url, tmp_path / "s", run_dir, "--devices", "fake:2")
    busy = wait_busy(redis_url, 1)[0]
    _report_step_one(proc, redis_url, busy["run"], gate)
    psutil.Process(busy["pid"]).kill()
    release.touch()                     # the retry, on the other device, runs to its end
    out = proc.finish()
    assert proc.returncode == 0, out
    case = by_name(results(run_dir))["c00"]
    assert case["status"] == "passed" and case["attempt"] == 2, case
    lost = case["previous"][0]
    assert lost["device"] == busy["device"] and lost["error"]["kind"] == "DeviceLost", lost
    assert [s["status"] for s in lost["steps"]] == ["passed", "error"], lost["steps"]
    assert lost["error"]["step"] == 2 and lost["steps"][1]["error"] == lost["error"]["message"]
    first_start, first_end = _when(lost["steps"][0])
    started = datetime.fromisoformat(lost["started"])
    assert started <= first_start and started + timedelta(seconds=lost["duration"]) >= first_end
    for step in lost["steps"]:
        for image in (step["before"], step["after"], step["marked"]):
            assert image is None or (run_dir / image).is_file(), step
