"""Keys on an iPhone go through its on-screen keyboard. Once an aiInput hid it (the default,
as in Midscene), `aiKeyboardPress: Enter` goes to the field that aiInput typed into, as on
Android, where the field keeps the focus under a hidden keyboard: the same YAML passes on both
(it failed on the iPhone only, "no keyboard shows … autoDismissKeyboard: false on it keeps it
up"). With no such field (a tap elsewhere came between) WebDriverAgent refuses the keys ("The
on-screen keyboard must be present to send keys"): that fails the step saying what to do, not
the iPhone (it was retried on every other iPhone and counted against each). The simulated WDA
refuses as WDA does."""

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


GONE = """\
ios:
  launch: com.farm.demo.shop
tasks:
  - name: a tap elsewhere after the input
    flow:
      - aiInput: Enter your username
        value: demo
      - aiTap: Log in to continue shopping.
      - aiKeyboardPress: Enter
"""


def test_enter_after_an_input_goes_to_its_field_and_without_one_fails_the_step(farm: FarmCli):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text(f"apps:\n  shop:\n    serve: {ROOT / 'suites/demo/app'}"
                                     "\n    ios: com.farm.demo.shop\n")
    (suite / "hidden.yaml").write_text(CASE.format(keep=""))
    (suite / "kept.yaml").write_text(CASE.format(keep="\n        autoDismissKeyboard: false"))
    (suite / "gone.yaml").write_text(GONE)
    done = farm.run("run", suite, "--devices", "ios-sim:2", "--report-dir", farm.tmp / "run")
    summary = results(farm.tmp / "run")
    cases = by_name(summary)
    assert cases["kept"]["status"] == "passed", (cases["kept"].get("error"), done.stdout)
    assert cases["hidden"]["status"] == "passed", (cases["hidden"].get("error"), done.stdout)
    gone = cases["gone"]
    assert (gone["status"], gone["attempt"]) == ("failed", 1), (gone, done.stdout)
    assert gone["error"]["step"] == 3 and gone["error"]["message"].startswith(
        "no keyboard shows on iphone-sim-"), gone["error"]
    assert "give the key a locate:" in gone["error"]["message"]
    assert not summary.get("quarantined")
