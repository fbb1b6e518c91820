"""A cluster run whose last case quarantines its device names the device quarantined, as a
local run does (results.json ``quarantined``, the summary line, the report's banner). Real
redis-server, a real `farm worker` whose fake device fails every attempt (DeviceLost),
`farm run --broker`.

Before: the worker put the quarantine in Redis and said it after the attempt's result, and
the run, ended by that result, never read it (results.json ``quarantined`` empty)."""

from __future__ import annotations

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PLUGIN = "tests.support.devices"
BANNER = "Quarantined during the run (repeated infrastructure errors): "


def summary_line(out: str) -> str:
    return next(ln for ln in out.splitlines() if ln.startswith("farm: ") and "(run " in ln)


def test_the_device_the_run_s_last_case_quarantines_is_named_quarantined(
        tmp_path, redis_url, workers, farm):
    # one case, its three attempts (two infra retries, a cluster run's default) fail on the
    # one device: the third, the run's last result, quarantines it
    write_case(tmp_path / "s", "c00", ["sleep: 10"])
    workers("fake:1", FARM_TEST_FAKE_FAIL="1")
    (name, _), = wait_idle(redis_url, 1).items()
    proc = farm.start("run", tmp_path / "s", "--broker", redis_url, "--report-dir",
                      tmp_path / "run", "--retries", "0", "--devices", "fake:1",
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV})
    out = proc.finish()
    summary = results(tmp_path / "run")
    case, = summary["cases"]
    assert (case["status"], case["attempt"], case["device"]) == ("error", 3, name), case
    assert summary["quarantined"] == [name], out + farm.worker_logs()
    assert f"quarantined: {name}" in summary_line(out), out
    assert BANNER + name in (tmp_path / "run" / "report.html").read_text()
