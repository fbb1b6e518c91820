"""farm_model_unpriced_requests_total: the model requests whose cost farm_model_cost_usd_total
counted as $0 because it is not known, there at 0 for a configured family (increase() has a
base) and counted once per request, whatever an earlier attempt of the same call was."""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from farm import metrics
from farm.usage import Usage


def unpriced(tmp_path: Path, family: str) -> dict[str, float]:
    metrics.write_textfile(tmp_path / "metrics.prom")
    return {s.labels["tokens"]: s.value
            for f in text_string_to_metric_families((tmp_path / "metrics.prom").read_text())
            for s in f.samples if s.name == "farm_model_unpriced_requests_total"
            and s.labels["family"] == family}


def test_a_configured_family_starts_at_zero(tmp_path):
    metrics.model_family("h10-fresh")
    assert unpriced(tmp_path, "h10-fresh") == {"counted": 0.0, "unknown": 0.0}


def test_each_request_of_unknown_cost_counts_once(tmp_path):
    """A priced reply, a free one (a local model litellm prices at $0), a 429: none. A model
    litellm cannot price: tokens counted. A reply without usage, a timeout: tokens unknown.
    A priced reply after a timeout of the same call (its usage flagged by the timeout): none."""
    f = "h10-mixed"
    metrics.model_request(f, "ok", 1, Usage(prompt_tokens=9, completion_tokens=1, cost_usd=0.01))
    metrics.model_request(f, "ok", 1, Usage(prompt_tokens=9, completion_tokens=1))
    metrics.model_request(f, "error", 1)
    metrics.model_request(f, "ok", 1, Usage(prompt_tokens=9, completion_tokens=1,
                                            cost_unknown=True))
    metrics.model_request(f, "ok", 1, Usage(cost_unknown=True, tokens_unknown=True))
    metrics.model_request(f, "timeout", 1)
    metrics.model_request(f, "ok", 1, Usage(prompt_tokens=9, completion_tokens=1, cost_usd=0.01,
                                            cost_unknown=True, tokens_unknown=True, retries=1))
    assert unpriced(tmp_path, f) == {"counted": 1.0, "unknown": 2.0}


def test_the_caller_can_say_what_it_knows(tmp_path):
    """A 200 cut mid-body is an error to the client but was billed: said by the caller."""
    f = "h10-said"
    metrics.model_request(f, "error", 1, unpriced="unknown")
    metrics.model_request(f, "timeout", 1, unpriced="")      # never sent (a connect timeout)
    assert unpriced(tmp_path, f) == {"counted": 0.0, "unknown": 1.0}
