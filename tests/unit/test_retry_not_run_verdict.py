"""A retry the run ends without starting (Ledger.end "skipped": -x / --maxfail reached, the
model budget spent, while it was queued) keeps the verdict of the attempt it retried."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy, synthetic
from farm.executors.base import Ledger, NullEvents
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget


def test_a_queued_retry_ended_unstarted_leaves_the_case_failed(tmp_path: Path) -> None:
    case = Case(id="s/a", name="a", file=tmp_path / "a.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"), retries=1,
                tasks=[Task(name="t", steps=[Step(kind="assertText", target="x")])])
    told = []

    class Events(NullEvents):
        def case_finished(self, device, result, final):
            told.append((result.status, final))

    ledger = Ledger({case.id: case}, "r1", RetryPolicy(test_retries=1), Events())
    failed = synthetic(case, "r1", 1, "failed", "d1", "text x is not on screen")
    retry = ledger.record(Job(case.id, "web", 1), failed, "d1")
    assert retry is not None and retry.attempt == 2
    ledger.end(retry, "skipped", reason="not run: --maxfail 1 reached")
    verdict = ledger.final[case.id]
    assert (verdict.status, verdict.attempt) == ("failed", 1)
    assert verdict.reason == "text x is not on screen; not retried: --maxfail 1 reached"
    assert told == [("failed", False), ("failed", True)]


def test_a_case_never_started_is_still_skipped(tmp_path: Path) -> None:
    case = Case(id="s/b", name="b", file=tmp_path / "b.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="assertText", target="x")])])
    ledger = Ledger({case.id: case}, "r1", RetryPolicy(), NullEvents())
    ledger.end(Job(case.id, "web", 1), "skipped", reason="not run: --maxfail 1 reached")
    assert (ledger.final[case.id].status, ledger.final[case.id].reason) == (
        "skipped", "not run: --maxfail 1 reached")
