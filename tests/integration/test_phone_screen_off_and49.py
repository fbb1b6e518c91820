"""A phone whose screen goes off mid-case (Power pressed, it slept) is the device's fault,
not the case's: the step that then finds nothing on the black screen ends the attempt as a
device error naming the phone ("emulator-5554's screen went off during the case"), retried
as device errors are, where it was a test failure ("no element matches", then counted
flaky). farm asks the phone (`dumpsys power`) only on that failure path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.android_sims import phones_with_page
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

APP = "com.qa.sleepy"
PAGE = """<!doctype html><html><head>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<button style="font-size: 24px; margin: 40px">Sign in</button></body></html>"""

CASE = """\
android:
  launch: {app}
tasks:
  - name: sleep
    flow:
      - aiTap: Sign in
      - runAdbShell: input keyevent {key}
      - aiTap: Sign in
"""


def _run(farm: FarmCli, tmp: Path, key: int) -> tuple[dict, str]:
    suite = tmp / f"suite{key}"
    suite.mkdir()
    (suite / "sleepy.yaml").write_text(CASE.format(app=APP, key=key))
    with phones_with_page(tmp / f"sim{key}", 1, APP, PAGE, "sleepy") as sim:
        done = farm.run("run", suite, "--devices", "android:1", "--no-progress",
                        "--report-dir", tmp / f"run{key}",
                        ANDROID_ADB_SERVER_PORT=str(sim.port))
    return by_name(results(tmp / f"run{key}"))["sleepy"], done.stdout + done.stderr


def test_a_screen_gone_off_mid_case_is_a_device_error_naming_the_phone_and49(
        farm: FarmCli, tmp_path: Path):
    (tmp_path / "sim26").mkdir()
    case, out = _run(farm, tmp_path, 26)           # Power: the screen goes off
    said = (case.get("error") or {}).get("message", "")
    assert "emulator-5554's screen went off during the case" in said, (case, out)
    assert case["status"] != "failed", case["status"]
    assert "no element matches" not in said


def test_a_missing_target_on_a_screen_still_on_stays_a_test_failure_and49(
        farm: FarmCli, tmp_path: Path):
    (tmp_path / "sim4").mkdir()
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "sleepy.yaml").write_text(CASE.format(app=APP, key=4).replace(
        "      - aiTap: Sign in\n", "      - aiTap: Sign up please\n"))
    with phones_with_page(tmp_path / "sim4", 1, APP, PAGE, "sleepy") as sim:
        done = farm.run("run", suite, "--devices", "android:1", "--no-progress",
                        "--report-dir", tmp_path / "run", ANDROID_ADB_SERVER_PORT=str(sim.port))
    case = by_name(results(tmp_path / "run"))["sleepy"]
    assert case["status"] in ("failed", "skipped"), (case, done.stdout, done.stderr)
    assert "screen went off" not in done.stdout + done.stderr
