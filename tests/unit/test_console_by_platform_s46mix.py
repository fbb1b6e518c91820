"""The end of a red run of more than one platform says each platform's tally under the summary
line, so a QA lead reading a CI log sees which platform went red; a one-platform run's end, and
a green run's, are as before."""

from __future__ import annotations

import io
from pathlib import Path

from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import print_end


def _run(*cases: tuple[str, str]) -> RunSummary:
    """A run of (platform, status) cases; a red one's error says so."""
    results = [CaseResult(run_id="r1", case_id=f"s/{p}{i}", name=f"{p}{i}", file=f"{p}{i}.yaml",
                          platform=p, status=status, duration=1.0,
                          error=CaseError(kind="AssertionFailed", message="no Paid")
                          if status in ("failed", "error") else None)
               for i, (p, status) in enumerate(cases)]
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", cases=results,
                         duration=3.0)
    summary.recount()
    return summary


def _end(summary: RunSummary, tmp_path: Path) -> list[str]:
    out = io.StringIO()
    print_end(summary, tmp_path, out)
    return out.getvalue().splitlines()


def test_a_red_three_platform_run_says_each_platform_s_tally_under_the_summary(tmp_path):
    summary = _run(*[("android", "passed")] * 3, *[("android", "failed")] * 2, ("ios", "error"),
                   *[("web", "passed")] * 7)
    lines = _end(summary, tmp_path)
    tally = next(i for i, line in enumerate(lines) if line.startswith("farm: 10 passed"))
    assert lines[tally] == "farm: 10 passed, 2 failed, 1 error in 3.0s (run r1)"
    assert lines[tally + 1] == "farm: android: 3 passed, 2 failed; ios: 1 error; web: 7 passed"


def test_a_one_platform_run_and_a_green_run_end_as_before(tmp_path):
    red = _end(_run(("web", "passed"), ("web", "failed"), ("web", "error")), tmp_path)
    assert red[-1] == "farm: 1 passed, 1 failed, 1 error in 3.0s (run r1)"
    assert not any(line.startswith("farm: web:") for line in red)
    green = _end(_run(("web", "passed"), ("android", "passed"), ("ios", "passed")), tmp_path)
    assert green[-1] == "farm: 3 passed in 3.0s (run r1)"
