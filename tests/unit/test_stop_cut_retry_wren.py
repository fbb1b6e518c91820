"""A failed attempt that came back after Ctrl-C, with a retry due (--retries 1), printed
`FAILED s/pay (s/pay.yaml:19) — step 5: …` as if it had had its retries: the line says its
retry was cut off by the stop, as --maxfail's "…; not retried: --maxfail N reached" does."""

from __future__ import annotations

from farm.attempts import RetryPolicy
from farm.executors.base import Ledger, NullEvents
from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import failure_lines
from farm.schedule import Job


class Told(NullEvents):
    def __init__(self) -> None:
        self.results: list[tuple[CaseResult, bool]] = []

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        self.results.append((result, final))


def _attempt(status: str, kind: str) -> CaseResult:
    return CaseResult(run_id="r", case_id="s/pay", name="pay", file="s/pay.yaml", line=19,
                      platform="web", device="browser-1", attempt=1, status=status,
                      error=CaseError(kind=kind, message='expected text "Cart (7)"', step=5),
                      started="2026-12-07T00:00:00+00:00", duration=1.9)


def _kept(status: str, kind: str, retries: int) -> CaseResult:
    told = Told()
    ledger = Ledger({}, "r", RetryPolicy(test_retries=retries), told)
    ledger.keep(Job(case_id="s/pay", platform="web", expected_seconds=1.0),
                _attempt(status, kind), "browser-1")
    (result, final), = told.results
    assert final
    return result


def test_a_failure_whose_retry_a_stop_cut_off_says_so():
    verdict = _kept("failed", "AssertionFailed", retries=1)
    assert verdict.status == "failed"
    assert verdict.reason == "not retried: the run was stopped"
    summary = RunSummary(run_id="r", started="2026-12-07T00:00:00+00:00", cases=[verdict])
    line, = failure_lines(summary)
    assert line.endswith('step 5: expected text "Cart (7)"; not retried: the run was stopped')


def test_the_progress_line_says_it_too():
    class Out:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

    out = Out()
    PlainProgress(0, 1, stream=out).case_finished("browser-1", _kept("failed", "AssertionFailed",
                                                                     1), final=True)
    assert out.text.rstrip().endswith("; not retried: the run was stopped")


def test_no_word_of_a_retry_when_none_was_due():
    assert _kept("failed", "AssertionFailed", retries=0).reason is None
    assert _kept("interrupted", "Interrupted", retries=1).reason is None
