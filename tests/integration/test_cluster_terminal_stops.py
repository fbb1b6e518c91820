"""Stopping a `farm worker` the way an operator does at a terminal (Ctrl-C sends SIGINT to the
whole foreground process group: the `farm worker`, its device processes, their browsers), and
a device process started again while Redis is away.
Real redis-server, real `farm worker` processes on the ``fake`` kind of the test device plugin,
`farm run --broker`; each case waits in its first step for a file the test creates, so the
Ctrl-C always lands mid-case."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import psutil
import pytest

from tests.support.cluster import CLUSTER_ENV, leases, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, ROOT, FarmCli, results, wait_for
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def worker_at_a_terminal(farm: FarmCli, url: str, devices: str, log: Path) -> subprocess.Popen:
    """`farm worker` as the foreground job of a terminal: the leader of a process group of its
    own, which the terminal's Ctrl-C signals as a whole (see ``ctrl_c``)."""
    with log.open("w") as out:
        proc = subprocess.Popen(
            farm.command("worker", "--broker", url, "--devices", devices), cwd=ROOT,
            env=farm.env(FARM_DEVICE_PLUGINS=PLUGIN, FARM_WORKER_METRICS_PORT="0", **CLUSTER_ENV),
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    farm.started.append(proc)
    return proc


def ctrl_c(proc: subprocess.Popen) -> None:
    """What a terminal does on Ctrl-C: SIGINT to every process of the foreground group."""
    os.killpg(proc.pid, signal.SIGINT)


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})


def held_case(folder: Path, gate: Path) -> Path:
    write_case(folder, "held", [f"javascript: farm-test:wait-for:{gate}", "sleep: 50"])
    return folder


def test_ctrl_c_at_the_terminal_lets_the_case_in_progress_finish(tmp_path, redis_url, farm):
    """Before: the device processes got the terminal's SIGINT and then the supervisor's, which
    Celery takes for a cold shutdown: the case ended as an "internal error: ... TaskPool does
    not implement kill_job" (traceback in the worker's log)."""
    go = tmp_path / "go"
    log = tmp_path / "terminal.log"
    worker = worker_at_a_terminal(farm, redis_url, "fake:1", log)
    wait_idle(redis_url, 1)
    proc = run_on(farm, redis_url, held_case(tmp_path / "s", go), tmp_path / "run",
                  "--devices", "fake:1")
    busy = wait_busy(redis_url)[0]
    ctrl_c(worker)
    wait_for(lambda: leases(redis_url).get(busy["device"], {}).get("draining"), 60,
             "the worker's lease saying it drains")
    go.touch()
    out = proc.finish()
    case = results(tmp_path / "run")["cases"][0]
    assert case["status"] == "passed" and case["attempt"] == 1, (case, out)
    assert case["device"] == busy["device"]
    assert worker.wait(60) == 0, log.read_text()
    said = log.read_text()
    assert "Traceback" not in said and "kill_job" not in said, said
    assert "each device finishes the case it is running" in said, said


def test_a_second_ctrl_c_stops_the_worker_now_and_its_case_runs_elsewhere(tmp_path, redis_url,
                                                                         workers, farm):
    """Before: Celery's cold shutdown, which the solo pool cannot do, ended the case as an
    "internal error" (an error, not retried) with a traceback in the worker's log."""
    go = tmp_path / "go"
    log = tmp_path / "terminal.log"
    worker = worker_at_a_terminal(farm, redis_url, "fake:1", log)
    wait_idle(redis_url, 1)
    proc = run_on(farm, redis_url, held_case(tmp_path / "s", go), tmp_path / "run",
                  "--devices", "fake:1")
    busy = wait_busy(redis_url)[0]
    ctrl_c(worker)
    wait_for(lambda: leases(redis_url).get(busy["device"], {}).get("draining"), 60,
             "the worker's lease saying it drains")
    ctrl_c(worker)
    # without its case finishing; exit 137 (its device killed) where it was 247 (-9 & 255)
    assert worker.wait(60) == 128 + signal.SIGKILL, log.read_text()
    assert not psutil.pid_exists(busy["pid"]) or \
        psutil.Process(busy["pid"]).status() == psutil.STATUS_ZOMBIE
    workers("fake:1")           # another worker: the lost case runs there
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out
    case = results(tmp_path / "run")["cases"][0]
    assert case["status"] == "passed" and case["attempt"] == 2, (case, out)
    assert case["previous"][0]["device"] == busy["device"]
    said = log.read_text()
    assert "Traceback" not in said and "stopping now" in said, said


def test_a_device_process_started_again_while_redis_is_away_waits_for_it(tmp_path,
                                                                         private_redis, workers,
                                                                         farm):
    """A device process that dies while Redis is away (restarted by its `farm worker`) waits
    for Redis and serves as soon as it is back. Before, it died again at once with a
    60-line traceback, again and again with a growing back-off (1 s doubling to 60 s), so it
    could come back up to a minute after Redis."""
    server = private_redis()
    worker = workers("fake:1", broker=server.url)
    device = next(iter(wait_idle(server.url, 1).values()))
    server.stop()
    psutil.Process(device["pid"]).kill()
    wait_for(lambda: "waiting for the broker" in farm.worker_logs(), 60,
             "the device process saying it waits for Redis")
    server.start()
    back = wait_idle(server.url, 1)
    assert device["device"] in back and worker.poll() is None
    said = farm.worker_logs()
    assert "Traceback" not in said and "exited with" not in said, said


def test_a_name_taken_while_redis_was_away_is_given_up_by_the_later_process(
        tmp_path, private_redis, workers, farm):
    """Redis comes back without its data while a device process cannot write its lease yet
    (here: stopped with SIGSTOP; a slow heartbeat, a paused VM): a `farm worker` started
    meanwhile takes the name. Once the first writes its lease again, the later one gives the
    name up and comes back under a free one. Before, both served as one device (each
    heartbeat overwrote the other's lease): clients took one's case for lost when the other's
    lease said idle."""
    server = private_redis()
    workers("fake:1", broker=server.url)
    first = next(iter(wait_idle(server.url, 1).values()))
    stopped = psutil.Process(first["pid"])
    stopped.suspend()
    server.stop()
    server.start()                  # without its data: the name is free
    workers("fake:1", broker=server.url)
    wait_for(lambda: leases(server.url).get(first["device"], {}).get("pid") not in
             (None, first["pid"]), 90, "the second worker taking the name")
    stopped.resume()

    def two_devices():
        found = {n: lease["pid"] for n, lease in leases(server.url).items()
                 if lease.get("state") == "idle"}
        return found if len(found) == 2 else None
    found = wait_for(two_devices, 90, "two idle devices of two names")
    assert found[first["device"]] == first["pid"], found
    assert "starting again under a free name" in farm.worker_logs()
    proc = farm.start("run", write_case(tmp_path / "s", "c", ["sleep: 10"]).parent, "--broker",
                      server.url, "--report-dir", tmp_path / "run", "--devices", "fake:2",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    out = proc.finish()
    assert proc.returncode == 0, out
