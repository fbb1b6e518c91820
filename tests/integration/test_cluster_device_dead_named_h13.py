"""A cluster run whose only phone died while its worker sat idle (dropped off adb for good),
so the worker's check before the first case fails, a restart does not bring it back, and the
worker gives the case back untried and drains. Real redis-server, a real `farm worker
--devices android:1` on the simulated phone of an in-process `AndroidSimulator`, `farm run
--broker`.

What a user sees: the run names the dead phone as a local run does (results.json ``lost``
with why, the summary line's "lost: …", the report's "Lost during the run" banner), and the
case left with no android worker says why there is none: the phone's own reason. Before, the
run never said the phone died, and the case ended "no usable android worker in the cluster
for 60s (start one: farm worker)" a minute later.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import by_name, results
from tests.support.notes_phones import CASE, notes_phones

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


@pytest.fixture(scope="module")
def simulator(tmp_path_factory) -> Any:
    with notes_phones(tmp_path_factory, 1) as sim:
        yield sim


def test_a_phone_that_will_not_restart_is_named_lost_with_why(
        tmp_path, redis_url, workers, farm, simulator) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "notes.yaml").write_text(CASE)
    workers("android:1", ANDROID_ADB_SERVER_PORT=str(simulator.port))
    (device,) = wait_idle(redis_url, 1)
    simulator.fault(0, "offline", -1)       # the phone drops off adb for good, while idle

    run_dir = tmp_path / "run"
    proc = farm.start("run", suite, "--broker", redis_url, "--devices", "android:1",
                      "--retries", "0", "--report-dir", run_dir,
                      FARM_CLUSTER_DEVICE_WAIT="2", **CLUSTER_ENV)
    out = proc.finish(180)

    summary = results(run_dir)
    why = summary.get("lost", {}).get(device, "")
    assert why.startswith("could not restart"), (summary.get("lost"), out)
    got = by_name(summary)["notes"]
    assert got["status"] == "error", (got, out)
    error = (got.get("error") or {}).get("message", "")
    assert "no usable android worker" in error and device in error and why in error, (
        error, out)
    assert f"lost: {device}" in out, out
    page = (run_dir / "report.html").read_text()
    assert f"Lost during the run: {device} (could not restart" in page
    assert proc.returncode != 0, out
