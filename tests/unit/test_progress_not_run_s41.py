"""A stop 20 cases into 300 (Ctrl-C, --maxfail, the model budget) printed one SKIPPED "not run"
line for each queued case, in the CI log and the terminal alike: they are counted, and the end
of the run says how many once."""

from __future__ import annotations

import io

from rich.console import Console

from farm.progress import PlainProgress, RichProgress
from farm.results import CaseResult


def _result(cid: str, status: str, reason: str | None = None) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status=status, duration=1.0, reason=reason)


NOT_RUN = "not run: the run was interrupted"


def test_the_ci_log_counts_only_the_cases_that_ran_not_those_a_stop_left_unrun():
    """The unrun ones get no line and do not move [n/N] (it read [3/3] after 1 case: as if
    every case had run); the end of the run says how many were not run."""
    out = io.StringIO()
    view = PlainProgress(0, 3, stream=out)
    for cid in ("s/b", "s/c"):
        view.case_finished("-", _result(cid, "skipped", NOT_RUN), final=True)
    view.case_finished("browser-1", _result("s/a", "interrupted"), final=True)
    assert out.getvalue().splitlines() == ["[1/3] [browser-1] INTERRUPTED s/a 1.0s"]


def test_the_terminal_view_counts_them_too():
    view = RichProgress(0, 2)
    view.console = Console(file=io.StringIO(), width=100, color_system=None)
    view.case_finished("-", _result("s/b", "skipped", "not run: --maxfail 1 reached"), True)
    view.case_finished("browser-1", _result("s/a", "failed"), final=True)
    assert "s/b" not in view.console.file.getvalue()
    assert "FAILED [browser-1] s/a" in view.console.file.getvalue()
    assert view.counts == {"skipped": 1, "failed": 1}
