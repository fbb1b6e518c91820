"""The Executor seam: ``run(jobs, events) -> RunOutcome``, the events every executor reports
while it runs, and the ledger of attempts both executors keep."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Collection, Protocol

from farm.attempts import RetryPolicy, next_attempt, outcome, synthetic
from farm.results import CaseResult, StepRecord, final_result, storable
from farm.schedule import Job
from farm.suite.model import Case
from farm.usage import Usage

# the name of a thread that drives a device (a local run's device loop, a device's own thread:
# `farm.slot`): one still alive at exit is in a device call (`unsettled_devices`)
DEVICE_THREAD = "device:"

log = logging.getLogger("farm.executor")


class RunEvents(Protocol):
    """Progress callbacks. Executors call them from any thread; implementations lock."""

    def run_started(self, devices: list[str], jobs: int) -> None:
        """The devices the run will use (progress rows) and how many jobs it will run."""

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        """state: starting | idle | busy | restarting | dead | quarantined | done"""

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        """``started``: when, by the clock of the host running it (a worker's, in a cluster
        run, as its result and steps are; "" for now): the journal writes it; a progress view
        shows no times."""

    def step_finished(self, device: str, record: StepRecord) -> None: ...

    def file_started(self, device: str, unit_id: str, file_id: str, started: str = "") -> None:
        """A shared-context unit's next file (``file_id``) begins on ``device`` (``started``:
        as for `case_started`)."""

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        """``final`` is False when the attempt will be retried."""


class NullEvents:
    def run_started(self, devices: list[str], jobs: int) -> None:
        pass

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        pass

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        pass

    def step_finished(self, device: str, record: StepRecord) -> None:
        pass

    def file_started(self, device: str, unit_id: str, file_id: str, started: str = "") -> None:
        pass

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        pass


@dataclass
class RunOutcome:
    """Everything a run's executor found out; the session reads nothing else."""

    results: list[CaseResult]                       # one final result per case, by case id
    quarantined: list[str] = field(default_factory=list)
    lost: dict[str, str] = field(default_factory=dict)     # device → why it died in the run
    launch_seconds: dict[str, float] = field(default_factory=dict)   # device → its open() time
    first_start: float | None = None                # monotonic: first case handed out
    last_end: float | None = None                   # monotonic: last attempt ended
    interrupted: bool = False
    refused: Exception | None = None                # the executor could not start (no broker)
    stopped: str | None = None                      # the run's model budget spent (farm.budget)
    warnings: list[str] = field(default_factory=list)   # said at the end of the run


class Executor(Protocol):
    def run(self, jobs: list[Job], events: RunEvents) -> RunOutcome:
        """Run every job to a final result (retries included); one result per case."""

    def interrupt(self) -> None:
        """Stop the run (any thread): in-flight cases end interrupted, queued ones not run."""

    def hurry(self) -> None:
        """After interrupt(): return from run() without waiting for devices to wind down."""

    def stop_taking(self, reason: str, only: Collection[str] | None = None) -> None:
        """Start no more queued cases (they end skipped with ``reason``), or only no more of
        those ``only`` names (a batch's files: the others go on); in-flight ones finish, their
        retries not started. Called from within ``RunEvents.case_finished``."""

    def queued(self) -> dict[str, int]:
        """Jobs waiting for a device, by queue (pool); any thread (farm_queue_depth)."""


STOPPED_RETRY = "not retried: the run was stopped"   # an attempt's retry a stop cut off


