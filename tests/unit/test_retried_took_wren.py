"""farm.log said `PASSED k/ios_long1 (attempt 2) in 30.0s` for a case whose retry on another
iPhone took 19.9 s (30.0 s was both attempts'): the end line says the attempt's own time and
the case's over its attempts; one attempt's line is as before."""

from __future__ import annotations

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult, final_result
from farm.run_log import ended_line


def _attempt(n: int, status: str, device: str, seconds: float) -> CaseResult:
    error = CaseError(kind="DeviceLost", message=f"{device} lost", step=6) \
        if status == "error" else None
    return CaseResult(run_id="r", case_id="k/ios_long1", name="long", file="k/ios_long1.yaml",
                      platform="ios", device=device, attempt=n, status=status, error=error,
                      started="2026-12-07T00:00:00+00:00", duration=seconds)


def _moved() -> CaseResult:
    return final_result([_attempt(1, "error", "iphone-1", 10.133),
                         _attempt(2, "passed", "iphone-2", 19.914)])


def test_a_retried_case_says_its_attempts_own_time_and_the_sum():
    verdict = _moved()
    assert (verdict.attempt_duration, verdict.duration) == (19.914, 30.047)
    assert ended_line("iphone-2", verdict, True) == (
        "[iphone-2] PASSED k/ios_long1 (attempt 2) in 19.9s (30.0s over 2 attempts) "
        "(k/ios_long1.yaml)")


def test_the_progress_line_too():
    lines: list[str] = []

    class Out:
        def write(self, text: str) -> None:
            lines.append(text)

        def flush(self) -> None:
            pass

    PlainProgress(0, 1, stream=Out()).case_finished("iphone-2", _moved(), final=True)
    assert "k/ios_long1 19.9s (30.0s over 2 attempts)" in "".join(lines)


def test_one_attempt_is_as_before():
    once = _attempt(1, "passed", "iphone-1", 4.5)
    assert ended_line("iphone-1", once, True) == \
        "[iphone-1] PASSED k/ios_long1 (attempt 1) in 4.5s (k/ios_long1.yaml)"
