"""A cluster run whose phone broke while its worker sat idle: the phone went offline for good
(a cable pulled) between two runs, so the next case given to its worker finds it dead, and a
restart does not bring it back. Real redis-server, a real `farm worker` with two device
processes on the simulated phones of an in-process `AndroidSimulator`, `farm run --broker`.

What a user sees: the case runs on the other phone as its first attempt (before, it "started"
on the dead phone, ended "device android-… unusable" at once, and its retry ran on the other
phone as attempt 2: the report showed an attempt that never ran); the broken phone's worker
says it gave the case back and stops taking work.
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
    with notes_phones(tmp_path_factory, 2) as sim:
        yield sim


def test_a_case_given_to_a_phone_that_will_not_restart_runs_on_another_untried(
        tmp_path, redis_url, workers, farm, simulator) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    for name in ("a_notes", "b_notes"):
        (suite / f"{name}.yaml").write_text(CASE)
    workers("android:2", ANDROID_ADB_SERVER_PORT=str(simulator.port))
    found = wait_idle(redis_url, 2)
    broken = next(n for n, lease in found.items() if lease["target"] == simulator.serials[0])
    healthy = next(n for n in found if n != broken)
    simulator.fault(0, "offline", -1)       # the phone drops off adb for good, while idle

    run_dir = tmp_path / "run"
    proc = farm.start("run", suite, "--broker", redis_url, "--devices", "android:2",
                      "--retries", "0", "--report-dir", run_dir, **CLUSTER_ENV)
    out = proc.finish(240)
    logs = farm.worker_logs()

    cases = by_name(results(run_dir))
    for name in ("a_notes", "b_notes"):
        got = cases[name]
        assert (got["status"], got["attempt"], got["device"]) == ("passed", 1, healthy), (
            got, out)
    assert "unusable" not in out, out
    assert proc.returncode == 0, out
    # both jobs went out at once, one to each idle device: the broken one was given one,
    # and its worker says, in a line, why it gave it back
    given = [ln for ln in logs.splitlines() if "given back untried; draining" in ln]
    assert len(given) == 1 and broken in given[0] and "could not restart" in given[0], logs
    assert "Traceback" not in logs, logs
