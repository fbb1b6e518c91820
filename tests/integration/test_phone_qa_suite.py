"""A QA team's phone suite, run as they run it (`farm run --devices android-sim:1,ios-sim:1`):
what they saw go wrong on phones, each kept fixed here.

- ``aiInput`` into a field that already holds text (an edit form: a saved address, a note of
  several lines) replaces all of it on Android as on iOS: Android cleared with a
  cursor-to-end and 40 Deletes, so a 60-character value kept its start and a multi-line one
  every line but the caret's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

LONG = "1600 Amphitheatre Parkway, Building 40, Floor 3, Mountain View CA"      # 65 characters
EDIT_PAGE = f"""<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width"><title>Edit address</title>
<style>body{{font:16px sans-serif;padding:16px}} input,textarea,button{{display:block;
margin:8px 0;font-size:18px;padding:8px;width:90%}}</style></head><body><h1>Edit address</h1>
<label for="a">Street address</label><input id="a" value="{LONG}">
<label for="n">Notes</label><textarea id="n" rows="4">first line of the note
second line
third line here</textarea>
<button onclick="document.getElementById('out').textContent = 'A=[' +
  document.getElementById('a').value + '] N=[' +
  document.getElementById('n').value.replace(/\\n/g, '|') + ']'">Save</button>
<p id="out"></p></body></html>"""

EDIT_CASE = """\
name: edit a saved address on {platform}
{platform}:
  launch: com.example.edit
tasks:
  - name: replace both fields
    flow:
      - aiInput: Street address
        value: 1 Main St
      - aiInput: Notes
        value: just one line
      - aiTap: Save
      - assertText: "A=[1 Main St] N=[just one line]"
"""


def write_suite(root: Path) -> Path:
    suite = root / "edit-suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(EDIT_PAGE)
    (suite / "farm.yaml").write_text("timeout: 60\napps:\n  edit:\n    serve: app\n"
                                     "    android: com.example.edit\n"
                                     "    ios: com.example.edit\n")
    for platform in ("android", "ios"):
        (suite / f"edit_{platform}.yaml").write_text(EDIT_CASE.format(platform=platform))
    return suite


def test_ai_input_replaces_a_long_and_a_multi_line_value_on_both_phones(farm: FarmCli):
    suite = write_suite(farm.tmp)
    done = farm.run("run", suite, "--devices", "android-sim:1,ios-sim:1",
                    "--report-dir", farm.tmp / "run")
    cases = by_name(results(farm.tmp / "run"))
    for platform in ("android", "ios"):
        case = cases[f"edit_{platform}"]
        assert case["status"] == "passed", (platform, case.get("error"), done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
