"""`farm report --history --suite rt`: the page's header names the suite the page shows, not
every suite of the history (it listed "js, relmissing, rt, …" on a page filtered to rt)."""

from __future__ import annotations

import re

from farm.report.history_page import render_history
from farm.results import CaseResult, RunSummary
from farm.results_history import record_for


def _run(day: int) -> RunSummary:
    cases = [CaseResult(run_id=f"r{day}", case_id=f"{suite}/c", name="c", file=f"{suite}/c.yaml",
                        platform="web", status="passed", duration=1.0)
             for suite in ("js", "relmissing", "rt", "ty")]
    summary = RunSummary(run_id=f"r{day}", started=f"2026-01-{day:02d}T02:00:00+00:00",
                         cases=cases)
    summary.recount()
    return summary


def _suites_shown(page: str) -> str:
    found = re.search(r"<dt>Suites</dt><dd>([^<]*)</dd>", page)
    assert found, page[:2000]
    return found.group(1)


def test_the_header_of_one_suite_s_page_names_that_suite(tmp_path):
    records = [record_for(_run(1)), record_for(_run(2))]
    page = render_history(records, tmp_path, suite="rt", window="last 7d")
    assert _suites_shown(page) == "rt"
    assert "suite rt" in page


def test_the_header_of_the_whole_history_names_every_suite(tmp_path):
    page = render_history([record_for(_run(1))], tmp_path)
    assert _suites_shown(page) == "js, relmissing, rt, ty"
