"""A runAdbShell command that prints without end (a busy phone's plain `logcat`, `top`; the
simulator's `yes`) is stopped at its step's timeout and fails the step, saying it was still
printing: adbutils' timeout is between two reads, so the command was read until the case's
timeout, when the watchdog stopped the phone (its loss, retried on another), and farm held
all of it (3 GB in 8 s from the simulator). What it printed last is what is kept."""

from __future__ import annotations

import pytest

from farm.errors import StepFailed
from tests.support.farm_cli import FarmCli, by_name, results


@pytest.mark.parametrize("shell_v2", [True, False], ids=["android-7+", "android-6"])
def test_an_endless_command_fails_at_its_timeout_and_spares_the_phone(shell_v2):
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        sim.server.shells[0].shell_v2 = shell_v2
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            with pytest.raises(StepFailed) as failed:
                phone.shell_result("yes farm", timeout_s=0.5)
            said = str(failed.value)
            assert said.startswith("the shell command was still running after 0.5s, having "
                                   "printed "), said
            assert "logcat without -d" in said
            assert phone.shell_result("echo done; exit 3", timeout_s=5) == (
                "done\n", "", 3)
            assert phone.healthy()
        finally:
            phone.close()


def test_a_run_fails_the_case_on_this_phone_without_retrying_it(farm: FarmCli):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "follow.yaml").write_text("""\
android:
tasks:
  - name: follow the log
    flow:
      - runAdbShell: yes
        timeout: 1000
""")
    done = farm.run("run", suite, "--devices", "android-sim:2", "--report-dir",
                    farm.tmp / "run")
    case = by_name(results(farm.tmp / "run"))["follow"]
    assert case["status"] == "failed" and case["attempt"] == 1, (case, done.stdout)
    assert "still running after 1s" in case["error"]["message"], case["error"]


def test_a_silence_is_limited_only_without_a_timeout(monkeypatch):
    """A step with no timeout fails once its command is silent for
    FARM_ADB_SILENCE_SECONDS (30 s; here 0.5), as before; a step's timeout is the
    command's whole time, silent or not (a silence under it is no failure)."""
    from farm.config import Settings
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    monkeypatch.setenv("FARM_ADB_SILENCE_SECONDS", "0.5")
    with AndroidSimulator(1) as sim:
        phone = AndroidDevice("a1", Settings(), sim.serials[0], port=sim.port)
        phone.open()
        try:
            with pytest.raises(StepFailed) as failed:
                phone.shell_result("sleep 3; echo late")
            assert str(failed.value).startswith(
                "the shell command gave no output for 0.5s (FARM_ADB_SILENCE_SECONDS) "
                "and was given up"), failed.value
            assert phone.shell_result("sleep 1; echo slow", timeout_s=5) == ("slow\n", "", 0)
        finally:
            phone.close()
