"""Text checks read shadow roots and same-origin frames by the page's own rules: text under
opacity 0 or outside the page stays out, a closed <select> shows its chosen option alone, a
text field shows its value. Before, a shadow root's or frame's raw innerText was read:
assertNoText failed on a ghost text and on every unchosen option, and assertText failed on a
value typed into a field of a web component or of an embedded form. Real `farm run`, real
Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body><div id="h"></div><script>
document.getElementById('h').attachShadow({mode: 'closed'}).innerHTML =
  '<div><p style="opacity:0">Ghost shadow text</p>'
  + '<select><option>Alpha</option><option>Omega</option></select>'
  + '<input value="Shadow value"><label>Shadow field <input></label></div>'
  + '<p style="position:absolute;left:-5000px">Offscreen shadow text</p>';
</script><iframe src="frame.html" width="400" height="150"></iframe></body></html>"""
FRAME = """<!doctype html><html><body><p style="opacity:0">Ghost frame text</p>
<select><option>Red</option><option>Blue</option></select>
<input value="Frame value"><label>Frame field <input></label></body></html>"""
CHECKS = ["assertText: Alpha", "assertText: Shadow value", "assertText: Red",
          "assertText: Frame value",
          "assertNoText: Ghost shadow text", "assertNoText: Omega",
          "assertNoText: Offscreen shadow text", "assertNoText: Ghost frame text",
          "assertNoText: Blue",
          "aiInput: Shadow field\n        value: typed in shadow",
          "assertText: typed in shadow",
          "aiInput: Frame field\n        value: typed in frame",
          "assertText: typed in frame"]


def test_text_checks_apply_the_visibility_rules_inside_shadow_roots_and_frames(
        tmp_path: Path, farm: FarmCli) -> None:
    root = tmp_path / "suite"
    (root / "app").mkdir(parents=True)
    (root / "app" / "index.html").write_text(PAGE)
    (root / "app" / "frame.html").write_text(FRAME)
    (root / "farm.yaml").write_text("timeout: 60\nretries: 0\napps:\n  site:\n"
                                    "    serve: app\n    env: SITE_URL\n")
    # each check a task of its own that goes on after a failure: every wrong verdict shows
    tasks = "".join(f"  - name: check {i}\n    continueOnError: true\n    flow:\n"
                    f"      - {check}\n" for i, check in enumerate(CHECKS))
    (root / "widgets.yaml").write_text(
        f"name: widgets\nweb:\n  url: ${{SITE_URL}}/index.html\ntasks:\n{tasks}")
    done = farm.run("run", root, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    wrong = {s["label"]: s["error"] for s in case["steps"] if s["status"] != "passed"}
    assert wrong == {}, done.stdout + done.stderr
    assert (done.returncode, case["status"]) == (0, "passed"), done.stdout + done.stderr
