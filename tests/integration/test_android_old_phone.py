"""An Android 6 phone (no shell_v2: one output stream, through a terminal that sends LF as
CRLF) is driven as a newer one: adbutils falls back to its v1 shell there and leaves stdout
empty, so every command read "" and the phone was lost at once ("unexpected `wm size` answer
''"); a screencap through that terminal would be a corrupt PNG, and a refused `input` (its
SecurityException in the one stream, exit 0) would pass silently.

The simulator's phone answers as an Android 6 one when its shell's ``shell_v2`` is False."""

from __future__ import annotations

import io

import pytest

from farm.errors import DeviceError
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.example.old"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Old</title></head><body><h1>Old phone</h1>
<button onclick="document.getElementById('said').textContent = 'Pressed'">Press</button>
<p id="said">Idle</p></body></html>"""


@pytest.fixture
def old_phone(tmp_path):
    """A simulator whose one phone is an Android 6 one."""
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="old", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            sim.server.shells[0].shell_v2 = False
            yield sim


def test_an_android_6_phone_answers_reads_and_refuses_as_a_newer_one(old_phone):
    from PIL import Image

    from farm.devices.android import AndroidDevice
    from farm.suite.model import AndroidTarget
    phone = AndroidDevice("a1", None, old_phone.serials[0], port=old_phone.port)
    phone.open()
    try:
        assert phone.size() == (1080, 2400)
        phone.start_session(AndroidTarget(launch=PACKAGE))
        assert phone.shell("echo hi") == "hi\n"
        out, _err, code = phone.shell_result("ls /nowhere")
        assert code == 1 and "ls: /nowhere: No such file or directory" in out
        assert Image.open(io.BytesIO(phone.screenshot())).size == (1080, 2400)
        assert any(n.text == "Press" for n in phone.hierarchy().nodes)
        old_phone.fault(0, "input_blocked", 1)
        with pytest.raises(DeviceError, match="SecurityException"):
            phone.tap(10, 10)
    finally:
        phone.close()


def test_a_case_runs_on_an_android_6_phone(farm: FarmCli, old_phone):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "old.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: press
    flow:
      - aiTap: Press
      - assertText: Pressed
""")
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(old_phone.port), FARM_SCREENSHOTS="all")
    case = by_name(results(farm.tmp / "run"))["old"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)


@pytest.mark.parametrize("old", [True, False], ids=["android-6", "android-14"])
def test_a_shell_line_that_exits_gives_its_status(tmp_path, old):
    """A suite's ``runAdbShell: pm path com.x || exit 5`` gets exit 5 on every phone. The
    simulator's shell had no ``exit`` (127, "inaccessible or not found", and the line went on);
    on an Android 6 phone adbutils reads the status from an echo it appends, which a line that
    exits never reached: the step was the device's error "shell output invalid", blamed on
    the phone and retried elsewhere."""
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1, {}) as sim:
        sim.server.shells[0].shell_v2 = not old
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            assert phone.shell_result("pm path com.nope || exit 5")[2] == 5
            out, err, code = phone.shell_result("echo done; exit 0; echo never")
            assert (out + err, code) == ("done\n", 0)
            assert phone.shell_result("false; exit")[2] == 1
            assert phone.shell("echo $?; wm size").startswith("0\nPhysical size: 1080x2400")
        finally:
            phone.close()
