"""After Ctrl-C 2 cases into 400, the CI log went from ``[2/400] … PASSED`` to ``[399/400]
… INTERRUPTED``: the 396 cases the stop left unrun were counted as done without a line, and
the log read as if 399 had run. They do not advance the counter (the end says how many)."""

from __future__ import annotations

import io

from rich.console import Console

from farm.progress import PlainProgress, RichProgress
from farm.results import CaseResult

NOT_RUN = "not run: the run was interrupted"


def _result(cid: str, status: str, reason: str | None = None) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status=status, duration=1.0, reason=reason)


def test_the_line_after_a_stop_counts_only_the_cases_that_ran():
    out = io.StringIO()
    view = PlainProgress(0, 400, stream=out)
    for cid in ("s/a", "s/b"):
        view.case_finished("browser-1", _result(cid, "passed"), final=True)
    for n in range(396):
        view.case_finished("-", _result(f"s/unrun{n}", "skipped", NOT_RUN), final=True)
    view.case_finished("browser-1", _result("s/c", "interrupted"), final=True)
    assert out.getvalue().splitlines() == ["[1/400] [browser-1] PASSED s/a 1.0s",
                                           "[2/400] [browser-1] PASSED s/b 1.0s",
                                           "[3/400] [browser-1] INTERRUPTED s/c 1.0s"]


def test_the_terminal_bar_leaves_the_unrun_cases_out_too():
    view = RichProgress(0, 3)
    view.console = Console(file=io.StringIO(), width=100, color_system=None)
    view.case_finished("browser-1", _result("s/a", "passed"), final=True)
    view.case_finished("-", _result("s/b", "skipped", NOT_RUN), final=True)
    view.case_finished("-", _result("s/c", "skipped", "not run: --maxfail 1 reached"), True)
    assert view.progress.tasks[0].completed == 1
