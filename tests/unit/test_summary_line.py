"""The run's last console line says what the model cost, every attempt counted, as the report
header does; a run without a model call says nothing of models."""

from __future__ import annotations

from farm.results import CaseResult, RunSummary
from farm.session import summary_line
from farm.usage import Usage


def _case(cid: str, status: str, usage: Usage | None, previous=()) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      status=status, usage=usage, previous=list(previous))


def test_the_summary_line_counts_the_model_spend_of_every_attempt():
    first = _case("s/ai", "failed", Usage(prompt_tokens=1000, completion_tokens=50,
                                          cost_usd=0.01, calls=2))
    cases = [_case("s/ai", "flaky", Usage(prompt_tokens=2000, completion_tokens=100,
                                          cost_usd=0.02, calls=4), previous=[first]),
             _case("s/plain", "passed", None)]
    summary = RunSummary(run_id="r1", started="", duration=12.0, cases=cases)
    summary.recount()
    assert summary_line(summary) == ("farm: 1 passed, 1 flaky; model: 6 call(s), 3,150 tokens, "
                                     "$0.0300 in 12.0s (run r1)")
    free = RunSummary(run_id="r2", started="", duration=1.0, cases=[_case("s/p", "passed", None)])
    free.recount()
    assert summary_line(free) == "farm: 1 passed in 1.0s (run r2)"
