"""Usage: tokens, cost and time spent on model calls — per call, per step, per case.

One type from the model client to results.json and the report (JSON keys as written there),
and the one wording of tokens and cost (`tokens_text`, `cost_text`) that the console, the
report, JUnit and the history page all use: "cost unknown" when no call's cost is known,
"$0.0123 (partly unknown)" when some is, "$0.0123" when all is; tokens likewise, and
"(partly estimated)" for what farm counted itself (a reply without usage).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_serializer, field_validator


class Usage(BaseModel):
    """Token and cost accounting for one or more model calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_unknown: bool = False      # some call's model is missing from litellm's cost map
    tokens_unknown: bool = False    # some call's reply said nothing of its tokens (counted 0)
    latency_s: float = 0.0
    calls: int = 0
    retries: int = 0                # re-sent requests after 429 / 5xx / timeouts
    timeouts: int = 0               # requests that got no answer in their time (perhaps billed)
    # some call's tokens were estimated (litellm's token counter over the request and the
    # reply): a reply without usage, a request that timed out (its prompt; what it answered
    # is unknown); its cost is the estimate's price
    tokens_estimated: bool = False
    # how many of the usages added had an unknown cost / tokens, so `minus` can tell whether
    # the calls since a snapshot had (the flags stay set once any call had); not written out
    cost_unknown_parts: int = Field(default=0, exclude=True, repr=False)
    tokens_unknown_parts: int = Field(default=0, exclude=True, repr=False)
    tokens_estimated_parts: int = Field(default=0, exclude=True, repr=False)

    @field_serializer("cost_usd")
    def _cost(self, value: float) -> float:
        return round(value, 8)

    @field_serializer("prompt_tokens", "completion_tokens")
    def _count(self, value: int) -> int | None:
        """null where no token was counted and the count is unknown (a call cut short: its 0
        is no count, as `tokens_text` says "tokens unknown")."""
        return None if self.unknown_count else value

    @field_validator("prompt_tokens", "completion_tokens", mode="before")
    @classmethod
    def _counted(cls, value: Any) -> Any:
        return 0 if value is None else value      # (written null: unknown, nothing counted)

    @property
    def unknown_count(self) -> bool:
        """Whether its token count is unknown and none was counted: written null, not 0."""
        return self.tokens_unknown and not (self.prompt_tokens or self.completion_tokens)

    @field_serializer("latency_s")
    def _latency(self, value: float) -> float:
        return round(value, 3)

    @property
    def spent(self) -> bool:
        """Any model call made or re-sent."""
        return bool(self.calls or self.retries)

    def add(self, other: "Usage") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.cost_unknown = self.cost_unknown or other.cost_unknown
        self.tokens_unknown = self.tokens_unknown or other.tokens_unknown
        self.latency_s += other.latency_s
        self.calls += other.calls
        self.retries += other.retries
        self.timeouts += other.timeouts
        self.tokens_estimated = self.tokens_estimated or other.tokens_estimated
        self.tokens_estimated_parts += other.tokens_estimated_parts or int(
            other.tokens_estimated)
        self.cost_unknown_parts += other.cost_unknown_parts or int(other.cost_unknown)
        self.tokens_unknown_parts += other.tokens_unknown_parts or int(other.tokens_unknown)

    def tokens_text(self, shown: str = "") -> str:
        """`tokens_text` of these calls' tokens."""
        return tokens_text(self.prompt_tokens + self.completion_tokens, self.tokens_unknown,
                           shown, self.tokens_estimated)

    def cost_text(self) -> str:
        """`cost_text` of these calls' cost."""
        return cost_text(self.cost_usd, self.cost_unknown, self.tokens_estimated)

    @property
    def requests(self) -> int:
        """HTTP requests sent: each call's first and its retries."""
        return self.calls + self.retries

    def requests_text(self) -> str:
        """" (3 requests: 2 retried, 3 timed out)" when a call was re-sent or timed out (each
        request may be billed), else "": one call is not one request then."""
        said = [f"{n} {what}" for n, what in ((self.retries, "retried"),
                                              (self.timeouts, "timed out")) if n]
        if not said:
            return ""
        if self.requests == 1:
            return " (its request timed out)"
        return f" ({self.requests} requests: {', '.join(said)})"

    def summary(self) -> str:
        """"2 call(s), 3,150 tokens, $0.0300": the console's and JUnit's model line; "1
        call(s) (3 requests: 2 retried, 3 timed out), …" when requests were re-sent."""
        return (f"{self.calls} call(s){self.requests_text()}, {self.tokens_text()}, "
                f"{self.cost_text()}")

    def copy(self) -> "Usage":  # type: ignore[override]
        return self.model_copy()

    def minus(self, before: "Usage") -> "Usage":
        """The usage accrued since the snapshot ``before``."""
        return Usage(prompt_tokens=self.prompt_tokens - before.prompt_tokens,
                     completion_tokens=self.completion_tokens - before.completion_tokens,
                     cost_usd=round(self.cost_usd - before.cost_usd, 8),
                     cost_unknown=_since(self.cost_unknown, self.cost_unknown_parts,
                                         before.cost_unknown_parts, self.calls > before.calls),
                     tokens_unknown=_since(self.tokens_unknown, self.tokens_unknown_parts,
                                           before.tokens_unknown_parts,
                                           self.calls > before.calls),
                     latency_s=round(self.latency_s - before.latency_s, 3),
                     tokens_estimated=_since(self.tokens_estimated,
                                             self.tokens_estimated_parts,
                                             before.tokens_estimated_parts,
                                             self.calls > before.calls),
                     calls=self.calls - before.calls, retries=self.retries - before.retries,
                     timeouts=self.timeouts - before.timeouts)


def _since(unknown: bool, parts: int, parts_before: int, called: bool) -> bool:
    """Whether the calls since a snapshot had an unknown part: counted when the usage was
    summed here (a call priced after an unpriced one is known), else any new call's."""
    return parts > parts_before if parts else unknown and called


def tokens_text(total: int, unknown: bool, shown: str = "", estimated: bool = False) -> str:
    """A token count as every output words it: "3,150 tokens"; "3,150 tokens (partly
    unknown)" when some of it could not be counted (what a request that timed out
    answered); "tokens unknown" when none is known (a 0 counted for them is no count);
    "3,150 tokens (partly estimated)" when farm counted some itself (litellm's token counter:
    a reply without usage, a timed-out request's prompt). ``shown``: the number as written
    when not the total ("1,200 + 80")."""
    if unknown and not total:
        return "tokens unknown"
    return f"{shown or f'{total:,}'} tokens" + _partly(estimated, unknown)


def cost_text(usd: float, unknown: bool, estimated: bool = False) -> str:
    """A cost as every output words it: "$0.0300"; "$0.0300 (partly unknown)" when some call
    was not priced (a model missing from litellm's cost map, what a request that timed out
    answered); "cost unknown" when none was (its $0 is not a price); "(partly estimated)"
    when some was priced from tokens farm counted."""
    if unknown and not usd:
        return "cost unknown"
    return f"${usd:.4f}" + _partly(estimated, unknown)


def _partly(estimated: bool, unknown: bool) -> str:
    said = [w for w, on in (("partly estimated", estimated), ("partly unknown", unknown)) if on]
    return f" ({', '.join(said)})" if said else ""
