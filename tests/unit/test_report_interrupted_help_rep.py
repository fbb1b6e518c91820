"""The report's word for an interrupted case, on hover over its badge and the header's count:
it said "interrupted by the user" for every one, also for the cases of a run a CI timeout
killed (`farm report` rebuilt from its journal) or the OOM killer stopped, sending the
morning's reader to ask who pressed Ctrl-C."""

from __future__ import annotations

import html
import re

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary

RUN = "20261206-020000-ab12"


def _case(cid: str, status: str, reason: str | None = None) -> CaseResult:
    return CaseResult(run_id=RUN, case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", status=status, reason=reason, device="browser-1",
                      started="2026-12-06T02:00:01.000+00:00", duration=1.0)


def test_an_interrupted_case_is_not_said_to_be_the_users_doing(tmp_path):
    summary = RunSummary(run_id=RUN, started="2026-12-06T02:00:00+00:00", interrupted=True,
                         cases=[_case("a", "passed"), _case(
                             "b", "interrupted", "farm stopped while it ran: its steps were "
                             "not saved")])
    page = render_html(summary, tmp_path)
    titles = {html.unescape(t) for t in re.findall(
        r'class="(?:badge|count) st-interrupted[^"]*" title="([^"]*)"', page)}
    assert titles, "no interrupted badge found"
    for title in titles:
        assert "user" not in title
        assert "farm was stopped" in title and "killed" in title
