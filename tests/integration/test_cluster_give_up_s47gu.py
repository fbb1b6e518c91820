"""A cluster run as a local run ends: the device a worker gave up on (a call still running
past the watchdog's grace after kill()) is named lost, and the report images a worker's device
could not take are said at the run's end. Real redis-server, real `farm worker` processes on
the kinds of the test plugin tests/integration/devices_s47gu.py, `farm run --broker`.

Before: the worker said its device dead after the attempt's result, and the run, ended by that
result, never heard it (results.json ``lost`` empty, no "lost:" on the summary line, no banner);
a worker's images not taken were said on the worker's stderr only."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PLUGIN = "tests.integration.devices_s47gu"


def summary_line(out: str) -> str:
    return next(ln for ln in out.splitlines() if ln.startswith("farm: ") and "(run " in ln)


def run_on(farm, url, suite, run_dir, *args):
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, "--retries", "0",
                      *args, **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})


def test_a_worker_s_device_given_up_after_kill_is_lost_in_the_run(tmp_path, redis_url,
                                                                   workers, farm):
    write_case(tmp_path / "s", "c00", ["sleep: 10", "javascript: farm-test:stuck"], timeout=1)
    workers("stuck:1", FARM_DEVICE_PLUGINS=PLUGIN, FARM_WATCHDOG_GRACE_SECONDS="0.5")
    (name, _), = wait_idle(redis_url, 1).items()
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "stuck:1")
    out = proc.finish()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    gone = (f"{name}: run_script() of device plugin '{PLUGIN}' did not return within 0.5s of "
            "kill(): farm gave up on it (its thread is left running) and uses the device no "
            "more")
    assert (case["status"], case["error"]["kind"], case["device"]) == (
        "error", "CaseTimeout", name), case
    assert gone in case["error"]["message"], case["error"]["message"]
    assert summary["lost"] == {name: gone}, out + farm.worker_logs()
    assert f"; lost: {name} (run " in summary_line(out), out
    assert (f"Lost during the run: {name} ({name}: run_script() of device plugin"
            in (tmp_path / "run" / "report.html").read_text())


def test_report_images_a_worker_could_not_take_are_said_at_the_run_s_end(
        tmp_path, redis_url, workers, farm):
    write_case(tmp_path / "s", "c00", ["sleep: 10", "sleep: 10"])
    workers("blind:1", FARM_DEVICE_PLUGINS=PLUGIN)
    (name, _), = wait_idle(redis_url, 1).items()
    proc = run_on(farm, redis_url, tmp_path / "s", tmp_path / "run", "--devices", "blind:1")
    out = proc.finish()
    assert proc.returncode == 0, out
    case, = results(tmp_path / "run")["cases"]
    assert case["status"] == "passed", case
    said = [ln for ln in out.splitlines() if "report image(s) could not be taken" in ln]
    assert said == [f"farm: warning: 3 report image(s) could not be taken: {name}: the camera "
                    "is off"], out
