"""An aiScroll on a page (or an element) that cannot scroll passes, as in Midscene, and its
step says so in a note (results.json, the report's step row), as other step notes: a tester
reading the run learns nothing moved. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body style="margin:0">
<p>Short page</p>
<div id="box" style="height:100px; overflow:auto"><div>Small box</div></div>
<div style="height:4000px">Long part</div>
</body></html>"""
SHORT = """<!doctype html><html><body style="margin:0"><p>Short page</p></body></html>"""


def run_case(tmp_path: Path, farm: FarmCli, page: str, *steps: str) -> dict:
    (tmp_path / "page.html").write_text(page)
    flow = "".join(f"      - {step}\n" for step in steps)
    (tmp_path / "c.yaml").write_text(
        "name: c\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        + flow)
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run", FARM_LOCATE_OFF="ocr")
    (case,) = results(tmp_path / "run")["cases"]
    return case


def test_a_page_that_cannot_scroll_passes_with_a_note_on_each_scroll(
        tmp_path: Path, farm: FarmCli) -> None:
    case = run_case(tmp_path, farm, SHORT, "aiScroll: {direction: down, distance: 500}",
                    "aiScroll: {scrollType: scrollToBottom}", "assertText: Short page")
    assert case["status"] == "passed", case
    down, bottom, checked = case["steps"]
    assert any(n.startswith("nothing scrolled") and "down" in n
               for n in down.get("notes", [])), down
    assert any(n.startswith("nothing scrolled") and "bottom" in n
               for n in bottom.get("notes", [])), bottom
    assert not checked.get("notes"), checked
    assert "nothing scrolled" in (case.get("reason") or ""), case
    report = (tmp_path / "run" / "report.html").read_text()
    assert "nothing scrolled" in report


def test_a_scroll_that_moved_has_no_note(tmp_path: Path, farm: FarmCli) -> None:
    case = run_case(tmp_path, farm, PAGE, "aiScroll: {direction: down, distance: 300}")
    assert case["status"] == "passed", case
    (step,) = case["steps"]
    assert not step.get("notes"), step
