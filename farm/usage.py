"""Usage: tokens, cost and time spent on model calls — per call, per step, per case.

One type from the model client to results.json and the report (JSON keys as written there).
"""

from __future__ import annotations

from pydantic import BaseModel, field_serializer


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

    @field_serializer("cost_usd")
    def _cost(self, value: float) -> float:
        return round(value, 8)

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

    def tokens_text(self) -> str:
        """"3,150 tokens", with "(partly unknown)" when some reply said nothing of its tokens,
        or "tokens unknown" when none did."""
        total = self.prompt_tokens + self.completion_tokens
        if self.tokens_unknown:
            return f"{total:,} tokens (partly unknown)" if total else "tokens unknown"
        return f"{total:,} tokens"

    def copy(self) -> "Usage":  # type: ignore[override]
        return self.model_copy()

    def minus(self, before: "Usage") -> "Usage":
        """The usage accrued since the snapshot ``before``."""
        return Usage(prompt_tokens=self.prompt_tokens - before.prompt_tokens,
                     completion_tokens=self.completion_tokens - before.completion_tokens,
                     cost_usd=round(self.cost_usd - before.cost_usd, 8),
                     cost_unknown=self.cost_unknown and self.calls > before.calls,
                     tokens_unknown=self.tokens_unknown and self.calls > before.calls,
                     latency_s=round(self.latency_s - before.latency_s, 3),
                     calls=self.calls - before.calls, retries=self.retries - before.retries)
