"""Token panels that disagree when model requests time out (SRE journey): farm_case_tokens_total
has farm's estimate of the prompt of a request that got no answer, farm_model_tokens_total
(what the endpoint reported) 0 for it. Both say so where an SRE reads them: the HELP line on
/metrics and the "Tokens per hour" panel's description."""

from __future__ import annotations

import json
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from farm import metrics

ROOT = Path(__file__).resolve().parents[2]


def test_the_case_tokens_help_says_it_counts_what_the_model_series_does_not() -> None:
    metrics.CASE_TOKENS.labels("web", "prompt")
    text = metrics.exposition().decode()
    helps = {f.name: f.documentation for f in text_string_to_metric_families(text)}
    assert "farm_model_tokens_total counts as 0" in helps["farm_case_tokens"], helps


def test_the_tokens_per_hour_panel_says_unanswered_requests_count_0_there() -> None:
    board = json.loads((ROOT / "deploy" / "grafana" / "farm.json").read_text())
    panel = next(p for p in board["panels"] if p.get("title") == "Tokens per hour")
    said = panel.get("description", "")
    assert 'farm_model_unpriced_requests_total{tokens="unknown"}' in said, said
    assert "Tokens and cost per case" in said, said
