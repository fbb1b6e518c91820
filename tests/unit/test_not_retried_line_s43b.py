"""A case whose device died mid-case, with no device left for its retry, ends as an error
whose line said only the device's error: why it was not retried ("not retried: no usable web
device left") was only in results.json. The end of the run now says it on the line, shortly
(the dead device's why is the summary's "lost:" and the report's)."""

from __future__ import annotations

import io
from pathlib import Path

from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import print_end
from farm.suite.model import Step
from tests.unit.test_executor import SCREEN, make_case, run


class DiesForGood(FakeDevice):
    """Loses its browser on the first tap and never starts again."""

    def __init__(self) -> None:
        super().__init__(SCREEN, name="d1", errors={"tap": DeviceLost("d1 lost: browser "
                                                                       "crashed")})
        self.opens = 0

    def open(self) -> None:
        self.opens += 1
        if self.opens > 1:
            raise DeviceLost("d1 lost: Chromium did not start")
        super().open()

    def tap(self, x: int, y: int) -> None:
        self.crashed = True
        super().tap(x, y)

    def healthy(self) -> bool:
        return not getattr(self, "crashed", False)


def _end(summary: RunSummary, tmp_path: Path) -> list[str]:
    out = io.StringIO()
    print_end(summary, tmp_path, out)
    return out.getvalue().splitlines()


def test_an_error_not_retried_says_why_on_its_line(tmp_path: Path):
    case = make_case("pay", [Step(kind="aiTap", target="Sign in", line=5)])
    results, outcome = run([DiesForGood()], [case], tmp_path)
    summary = RunSummary(run_id="r1", started="", duration=2.0, cases=list(results.values()),
                         lost=outcome.lost)
    summary.recount()
    assert results["s/pay"].reason == ("not retried: no usable web device left (could not "
                                        "restart: d1 lost: Chromium did not start)")
    assert _end(summary, tmp_path) == [
        "ERROR s/pay (/tmp/pay.yaml:5) — step 1: d1 lost: browser crashed; not retried: no "
        "usable web device left",
        "farm: 1 error in 2.0s; lost: d1 (run r1)"]


def test_a_failure_whose_retry_a_stop_cut_says_so_too(tmp_path: Path):
    failed = CaseResult(run_id="r1", case_id="s/cart", name="cart", file="s/cart.yaml", line=9,
                        platform="web", status="failed",
                        reason="not retried: --maxfail 1 reached",
                        error=CaseError(kind="AssertionFailed", step=2,
                                        message='expected text "Total" is not on screen'))
    summary = RunSummary(run_id="r1", started="", duration=2.0, cases=[failed])
    summary.recount()
    assert _end(summary, tmp_path)[0] == (
        'FAILED s/cart (s/cart.yaml:9) — step 2: expected text "Total" is not on screen; '
        "not retried: --maxfail 1 reached")


def test_the_progress_line_of_an_error_not_retried_says_why_too(tmp_path: Path):
    from farm.progress import _short
    case = make_case("pay", [Step(kind="aiTap", target="Sign in", line=5)])
    results, _ = run([DiesForGood()], [case], tmp_path)
    line = _short(results["s/pay"])
    assert line.endswith(" — step 1: d1 lost: browser crashed; not retried: no usable web "
                         "device left"), line
