"""A run's model budget as its lines say it: the limit named as the user set it, and what it
cannot count (calls without a price, replies without a token count) said once."""

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


def _untold(usd: float = 0.0) -> CaseResult:
    """A case whose model said nothing of its tokens (an endpoint that sends no usage)."""
    return CaseResult(run_id="r", case_id="u", name="u", file="f.yaml", platform="web",
                      device="d1", status="passed", duration=1.0,
                      usage=Usage(cost_usd=usd, cost_unknown=True, tokens_unknown=True,
                                  calls=12))


def test_a_token_budget_says_it_cannot_count_replies_without_token_counts(caplog) -> None:
    """`--max-model-tokens` over an endpoint that sends no usage counted 0 per call and never
    said so: the budget could not stop the run, and nothing told the user it was blind."""
    budget = ModelBudget(NullEvents(), _Executor(), cost=None, tokens=50_000)
    budget.case_finished("d1", _untold(), final=True)
    said = ("some model requests timed out or their answer could not be read: "
            "--max-model-tokens counts their prompts' tokens as estimated, not what they "
            "answered")
    assert budget.unpriced == said
    assert [r.getMessage() for r in caplog.records if r.name == "farm.budget"] == [said]
    budget.case_finished("d1", _untold(), final=True)       # said once
    assert [r.getMessage() for r in caplog.records if r.name == "farm.budget"] == [said]


def test_a_cost_budget_does_not_claim_the_tokens_of_untold_calls_are_counted() -> None:
    """With both limits, calls without usage were said to be counted by the token limit
    ("--max-model-tokens counts every call's tokens"): they were counted 0."""
    budget = ModelBudget(NullEvents(), _Executor(), cost=1.0, tokens=50_000)
    budget.case_finished("d1", _untold(), final=True)
    assert budget.unpriced == (
        "some model requests timed out or their answer could not be read: --max-model-cost "
        "and --max-model-tokens count their prompts' tokens as estimated, not what they "
        "answered")


@pytest.mark.parametrize("cost, tokens, said", [
    (None, 900, "spent 1,860 tokens more (2,790 tokens in all)"),
    (0.01, None, "spent $0.0400 more ($0.0600 in all)")])
def test_what_cases_in_flight_spent_past_the_budget_is_said_at_the_end(cost, tokens, said):
    """Two devices, a token budget of 1: the console said "was spent: 2,704 tokens", then
    "model: 4 call(s), 5,408 tokens", and nothing joined the two figures."""
    budget = ModelBudget(NullEvents(), _Executor(), cost=cost, tokens=tokens)
    budget.case_finished("d1", _spent(0.02), final=True)
    assert budget.reached and budget.beyond() == ""       # nothing in flight spent more yet
    budget.case_finished("d2", _spent(0.02), final=True)
    budget.case_finished("d3", _spent(0.02), final=True)
    assert budget.beyond() == (f"the cases in flight when the model budget was reached {said}: "
                               "a budget starts no new case, and lets those running end")
    quiet = ModelBudget(NullEvents(), _Executor(), cost=cost, tokens=tokens)
    quiet.case_finished("d1", _spent(0.02), final=True)
    assert quiet.beyond() == ""
