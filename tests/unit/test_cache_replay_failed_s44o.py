"""A cached plan whose replay ended the step in error (a locate's model down mid-replay: its
lookup stays a "hit") saved nothing: the run's last line does not count it as replayed."""

from __future__ import annotations

from farm.results import CacheUse, CaseResult, RunSummary, StepRecord, cache_savings
from farm.run_console import summary_line


def _case(cid: str, status: str, cache: CacheUse) -> CaseResult:
    step = StepRecord(task="t", index=1, kind="ai", label="ai", status=status, cache=cache,
                      error=None if status == "passed" else "model down")
    return CaseResult(run_id="r", case_id=cid, name=cid, file="c.yaml", platform="web",
                      device="browser-1", status=status, duration=1.0, steps=[step])


def test_a_replay_that_ended_in_error_is_not_counted_as_replayed():
    summary = RunSummary(run_id="r", started="", duration=2.0,
                         cases=[_case("s3/ai_login", "error", CacheUse(plan="hit"))])
    assert cache_savings(summary) == ""
    assert "cache:" not in summary_line(summary)


def test_only_the_replay_that_passed_is_counted():
    passed = CacheUse(plan="hit", saved={"calls": 4, "tokens": 6070, "cost_usd": None})
    summary = RunSummary(run_id="r", started="", duration=2.0, cases=[
        _case("s/a", "passed", passed), _case("s/b", "failed", CacheUse(plan="hit")),
        _case("s/c", "error", CacheUse(plan="replay-failed"))])
    assert cache_savings(summary) == "1 plan(s) replayed (saved 4 model call(s), 6,070 tokens)"
