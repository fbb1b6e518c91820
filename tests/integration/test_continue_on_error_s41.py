"""A check that failed in a `continueOnError: true` task does not leave the case green.

Midscene's CLI counts such a file `partialFailed` (`createYamlCaseResult`: a task in error
while the player ended `done`), not a success, lists it under "Partial failed files" and exits
1 (`printExecutionSummary` returns false). farm ran the later tasks, as Midscene's player does,
but ended the case PASSED with exit 0 and a green JUnit testcase: a nightly read as all green
although a check failed. Now the case is FAILED at that step, the later tasks' steps are kept
(they ran), and the reason says the case went on. Real `farm run`, real Chromium, no model."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

from tests.support.farm_cli import FarmCli, results
from tests.support.suites import demo_copy

CASE = """name: optional promo check
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: promo banner
    continueOnError: true
    flow:
      - assertText: This text is not there
  - name: the shop
    flow:
      - assertText: Farm Shop
"""


def test_a_failed_optional_task_fails_the_case_and_the_run(tmp_path: Path, farm: FarmCli):
    suite = demo_copy(tmp_path / "demo")
    (suite / "promo.yaml").write_text(CASE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite / "promo.yaml", "--devices", "browser:1", "--report-dir",
                    run_dir, "--junit-xml", tmp_path / "junit.xml")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out                   # Midscene's CLI exits 1 too
    assert "farm: 1 failed" in out, out
    assert "FAILED demo/promo (" in out and "promo.yaml:8) — step 1: " in out, out
    assert "warning: PASSED" not in out, out

    [case] = results(run_dir)["cases"]
    assert case["status"] == "failed"
    assert case["error"]["step"] == 1 and "This text is not there" in case["error"]["message"]
    assert [(s["task"], s["status"]) for s in case["steps"]] == [
        ("promo banner", "failed"), ("the shop", "passed")]    # the later task ran, kept
    assert case["reason"].startswith("continued after: step 1 failed: ")

    suite_el = ElementTree.parse(tmp_path / "junit.xml").getroot()
    [testcase] = suite_el.iter("testcase")
    failure = testcase.find("failure")
    assert failure is not None, ElementTree.tostring(testcase, encoding="unicode")
    assert "This text is not there" in failure.get("message", "")
    assert "continued after: step 1 failed: " in (failure.text or "")
    assert sum(int(s.get("failures", 0)) for s in suite_el.iter("testsuite")) == 1

    report = (run_dir / "report.html").read_text()
    row = report.split('<details class="case st-failed"')[1].split("</summary>")[0]
    assert "continued after a failed step" in row      # the collapsed row says the case went on
