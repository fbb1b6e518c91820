"""farm's exported HELP lines name every label value farm counts (farm/metrics.py): a result
added to CACHE_RESULTS or LOCATE_RESULTS is in HELP too, as a scraper or `curl /metrics`
reads it."""

from __future__ import annotations

import re

import prometheus_client

from farm import metrics


def _help(name: str) -> str:
    text = prometheus_client.generate_latest(metrics.REGISTRY).decode()
    return re.search(rf"^# HELP {name} (.*)$", text, re.M).group(1)


def test_cache_requests_help_names_every_result_met49():
    """result="replay-failed" and "replay-error" are exported: HELP names them, per cache."""
    text = _help("farm_cache_requests_total")
    for cache, results in metrics.CACHE_RESULTS.items():
        named = re.search(rf"{cache}: ([a-z| -]+)", text)
        assert named, text
        assert [r.strip() for r in named.group(1).split("|")] == list(results), text
    assert "replay-failed" in text and "replay-error" in text


def test_locate_attempts_help_names_every_result_met49():
    text = _help("farm_locate_attempts_total")
    named = re.search(r"\(([a-z| ]+)\)", text).group(1)
    assert [r.strip() for r in named.split("|")] == list(metrics.LOCATE_RESULTS), text
