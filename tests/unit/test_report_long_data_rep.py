"""A case's named output too long for the report's Data table says it was cut there (its whole
value is in results.json), instead of showing the first 2000 characters as if they were all."""

from __future__ import annotations

import re
from html import unescape

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary


def _report(data: dict) -> str:
    case = CaseResult(run_id="r", case_id="s/q", name="q", file="s/q.yaml", platform="web",
                      status="passed", data=data)
    summary = RunSummary(run_id="r", started="2026-12-04T10:00:00+00:00", cases=[case])
    summary.recount()
    return render_html(summary)


def _cells(html: str) -> dict[str, str]:
    return dict(re.findall(r"<tr><td><code>([^<]*)</code><td><code>([^<]*)</code>", html))


def test_a_long_value_is_shown_cut_with_a_mark_and_a_short_one_whole():
    cells = _cells(_report({"rows": ["x" * 50] * 100, "n": 3}))
    assert cells["n"] == "3"
    assert cells["rows"].endswith("…") and len(unescape(cells["rows"])) == 2000
    assert cells["rows"].startswith("[&quot;xxxx")
