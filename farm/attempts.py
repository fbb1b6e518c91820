"""What the end of an attempt means, as pure functions shared by every executor and the worker.

    exception ──classify──► (status, Outcome)          in run_case, where the case ended
    CaseResult ──outcome──► Outcome                     wherever a result arrives (JSON or not)
    Outcome ──next_attempt──► retry Job | None          infra → another device; failed → again
    Outcome ──next_streak──► streak ──quarantine_due──► stop feeding the device

A model error (the endpoint down, its replies unreadable or its actions invented) is the
model's, not the device's: another device would get the same answers, so it earns no retry, and
it never counts towards a device's quarantine.

Outcomes come from the exception classes in `farm.errors` (one table, like httpx's mapping of
transport errors), never from message text: a result carries its error's class name
(``CaseError.kind``) and :func:`error_class` turns it back into the class.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from farm import errors
from farm.results import CaseError, CaseResult, now_iso
from farm.schedule import Job
from farm.suite.loader import display_path
from farm.suite.model import Case

QUARANTINE_AFTER = 3        # consecutive infrastructure errors before a device takes no more work
WATCHDOG_GRACE_S = 10.0     # past a case's timeout before its device is killed


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"           # the app misbehaved: retried up to the case's `retries`
    SKIPPED = "skipped"
    INTERRUPTED = "interrupted"
    INFRA = "infra"             # the device broke: retried on another device
    MODEL = "model"             # the model failed: an error, not retried, not the device's fault
    TIMEOUT = "timeout"         # the case overstayed: an error, never retried
    REFUSED = "refused"         # the model refused the API key: an error, never retried
    INTERNAL = "internal"       # a farm bug: an error, never retried
    CERTAIN = "certain"         # failed as any attempt would (a served file not there): not retried


class ServedFileMissing(errors.StepFailed):
    """The case's page is a file of a folder farm serves on this machine (its ``serve:``
    folder, the suite's apps), or a file:// page, and that file is not there: a failure, as
    a 404 is, but one a second attempt a millisecond later would only repeat, so it is not
    retried (a remote URL's HTTP error may be passing, and stays retried)."""


class ServedFolder(ServedFileMissing):
    """The case's page is a folder (``url: ../app``): the browser's listing of it, or the
    server's 404 page, would open instead; as a missing file, not retried."""


# Exception class → (case status, outcome); the first matching row wins.
_BY_EXCEPTION: tuple[tuple[type[BaseException], str, Outcome], ...] = (
    (ServedFileMissing, "failed", Outcome.CERTAIN),
    (errors.ScriptSyntaxError, "failed", Outcome.CERTAIN),
    (errors.TestFailure, "failed", Outcome.FAILED),
    (errors.NeedsModel, "skipped", Outcome.SKIPPED),
    (errors.Interrupted, "interrupted", Outcome.INTERRUPTED),
    (errors.CaseTimeout, "error", Outcome.TIMEOUT),
    (errors.ModelRefused, "error", Outcome.REFUSED),
    (errors.ModelUnavailable, "error", Outcome.MODEL),
    (errors.InfraError, "error", Outcome.INFRA),
)


def classify(exc: BaseException) -> tuple[str, Outcome]:
    """(status, outcome) for an exception that ended a case."""
    for cls, status, outcome_ in _BY_EXCEPTION:
        if isinstance(exc, cls):
            return status, outcome_
    return "error", Outcome.INTERNAL


def _farm_errors() -> dict[str, type[errors.FarmError]]:
    found: dict[str, type[errors.FarmError]] = {}
    todo: list[type[errors.FarmError]] = [errors.FarmError]
    while todo:
        cls = todo.pop()
        found.setdefault(cls.__name__, cls)
        todo.extend(cls.__subclasses__())
    return found


def error_class(kind: str) -> type[errors.FarmError]:
    """The class a result's ``error.kind`` names; unknown names are internal errors."""
    return _farm_errors().get(kind, errors.InternalError)


def error_kind(exc: BaseException) -> str:
    """The name recorded in ``CaseError.kind``: the farm error class, else InternalError."""
    if isinstance(exc, errors.FarmError) and error_class(type(exc).__name__) is type(exc):
        return type(exc).__name__
    return "InternalError"


_CERTAIN = (ServedFileMissing, errors.ScriptSyntaxError)    # failed as any attempt would
_BY_STATUS = {"passed": Outcome.PASSED, "flaky": Outcome.PASSED, "failed": Outcome.FAILED,
              "skipped": Outcome.SKIPPED, "interrupted": Outcome.INTERRUPTED}


def outcome(result: CaseResult) -> Outcome:
    """What the retry and quarantine rules need to know about an attempt's result."""
    if result.status == "failed" and result.error is not None \
            and issubclass(error_class(result.error.kind), _CERTAIN):
        return Outcome.CERTAIN
    if result.status != "error":
        return _BY_STATUS[result.status]
    return error_outcome(result.error.kind if result.error else "InternalError")


def error_outcome(kind: str) -> Outcome:
    """The outcome of an attempt that ended as an error of class ``kind`` (a result's
    ``error.kind``; the results history's ``"<kind>: <message>"`` starts with it)."""
    cls = error_class(kind)
    for exc, status, outcome_ in _BY_EXCEPTION:      # the table that `classify` reads
        if status == "error" and issubclass(cls, exc):
            return outcome_
    return Outcome.INTERNAL


@dataclass(frozen=True)
class RetryPolicy:
    infra_retries: int = 1
    test_retries: int = 0


# A timed-out case's reason when retries were left: said, not a silent "no retry". By design a
# timeout is not retried: another attempt would most likely hang as long again, doubling the
# job's wall time (the aside, in parentheses, is results.json's; a console line drops it).
TIMEOUT_NOT_RETRIED = ("not retried: a timeout is not retried (another attempt would wait its "
                       "whole timeout again)")
# A page file not there (`ServedFileMissing`) when retries were left: said, as a timeout is.
MISSING_NOT_RETRIED = ("not retried: a missing page file is not retried (a second attempt "
                       "would find it missing again)")

FOLDER_NOT_RETRIED = ("not retried: a page that is a folder is not retried (a second attempt "
                      "would find the folder again)")
# A javascript: step's code that does not parse (`errors.ScriptSyntaxError`), likewise.
SYNTAX_NOT_RETRIED = ("not retried: a script's syntax error is not retried (every attempt "
                      "would fail on it the same way)")


def certain_reason(kind: str) -> str | None:
    """What an attempt that failed with an error of class ``kind`` (a result's
    ``error.kind``) says of its retries when any attempt would fail so (`Outcome.CERTAIN`):
    `SYNTAX_NOT_RETRIED`, `FOLDER_NOT_RETRIED`, `MISSING_NOT_RETRIED`; None for any other
    failure."""
    cls = error_class(kind)
    if issubclass(cls, errors.ScriptSyntaxError):
        return SYNTAX_NOT_RETRIED
    if issubclass(cls, ServedFolder):
        return FOLDER_NOT_RETRIED
    return MISSING_NOT_RETRIED if issubclass(cls, ServedFileMissing) else None


def unretried(said: str, job: Job, quota: int) -> str | None:
    """``said`` (`TIMEOUT_NOT_RETRIED`, `MISSING_NOT_RETRIED`) for an attempt of ``job`` that
    is not retried by design, when its case had retries left (``quota``: its `retries`,
    --retries); None when it had none to give."""
    return said if job.test_retries_used < quota else None


def next_attempt(job: Job, result: Outcome, device: str, policy: RetryPolicy) -> Job | None:
    """The job to queue after an attempt ended with ``result``, or None if the case is done.

    Infrastructure errors retry on another device within the infra quota (a device that died
    must not eat the case); test failures retry up to the case's quota (pass-after-fail =
    flaky). Model errors (another device would get the same answers: the spend would double
    for nothing), timeouts, a refused model API key, internal errors, a served file not
    there (`Outcome.CERTAIN`), skips and interrupts never retry.
    """
    if result is Outcome.INFRA and job.infra_retries_used < policy.infra_retries:
        return replace(job, attempt=job.attempt + 1, infra_retries_used=job.infra_retries_used + 1,
                       avoid_devices=job.avoid_devices | {device})
    quota = policy.test_retries if job.test_retries is None else job.test_retries
    if result is Outcome.FAILED and job.test_retries_used < quota:
        return replace(job, attempt=job.attempt + 1, test_retries_used=job.test_retries_used + 1)
    return None


def next_streak(streak: int, result: Outcome) -> int:
    """Consecutive infrastructure errors of a device after this attempt. Only INFRA (the
    device's own errors) counts: a model error, like a pass, ends the streak (the device
    carried the case until the model failed it)."""
    return streak + 1 if result is Outcome.INFRA else 0


def quarantine_due(streak: int) -> bool:
    return streak >= QUARANTINE_AFTER


QUARANTINE_REASON = f"{QUARANTINE_AFTER} infrastructure errors in a row"


def synthetic(case: Case, run_id: str, attempt: int, status: str, device: str | None = None,
              reason: str | None = None, error: BaseException | None = None) -> CaseResult:
    """The result of an attempt that did not run to its end on a device (interrupted, lost,
    never started); ``error`` is recorded by class, as run_case records it. It ended before
    its first step: a case that did not pass is at its ``launch:`` / ``url:`` line, as one
    that ended in its set-up on a device (no step to point at), else at its first step. A
    shared-context unit's has its files' (each the same), as one that ran has: each file is
    a case of the run, in its results and in farm_cases_total."""
    ended = status in ("failed", "error", "interrupted")
    parts = [synthetic(p, run_id, attempt, status, device, reason, error) for p in case.parts]
    return CaseResult(run_id=run_id, case_id=case.id, name=case.name,
                      file=display_path(case.file),
                      line=case.setup_line if ended else case.first_line,
                      platform=case.platform, device=device,
                      attempt=attempt, status=status, reason=reason,
                      error=CaseError(kind=error_kind(error), message=str(error))
                      if error is not None else None,
                      started=now_iso(), tags=case.tags, parts=parts,
                      description=case.description, report_file=case.report_file)
