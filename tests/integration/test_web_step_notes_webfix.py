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

INPUT = "aiInput: Postcode\n        value: '75001'"
PAY = "aiTap: Pay disabled"
CUT = 'the input[type=text] kept 3 of the 5 characters of "75001"'


def run_case(tmp_path: Path, farm: FarmCli, *steps: str) -> dict:
    """A case of ``steps``, each a task of its own that lets its failure pass."""
    (tmp_path / "page.html").write_text(PAGE)
    tasks = "".join(f"  - name: t{i}\n    continueOnError: true\n    flow:\n      - {step}\n"
                    for i, step in enumerate(steps))
    (tmp_path / "c.yaml").write_text(
        "name: c\nweb:\n  serve: .\n  url: page.html\n  dialogs: accept\ntasks:\n" + tasks)
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    return case


def test_a_value_a_maxlength_cut_is_a_note_of_its_step(tmp_path: Path, farm: FarmCli) -> None:
    case = run_case(tmp_path, farm, INPUT, "assertText: Checkout")
    assert case["status"] == "passed", case
    typed, checked = case["steps"]
    assert any(CUT in note for note in typed.get("notes", [])), typed
    assert not checked.get("notes"), checked


def test_a_failure_names_what_happened_in_its_step_or_the_one_before_only(
        tmp_path: Path, farm: FarmCli) -> None:
    case = run_case(tmp_path, farm, PAY, INPUT, PAY, "assertText: Checkout",
                    "assertText: Checkout", PAY)
    first, _, after_cut, _, _, late = case["steps"]
    assert "Welcome popup" in first["error"], first          # the page's opening: step 0
    assert CUT in after_cut["error"] and "Welcome popup" not in after_cut["error"], after_cut
    assert late["status"] == "failed", late
    assert "Welcome popup" not in late["error"] and CUT not in late["error"], late
