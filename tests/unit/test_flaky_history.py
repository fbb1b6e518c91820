"""A case that passed only on a retry is *flaky* on the history page: never a plain pass (no
"fixed", no silence in the newest run), never a plain fail (counted apart in the flaky
ranking); and the device table counts the device's own errors, not a case's timeout."""

from __future__ import annotations

import re
from pathlib import Path

from farm.attempts import Outcome, error_outcome
from farm.report.history_page import render_history
from farm.report.trends import analyse
from farm.results_history import Attempt, CaseRecord, RunRecord


def night(day: int, **statuses: str) -> RunRecord:
    """A run of day ``day``; a flaky case's failed attempt is kept as the history keeps it."""
    cases = []
    for name, status in statuses.items():
        error = "AssertionFailed: Status is BROKEN" if status in ("failed", "flaky") else None
        attempts = [Attempt(status="failed", device="browser-1", error=error)] \
            if status == "flaky" else []
        cases.append(CaseRecord(case_id=f"nightly/{name}", status=status, duration=1.0,
                                device="browser-1",
                                error=None if status == "flaky" else error, attempts=attempts))
    return RunRecord(run_id=f"r{day}", started=f"2026-01-{day:02d}T02:00:00+00:00",
                     at=float(day), cases=cases)


def _newest_table(html: str) -> dict[str, str]:
    latest = html[html.index('id="latest"'):html.index('id="flaky"')]
    return dict(re.findall(r'<tr data-case="([^"]+)"><td>.*?<td class="verdict[^"]*">([^<]+)',
                           latest))


def test_a_pass_on_a_retry_after_a_red_night_is_flaky_not_fixed(tmp_path: Path):
    runs = [night(1, first="failed", plain="failed"), night(2, first="flaky", plain="passed")]
    t = analyse(runs)
    assert t.rows[1].fixed == ["nightly/plain"]
    assert t.rows[1].flaky == ["nightly/first"]
    assert [(c.case_id, c.verdict) for c in t.latest] == [("nightly/first", "flaky"),
                                                         ("nightly/plain", "fixed")]
    assert _newest_table(render_history(runs, tmp_path)) == {
        "nightly/first": "flaky (passed on retry)", "nightly/plain": "fixed"}


def test_a_pass_on_a_retry_after_green_nights_shows_in_the_newest_run(tmp_path: Path):
    runs = [night(1, every3="passed"), night(2, every3="passed"), night(3, every3="flaky")]
    t = analyse(runs)
    assert [(c.case_id, c.status, c.verdict) for c in t.latest] == [
        ("nightly/every3", "flaky", "flaky")]
    assert _newest_table(render_history(runs, tmp_path)) == {
        "nightly/every3": "flaky (passed on retry)"}


def test_the_flaky_ranking_counts_passes_on_a_retry_apart_from_fails():
    """firstload never passed at the first try: 2 failed nights and 3 flaky ones are not
    "5 fails of 5 runs"; a flaky night is one red → green change, as a fail then a pass."""
    runs = [night(1, firstload="failed", every3="passed", plain="passed"),
            night(2, firstload="flaky", every3="flaky", plain="failed"),
            night(3, firstload="flaky", every3="passed", plain="passed"),
            night(4, firstload="failed", every3="passed", plain="passed"),
            night(5, firstload="flaky", every3="passed", plain="passed")]
    ranked = {f.case_id: f for f in analyse(runs).flaky}
    first, every3, plain = (ranked["nightly/firstload"], ranked["nightly/every3"],
                            ranked["nightly/plain"])
    assert (first.runs, first.fails, first.flaky) == (5, 2, 3)
    assert (every3.runs, every3.fails, every3.flaky) == (5, 0, 1)
    assert (plain.runs, plain.fails, plain.flaky) == (5, 1, 0)
    # status changes between runs' final statuses (passed, flaky, red), never a run's own
    # attempts: P flaky P and P F P change twice; F flaky flaky F flaky three times
    assert every3.flips == plain.flips == 2
    assert first.flips == 3
    assert first.last_error == "AssertionFailed: Status is BROKEN"


