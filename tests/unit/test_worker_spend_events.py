"""A worker sends the model spend of the step in progress as it grows: an attempt lost
mid-step (its process killed) had paid for those calls, and the run counts them only if it
has heard of them (the step's record, with its usage, goes out only once the step ends)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from farm.results import StepRecord
from farm.usage import Usage
from worker.runtime import _RunEvents


class Runtime:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def publish(self, run_id: str, event: dict[str, Any]) -> None:
        self.sent.append(event)


def attempt(attempt: int = 1) -> SimpleNamespace:
    """A case attempt as `farm.runner` runs it: its steps so far, its agent's usage."""
    return SimpleNamespace(job=SimpleNamespace(attempt=attempt), records=[],
                           agent=SimpleNamespace(usage=Usage()))


def step(index: int, usage: Usage | None = None) -> StepRecord:
    return StepRecord(task="t", index=index, kind="ai", label="do it", usage=usage)


def call(run: SimpleNamespace, tokens: int) -> None:
    run.agent.usage.add(Usage(prompt_tokens=tokens, calls=1))


def spends(runtime: Runtime) -> list[tuple[int, int, int]]:
    return [(e["after"], e["usage"]["calls"], e["usage"]["prompt_tokens"])
            for e in runtime.sent if e["type"] == "spend"]


def test_the_step_in_progress_reports_its_spend_as_it_grows():
    runtime = Runtime()
    events = _RunEvents(runtime)
    events.case_started("d", "s/c", "c", 1)
    run = attempt()
    run.records.append(step(1))
    events.spending("d", run)           # nothing spent yet: nothing sent
    call(run, 100)
    events.spending("d", run)
    events.spending("d", run)           # unchanged: not sent again
    call(run, 200)
    events.spending("d", run)
    assert spends(runtime) == [(0, 1, 100), (0, 2, 300)]


def test_the_next_step_reports_only_its_own_spend():
    runtime = Runtime()
    events = _RunEvents(runtime)
    events.case_started("d", "s/c", "c", 1)
    run = attempt()
    run.records.append(step(1))
    call(run, 100)
    run.records[0].usage = run.agent.usage.copy()     # step 1 ends with its usage
    events.spending("d", run)                          # (before its record went out)
    events.step_finished("d", run.records[0])
    run.records.append(step(2))
    call(run, 50)
    events.spending("d", run)
    assert spends(runtime) == [(1, 1, 50)]


def test_another_attempt_in_flight_is_not_reported_as_this_one():
    runtime = Runtime()
    events = _RunEvents(runtime)
    events.case_started("d", "s/c", "c", 2)
    run = attempt(1)
    call(run, 100)
    events.spending("d", run)
    events.spending("d", None)
    assert spends(runtime) == []


def test_a_spend_waiting_for_redis_is_named_in_the_workers_log():
    """(An outage's log line names the last event waiting: not "fake-1 spend".)"""
    from worker.outbox import describe
    event = {"type": "spend", "device": "fake-1", "case": "s/c", "attempt": 2, "after": 1}
    assert describe(event) == "the model spend of step 2 of s/c attempt 2"
