"""The history page counts what a retried case spent on every attempt, as the run's own report
(and metrics.prom) does: a case that failed once and passed on its retry, each attempt two
model calls, is 4,200 tokens on both pages, not the final attempt's 2,100."""

from __future__ import annotations

import re

from farm.report.history_page import render_history
from farm.report.html import render_html
from farm.results import CaseError, CaseResult, RunSummary
from farm.results_history import SqliteResults, record_for
from farm.usage import Usage

STARTED = "2026-01-05T02:00:00+00:00"


def attempt(n: int, status: str) -> CaseResult:
    """One attempt that made two model calls (1,000 + 50 tokens each, $0.0015 a call)."""
    usage = Usage(prompt_tokens=2000, completion_tokens=100, cost_usd=0.003, latency_s=1.5,
                  calls=2)
    error = CaseError(kind="AssertionFailed", message="not yet") if status == "failed" else None
    return CaseResult(run_id="r1", case_id="demo/ai", name="AI logs in", file="demo/ai.yaml",
                      platform="web", device=f"browser-{n}", attempt=n, status=status,
                      error=error, started=STARTED, duration=3.0, usage=usage,
                      tokens={"prompt": 2000, "completion": 100})


def retried_run() -> RunSummary:
    final = attempt(2, "flaky")
    final.previous = [attempt(1, "failed")]
    summary = RunSummary(run_id="r1", started=STARTED, duration=7.0, cases=[final])
    summary.recount()
    return summary


def row(html: str, run_id: str) -> list[str]:
    """The cells of the history page's row for ``run_id``."""
    found = re.search(rf'<tr data-run="{run_id}">(.*?)(?:<tr|</tbody>)', html, re.S)
    assert found, html
    return [re.sub(r"<[^>]+>", "", "<td" + cell).strip()
            for cell in found.group(1).split("<td")[1:]]


def test_the_history_row_counts_the_tokens_and_cost_of_every_attempt(tmp_path):
    summary = retried_run()
    report = render_html(summary)
    assert "completion 200 · prompt 4,000" in report and "$0.0060" in report
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(summary))
    page = render_history(store.runs(), tmp_path)
    cells = row(page, "r1")
    assert "4,200 tokens" in cells and "$0.0060" in cells, cells   # not 2,100 / $0.0030
    assert "3.0 s" in cells                                       # model time of both attempts
    spend = re.search(r"Model tokens and cost per case.*?</table>", page, re.S)
    assert spend and "4,200" in spend.group(0) and "$0.0060" in spend.group(0)


def test_one_suite_s_page_shows_that_suite_s_model_time_as_its_tokens_and_cost():
    """`farm report --history --suite a` of runs holding suites a and b showed a's tokens and
    cost beside the whole run's model time (b's calls too). A record from before cases kept
    their model time still shows the run's (its cases' is not known)."""
    from farm.report.trends import only_suite
    from farm.results import CaseResult, RunSummary
    from farm.results_history import RunRecord, record_for
    from farm.usage import Usage

    def case(case_id: str, seconds: float) -> CaseResult:
        return CaseResult(run_id="r", case_id=case_id, name=case_id, file=f"{case_id}.yaml",
                          platform="web", status="passed", usage=Usage(
                              prompt_tokens=100, completion_tokens=10, calls=2,
                              latency_s=seconds))
    summary = RunSummary(run_id="r", started="2026-01-01T02:00:00+00:00",
                         cases=[case("a/x", 2.0), case("a/y", 1.5), case("b/z", 5.0)])
    summary.recount()
    record = record_for(summary)
    assert record.model_seconds == 8.5
    assert only_suite([record], "a")[0].model_seconds == 3.5
    older = RunRecord.model_validate_json(record.model_dump_json(
        exclude={"cases": {"__all__": {"model_seconds"}}}))
    assert only_suite([older], "a")[0].model_seconds == 8.5
