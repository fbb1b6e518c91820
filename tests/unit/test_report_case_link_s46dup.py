"""A case's link is written the same in its permalink (``#``) and on the timeline's bar: a bar
clicked opens that case, whatever its id holds (spaces, ``#``, ``%``, non-ASCII)."""

from __future__ import annotations

import re

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary

ODD_ID = "demo/log in #1 %20 ü&\"x\""


def test_the_timeline_bar_and_the_permalink_link_the_same_case(tmp_path):
    case = CaseResult(run_id="r1", case_id=ODD_ID, name="login", file="s/login.yaml",
                      platform="web", device="browser-1", status="failed",
                      started="2026-12-04T10:00:02+00:00", duration=3.0)
    summary = RunSummary(run_id="r1", started="2026-12-04T10:00:00+00:00", cases=[case])
    summary.recount()
    html = render_html(summary, tmp_path)
    bar = re.search(r'<a class="bar [^"]*" href="([^"]+)"', html).group(1)
    permalink = re.search(r'<a class="permalink" href="([^"]+)"', html).group(1)
    assert bar == permalink
    # readable in a chat: the separators stay, what a URL cannot hold is quoted
    assert permalink == "#case=demo/log%20in%20%231%20%2520%20%C3%BC%26%22x%22"
