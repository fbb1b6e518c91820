"""An iPhone turned to landscape mid-case (WDA's POST /orientation, a video going full
screen): farm kept the size the case's session read upright, 390x844 points, while WDA's
screenshots, source and touches were 844 wide: everything right of x=390 was "off screen" and
a model's point on the landscape screenshot was mapped onto an upright screen. Now the size
follows the turn the last screenshot or source shows."""

from __future__ import annotations

import io

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.land"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Land</title></head><body style="margin:0"><h1>Land</h1>
<button style="position:absolute; right:10px; top:60px"
 onclick="document.getElementById('said').textContent = 'Right pressed'">Right side</button>
<p id="said">Idle</p></body></html>"""


@pytest.fixture
def simulator(tmp_path):
    from farm.appserver import AppServer
    from farm.devices.sim import IosSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="land", serve=app)])
        with IosSimulator(1, {BUNDLE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def test_a_turned_iphone_is_measured_as_it_shows(simulator):
    from PIL import Image

    from farm.devices.ios import IosDevice
    from farm.suite.model import IosTarget
    phone = IosDevice("i1", None, simulator.urls[0])
    phone.open()
    try:
        phone.start_session(IosTarget(launch=BUNDLE))
        assert phone.size() == (390, 844)
        phone.wda_request("POST", "/session/{sessionId}/orientation",
                          {"orientation": "LANDSCAPE"})
        button = next(n for n in phone.hierarchy().nodes if "Right side" in (n.text, n.name))
        assert phone.size() == (844, 390)
        assert button.visible and button.rect.x > 390
        phone.wda_request("POST", "/session/{sessionId}/orientation",
                          {"orientation": "PORTRAIT"})
        shot = Image.open(io.BytesIO(phone.screenshot()))
        assert shot.size == phone.size() == (390, 844)
    finally:
        phone.close()


def test_a_case_taps_a_button_on_the_right_of_a_landscape_iphone(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "land.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: turn the iPhone and tap a button on its right
    flow:
      - runWdaRequest:
          method: POST
          endpoint: /session/{{sessionId}}/orientation
          data: {{orientation: LANDSCAPE}}
      - aiTap: Right side
      - assertText: Right pressed
""")
    done = farm.run("run", suite, "--devices", "ios:1", "--report-dir", farm.tmp / "run",
                    FARM_IOS_WDA_URLS=simulator.urls[0])
    case = by_name(results(farm.tmp / "run"))["land"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)
