"""A case that ended with a blank error message or reason (a device plugin's
`StepFailed("  ")`) lost its progress line: `_short` raised IndexError, farm.log said "could
not report the result", and the CI log never said the case failed. The line is there."""

from __future__ import annotations

import io

import pytest

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult


@pytest.mark.parametrize("error, reason", [
    (CaseError(kind="StepFailed", step=1, message="   "), None),
    (CaseError(kind="StepFailed", step=1, message="\n"), None),
    (None, " \n "),
])
def test_a_blank_why_still_gives_the_cases_line(error, reason):
    out = io.StringIO()
    view = PlainProgress(0, 1, stream=out)
    status = "failed" if error else "skipped"
    view.case_finished("ws-1", CaseResult(run_id="r", case_id="s/c", name="c", file="c.yaml",
                                          platform="web", device="ws-1", status=status,
                                          duration=0.1, error=error, reason=reason),
                       final=True)
    assert out.getvalue() == f"[1/1] [ws-1] {status.upper()} s/c 0.1s\n"
