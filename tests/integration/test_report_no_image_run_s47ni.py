"""A real `farm run` (Chromium) whose report directory cannot take its images (``artifacts``
there is a file, not a folder): the verdict stands, the run's end says once that images were
not written, and each step says why it has no image, in results.json and where the image would
be in report.html (before: a blank, or "after missing", at every step)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

CASE = """\
name: Sign in
web:
  url: {url}/index.html
tasks:
  - name: sign in
    flow:
      - aiInput: Username
        value: demo
      - aiTap: Sign in
"""

WHY = "not written: Not a directory"


@pytest.fixture(scope="module")
def run(demo_app, tmp_path_factory):
    """The case run once into a report dir whose ``artifacts`` is a file: (run dir, stderr)."""
    from tests.support.farm_cli import FarmCli
    tmp = tmp_path_factory.mktemp("noimage")
    (tmp / "suite").mkdir()
    (tmp / "suite" / "sign_in.yaml").write_text(CASE.format(url=demo_app))
    (tmp / "run").mkdir()
    (tmp / "run" / "artifacts").write_text("not a folder\n")
    farm = FarmCli(tmp)
    try:
        proc = farm.run("run", tmp / "suite", "--devices", "browser:1", "--report-dir",
                        tmp / "run")
    finally:
        farm.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr      # the steps' verdict
    return tmp / "run", proc.stderr


def test_each_step_carries_why_it_has_no_image_in_results_json(run) -> None:
    run_dir, err = run
    (case,) = json.loads((run_dir / "results.json").read_text())["cases"]
    assert case["status"] == "passed"
    assert [(s["kind"], s["before"], s["after"], s["no_image"]) for s in case["steps"]] == [
        ("aiInput", None, None, WHY), ("aiTap", None, None, WHY)]
    said = [line for line in err.splitlines() if "not written under" in line]
    assert len(said) == 1 and "(Not a directory)" in said[0], err


def test_the_report_says_why_where_the_image_would_be(run, viewer_page, page_errors) -> None:
    from playwright.sync_api import expect
    run_dir, _err = run
    viewer_page.goto((run_dir / "report.html").as_uri())
    case = viewer_page.locator("details.case").first
    # (a passed case: opened on demand; opened as a click on its summary's edge does, not at
    # its middle, where a link of the summary may be, as the run's paths lay it out)
    case.locator("summary").click(position={"x": 4, "y": 4})
    expect(case).to_have_attribute("open", "")
    rows = case.locator("table.steps tbody tr")
    expect(rows).to_have_count(2)
    screens = [rows.nth(n).locator("td").last for n in range(2)]
    expect(screens[0]).to_have_text(f"no image: {WHY}")
    expect(screens[1]).to_have_text("no image: as at step 1")
    for cell in screens:
        expect(cell.locator(".noimg")).to_be_visible()
    assert page_errors == []        # (no broken image: none is linked)
