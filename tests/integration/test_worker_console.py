"""What a `farm worker` says on its console: farm's own lines, not Celery's (unless asked for),
and one line for a device that cannot start. Real redis-server, real `farm worker` processes
(the ``fake`` kind of the test device plugin; a browser whose Chromium cannot start)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.support.cluster import CLUSTER_ENV, leases, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, ROOT, FarmProcess, results, wait_for
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_stopped_worker_says_what_drains_in_farms_words_only(tmp_path, redis_url, workers,
                                                               farm):
    """SIGTERM while a case runs: the case finishes and passes, the worker exits 0, and every
    line on its console is farm's: which device finishes which case first, and each device
    stopped. Before, Celery's "worker: Warm shutdown (MainProcess)" (between blank lines) came
    after farm's line, once per device, and nothing said which device drained or stopped."""
    gate = tmp_path / "go"
    write_case(tmp_path / "s", "held", [f"javascript: farm-test:wait-for:{gate}", "sleep: 10"])
    worker = workers("fake:2")
    devices = sorted(wait_idle(redis_url, 2))
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--report-dir",
                      tmp_path / "run", "--devices", "fake:1",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    busy = wait_busy(redis_url)[0]
    worker.send_signal(signal.SIGTERM)
    wait_for(lambda: leases(redis_url).get(busy["device"], {}).get("draining"), 60,
             "the busy device draining")
    gate.touch()
    out = proc.finish()
    assert proc.returncode == 0 and results(tmp_path / "run")["counts"]["passed"] == 1, out
    assert worker.wait(60) == 0, farm.worker_logs()
    said = farm.worker_logs()
    assert "each device finishes the case it is running, then ends" in said, said
    assert all(line.startswith("farm worker: ") for line in said.splitlines()), said
    assert (f"farm worker: {busy['device']} finishes {busy['case']} (run {busy['run']}) first"
            in said.splitlines()), said
    assert all(said.count(f"farm worker: device {name} stopped\n") == 1 for name in devices), \
        said


def test_celerys_shutdown_lines_stay_when_its_logging_is_asked_for(tmp_path, redis_url, farm):
    """`farm worker --loglevel INFO`: Celery's logging, its shutdown line included."""
    proc = farm.start("worker", "--broker", redis_url, "--devices", "fake:1", "--metrics-port",
                      "0", "--loglevel", "info",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    proc.wait_for_line(" ready.", 90)       # Celery's own: its signal handlers are in place
    proc.send_signal(signal.SIGTERM)
    out = proc.finish(60)
    assert proc.returncode == 0, out
    assert "worker: Warm shutdown (MainProcess)" in out, out


def test_a_device_that_cannot_start_is_said_once_with_what_to_do(tmp_path, redis_url, farm):
    """A browser whose Chromium does not start: one line (which device, why, what to do), then
    the worker gives up on it (exit 3) as before. Before, the slot's log, the worker's log and
    farm's line said it three times, and "device ... exited with 3" a fourth."""
    done = farm.run("worker", "--broker", redis_url, "--devices", "browser:1",
                    "--metrics-port", "0", timeout=120, FARM_CHROMIUM_PATH="/bin/false",
                    **CLUSTER_ENV)
    text = done.stdout + done.stderr
    assert done.returncode == 3, text
    about = [line for line in text.splitlines() if "browser-1@" in line]
    assert len(about) == 1, text
    line, = about
    assert line.startswith("farm worker: device browser-1@"), line
    assert " could not start: cannot launch Chromium /bin/false " in line, line
    assert line.endswith(". Not started again: once its Chromium starts (FARM_CHROMIUM_PATH "
                         "chooses which), start `farm worker` again"), line
