"""A runAdbShell command that prints and runs past its step's timeout fails saying it was
still running, with what it printed by then: the simulated phone held a command's output
back until it ended (a phone streams it), so the step failed saying the command "gave no
output for 2s ... a longer one needs the step's timeout: (ms)", though it printed and the
step had a timeout."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration


def test_a_printing_command_past_its_timeout_says_what_it_printed(farm: FarmCli):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "slow.yaml").write_text("""\
android:
tasks:
  - name: count on the phone
    flow:
      - runAdbShell: echo one; sleep 0.2; echo two; sleep 5; echo three
        timeout: 2000
""")
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run")
    case = by_name(results(farm.tmp / "run"))["slow"]
    assert case["status"] == "failed", (case, done.stdout)
    said = case["error"]["message"]
    assert said.startswith("the shell command was still running after 2s, having printed "
                           "8 bytes, and was stopped"), said
    assert "gave no output" not in said, said
    assert said.endswith("; it printed: one / two"), said


def test_the_sim_streams_each_command_s_output_as_it_ends():
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            assert phone.shell_result("echo a; echo b >&2; exit 3", timeout_s=5) == (
                "a\n", "b\n", 3)
            phone._shell_v2 = False         # an older phone's one stream, through `sh -c`
            assert phone.shell_result("echo a; sleep 0.1; echo b; exit 4", timeout_s=5) == (
                "a\nb\n", "", 4)
        finally:
            phone.close()
