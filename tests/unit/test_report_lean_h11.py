"""A 500-case report.html stays clearly under its 2.5 MB budget: wrapping a closed case's body
in <noscript> (with its id, facets and link) took it to 2.49 MB. What was written twice or
escaped needlessly is not: a case's summary words again in its search text, each quote of a
step's label as &quot;, a blank line between step rows."""

from __future__ import annotations

import re

from farm.report.html import render_html
from farm.results import CaseError, CaseResult, RunSummary, StepRecord


def _big() -> str:
    cases = []
    for i in range(500):        # as tests/unit/test_report.py's 500-case report
        status = ["passed", "failed", "error", "flaky", "skipped"][i % 5]
        folder = f"artifacts/suite-case-{i:03d}/attempt-1"
        steps = [StepRecord(task=f"task {t}", index=t * 4 + k + 1, kind="aiTap",
                            label=f'aiTap "button number {k} of case {i}"', line=20 + k,
                            duration=0.4, tier="xpath",
                            before=f"{folder}/step-{t}-{k}-before.jpg",
                            after=f"{folder}/step-{t}-{k}-after.jpg")
                 for t in range(3) for k in range(4)]
        error = CaseError(kind="AssertionFailed", message="x" * 300) if status == "failed" \
            else None
        cases.append(CaseResult(run_id="big", case_id=f"suite/case-{i:03d}", name=f"Case {i}",
                                file=f"suites/suite/case-{i:03d}.yaml", platform="web",
                                device=f"browser-{i % 8}", status=status, steps=steps,
                                error=error, screenshot="artifacts/x.jpg" if error else None))
    return render_html(RunSummary(run_id="big", started="", cases=cases))


def test_a_500_case_report_is_well_under_its_budget():
    page = _big()
    # 2.49 MB with the noscript bodies; 2.42 MB before them
    assert len(page.encode()) < 2_400_000, len(page.encode())
    case = re.search(r'<details class="case st-passed" id="case=suite/case-000"[^>]*>', page)
    assert case and 'data-q="suite/case-000"' in case.group(0)    # no name, file, device again
    assert '<td>aiTap "button number 0 of case 0" <i>line 20</i>' in page
    assert "button number 0 of case 0&quot;" not in page
    assert not re.search(r'alt="after">\n<tr>', page)
