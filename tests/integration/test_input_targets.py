"""aiInput into something that takes no text fails the step saying what had the focus: it
used to pass, typing "hello" key by key into a button (or into nothing after tapping a
heading), and the field the case meant stayed empty. Real Chromium, the demo shop."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results
from tests.support.suites import demo_copy

CASE = """name: input into what takes no text
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: a button
    continueOnError: true
    flow:
      - aiInput: Sign in
        value: hello
  - name: a heading
    continueOnError: true
    flow:
      - aiInput: Farm Shop
        value: hello
  - name: a field
    flow:
      - aiInput: Username
        value: demo
      - javascript: document.querySelector('#username').value
        name: typed
"""


def test_input_into_a_button_or_a_heading_fails_saying_what_had_the_focus(tmp_path: Path,
                                                                            farm: FarmCli):
    suite = demo_copy(tmp_path / "demo")
    (suite / "inputs.yaml").write_text(CASE)
    done = farm.run("run", suite / "inputs.yaml", "--devices", "browser:1", "--report-dir",
                    tmp_path / "run")
    # both in continueOnError tasks: the case passes, as in Midscene, the failures said
    assert done.returncode == 0, done.stdout + done.stderr
    [case] = results(tmp_path / "run")["cases"]
    assert case["status"] == "passed" and case["reason"].startswith(
        "continued after: step 1 failed: no text field took the text")
    steps = {s["label"].split(" = ")[0]: s for s in case["steps"]}
    button, heading = steps['aiInput "Sign in"'], steps['aiInput "Farm Shop"']
    assert button["status"] == heading["status"] == "failed", case["steps"]
    assert "no text field took the text: the focus is on a button" in button["error"]
    assert "nothing has the focus where it tapped" in heading["error"]
    assert "mode: typeOnly" in button["error"]
    assert steps['aiInput "Username"']["status"] == "passed"      # a field still takes it
    assert case["data"]["typed"] == "demo"
