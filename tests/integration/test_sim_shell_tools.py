"""What a QA suite asks the simulated Android phone's shell, answered as a phone answers it.

- ``runAdbShell: dumpsys window | grep mCurrentFocus`` gets grep's output and exit code: the
  simulator took ``|`` and what followed as arguments of the first command, so the step got
  the whole output and a ``grep -q`` that matched nothing passed.
- ``adb logcat`` shows why an app did not come to the front (farm's message says to look
  there): the simulator had no logcat at all ("inaccessible or not found").
- ``pm grant`` (a suite's set-up step) succeeds for an installed app.
"""

from __future__ import annotations

import pytest

from tests.support.android_sims import phones_with_page
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.example.notes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1></body></html>"""


@pytest.fixture
def simulator(tmp_path):
    """One simulated phone (adb server in this process) with PAGE installed as PACKAGE."""
    with phones_with_page(tmp_path, 1, PACKAGE, PAGE, "notes") as sim:
        yield sim


@pytest.fixture
def phone(simulator):
    from farm.devices.android import AndroidDevice
    device = AndroidDevice("a1", None, simulator.serials[0], port=simulator.port)
    device.open()
    yield device
    device.close()


def test_a_pipe_gives_the_filters_output_and_exit_code(phone):
    phone.launch(PACKAGE)
    out, err, code = phone.shell_result("dumpsys window | grep mCurrentFocus")
    assert code == 0 and out.strip().startswith("mCurrentFocus=Window{"), (out, err)
    assert PACKAGE in out and "mFocusedApp" not in out
    assert phone.shell_result("dumpsys window | grep -q com.nothing.here")[2] == 1
    out, _, code = phone.shell_result("dumpsys activity activities | grep -c mResumedActivity")
    assert (out.strip(), code) == ("1", 0)
    out, err, code = phone.shell_result("getprop | nosuchtool")
    assert code == 127 and "nosuchtool" in err


def test_logcat_shows_the_crash_on_launch_farm_points_to(simulator, phone):
    from farm.errors import StepFailed

    phone.shell("logcat -c")
    simulator.fault(0, "launch_fail", 1)
    with pytest.raises(StepFailed) as failed:
        phone.launch(PACKAGE)
    assert "adb logcat shows why" in str(failed.value)
    out, _, code = phone.shell_result('logcat -d -b crash | grep "FATAL EXCEPTION"')
    assert code == 0 and "E AndroidRuntime: FATAL EXCEPTION: main" in out, out
    assert f"Process: {PACKAGE}" in phone.shell("logcat -d -s AndroidRuntime")
    phone.launch(PACKAGE)                      # the fault was for one launch
    assert phone.shell_result('logcat -d -b crash | grep -c "FATAL EXCEPTION"')[0] == "1\n"
    phone.shell("logcat -c")
    assert phone.shell_result("logcat -d | grep -q AndroidRuntime")[2] == 1


def test_a_suite_checks_the_phone_through_shell_pipes(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "focus.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: set-up and check
    flow:
      - runAdbShell: pm grant {PACKAGE} android.permission.CAMERA
      - runAdbShell: dumpsys window | grep mCurrentFocus
        name: focus
""")
    (suite / "not_there.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: a check that must fail
    flow:
      - runAdbShell: dumpsys window | grep -q com.other.app
""")
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(simulator.port))
    cases = by_name(results(farm.tmp / "run"))
    assert cases["focus"]["status"] == "passed", (cases["focus"].get("error"), done.stdout)
    assert "mCurrentFocus=Window{" in cases["focus"]["data"]["focus"]
    assert "mFocusedApp" not in cases["focus"]["data"]["focus"]
    assert cases["not_there"]["status"] == "failed", done.stdout
    assert "exited 1" in str(cases["not_there"]["error"])
