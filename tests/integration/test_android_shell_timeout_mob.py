"""A runAdbShell command that runs past its step's timeout fails the step, saying so: it was
the phone's loss ("android-sim-1 lost (sleep): no answer from the adb server in time"), an
error retried on another phone and counted against this one, though the phone was fine."""

from __future__ import annotations

import pytest

from farm.errors import StepFailed
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration


def test_a_command_past_its_time_fails_its_step_and_spares_the_phone():
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            with pytest.raises(StepFailed) as failed:
                phone.shell_result("sleep 5", timeout_s=0.5)
            assert str(failed.value).startswith("the shell command gave no output for 0.5s "
                                                "and was given up"), failed.value
            assert phone.shell_result("sleep 0.1; echo done", timeout_s=5) == ("done\n", "", 0)
            assert phone.healthy()
        finally:
            phone.close()


def test_a_run_fails_the_case_without_retrying_it_elsewhere(farm: FarmCli):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "slow.yaml").write_text("""\
android:
tasks:
  - name: wait on the phone
    flow:
      - runAdbShell: sleep 5
        timeout: 500
""")
    done = farm.run("run", suite, "--devices", "android-sim:2", "--report-dir",
                    farm.tmp / "run")
    case = by_name(results(farm.tmp / "run"))["slow"]
    assert case["status"] == "failed" and case["attempt"] == 1, (case, done.stdout)
    assert "gave no output for 0.5s" in case["error"]["message"], case["error"]
