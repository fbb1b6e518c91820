"""A run the broker refused (a wrong password, no Redis there) ran nothing. Its end said
"farm: 12 errors in 0.6s", then the report's path, and only then, last, why: as if twelve
cases had run and broken. Now the cause comes first (stderr, once), the tally counts the cases
as not run, and the report's path is still the last line."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import print_end

WHY = ("the broker redis://:***@127.0.0.1:6390/0 refused the password: invalid "
       "username-password pair or user is disabled.")


def _case(cid: str, status: str, reason: str, error: str | None = None) -> CaseResult:
    return CaseResult(run_id="r1", case_id=f"demo/{cid}", name=cid, file=f"demo/{cid}.yaml",
                      line=3, platform="web", status=status, reason=reason,
                      error=CaseError(kind="ConfigError", message=error) if error else None)


def test_a_refused_run_says_why_first_and_counts_its_cases_as_not_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cases = [_case(f"c{i}", "error", "not run", WHY) for i in range(12)]
    cases.append(_case("ai", "skipped", "needs a model (set FARM_MODEL): ai at line 7"))
    summary = RunSummary(run_id="r1", started="", duration=0.6, cases=cases, exit_code=4)
    summary.recount()
    (tmp_path / "report.html").write_text("<html></html>")
    terminal = io.StringIO()                # stdout and stderr on one terminal
    monkeypatch.setattr(sys, "stderr", terminal)
    print_end(summary, tmp_path, terminal, refused=ConfigError(WHY))
    assert terminal.getvalue().splitlines() == [
        f"farm: error: {WHY}",
        "SKIPPED demo/ai (demo/ai.yaml:3) — needs a model (set FARM_MODEL): ai at line 7",
        "farm: 1 skipped, 12 case(s) not run (counted as errors) in 0.6s (run r1)",
        str((tmp_path / "report.html").resolve())]


def test_errors_of_cases_that_ran_are_still_errors(tmp_path: Path):
    lost = _case("c1", "error", "", "browser-1 lost: the browser closed")
    summary = RunSummary(run_id="r1", started="", duration=3.0, cases=[lost])
    summary.recount()
    out = io.StringIO()
    print_end(summary, tmp_path, out)
    assert out.getvalue().splitlines()[-1] == "farm: 1 error in 3.0s (run r1)"
