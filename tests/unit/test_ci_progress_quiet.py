"""A CI log (plain progress: not a terminal) during a long case: after QUIET_SECONDS without a
line, one line says what is running where and for how long, so the log shows the run is alive
(CircleCI and Travis stop a job after 10 minutes of silence) and where it is."""

from __future__ import annotations

import io
import sys

import pytest

from farm.progress import (CI_VARIABLES, QUIET_SECONDS, PlainProgress, QuietProgress,
                           RichProgress, make_progress)
from farm.results import CaseResult, StepRecord


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _result(cid: str) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file="c.yaml", platform="web",
                      device="browser-1", status="passed", duration=1.0)


def test_a_quiet_log_says_what_runs_where_and_for_how_long():
    """A 9-minute ai case printed its start line and then nothing until it ended."""
    out, clock = io.StringIO(), Clock()
    view = PlainProgress(0, 3, stream=out, clock=clock)
    view.case_started("browser-1", "s/pay", "Pay", 1)
    view.case_started("browser-2", "s/login", "Login", 2)
    view.step_finished("browser-1", StepRecord(task="t", index=4, kind="aiTap",
                                               label='aiTap "Pay now"', status="passed"))
    clock.now += QUIET_SECONDS - 1
    view.still_running()                    # not quiet long enough yet
    view.case_finished("browser-2", _result("s/login"), final=True)
    clock.now += QUIET_SECONDS
    view.still_running()
    view.still_running()                    # it just said so
    clock.now += QUIET_SECONDS
    view.still_running()
    assert out.getvalue().splitlines()[3:] == [
        'farm: 1/3 done (1 passed, 0 failed); running: [browser-1] s/pay 119s, after step 4: '
        'aiTap "Pay now"',
        'farm: 1/3 done (1 passed, 0 failed); running: [browser-1] s/pay 179s, after step 4: '
        'aiTap "Pay now"']


def test_the_line_names_no_case_when_none_runs_and_stops_with_the_view():
    out, clock = io.StringIO(), Clock()
    view = PlainProgress(0, 1, stream=out, clock=clock)
    view.start()
    view.stop()
    clock.now += QUIET_SECONDS
    view.still_running()
    assert out.getvalue().splitlines() == ["farm: 1 case(s) to run",
                                           "farm: 0/1 done (0 passed, 0 failed); no case running"]


def test_no_progress_means_no_line_at_all():
    out, clock = io.StringIO(), Clock()
    view = QuietProgress(0, 1, stream=out, clock=clock)
    view.start()
    view.case_started("browser-1", "s/pay", "Pay", 1)
    clock.now += QUIET_SECONDS * 3
    view.still_running()
    view.stop()
    assert out.getvalue() == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("term, view", [("dumb", PlainProgress), ("unknown", PlainProgress),
                                        ("xterm-256color", RichProgress)])
def test_a_dumb_terminal_gets_plain_lines(monkeypatch, term, view):
    """Emacs' shell (TERM=dumb) is a terminal that cannot redraw: the rich view showed nothing
    until the run's end there (its bar only once, at 100%), not even which case started."""
    monkeypatch.setattr(sys, "stdout", _Terminal())
    monkeypatch.setenv("TERM", term)
    for name in (*CI_VARIABLES, "TTY_INTERACTIVE"):     # (a CI job: plain lines on any terminal)
        monkeypatch.delenv(name, raising=False)
    assert type(make_progress(0, 1, enabled=True)) is view
