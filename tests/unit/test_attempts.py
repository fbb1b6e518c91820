"""farm.attempts: outcomes from exception classes, retries, quarantine, synthetic results."""

from pathlib import Path

import pytest

from farm import errors
from farm.attempts import (Outcome, RetryPolicy, classify, error_kind, next_attempt,
                           next_streak, outcome, quarantine_due, synthetic)
from farm.results import CaseError, CaseResult
from farm.schedule import Job
from farm.suite.model import Case, Task, WebTarget


def test_infra_error_retries_elsewhere_once():
    policy = RetryPolicy(infra_retries=1, test_retries=0)
    job = Job("c", "web", 1.0)
    retry = next_attempt(job, Outcome.INFRA, "browser-1", policy)
    assert retry is not None and retry.attempt == 2 and "browser-1" in retry.avoid_devices
    assert next_attempt(retry, Outcome.INFRA, "browser-2", policy) is None
    assert next_attempt(job, Outcome.FAILED, "browser-1", policy) is None
    assert next_attempt(job, Outcome.TIMEOUT, "browser-1", policy) is None   # timeouts don't retry


def test_test_failures_retry_up_to_quota():
    policy = RetryPolicy(infra_retries=0, test_retries=2)
    job = Job("c", "web", 1.0)
    j2 = next_attempt(job, Outcome.FAILED, "d", policy)
    j3 = next_attempt(j2, Outcome.FAILED, "d", policy)
    assert (j2.attempt, j3.attempt) == (2, 3)
    assert next_attempt(j3, Outcome.FAILED, "d", policy) is None
    assert next_attempt(job, Outcome.PASSED, "d", policy) is None


def test_a_case_own_retry_quota_wins_over_the_policy():
    policy = RetryPolicy(infra_retries=1, test_retries=0)
    job = Job("c", "web", 1.0, test_retries=2)
    j2 = next_attempt(job, Outcome.FAILED, "d", policy)
    assert j2 is not None and j2.test_retries == 2
    assert next_attempt(next_attempt(j2, Outcome.FAILED, "d", policy), Outcome.FAILED, "d", policy) is None
    assert next_attempt(Job("other", "web", 1.0, test_retries=0), Outcome.FAILED, "d",
                        RetryPolicy(test_retries=3)) is None



@pytest.mark.parametrize("exc, status, expected", [
    (errors.AssertionFailed("no"), "failed", Outcome.FAILED),
    (errors.LocateError("ambiguous"), "failed", Outcome.FAILED),
    (errors.NeedsModel("ai"), "skipped", Outcome.SKIPPED),
    (errors.Interrupted("ctrl-c"), "interrupted", Outcome.INTERRUPTED),
    (errors.CaseTimeout("late"), "error", Outcome.TIMEOUT),
    (errors.DeviceLost("gone"), "error", Outcome.INFRA),
    (errors.ModelUnavailable("429"), "error", Outcome.MODEL),
    (errors.ModelRefused("401"), "error", Outcome.REFUSED),
    (errors.ModelMisconfigured("no key"), "error", Outcome.REFUSED),
    (errors.BrokerLost("redis"), "error", Outcome.INFRA),
    (KeyError("bug"), "error", Outcome.INTERNAL),
])
def test_exception_classes_decide_the_outcome(exc, status, expected):
    assert classify(exc) == (status, expected)


def result(status, kind=None):
    return CaseResult(run_id="r", case_id="c", name="c", file="c.yaml", platform="web",
                      status=status, error=CaseError(kind=kind, message="m") if kind else None)


@pytest.mark.parametrize("status, kind, expected", [
    ("passed", None, Outcome.PASSED), ("flaky", None, Outcome.PASSED),
    ("failed", "TestFailure", Outcome.FAILED), ("skipped", None, Outcome.SKIPPED),
    ("error", "DeviceLost", Outcome.INFRA), ("error", "ModelUnavailable", Outcome.MODEL),
    ("error", "ModelMisconfigured", Outcome.REFUSED),
    ("error", "BrokerLost", Outcome.INFRA), ("error", "CaseTimeout", Outcome.TIMEOUT),
    ("error", "InternalError", Outcome.INTERNAL), ("error", "SomethingNew", Outcome.INTERNAL),
])
def test_a_result_from_json_maps_back_by_class(status, kind, expected):
    """Workers send results as JSON: the kind names a class; subclasses of InfraError retry."""
    assert outcome(result(status, kind)) is expected


@pytest.mark.parametrize("kind", ["ModelUnavailable", "ModelRefused", "ModelMisconfigured"])
def test_a_model_error_is_neither_retried_on_another_device_nor_held_against_the_device(kind):
    """Another device would get the same answers from the same model: a second attempt only
    doubles the spend, and three model errors in a row must not quarantine a healthy device
    (the cases that need no model would then never run)."""
    policy = RetryPolicy(infra_retries=2, test_retries=3)
    model_error = outcome(result("error", kind))
    assert next_attempt(Job("c", "web", 1.0), model_error, "browser-1", policy) is None
    assert next_attempt(Job("c", "web", 1.0, test_retries=3), model_error, "browser-1",
                        policy) is None     # `retries:` is for test failures, as documented
    streak = next_streak(0, Outcome.INFRA)
    for _ in range(5):
        streak = next_streak(streak, model_error)
    assert not quarantine_due(streak)


def test_error_kind_names_farm_classes_only():
    assert error_kind(errors.DeviceLost("x")) == "DeviceLost"
    assert error_kind(ValueError("x")) == "InternalError"


def test_three_infra_errors_in_a_row_quarantine_a_device():
    streak = 0
    for o in (Outcome.INFRA, Outcome.INFRA, Outcome.PASSED, Outcome.INFRA, Outcome.INFRA):
        streak = next_streak(streak, o)
    assert streak == 2 and not quarantine_due(streak)
    assert quarantine_due(next_streak(streak, Outcome.INFRA))


def test_synthetic_result_records_the_error_by_class():
    case = Case(id="s/c", name="c", file=Path("/tmp/s/c.yaml"), suite_root=Path("/tmp/s"),
                platform="web", web=WebTarget(url="http://x/"), tasks=[Task(name="t", steps=[])])
    r = synthetic(case, "run1", 2, "error", "d1", error=errors.DeviceLost("no device left"))
    assert (r.case_id, r.attempt, r.device, r.status) == ("s/c", 2, "d1", "error")
    assert r.error.kind == "DeviceLost" and r.error.message == "no device left"
    assert outcome(r) is Outcome.INFRA


def test_a_shared_context_units_synthetic_result_has_its_files():
    """Each file of a unit that never ran to its end is a case of the run (its results, its
    metrics), as each file of one that ran: the unit's result carries its files' results."""
    files = [Case(id=f"s/{n}", name=n, file=Path(f"/tmp/s/{n}.yaml"),
                  suite_root=Path("/tmp/s"), platform="web", web=WebTarget(url="http://x/"),
                  tasks=[Task(name="t", steps=[])]) for n in ("a", "b")]
    unit = files[0].model_copy(update={"id": "s/index", "tasks": [], "parts": files})
    r = synthetic(unit, "run1", 1, "skipped", reason="not run: the run was interrupted")
    assert [(p.case_id, p.status, p.reason) for p in r.parts] == [
        ("s/a", "skipped", "not run: the run was interrupted"),
        ("s/b", "skipped", "not run: the run was interrupted")]
