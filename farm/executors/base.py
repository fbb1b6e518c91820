"""The Executor seam and the events every executor reports while it runs."""

from __future__ import annotations

from typing import Protocol

from farm.results import CaseResult, StepRecord
from farm.schedule import Job


class RunEvents(Protocol):
    """Progress callbacks. Executors call them from any thread; implementations lock."""

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        """state: starting | idle | busy | restarting | dead | quarantined | done"""

    def case_started(self, device: str, case_id: str, name: str, attempt: int) -> None: ...

    def step_finished(self, device: str, record: StepRecord) -> None: ...

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        """``final`` is False when the attempt will be retried."""


class NullEvents:
    def device_state(self, device: str, state: str, detail: str = "") -> None:
        pass

    def case_started(self, device: str, case_id: str, name: str, attempt: int) -> None:
        pass

    def step_finished(self, device: str, record: StepRecord) -> None:
        pass

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        pass


class Executor(Protocol):
    def run(self, jobs: list[Job]) -> list[CaseResult]:
        """Run every job to a final result (retries included); one result per case."""

    def interrupt(self) -> None:
        """Stop now: in-flight cases end as interrupted."""
