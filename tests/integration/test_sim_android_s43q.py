"""A QA engineer's `farm run` against two simulated Android phones:

- ``runAdbShell: dumpsys battery | head -3`` (Midscene's own example) gets a phone's battery
  lines, and ``pm list packages | grep chrome`` finds the browser URLs open in: the simulator
  answered both with an empty success.
- a case pinned with ``android: {deviceId: s4ey59ytbitot4yp}`` to a serial the adb server does
  not have is told so at its file:line, with the server's phones: it was told "which this run
  did not take ... give --devices android:N to take more" though both phones were taken. It
  ends alone, as an error: the run's other cases run (it stopped the whole run with exit 4).
"""

from __future__ import annotations

import pytest

from tests.support.android_sims import phones_with_page
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.qa.lab"
PAGE = "<!doctype html><html><body><h1>Lab</h1></body></html>"


@pytest.fixture
def simulator(tmp_path):
    """Two simulated phones (adb server in this process) with PAGE installed as PACKAGE."""
    with phones_with_page(tmp_path, 2, PACKAGE, PAGE, "lab") as sim:
        yield sim


def test_a_suite_reads_the_battery_and_finds_the_browser(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "phone.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: phone state
    flow:
      - runAdbShell: dumpsys battery | head -3
        name: battery
      - runAdbShell: pm list packages | grep chrome
        name: browser
""")
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(simulator.port))
    case = by_name(results(farm.tmp / "run"))["phone"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)
    assert case["data"]["battery"] == ("Current Battery Service state:\n  AC powered: false\n"
                                       "  USB powered: true\n")
    assert case["data"]["browser"] == "package:com.android.chrome\n"


def test_a_pin_to_a_serial_the_adb_server_does_not_have_says_so(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "pinned.yaml").write_text(
        "android: {deviceId: s4ey59ytbitot4yp}\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 100\n")
    (suite / "other.yaml").write_text(
        f"android: {{launch: {PACKAGE}}}\ntasks:\n  - name: t\n    flow:\n      - sleep: 100\n")
    done = farm.run("run", "suite", "--devices", "android:2", "--report-dir", farm.tmp / "run",
                    cwd=farm.tmp, ANDROID_ADB_SERVER_PORT=str(simulator.port))
    said = (f"suite/pinned.yaml:1: deviceId s4ey59ytbitot4yp: no such device: the adb server "
            f"at 127.0.0.1:{simulator.port} lists emulator-5554, emulator-5556 (correct the "
            "deviceId, or connect that phone)")
    cases = by_name(results(farm.tmp / "run"))
    assert cases["other"]["status"] == "passed", (done.stdout, done.stderr)
    assert cases["pinned"]["status"] == "error"
    assert cases["pinned"]["error"]["message"] == said
    assert said in done.stdout + done.stderr
    assert "--devices android:N" not in done.stdout + done.stderr
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
