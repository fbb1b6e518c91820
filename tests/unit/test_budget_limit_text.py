"""The line a run's model budget ends it with names the limit as the user set it."""

from __future__ import annotations

import pytest

from farm.budget import NOT_RUN, ModelBudget
from farm.executors.base import NullEvents
from farm.results import CaseResult
from farm.usage import Usage


class _Executor:
    def __init__(self) -> None:
        self.stopped: list[str] = []

    def stop_taking(self, reason: str) -> None:
        self.stopped.append(reason)


def _spent(usd: float) -> CaseResult:
    return CaseResult(run_id="r", case_id="c", name="c", file="f.yaml", platform="web",
                      device="d1", status="passed", duration=1.0,
                      usage=Usage(prompt_tokens=900, completion_tokens=30, cost_usd=usd, calls=1))


@pytest.mark.parametrize("limit, said", [(0.0000001, "0.0000001"), (5.0, "5"),
                                         (0.25, "0.25"), (0.000001, "0.000001")])
def test_the_budget_line_names_the_limit_as_set(limit: float, said: str) -> None:
    """`--max-model-cost 0.0000001` ended the run saying "the run's model budget
    (--max-model-cost 0) was spent": six decimals rounded the limit to a 0 farm refuses."""
    executor = _Executor()
    budget = ModelBudget(NullEvents(), executor, cost=limit, tokens=None)
    budget.case_finished("d1", _spent(max(limit, 0.0002) * 2), final=True)
    assert executor.stopped == [NOT_RUN + budget.reached]
    assert budget.reached.startswith(f"the run's model budget (--max-model-cost {said}) was "
                                     "spent: $")
