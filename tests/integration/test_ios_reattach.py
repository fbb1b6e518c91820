"""An iPhone whose WebDriverAgent stops answering for a moment (WDA restarting, its USB tunnel
re-forwarded) is asked again when farm reopens it after a case, instead of being written off
for the rest of the run after one refused /status; the first open of a URL that does not answer
still fails at once.

The simulator's ``drop`` fault closes COUNT requests unanswered.
"""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.notes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><button>New note</button></body></html>"""


@pytest.fixture
def iphone(tmp_path):
    """One simulated iPhone (a WDA endpoint in this process) with PAGE installed as BUNDLE."""
    from farm.appserver import AppServer
    from farm.devices.sim import IosSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        with IosSimulator(1, {BUNDLE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


def test_reopening_an_iphone_asks_again_while_wda_does_not_answer(iphone):
    from farm.devices.ios import IosDevice
    from farm.errors import DeviceLost

    device = IosDevice("i1", None, iphone.urls[0])
    device.open()
    iphone.fault(0, "drop", 3)                 # three requests closed unanswered, then back
    device.open()
    assert device.size() == (390, 844)
    device.close()
    with pytest.raises(DeviceLost):            # a first open does not wait
        IosDevice("i2", None, "http://127.0.0.1:1").open()


def test_an_iphone_that_glitched_between_cases_runs_the_next_one(farm: FarmCli, iphone):
    suite = farm.tmp / "suite"
    suite.mkdir()
    # a_ runs first (same expected duration: ordered by case id); its last step makes
    # WebDriverAgent drop a few requests, as a restarting WDA does
    (suite / "a_glitch.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: use the phone, then lose it for a moment
    flow:
      - aiTap: New note
      - runWdaRequest:
          method: POST
          endpoint: /farm/fault
          data: {{name: drop, count: 10}}
""")
    (suite / "b_after.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: the next case
    flow:
      - aiTap: New note
""")
    done = farm.run("run", suite, "--devices", "ios:1", "--report-dir", farm.tmp / "run",
                    FARM_IOS_WDA_URLS=iphone.urls[0])
    summary = results(farm.tmp / "run")
    cases = by_name(summary)
    assert cases["b_after"]["status"] == "passed", (cases["b_after"].get("error"), done.stdout)
    assert "restarting" in done.stdout + done.stderr          # the glitch was seen
    assert not summary.get("lost"), summary.get("lost")
