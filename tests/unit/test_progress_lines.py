"""The lines a CI log gets: plain progress (farm/progress.py), the end of the run
(farm/session.py)."""

from __future__ import annotations

import io

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult


def test_a_page_cannot_write_terminal_control_sequences_into_the_log():
    """A page's error text with an ANSI sequence (clear screen, colour), BEL and NUL is shown
    as escapes: the CI log keeps its colours and lines, and says what the page said."""
    out = io.StringIO()
    view = PlainProgress(0, 1, stream=out)
    result = CaseResult(run_id="r", case_id="s/c", name="c", file="c.yaml", platform="web",
                        device="browser-1", status="failed", duration=0.4,
                        error=CaseError(kind="StepFailed", step=1,
                                        message="javascript error: x\x00\x1b[2J\x1b[31m red\x07"))
    view.case_finished("browser-1", result, final=True)
    view.device_state("browser-1", "dead", "adb said \x1b]0;owned\x07")
    lines = out.getvalue().splitlines()
    assert lines == [
        "[1/1] [browser-1] FAILED s/c 0.4s — step 1: javascript error: "
        "x\\x00\\x1b[2J\\x1b[31m red\\x07",
        "[browser-1] dead: adb said \\x1b]0;owned\\x07"]


def test_a_page_cannot_reorder_a_failed_line_with_bidirectional_controls():
    """A right-to-left override in a page's text would show "passed" where the log says
    "failed" (Trojan-Source style): overrides, isolates and U+FFFE/U+FFFF are escapes."""
    out = io.StringIO()
    view = PlainProgress(0, 1, stream=out)
    result = CaseResult(run_id="r", case_id="s/c", name="c", file="c.yaml", platform="web",
                        device="browser-1", status="failed", duration=0.4,
                        error=CaseError(kind="AssertionFailed", step=1,
                                        message="text \u202edeliaf\u202c \u2066x\u2069 \ufffe"))
    view.case_finished("browser-1", result, final=True)
    assert out.getvalue().splitlines() == [
        "[1/1] [browser-1] FAILED s/c 0.4s — step 1: text \\u202edeliaf\\u202c "
        "\\u2066x\\u2069 \\ufffe"]


def _case(cid, status, **kw):
    return CaseResult(run_id="r", case_id=f"s/{cid}", name=cid, file=f"suites/s/{cid}.yaml",
                      line=1, platform="web", device="browser-1", status=status, **kw)


def test_the_run_ends_with_one_line_per_case_that_did_not_pass():
    """With --no-progress (CI) the end of the log still says which cases failed, where (the
    failing step's file:line) and why; passed, flaky and skipped cases are not listed."""
    from farm.results import RunSummary, StepRecord
    from farm.run_console import failure_lines
    step = StepRecord(task="t", index=2, kind="assertText", label='assertText "Total"', line=23,
                      status="failed")
    summary = RunSummary(run_id="r", started="", cases=[
        _case("ok", "passed"), _case("flaky", "flaky"),
        _case("skip", "skipped", reason="step 1 aiAct needs a model"),
        _case("total", "failed", steps=[step], error=CaseError(
            kind="AssertionFailed", step=2, message='expected text "Total" is not on screen\n'
                                                    "seen: Cart (0)")),
        _case("gone", "error", error=CaseError(kind="DeviceLost", message="browser-1 crashed")),
        _case("stop", "interrupted", reason="interrupted by Ctrl-C", steps=[
            StepRecord(task="t", index=1, kind="aiTap", label="aiTap", line=8, status="passed"),
            StepRecord(task="t", index=2, kind="sleep", label="sleep", line=9,
                       status="interrupted")])])
    assert failure_lines(summary) == [
        'FAILED s/total (suites/s/total.yaml:23) — step 2: expected text "Total" is not on '
        "screen ⏎ seen: Cart (0)",
        "ERROR s/gone (suites/s/gone.yaml:1) — browser-1 crashed",
        "INTERRUPTED s/stop (suites/s/stop.yaml:9) — interrupted by Ctrl-C"]
    many = RunSummary(run_id="r", started="", cases=[_case(f"c{i:02}", "failed") for i in range(25)])
    lines = failure_lines(many)
    assert len(lines) == 21 and lines[-1] == "... and 5 more: see the report"


def test_a_matrix_run_says_how_its_case_count_became_a_run_count():
    """--matrix runs each case once per device group: the count the lines go up to is said."""
    out = io.StringIO()
    view = PlainProgress(0, 2, stream=out)
    view.start()
    view.run_started(["browser-1@a", "browser-2@b"], 4)
    view.case_finished("browser-1@a", _case("a", "passed", duration=0.1), final=True)
    assert out.getvalue().splitlines() == [
        "farm: 2 case(s) to run",
        "farm: --matrix: 4 run(s) of 2 case(s), one per device group",
        "[1/4] [browser-1@a] PASSED s/a 0.1s"]
