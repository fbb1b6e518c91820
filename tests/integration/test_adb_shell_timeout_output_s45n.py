"""A runAdbShell step stopped at its timeout keeps what the command printed by then as the
step's output (results.json, the report's step row), as a step that finished keeps its
stdout: the output was None, only the error message's last lines said it. Real `farm run`
on the simulated phone."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration


def test_a_command_stopped_at_its_timeout_keeps_what_it_printed_as_output(farm: FarmCli):
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
    (step,) = case["steps"]
    assert step["status"] == "failed", step
    assert step["output"] == "one\ntwo", step
    assert "it printed: one / two" in step["error"], step
    report = (farm.tmp / "run" / "report.html").read_text()
    assert 'class="out">→ "one\\ntwo"' in report
