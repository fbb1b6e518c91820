"""A page that asks before it is left (a beforeunload dialog: unsaved changes): farm's default
`dialogs: dismiss` keeps the page, and the step that then fails says so; `dialogs: accept`
leaves it. Before, the failure said farm "answered OK" to a dialog "str" while it had stayed
on the page. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body><script>
addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });
</script><label>Title <input></label><a href="done.html">Leave page</a></body></html>"""
CASE = """name: {name}
web:
  url: ${{SITE_URL}}/index.html
{answer}tasks:
  - name: edit and leave
    flow:
      - aiInput: Title
        value: unsaved
      - aiTap: Leave page
      - assertText: Left the page
"""


def test_a_beforeunload_dialog_is_said_as_answered(tmp_path: Path, farm: FarmCli) -> None:
    root = tmp_path / "suite"
    (root / "app").mkdir(parents=True)
    (root / "app" / "index.html").write_text(PAGE)
    (root / "app" / "done.html").write_text("<p>Left the page</p>")
    (root / "farm.yaml").write_text("timeout: 60\nretries: 0\napps:\n  site:\n"
                                    "    serve: app\n    env: SITE_URL\n")
    (root / "stay.yaml").write_text(CASE.format(name="stay", answer=""))
    (root / "leave.yaml").write_text(CASE.format(name="leave", answer="  dialogs: accept\n"))
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = by_name(results(tmp_path / "run"))
    assert cases["leave"]["status"] == "passed", cases["leave"]
    stay = cases["stay"]
    assert stay["error"]["step"] == 3, stay
    assert stay["error"]["message"].endswith(
        "(the page asked to confirm leaving it (a beforeunload dialog) and farm answered "
        "Cancel: it stayed on the page; `dialogs: accept` in the web: section answers OK)"), \
        stay["error"]
