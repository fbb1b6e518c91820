"""A case whose model call was cut short (Ctrl-C during the wait) has no token count: its
results.json says null, never a count of 0 beside ``tokens_unknown: true`` (README: "tokens
unknown, never a count of 0"); the report, the history and a merge read it back as before."""

from __future__ import annotations

import json

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary, read_results, write_json
from farm.report.merge import read_run
from farm.results_history import record_for
from farm.usage import Usage


def cut_short(**extra) -> CaseResult:
    return CaseResult(run_id="r1", case_id="s/login", name="login", file="s/login.yaml",
                      platform="web", status="error", tokens={"prompt": 0, "completion": 0},
                      usage=Usage(calls=1, tokens_unknown=True, cost_unknown=True), **extra)


def written(tmp_path, case: CaseResult) -> dict:
    summary = RunSummary(run_id="r1", started="2026-01-01T00:00:00+00:00", cases=[case],
                         interrupted=True)
    write_json(tmp_path / "results.json", summary)
    return json.loads((tmp_path / "results.json").read_text())


def test_unknown_token_counts_are_written_null_agt50(tmp_path):
    data = written(tmp_path, cut_short())
    case = data["cases"][0]
    assert case["tokens"] == {"prompt": None, "completion": None}
    assert case["usage"]["tokens_unknown"] is True
    assert (case["usage"]["prompt_tokens"], case["usage"]["completion_tokens"]) == (None, None)
    assert (data["usage"]["prompt_tokens"], data["usage"]["completion_tokens"]) == (None, None)


def test_a_retried_case_with_unknown_tokens_writes_null_for_both_agt50(tmp_path):
    case = written(tmp_path, cut_short(attempt=2, previous=[cut_short()]))["cases"][0]
    assert case["tokens"] == case["attempt_tokens"] == {"prompt": None, "completion": None}


def test_known_counts_beside_an_unknown_part_stay_counts_agt50(tmp_path):
    partly = cut_short().model_copy(update={
        "tokens": {"prompt": 900, "completion": 20},
        "usage": Usage(calls=2, prompt_tokens=900, completion_tokens=20, tokens_unknown=True)})
    case = written(tmp_path, partly)["cases"][0]
    assert case["tokens"] == {"prompt": 900, "completion": 20}
    assert case["usage"]["prompt_tokens"] == 900


def test_null_counts_read_back_for_the_report_and_history_agt50(tmp_path):
    written(tmp_path, cut_short())
    summary, _, problem = read_results(tmp_path / "results.json")
    assert problem is None and summary is not None
    assert summary.cases[0].tokens == {"prompt": 0, "completion": 0}
    assert summary.cases[0].usage.tokens_text() == "tokens unknown"
    assert "tokens unknown" in render_html(summary, tmp_path)
    assert record_for(summary).cases[0].tokens_unknown is True
    assert read_run(tmp_path / "results.json").summary.cases[0].usage.tokens_unknown
