"""A run that made no model call (every plan replayed) wrote results.json's top-level
``usage: null``: a dashboard reading ``usage.prompt_tokens`` got null for a count that was 0.
It is the run's counts, 0 each; a case that called no model keeps ``usage: null`` (no call)."""

from __future__ import annotations

import json

from farm.results import CaseResult, RunSummary
from farm.usage import Usage


def _case(usage: Usage | None) -> CaseResult:
    return CaseResult(run_id="r", case_id="s/a", name="a", file="a.yaml", platform="web",
                      device="browser-1", status="passed", duration=1.0, usage=usage)


def test_a_run_with_no_model_call_counts_zero():
    data = json.loads(RunSummary(run_id="r", started="", cases=[_case(None)])
                      .model_dump_json())
    assert data["usage"]["prompt_tokens"] == 0 and data["usage"]["calls"] == 0
    assert data["usage"]["cost_usd"] == 0.0
    assert data["cases"][0]["usage"] is None


def test_a_run_that_called_sums_its_cases():
    spent = Usage(prompt_tokens=800, completion_tokens=20, calls=1)
    data = json.loads(RunSummary(run_id="r", started="", cases=[_case(spent), _case(None)])
                      .model_dump_json())
    assert (data["usage"]["prompt_tokens"], data["usage"]["calls"]) == (800, 1)
