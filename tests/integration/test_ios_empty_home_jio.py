"""With a secret declared, an iPhone case whose app was stopped (or died) and whose next step
looks at the home screen fails as the app's failure, with the step's image, as Android's does:
an empty WDA source with SpringBoard in front shows none of the case's text. Before, the
screenshot was dropped as if the tree were unreadable, the case ended ERROR, was retried, and
the iPhone was quarantined (exit 3). A source without a visible element while the app is in
front (its views unread: the sim's ``empty_tree`` fault) still drops the image."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.devices.ios import IosDevice
from farm.devices.sim import IosSimulator
from farm.errors import DeviceError
from farm.suite.model import IosTarget
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"
SECRET = "farm-demo-pass"
CASE = """\
name: stopped then assert
ios:
  launch: com.farm.demo.shop
tasks:
  - name: t
    flow:
      - aiInput: Enter your password
        value: ${DEMO_PASSWORD}
      - terminate: com.farm.demo.shop
      - assertText: Farm Shop
"""


@pytest.fixture(scope="module")
def ios(demo_app):
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        yield sim


def test_a_stopped_app_fails_its_case_with_the_home_screens_image(ios, farm: FarmCli,
                                                                   tmp_path: Path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("retries: 0\nsecrets: [DEMO_PASSWORD]\n")
    (suite / "stopped.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "ios:1", "--no-progress", "--report-dir",
                    run_dir, FARM_IOS_WDA_URLS=ios.urls[0], DEMO_PASSWORD=SECRET)
    case = by_name(results(run_dir))["stopped"]
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert case["status"] == "failed" and case["error"]["kind"] == "AssertionFailed", said
    assert 'expected text "Farm Shop" is not on screen' in case["error"]["message"]
    assert "could not be blacked out" not in said
    last = case["steps"][-1]
    assert last["after"] and (run_dir / last["after"]).is_file(), last


def test_an_unread_tree_of_the_app_in_front_still_drops_the_image(ios):
    phone = IosDevice("i1", None, ios.urls[0])
    phone.open()
    try:
        phone.start_session(IosTarget(launch=PKG))
        phone.hide = lambda text: text.replace(SECRET, "***")
        ios.fault(0, "empty_tree", -1)
        with pytest.raises(DeviceError, match="no visible elements while com.farm.demo.shop "
                                              "is in front"):
            phone.without_secrets(phone.screenshot())
        phone.terminate(PKG)                     # the home screen: empty, nothing to hide
        png = phone.screenshot()
        assert phone.without_secrets(png) == png
    finally:
        ios.fault(0, "empty_tree", 0)
        phone.close()


CRASH = """\
name: crashed
ios:
  launch: com.farm.demo.shop
tasks:
  - name: t
    flow:
      - aiInput: Enter your password
        value: ${DEMO_PASSWORD}
      - aiTap: Sign in
"""


def test_a_crash_fails_with_its_image_and_says_where_its_report_is(ios, farm: FarmCli,
                                                                  tmp_path: Path):
    """The sim's ``crash`` fault: the app dies of a touch (the home screen shows)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("retries: 0\nsecrets: [DEMO_PASSWORD]\n")
    (suite / "crashed.yaml").write_text(CRASH)
    run_dir = tmp_path / "run"
    ios.fault(0, "crash", 1)
    try:
        done = farm.run("run", suite, "--devices", "ios:1", "--no-progress", "--report-dir",
                        run_dir, FARM_IOS_WDA_URLS=ios.urls[0], DEMO_PASSWORD=SECRET)
    finally:
        ios.fault(0, "crash", 0)
    case = by_name(results(run_dir))["crashed"]
    said = done.stdout + done.stderr
    assert done.returncode == 1 and case["status"] == "failed", said
    message = case["error"]["message"]
    assert "is no longer running" in message and "idevicecrashreport" in message, message
    failed = next(s for s in case["steps"] if s["status"] == "failed")
    assert failed["after"] and (run_dir / failed["after"]).is_file(), failed
