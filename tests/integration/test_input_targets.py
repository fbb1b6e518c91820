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
    # both in continueOnError tasks: the later task ran, the case fails (Midscene:
    # partialFailed, exit 1), the failures said
    assert done.returncode == 1, done.stdout + done.stderr
    [case] = results(tmp_path / "run")["cases"]
    assert case["status"] == "failed" and case["reason"].startswith(
        "continued after: step 1 failed: no text field took the text")
    steps = {s["label"].split(" = ")[0]: s for s in case["steps"]}
    button, heading = steps['aiInput "Sign in"'], steps['aiInput "Farm Shop"']
    assert button["status"] == heading["status"] == "failed", case["steps"]
    assert "no text field took the text: the focus is on a button" in button["error"]
    assert 'the target is a <h1> "Farm Shop", not a text field' in heading["error"]
    assert "mode: typeOnly" in button["error"]
    assert steps['aiInput "Username"']["status"] == "passed"      # a field still takes it
    assert case["data"]["typed"] == "demo"


SELECT_PAGE = """<!doctype html><html><body>
<label for="country">Country</label>
<select id="country" onchange="document.getElementById('out').textContent = 'Ships to ' + this.value">
  <option value="">Choose one</option><option value="fr">France</option>
  <option value="jp">Japan</option><option value="nz" disabled>New Zealand</option>
</select>
<p id="out"></p>
</body></html>"""

SELECT_CASE = """name: choose from a select
web:
  serve: .
  url: shop.html
tasks:
  - name: by the text shown
    flow:
      - aiInput: Country
        value: Japan
      - waitForText: Ships to jp
        timeout: 3000
  - name: by value, and by text in another case
    flow:
      - aiInput: Country
        value: fr
      - waitForText: Ships to fr
        timeout: 3000
      - aiInput: Country
        value: JAPAN
      - waitForText: Ships to jp
        timeout: 3000
  - name: an option it does not have
    flow:
      - aiInput: Country
        value: New Zealand
"""


def test_input_into_a_select_chooses_the_option_it_names_or_fails_listing_them(
        tmp_path: Path, farm: FarmCli):
    """A native <select> had no way in: aiInput failed with "the focus is on a select" (and
    tapping opens a popup no screenshot shows). Now the option named by its text or value is
    chosen as a user's pick is (the page's change handler runs); a name it lacks (or a
    disabled option) fails the step listing the options there are."""
    (tmp_path / "shop.html").write_text(SELECT_PAGE)
    (tmp_path / "select.yaml").write_text(SELECT_CASE)
    done = farm.run("run", tmp_path / "select.yaml", "--devices", "browser:1", "--report-dir",
                    tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    [case] = results(tmp_path / "run")["cases"]
    status = [(s["task"], s["status"]) for s in case["steps"]]
    assert status == [("by the text shown", "passed")] * 2 + [
        ("by value, and by text in another case", "passed")] * 4 + [
        ("an option it does not have", "failed")], case["steps"]
    assert case["steps"][-1]["error"] == ('the select has no option "New Zealand" (its '
                                          'options: "Choose one", "France", "Japan")')
