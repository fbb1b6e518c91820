"""A served file not there (`ServedFileMissing`) is a failure no retry changes: its result,
as a worker sends it back (by error class name), is not retried; an ordinary failure still is."""

from __future__ import annotations

from farm.attempts import (MISSING_NOT_RETRIED, Outcome, RetryPolicy, ServedFileMissing,
                           classify, error_class, next_attempt, outcome, unretried)
from farm.results import CaseError, CaseResult
from farm.run_console import not_retried
from farm.schedule import Job


def _result(kind: str) -> CaseResult:
    return CaseResult(run_id="r1", case_id="s/promo", name="promo", file="s/promo.yaml",
                      line=3, platform="web", device="browser-1", status="failed",
                      error=CaseError(kind=kind, message="cannot open http://127.0.0.1:1/x.html:"
                                      " no such file /s/app/x.html"))


def test_a_missing_served_file_is_failed_and_never_retried() -> None:
    assert classify(ServedFileMissing("cannot open …")) == ("failed", Outcome.CERTAIN)
    assert error_class("ServedFileMissing") is ServedFileMissing
    job = Job("s/promo", "web", 1.0, test_retries=1)
    assert outcome(_result("ServedFileMissing")) is Outcome.CERTAIN
    assert next_attempt(job, outcome(_result("ServedFileMissing")), "browser-1",
                        RetryPolicy()) is None
    assert next_attempt(job, outcome(_result("StepFailed")), "browser-1",
                        RetryPolicy()) is not None


def test_its_reason_says_not_retried_only_when_retries_were_left() -> None:
    assert unretried(MISSING_NOT_RETRIED, Job("s/promo", "web", 1.0, test_retries=1), 1) == \
        MISSING_NOT_RETRIED
    assert unretried(MISSING_NOT_RETRIED, Job("s/promo", "web", 1.0), 0) is None
    assert not_retried(MISSING_NOT_RETRIED) == \
        "not retried: a missing page file is not retried"