class Ledger:
    """Attempts and final results of one run's cases, and the retry decision after each
    attempt. Not thread-safe: executors call it under their own lock."""

    def __init__(self, cases: dict[str, Case], run_id: str, policy: RetryPolicy,
                 events: RunEvents) -> None:
        self.cases = cases
        self.run_id = run_id
        self.policy = policy
        self.events = events
        self.expected: set[str] = set()
        self.attempts: dict[str, list[CaseResult]] = {}
        self.final: dict[str, CaseResult] = {}
        self.stops: list[tuple[str, frozenset[str] | None]] = []    # stop_taking's

    @property
    def done(self) -> bool:
        return len(self.final) >= len(self.expected)

    def record(self, job: Job, result: CaseResult, device: str) -> Job | None:
        """Keep an attempt's result; return the retry to queue, if any. The result is kept
        before anyone is told, and a progress view or journal that fails to take it cannot
        lose it."""
        result = _spent_by_files(storable(result))
        retry = next_attempt(job, outcome(result), device, self.policy)
        self.attempts.setdefault(job.case_id, []).append(result)
        if retry is None:
            # those told of a final result get the case's verdict (flaky, earlier attempts)
            result = self.final[job.case_id] = final_result(self.attempts[job.case_id])
        self._tell(device, result, final=retry is None)
        return retry

    def keep(self, job: Job, result: CaseResult, device: str) -> None:
        """The run is stopping: an attempt that came back is the case's last (what it did
        before the interrupt, its steps and images, not a blank result), unless the case
        already ended."""
        if job.case_id in self.final:
            return
        result = _spent_by_files(storable(result))
        self.attempts.setdefault(job.case_id, []).append(result)
        verdict = self.final[job.case_id] = final_result(self.attempts[job.case_id])
        if next_attempt(job, outcome(result), device, self.policy) is not None:
            # its retry was due: said, as --maxfail's is (`end`), not a plain failure
            verdict.reason = (f"{verdict.reason}; " if verdict.reason else "") + STOPPED_RETRY
        self._tell(device, self.final[job.case_id], final=True)

    def _tell(self, device: str, result: CaseResult, final: bool) -> None:
        try:
            self.events.case_finished(device, result, final)
        except Exception:
            log.exception("could not report the result of %s attempt %d", result.case_id,
                          result.attempt)

    def end(self, job: Job, status: str, device: str | None = None, reason: str | None = None,
            error: BaseException | None = None) -> None:
        """End a case without (another) device attempt: not run, lost, interrupted. A retry
        not run (--maxfail reached, the model budget spent) leaves the case's verdict to the
        attempt it retried: a failure is not hidden as a skip."""
        earlier = self.attempts.get(job.case_id)
        if status == "skipped" and earlier:
            verdict = final_result(earlier)
            verdict.reason = (f"{verdict.reason}; " if verdict.reason else "") + \
                f"not retried: {(reason or '').removeprefix('not run: ')}"
            self.final[job.case_id] = verdict
            self._tell(device or verdict.device or "-", verdict, final=True)
            return
        result = synthetic(self.cases[job.case_id], self.run_id, job.attempt, status, device,
                           reason, error)
        self.attempts.setdefault(job.case_id, []).append(result)
        final = self.final[job.case_id] = final_result(self.attempts[job.case_id])
        self._tell(device or final.device or "-", final, final=True)    # (the device it ran on)

    def stop(self, reason: str, only: Collection[str] | None, queue: list[Job]) -> None:
        """No attempt of the cases ``only`` names (of any case: None) starts any more
        (`stopped`); the jobs of ``queue`` this holds for leave it (in place) and end skipped
        with ``reason`` (a retry keeps its attempt's verdict: `end`)."""
        self.stops.append((reason, None if only is None else frozenset(only)))
        self.hold(queue)

    def hold(self, queue: list[Job]) -> None:
        """End the jobs of ``queue`` a stop holds for, taking them out of it (in place, first:
        a result told meanwhile may stop more)."""
        held = [(j, why) for j in queue if (why := self.stopped(j.case_id)) is not None]
        queue[:] = [j for j in queue if self.stopped(j.case_id) is None]
        for job, why in held:
            if job.case_id not in self.final:
                self.end(job, "skipped", reason=why)

    def stopped(self, case_id: str) -> str | None:
        """Why no attempt of ``case_id`` may start any more (the first stop holding for it),
        or None."""
        return next((why for why, only in self.stops if only is None or case_id in only),
                    None)

    def results(self) -> list[CaseResult]:
        return [self.final[c] for c in sorted(self.final)]


def _spent_by_files(result: CaseResult) -> CaseResult:
    """A shared-context unit's result with the model spend of all its files (its own was its
    worst file's: the run's --max-model-tokens / --max-model-cost counted a 2-file unit's
    calls as one file's, and the run went on past its budget)."""
    if not result.parts:
        return result
    spent = Usage()
    for part in result.parts:
        if part.usage is not None:
            spent.add(part.usage)
    tokens = {"prompt": spent.prompt_tokens, "completion": spent.completion_tokens}
    return result.model_copy(update={"usage": spent if spent.spent else None,
                                     "tokens": tokens if spent.spent else {}})
