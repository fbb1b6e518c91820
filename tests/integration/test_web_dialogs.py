"""A page's alert / confirm / prompt: dismissed by default (Cancel, as Playwright does), and a
step that then fails says so ("the page opened a confirm dialog "Delete all?" and farm answered
Cancel"); `dialogs: accept` in the web section answers OK (a prompt its default text). Before,
a confirm was always cancelled, which a case could not change, and the failure after it only
said the expected text did not appear. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body>
<button onclick="document.getElementById('out').textContent =
  confirm('Delete all?') ? 'Deleted' : 'Kept'">Delete all</button>
<button onclick="document.getElementById('out').textContent =
  'Name: ' + prompt('Your name?', 'Ada')">Rename</button>
<p id="out"></p>
</body></html>"""

CASE = """name: dialogs {how}
web:
  serve: .
  url: page.html
{answer}tasks:
  - name: delete
    continueOnError: true
    flow:
      - aiTap: Delete all
      - waitForText: Deleted
        timeout: 3000
  - name: rename
    flow:
      - aiTap: Rename
      - waitForText: "Name: Ada"
        timeout: 3000
"""


def test_a_dialog_is_dismissed_and_said_or_accepted_when_the_case_asks(tmp_path: Path,
                                                                      farm: FarmCli):
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "dismissed.yaml").write_text(CASE.format(how="dismissed", answer=""))
    (tmp_path / "accepted.yaml").write_text(CASE.format(how="accepted",
                                                        answer="  dialogs: accept\n"))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    dismissed, accepted = cases["dialogs dismissed"], cases["dialogs accepted"]
    assert accepted["status"] == "passed", accepted["reason"]
    assert [s["status"] for s in accepted["steps"]] == ["passed"] * 4
    assert dismissed["status"] == "failed"
    delete, rename = dismissed["steps"][1], dismissed["steps"][3]
    assert delete["status"] == rename["status"] == "failed"
    assert delete["error"].endswith(
        '(the page opened a confirm dialog "Delete all?" and farm answered Cancel; '
        '`dialogs: accept` in the web: section answers OK)'), delete["error"]
    assert 'the page opened a prompt dialog "Your name?" and farm answered Cancel' in \
        rename["error"] and "1 more before" in rename["error"], rename["error"]
