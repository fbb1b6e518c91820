"""What a QA engineer trying farm on the simulators met, through `farm run` on android-sim:1
and ios-sim:1 (the real adbutils / facebook-wda paths):

- a phone whose screen is not the case's (the launch URL did not load, a page answered 404,
  the system's permission dialog in front of the app) fails the step naming what is there;
  it was SKIPPED "needs a model … no zero-token match", exit 0, JUnit failures=0;
- Midscene's `launch: package/activity` starts that activity (it was "not installed");
- `aiKeyboardPress: Back` on an iPhone goes back with the swipe from the left edge, and says
  so when nothing went back (it was refused at load: "did you mean 'backspace'?").
"""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run
from tests.support.farm_cli import ROOT, by_name, results

pytestmark = pytest.mark.integration

FARM_YAML = f"""\
timeout: 60
apps:
  shop:
    serve: {ROOT / "suites" / "demo" / "app"}
    android: com.farm.demo.shop
    ios: com.farm.demo.shop
  site:
    serve: site
    env: SITE_URL
"""
FIRST = ('<!doctype html><meta name="viewport" content="width=device-width"><title>One</title>'
         '<h1>First page</h1><a href="second.html">Next page</a>\n')
SECOND = ('<!doctype html><meta name="viewport" content="width=device-width"><title>Two'
          '</title><h1>Second page</h1>\n')
ASK = {"android": "runAdbShell: farm-sim fault permission_dialog 1",
       "ios": "runWdaRequest: {method: POST, endpoint: /farm/fault, "
              "data: {name: permission_dialog, count: 1}}"}


def case(platform: str, launch: str, *flow: str) -> str:
    steps = "".join(f"      - {line}\n" for line in flow)
    return f"{platform}:\n  launch: {launch}\ntasks:\n  - name: t\n    flow:\n{steps}"


def closed_port() -> int:
    """A port nothing listens on (bound, then let go), where a phone's browser is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_on_phones(tmp_path: Path, cases: dict[str, str]) -> tuple[int, dict, str, str]:
    """(exit code, results.json, what farm printed, the JUnit XML) of ``cases`` (stem →
    YAML) on android-sim:1 and ios-sim:1."""
    suite = tmp_path / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "first.html").write_text(FIRST)
    (suite / "site" / "second.html").write_text(SECOND)
    (suite / "farm.yaml").write_text(FARM_YAML)
    for stem, text in cases.items():
        (suite / f"{stem}.yaml").write_text(text)
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state",
                             cache="off")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    junit = (tmp_path / "run" / "junit.xml").read_text()
    return code, results(tmp_path / "run"), out.getvalue(), junit


def test_a_screen_that_is_not_the_cases_fails_the_step_naming_what_is_there(tmp_path):
    dead = f"http://127.0.0.1:{closed_port()}/"
    cases = {f"{p}_{kind}": text for p in ("android", "ios") for kind, text in {
        "down": case(p, dead, "aiTap: Greet"),
        "404": case(p, "${SITE_URL}/nope.html", "aiTap: Greet"),
        "asks": case(p, "com.farm.demo.shop", ASK[p], "terminate: com.farm.demo.shop",
                     "launch: com.farm.demo.shop", "aiTap: Username"),
        "asks_text": case(p, "com.farm.demo.shop", ASK[p], "terminate: com.farm.demo.shop",
                          "launch: com.farm.demo.shop", "assertText: Farm Shop"),
    }.items()}
    code, summary, printed, junit = run_on_phones(tmp_path, cases)
    assert code == 1, printed
    assert 'failures="8"' in junit and 'skipped="0"' in junit, junit[:400]
    got = by_name(summary)
    assert {stem: c["status"] for stem, c in got.items()} == dict.fromkeys(cases, "failed")
    said = {stem: c["error"]["message"] for stem, c in got.items()}
    for p in ("android", "ios"):
        assert said[f"{p}_down"] == (
            'no zero-token match for "Greet" on screen (the browser could not load the page: '
            f'"This site can’t be reached" (ERR_CONNECTION_REFUSED); the case opened {dead})')
        assert said[f"{p}_404"].startswith(
            'no zero-token match for "Greet" on screen (the page shows HTTP error 404 Not '
            'Found ("Error code: 404"); the case opened http://127.0.0.1:'), said
        assert "needs a model" not in printed
    assert said["android_asks"] == (
        'no zero-token match for "Username" on screen (a system dialog is in front of the '
        'app: "Allow Shop to send you notifications?" (buttons: Allow, Don\'t allow); answer '
        'it with a step first (aiTap: Allow))')
    assert said["ios_asks"] == (
        'no zero-token match for "Username" on screen (an alert is in front of the app: '
        '"“Shop” Would Like to Send You Notifications" (buttons: Don’t Allow, Allow); answer '
        'it with a step first (aiTap: Allow))')
    for p in ("android", "ios"):        # a text check under the dialog says it too
        assert said[f"{p}_asks_text"].startswith('expected text "Farm Shop" is not on screen')
        assert said[f"{p}_asks_text"].endswith(
            "is in front of the app: " + said[f"{p}_asks"].split("in front of the app: ")[1])


def test_midscene_package_activity_launch_and_ios_back(tmp_path):
    cases = {
        "android_activity": case("android", "com.farm.demo.shop/.MainActivity",
                                 "assertText: Farm Shop", "terminate: com.farm.demo.shop/.Main",
                                 "launch: com.farm.demo.shop/.MainActivity",
                                 "assertText: Farm Shop"),
        "android_no_such_app": case("android", "com.farm.no.such/.MainActivity",
                                    "assertText: Farm Shop"),
        "ios_back": case("ios", "${SITE_URL}/first.html", "aiTap: Next page",
                         "waitForText: Second page", "aiKeyboardPress: Back",
                         "waitForText: First page"),
        "ios_back_nowhere": case("ios", "${SITE_URL}/first.html", "aiKeyboardPress: Back"),
    }
    code, summary, printed, _ = run_on_phones(tmp_path, cases)
    got = by_name(summary)
    assert code == 1, printed
    assert got["android_activity"]["status"] == "passed", got["android_activity"]
    assert got["ios_back"]["status"] == "passed", got["ios_back"]
    assert got["android_no_such_app"]["error"]["message"].startswith(
        "com.farm.no.such is not installed on android-sim-1"), got["android_no_such_app"]
    nowhere = got["ios_back_nowhere"]
    assert (nowhere["status"], nowhere["error"]["message"]) == ("failed", (
        "iOS has no Back key: farm swiped from the screen's left edge, as iOS goes back, and "
        "the screen did not change (nothing to go back to that way here); tap the app's own "
        "back button instead (aiTap with its label)")), nowhere
