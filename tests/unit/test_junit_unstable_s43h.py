"""junit.xml's facts of a case that failed after 2 attempts, passed the night before and
failed before that: "since_last: unstable across runs", not "flaky", which CI readers take
for a pass on a retry (that is the "flaky: true" fact, and this case did not pass)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary


def test_a_red_case_whose_verdict_flips_is_unstable_in_its_facts(tmp_path) -> None:
    failed = CaseResult(run_id="night7", case_id="nightly/flaky_random", name="Product page",
                        file="nightly/flaky_random.yaml", platform="web", device="browser-2",
                        attempt=2, status="failed", since_last="flaky", duration=1.1,
                        error=CaseError(kind="StepFailed", message="backend hiccup: 503"))
    summary = RunSummary(run_id="night7", started="2026-12-06T14:25:50+00:00", cases=[failed])
    summary.recount()
    path = write_junit(summary, tmp_path / "junit.xml")
    out = ET.parse(path).getroot().find(".//testcase/system-out").text
    assert "since_last: unstable across runs" in out.splitlines()
    said = out.splitlines()
    assert not [line for line in said if line.startswith(("flaky:", "since_last: flaky"))]
