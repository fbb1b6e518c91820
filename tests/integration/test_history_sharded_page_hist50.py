"""Five nights of a nightly sharded over 3 CI jobs (``farm run --shard I/3``, one results
history), read in real Chromium: the history page said "Runs 15, Partial runs 15" with no
pass-rate line, and its "what changed" was the last shard's alone. Now each night is one
run: on the line, its rate over all 9 cases, its shards' reports linked from its row."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SHARDS = {1: ["app/a1", "app/a2", "app/a3"], 2: ["app/b1", "app/b2", "app/b3"],
          3: ["app/c1", "app/c2", "app/c3"]}
RED = {1: {"app/c3"}, 2: {"app/c3", "app/b2"}, 3: {"app/c3"}, 4: {"app/c3"},
       5: {"app/c3", "app/a2"}}
GROUPS = {1: "9001-1", 2: "9002-1", 3: "9003-1", 4: "9004-1", 5: None}   # night 5 by hand
MISSING = {4: 3}        # night 4's shard 3 job died before writing anything


def _shard(night: int, index: int, minute: int):
    from farm.results import CaseError, CaseResult, DeselectedCase, RunSummary
    run_id, started = f"n{night}-s{index}", f"2026-12-{night:02d}T02:{minute:02d}:00+00:00"
    cases = [CaseResult(run_id=run_id, case_id=c, name=c.split("/")[1], file=f"{c}.yaml",
                        platform="web", device="browser-1", duration=60.0, started=started,
                        status="failed" if c in RED[night] else "passed",
                        error=CaseError(kind="AssertionFailed", message=f"{c} broke", step=1)
                        if c in RED[night] else None)
             for c in SHARDS[index]]
    others = [DeselectedCase(case_id=c, name=c, file=f"{c}.yaml", platform="web",
                             reason=f"--shard: in shard {j}/3")
              for j, ids in SHARDS.items() if j != index for c in ids]
    summary = RunSummary(run_id=run_id, started=started, duration=180.0, cases=cases,
                         deselected=others, shard=f"{index}/3", run_group=GROUPS[night],
                         devices=["browser-1"])
    summary.recount()
    return summary


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each shard's run as `farm run` leaves it (report.html, its verdicts against the
    history), shards started 10 minutes apart, 3 then 1 then 2; the history page after."""
    from farm.report.history_page import write_history
    from farm.report.html import write_html
    from farm.results_history import SqliteResults, record_for, since_last
    tmp = tmp_path_factory.mktemp("sharded")
    store = SqliteResults(tmp / "results.sqlite")
    for night in range(1, 6):
        for minute, index in enumerate((3, 1, 2)):
            if MISSING.get(night) == index:
                continue
            summary = _shard(night, index, minute * 10)
            for case_id, verdict in since_last(store.runs(), summary).items():
                next(c for c in summary.cases if c.case_id == case_id).since_last = verdict
            report = write_html(summary, tmp / summary.run_id)
            store.add(record_for(summary, report))
    return write_history(store, tmp / "history.html")


def test_each_sharded_night_is_one_run_on_the_line_hist50(page, viewer_page,
                                                          page_errors) -> None:
    viewer_page.goto(page.as_uri())
    assert viewer_page.locator("#run-count").inner_text() == "5"
    assert viewer_page.locator("#partial-count").inner_text() == "1"
    assert viewer_page.locator("#pass-rate line.dot").count() == 4
    assert viewer_page.locator("#latest-rate").inner_text().startswith(
        "The line's last point: 77.8% of 9 case(s), run n5-s3")
    night4 = viewer_page.locator('#runs tr[data-run="9004-1"]')
    assert "shard 3/3 missing" in night4.locator("td").first.inner_text()
    rows = viewer_page.locator("#runs tbody tr")
    assert rows.count() == 5
    newest = rows.first.locator("td")
    assert "3 shard(s) · reports: 1/3 2/3 3/3" in newest.first.inner_text()
    assert newest.nth(3).inner_text() == "7 / 9"
    assert page_errors == []


def test_what_changed_spans_every_shard_and_opens_its_report_hist50(page, viewer_page,
                                                                     page_errors) -> None:
    viewer_page.goto(page.as_uri())
    verdicts = {r.get_attribute("data-case"): r.locator("td.verdict").inner_text()
                for r in viewer_page.locator("#latest tbody tr").all()}
    assert verdicts == {"app/a2": "new failure", "app/c3": "still failing"}
    viewer_page.locator('#latest tr[data-case="app/c3"] a').click()
    assert viewer_page.url.split("#")[0].endswith("/n5-s3/report.html")
    assert page_errors == []