def test_the_device_table_counts_the_device_s_errors_not_a_case_s_timeout():
    runs = [night(1, hang="error", broke="error", model="error", bug="error")]
    errors = {"nightly/hang": "CaseTimeout: case timed out after 3s during sleep 10000 ms",
              "nightly/broke": "DeviceLost: browser browser-1 crashed or was closed",
              "nightly/model": "ModelUnavailable: the model endpoint does not answer",
              "nightly/bug": "InternalError: KeyError: 'x'"}
    for case in runs[0].cases:
        case.error = errors[case.case_id]
    [device] = analyse(runs).devices
    assert (device.device, device.errors, device.last_error) == (
        "browser-1", 1, "DeviceLost: browser browser-1 crashed or was closed")


def test_an_error_s_outcome_comes_from_its_kind():
    assert error_outcome("DeviceLost") is Outcome.INFRA
    assert error_outcome("DeviceError") is Outcome.INFRA
    assert error_outcome("CaseTimeout") is Outcome.TIMEOUT
    assert error_outcome("ModelUnavailable") is Outcome.MODEL
    assert error_outcome("NoSuchThing") is Outcome.INTERNAL


def test_a_device_that_broke_under_a_case_does_not_make_its_first_real_failure_flaky():
    """Night 1: the device broke under the case (DeviceLost, no retry left: an error). Night
    2: passed. Night 3: the app really regressed: a new failure, in the run's own report and on
    the history page, not "flaky" (night 1 said nothing of the case)."""
    from farm.report.trends import analyse
    from farm.results import CaseError, CaseResult, RunSummary
    from farm.results_history import record_for, since_last

    def night(run_id: str, day: int, status: str, kind: str | None) -> RunSummary:
        error = CaseError(kind=kind, message="x") if kind else None
        case = CaseResult(run_id=run_id, case_id="s/c", name="c", file="s/c.yaml",
                          platform="web", device="browser-1", status=status, error=error,
                          started=f"2026-01-{day:02d}T02:00:00+00:00")
        s = RunSummary(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00",
                       cases=[case])
        s.recount()
        return s
    runs = [record_for(night("r1", 1, "error", "DeviceLost")),
            record_for(night("r2", 2, "passed", None))]
    third = night("r3", 3, "failed", "AssertionFailed")
    assert since_last(runs, third) == {"s/c": "new failure"}
    trends = analyse([*runs, record_for(third)])
    assert [(c.case_id, c.verdict) for c in trends.latest] == [("s/c", "new failure")]


def test_a_page_s_control_characters_show_escaped_as_in_the_run_s_report(tmp_path: Path):
    """A page's error text with ESC, NUL or a right-to-left override: the run's report shows
    them escaped (farm.text.printable); the history page had them raw (a grep saw a binary
    file, a browser drew boxes, and U+202E reordered the line)."""
    run = night(1, pay="failed")
    run.cases[0].error = "StepFailed: javascript error: \x00\x1b[31mred\u202eNIAP"
    html = render_history([run], tmp_path)
    assert "javascript error: \\x00\\x1b[31mred\\u202eNIAP" in html
    assert not re.search("[\x00-\x08\x1b\u202e]", html)
    assert "<style>\n:root {" in html      # our own markup (its stylesheet) as it is


def test_a_night_the_device_broke_under_a_case_is_no_new_failure_of_it():
    """Night 1 passed; night 2 the phone died under the case (DeviceLost: the device's, not a
    test failure); night 3 passed. Night 2 called it a *new failure* (its report, junit.xml,
    the history page's new failures), though night 3 did not call it *fixed*: it said nothing
    of the case either way."""
    from farm.results import CaseError, CaseResult, RunSummary
    from farm.results_history import record_for, since_last

    def run(day: int, status: str, kind: str | None = None) -> RunSummary:
        case = CaseResult(run_id=f"r{day}", case_id="s/c", name="c", file="s/c.yaml",
                          platform="android", device="emulator-5554", status=status,
                          error=CaseError(kind=kind, message="adb: device offline")
                          if kind else None, started=f"2026-01-{day:02d}T02:00:00+00:00")
        summary = RunSummary(run_id=f"r{day}", started=case.started, cases=[case])
        summary.recount()
        return summary
    first, broke, third = run(1, "passed"), run(2, "error", "DeviceLost"), run(3, "passed")
    assert since_last([record_for(first)], broke) == {}
    # an error that is the case's own (its timeout) still gets its verdict
    assert since_last([record_for(first)], run(2, "error", "CaseTimeout")) == {
        "s/c": "new failure"}
    t = analyse([record_for(first), record_for(broke), record_for(third)])
    assert [(r.new, r.fixed) for r in t.rows] == [([], []), ([], []), ([], [])]
