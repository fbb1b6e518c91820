"""What a QA engineer watching a long run sees: how it stands (done, failed so far, time left
from the cases' remembered durations) in the CI log's periodic line and the terminal view."""

from __future__ import annotations

import io

from rich.console import Console

from farm.progress import QUIET_SECONDS, STATUS_SECONDS, PlainProgress, RichProgress, Standing
from farm.results import CaseResult


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _result(cid: str, status: str = "passed", duration: float = 1.0, **kw) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status=status, duration=duration, **kw)


EXPECTED = {"s/a": 100.0, "s/b": 100.0, "s/c": 50.0, "s/d": None}    # s/d never ran here


def test_the_ci_line_says_how_many_failed_so_far_and_the_time_left():
    out, clock = io.StringIO(), Clock()
    view = PlainProgress(0, 4, stream=out, clock=clock, expected=EXPECTED)
    view.run_started(["browser-1", "browser-2"], 4)
    view.case_finished("browser-2", _result("s/c", "failed", 50.0), final=True)
    view.case_started("browser-1", "s/a", "a", 1)
    clock.now += QUIET_SECONDS
    view.still_running()
    # left: s/a 100-60, s/b 100, s/d as the run's own mean (50): 190 s on 2 devices, but
    # never less than the longest case left (100 s)
    assert out.getvalue().splitlines()[-1] == (
        "farm: 1/4 done (0 passed, 1 failed); about 2m left; running: [browser-1] s/a 60s")


def test_a_busy_log_still_gets_a_status_line_every_few_minutes():
    """300 short cases: a line a case, never QUIET_SECONDS of silence, and no tally in any."""
    out, clock = io.StringIO(), Clock()
    view = PlainProgress(0, 4, stream=out, clock=clock, expected=EXPECTED)
    view.run_started(["browser-1"], 4)
    for cid in ("s/a", "s/b"):
        clock.now += STATUS_SECONDS / 2
        view.case_started("browser-1", cid, cid, 1)
        view.case_finished("browser-1", _result(cid, "error" if cid == "s/b" else "passed",
                                                100.0), final=True)
        view.still_running()
    status = [line for line in out.getvalue().splitlines() if " done" in line]
    assert status == ["farm: 2/4 done (1 passed, 0 failed, 1 error); about 2m left; no case "
                      "running"]


def test_no_time_left_is_said_where_nothing_tells_it():
    standing = Standing({"s/a": None, "s/b": None})
    standing.devices.add("browser-1")
    assert standing.about({}) == ""             # no history, nothing finished yet
    standing.finished(_result("s/a", duration=30.0), final=True)
    assert standing.about({}) == "about 30s left"
    assert standing.about({"s/b": 45.0}) == ""  # past what it should take: no "0s left"


def test_the_terminal_view_shows_the_tally_and_the_time_left():
    view = RichProgress(0, 2, expected={"s/a": 200.0, "s/b": 200.0})
    view.run_started(["browser-1"], 2)
    view.case_finished("browser-1", _result("s/a", "failed", 200.0), final=True)
    screen = Console(file=io.StringIO(), width=100, color_system=None)
    screen.print(view)
    shown = screen.file.getvalue()
    assert "1 failed" in shown and "about 3m left" in shown
