"""What the page did in a step is said on that step, not on every later failure of the case:
a value a field's maxlength cut is a note of the step that typed it (results.json, the
report), and a dialog answered, or the cut, is named by a failure of that step or the next
only. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<label>Postcode <input id="zip" type="text" maxlength="3"></label>
<button disabled>Pay disabled</button>
<p>Checkout</p>
<script>alert('Welcome popup');</script>
</body></html>"""

CUT = 'the input[type=text] kept 3 of the 5 characters of "75001"'


def run_case(tmp_path: Path, farm: FarmCli, flow: str) -> dict:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "c.yaml").write_text(
        "name: c\nweb:\n  serve: .\n  url: page.html\n  dialogs: accept\ntasks:\n"
        "  - name: t\n    continueOnError: true\n    flow:\n" + flow)
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    return case


def test_a_value_a_maxlength_cut_is_a_note_of_its_step(tmp_path: Path, farm: FarmCli) -> None:
    case = run_case(tmp_path, farm, "      - aiInput: Postcode\n        value: '75001'\n"
                                    "      - assertText: Checkout\n")
    assert case["status"] == "passed", case
    typed, checked = case["steps"]
    assert any(CUT in note for note in typed.get("notes", [])), typed
    assert not checked.get("notes"), checked
