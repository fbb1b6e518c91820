"""A phone turned to landscape (an app that runs sideways, a tablet, auto-rotate off with
user_rotation 1): `wm size` still says the upright 1080x2400, while screencap, the UI dump's
bounds and `input tap` are all 2400 wide. farm took the screen as upright, so everything right
of x=1080 was "off screen" (a button there was never found by its text) and a model's point on
the landscape screenshot was mapped onto an upright screen. Now the screen's size follows the
turn the last screenshot or dump shows."""

from __future__ import annotations

import io

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.example.land"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Land</title></head><body style="margin:0"><h1>Land</h1>
<button style="position:absolute; right:10px; top:60px"
 onclick="document.getElementById('said').textContent = 'Right pressed'">Right side</button>
<p id="said">Idle</p></body></html>"""


@pytest.fixture
def simulator(tmp_path):
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="land", serve=app)])
        with AndroidSimulator(1, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def test_a_turned_phone_is_measured_as_it_shows(simulator):
    from PIL import Image

    from farm.devices.android import AndroidDevice
    from farm.suite.model import AndroidTarget
    phone = AndroidDevice("a1", None, simulator.serials[0], port=simulator.port)
    phone.open()
    try:
        phone.start_session(AndroidTarget(launch=PACKAGE))
        assert phone.size() == (1080, 2400)
        phone.shell("settings put system user_rotation 1")
        shot = Image.open(io.BytesIO(phone.screenshot()))
        assert shot.size == phone.size() == (2400, 1080)
        button = next(n for n in phone.hierarchy().nodes if n.text == "Right side")
        assert button.visible and button.rect.x > 1080
        import adbutils      # (the simulator says so where adbutils reads it, as a phone)
        raw = adbutils.AdbClient(port=simulator.port).device(simulator.serials[0])
        assert (raw.rotation(), tuple(raw.window_size())) == (1, (2400, 1080))
        simulator.fault(0, "empty_tree", 4)         # an empty dump says how it is turned too
        assert phone.hierarchy() is None and phone.size() == (2400, 1080)
        phone.shell("settings put system user_rotation 0")
        phone.hierarchy()
        assert phone.size() == (1080, 2400)
    finally:
        phone.close()


def test_a_case_taps_a_button_on_the_right_of_a_landscape_screen(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "land.yaml").write_text(f"""\
android:
  launch: {PACKAGE}
tasks:
  - name: turn the phone and tap a button on its right
    flow:
      - runAdbShell: settings put system user_rotation 1
      - aiTap: Right side
      - assertText: Right pressed
""")
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", farm.tmp / "run",
                    ANDROID_ADB_SERVER_PORT=str(simulator.port))
    case = by_name(results(farm.tmp / "run"))["land"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)
