"""RunEvents wrappers share one base: pass every event on to the wrapped RunEvents, so a
wrapper (the journal, the case metrics) overrides only the events it acts on."""

from __future__ import annotations

from typing import Any


class RelayEvents:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def run_started(self, devices: list[str], jobs: int) -> None:
        self.inner.run_started(devices, jobs)

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        self.inner.device_state(device, state, detail)

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        self.inner.case_started(device, case_id, name, attempt, started=started)

    def step_finished(self, device: str, record: Any) -> None:
        self.inner.step_finished(device, record)

    def file_started(self, device: str, unit_id: str, file_id: str, started: str = "") -> None:
        told = getattr(self.inner, "file_started", None)    # (a progress view has none)
        if told is not None:
            told(device, unit_id, file_id, started=started)

    def case_finished(self, device: str, result: Any, final: bool) -> None:
        self.inner.case_finished(device, result, final)

