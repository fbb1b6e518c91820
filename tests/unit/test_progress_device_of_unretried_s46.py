"""A case whose device died mid-case and whose retry could not run (no usable device left)
was shown on the progress line as `[13/17] [-] ERROR …` — no device — while results.json,
JUnit and the timeline named the phone it ran on. The line names that device; `-` stays for
a case that never had one."""

from __future__ import annotations

from farm.attempts import RetryPolicy
from farm.executors.base import Ledger, NullEvents
from farm.results import CaseError, CaseResult
from farm.schedule import Job


class Told(NullEvents):
    def __init__(self) -> None:
        self.lines: list[tuple[str, str, bool]] = []

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        self.lines.append((device, result.case_id, final))


def _lost() -> CaseResult:
    return CaseResult(run_id="r", case_id="s/long", name="long", file="s/long.yaml",
                      platform="android", device="emulator-5556", attempt=1, status="error",
                      error=CaseError(kind="DeviceLost", message="emulator-5556 lost", step=2),
                      started="2026-12-07T00:00:00+00:00", duration=5.8)


def test_an_unretried_case_is_shown_on_the_device_it_ran_on():
    told = Told()
    ledger = Ledger({}, "r", RetryPolicy(infra_retries=1, test_retries=0), told)
    retry = ledger.record(Job(case_id="s/long", platform="android", expected_seconds=1.0),
                          _lost(), "emulator-5556")
    assert retry is not None
    ledger.end(retry, "skipped", reason="not run: no usable android device left")
    assert told.lines[-1] == ("emulator-5556", "s/long", True)
