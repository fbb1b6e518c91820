"""Keys on an iPhone go through its on-screen keyboard: once an aiInput hid it (the default,
as in Midscene), `aiKeyboardPress: Enter` is refused by WebDriverAgent ("The on-screen keyboard
must be present to send keys"). That was the iPhone's error, retried on every other iPhone and
counted against each ("type failed on iphone-1: WDARequestError(status=110, …)"); it fails the
step saying what to do. The simulated WDA refuses as WDA does (it took the keys anyway)."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import ROOT, FarmCli, by_name, results

pytestmark = pytest.mark.integration

CASE = """\
ios:
  launch: com.farm.demo.shop
tasks:
  - name: sign in with Enter
    flow:
      - aiInput: Enter your username
        value: demo
      - aiInput: Enter your password
        value: farm-demo-pass{keep}
      - aiKeyboardPress: Enter
      - waitForText: Welcome back, demo
        timeout: 5000
"""


def test_enter_after_the_keyboard_went_fails_the_step_not_the_iphone(farm: FarmCli):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text(f"apps:\n  shop:\n    serve: {ROOT / 'suites/demo/app'}"
                                     "\n    ios: com.farm.demo.shop\n")
    (suite / "hidden.yaml").write_text(CASE.format(keep=""))
    (suite / "kept.yaml").write_text(CASE.format(keep="\n        autoDismissKeyboard: false"))
    done = farm.run("run", suite, "--devices", "ios-sim:2", "--report-dir", farm.tmp / "run")
    summary = results(farm.tmp / "run")
    cases = by_name(summary)
    assert cases["kept"]["status"] == "passed", (cases["kept"].get("error"), done.stdout)
    hidden = cases["hidden"]
    assert (hidden["status"], hidden["attempt"]) == ("failed", 1), (hidden, done.stdout)
    assert hidden["error"]["message"].startswith(
        "no keyboard shows on iphone-sim-"), hidden["error"]
    assert "autoDismissKeyboard: false" in hidden["error"]["message"]
    assert not summary.get("quarantined")
