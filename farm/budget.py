"""A run's model budget (--max-model-cost USD, --max-model-tokens N): once the cases that
finished have spent it, the run starts no more cases; the ones not started end skipped, saying
why, and the run's exit code is 3 (infrastructure) unless a failure already made it nonzero.

Cases in flight when the budget is reached finish normally: a case's spend is known when it
ends (its attempts', retries included), and each ai step's round cap bounds what a case in
flight can still spend. A local run and a cluster run count alike (the run's own process
counts the results its executor reports).

What an endpoint does not say is counted, not left out: a reply without token usage has its
tokens estimated (litellm's token counter over the request and the reply) and priced, a request
that timed out its prompt's; a cost budget over a model litellm cannot price does not start
without a token budget beside it (`farm.llm.models.unpriced_cost_budget`, exit 4)."""

from __future__ import annotations

import logging
from typing import Any

from farm.relay import RelayEvents
from farm.results import CaseResult, RunSummary, case_usage
from farm.usage import Usage

log = logging.getLogger("farm.budget")

NOT_RUN = "not run: "       # the reason of the cases the budget left out starts so


class ModelBudget(RelayEvents):
    """RunEvents around another: counts each final result's model spend, and tells the
    executor to start no more cases once it reaches ``cost`` (USD) or ``tokens``. ``names``:
    how a message names each limit (``--max-model-cost``, ``FARM_MAX_MODEL_COST``)."""

    def __init__(self, inner: Any, executor: Any, cost: float | None, tokens: int | None,
                 names: tuple[str, str] = ("--max-model-cost", "--max-model-tokens")) -> None:
        super().__init__(inner)
        self.executor = executor
        self.cost, self.tokens, self.names = cost, tokens, names
        self.spent = Usage()
        self.reached: str | None = None     # what was spent, of which limit
        self._at_reach: tuple[int, float] | None = None   # (tokens, USD) spent then
        self.unpriced = ""                  # the warning, once, when some call was not counted

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        super().case_finished(device, result, final)
        if not final:
            return
        self.spent.add(case_usage(result))
        if not self.unpriced:
            self.unpriced = self._uncounted()
            if self.unpriced:
                log.warning("%s", self.unpriced)
        if self.reached is None:
            self.reached = self._over()
            if self.reached:
                self._at_reach = (self._tokens(), self.spent.cost_usd)
                self.executor.stop_taking(NOT_RUN + self.reached)

    def beyond(self) -> str:
        """At the run's end: what the cases in flight when the budget was reached spent after
        it ("" when nothing): the console said the budget's figure, then a total up to a case
        a device higher, and nothing joined the two."""
        if self._at_reach is None:
            return ""
        tokens, usd = self._tokens(), self.spent.cost_usd
        if self.cost is not None:
            more, total = usd - self._at_reach[1], f"${usd:.4f}"
            said = f"${more:.4f}" if more > 0 else ""
        else:
            more, total = tokens - self._at_reach[0], f"{tokens:,} tokens"
            said = f"{more:,} tokens" if more > 0 else ""
        return (f"the cases in flight when the model budget was reached spent {said} more "
                f"({total} in all): a budget starts no new case, and lets those running end"
                if said else "")

    def _tokens(self) -> int:
        return self.spent.prompt_tokens + self.spent.completion_tokens

    def _uncounted(self) -> str:
        """What the limits set cannot count of the spend so far ("" when nothing): calls
        without a price (cost), what a request that timed out answered (both; its prompt is
        counted as estimated, as a reply without usage is whole: `farm.llm.litellm_client`)."""
        if self.spent.tokens_unknown:       # (a budget has one limit at least)
            limits = [n for n, v in zip(self.names, (self.cost, self.tokens)) if v is not None]
            return (f"some model requests timed out or their answer could not be read: "
                    f"{' and '.join(limits)} count{'s' if len(limits) == 1 else ''} their "
                    "prompts' tokens as estimated, not what they answered")
        if self.cost is not None and self.spent.cost_unknown:
            return (f"some model calls had no known price (litellm's cost map does not list "
                    f"the model): {self.names[0]} counts the priced ones only; "
                    f"{self.names[1]} counts every call's tokens")
        return ""

    def _over(self) -> str | None:
        tokens = self._tokens()
        if self.cost is not None and self.spent.cost_usd >= self.cost:
            limit = _as_written(self.cost)
            return (f"the run's model budget ({self.names[0]} {limit}) was spent: "
                    f"${self.spent.cost_usd:.4f}")
        if self.tokens is not None and tokens >= self.tokens:
            return (f"the run's model budget ({self.names[1]} {self.tokens}) was spent: "
                    f"{tokens:,} tokens")
        return None


def _as_written(usd: float) -> str:
    """A limit as the user wrote it, in plain digits: 0.0000001 (not "0": six decimals
    rounded it away), 5 (not "5.0")."""
    from decimal import Decimal
    plain = format(Decimal(repr(usd)), "f")
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def not_run(summary: RunSummary, reached: str | None) -> int:
    """How many of the run's cases the budget left out."""
    if not reached:
        return 0
    return sum(1 for c in summary.cases
               if c.status == "skipped" and c.reason == NOT_RUN + reached)


def stopped_line(summary: RunSummary) -> str:
    """The console's and the report's line for a run its budget stopped ("" for others)."""
    if not summary.stopped:
        return ""
    return f"{summary.stopped}: {not_run(summary, summary.stopped)} case(s) not run"
