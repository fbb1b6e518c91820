"""Text checks read a form as a user sees it: a closed dropdown shows its chosen option alone
(innerText listed every option: `assertText: Peru` passed on a form showing Japan, and
`assertNoText: Peru` failed), and a field's value and a button input's label are on screen, as
they are in a phone's tree (`assertText` of what was just typed failed on the web alone). A
password's value never is. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body><form onsubmit="return false">
<label>Country <select><option>France</option><option selected>Japan</option>
<option>Peru</option></select></label>
<label>Email <input type="email" value="ada@example.com"></label>
<label>Note <textarea></textarea></label>
<label>Password <input type="password" value="hunter2-hunter2"></label>
<input type="submit" value="Send it">
<select multiple><option>Red</option><option>Blue</option></select>
</form></body></html>"""

CASE = """name: form text
web:
  serve: .
  url: page.html
tasks:
  - name: as shown
    flow:
      - assertText: Japan
      - assertNoText: Peru
      - assertText: ada@example.com
      - assertText: Send it
      - assertText: Blue
      - assertNoText: hunter2-hunter2
  - name: as changed
    flow:
      - aiInput: Country
        value: Peru
      - aiInput: Note
        value: leave at the door
      - assertText: Peru
      - assertNoText: Japan
      - assertText: leave at the door
"""


def test_text_checks_see_a_form_as_shown(tmp_path: Path, farm: FarmCli):
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "form.yaml").write_text(CASE)
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    case = results(tmp_path / "run")["cases"][0]
    assert done.returncode == 0, [(s["label"], s["error"]) for s in case["steps"]]
    assert [s["status"] for s in case["steps"]] == ["passed"] * 11
