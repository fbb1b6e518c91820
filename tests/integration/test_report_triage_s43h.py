"""The morning after eight nightlies, read in real Chromium: a QA lead's triage of the run
reports and `farm report --history` (the nightly of /tmp/j5, shaped as farm records it).

Found there: "flaky" meant two things on one page (a case FAILED after 2 attempts had a
"flaky" chip; a case failing 4 of 7 nights was called *fixed* on a pass); a run killed after
6 s emptied the history's triage and had no mark on the chart; the one new failure of a night
was third of four failed rows with nothing to count or filter it; Back skipped the filter
picked before a search."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

P, F, FL, S, I = "passed", "failed", "flaky", "skipped", "interrupted"
NIGHTS = {     # case → its status each night; night 8 was stopped (SIGINT) after 6 s
    "nightly/flaky_noretry": [P, P, F, F, F, F, P, S],
    "nightly/flaky_random": [FL, F, F, P, P, FL, F, S],
    "nightly/missing_button": [F, F, F, F, F, F, F, I],
    "nightly/new_regression": [P, P, P, P, F, F, F, S],
    "nightly/wrong_total": [F, F, F, F, F, F, F, S],
    "nightly/add_to_cart": [P, P, P, P, P, P, P, S],
}
TAGS = {"nightly/add_to_cart": ["nightly", "cart"], "nightly/wrong_total": ["nightly", "cart"]}


def _case(run_id: str, case_id: str, status: str, n: int):
    from farm.results import CaseError, CaseResult
    red = status in (F, FL)
    error = CaseError(kind="AssertionFailed", message=f"{case_id} broke", step=1) if red else None
    case = CaseResult(run_id=run_id, case_id=case_id, name=case_id.split("/")[1],
                      file=f"{case_id}.yaml", platform="web",
                      device=None if status == S else "browser-1",
                      status=status, error=None if status == FL else error, duration=1.0,
                      tags=TAGS.get(case_id, ["nightly"]),
                      started=f"2026-12-{n:02d}T02:00:00+00:00")
    if status == FL:
        case.previous = [case.model_copy(update={"status": F, "error": error, "attempt": 1})]
        case.attempt = 2
    return case


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Eight runs into one results history, each run's report.html written as `farm run`
    writes it (its red cases compared with the runs before), and the history page after
    night 7 and after night 8."""
    from farm.report.history_page import write_history
    from farm.report.html import write_html
    from farm.results import RunSummary
    from farm.results_history import SqliteResults, record_for, since_last
    tmp = tmp_path_factory.mktemp("nights")
    store = SqliteResults(tmp / "results.sqlite")
    out: dict = {}
    for n in range(1, 9):
        run_id = f"night{n}"
        summary = RunSummary(run_id=run_id, started=f"2026-12-{n:02d}T02:00:00+00:00",
                             devices=["browser-1"], interrupted=n == 8,
                             cases=[_case(run_id, c, s[n - 1], n) for c, s in NIGHTS.items()])
        summary.recount()
        for case_id, verdict in since_last(store.runs(), summary).items():
            next(c for c in summary.cases if c.case_id == case_id).since_last = verdict
        out[n] = write_html(summary, tmp / run_id)
        store.add(record_for(summary, out[n]))
        if n >= 7:
            out[f"history{n}"] = write_history(store, tmp / f"history{n}.html")
    return out


def _verdicts(page) -> dict[str, str]:
    rows = page.locator("#latest tbody tr")
    return {r.get_attribute("data-case"): r.locator("td.verdict").inner_text()
            for r in rows.all()}


def test_night_7_a_case_failed_after_2_attempts_is_unstable_not_flaky(
        nights, viewer_page, page_errors) -> None:
    viewer_page.goto(nights[7].as_uri())
    chip = viewer_page.locator('details[id="case=nightly/flaky_random"] .since')
    assert chip.inner_text() == "unstable across runs"
    assert "not flaky: it did not pass on a retry" in chip.get_attribute("title")
    assert viewer_page.locator("ul.counts").inner_text().count("flaky") == 0

    viewer_page.goto(nights["history7"].as_uri())
    assert _verdicts(viewer_page) == {
        "nightly/flaky_random": "failed (unstable across runs: 3 of last 7 failed, "
                                "2 flaky (passed on retry))",
        "nightly/missing_button": "still failing", "nightly/new_regression": "still failing",
        "nightly/wrong_total": "still failing",
        # passed nights 1-2, failed nights 3 to 6, passed on night 7: one red streak ended,
        # a regression mended (a case that went back and forth before it would be unstable)
        "nightly/flaky_noretry": "fixed"}
    assert viewer_page.locator("#flaky h2").inner_text().startswith("Unstable across runs")
    ranked = viewer_page.locator("#flaky tbody tr")
    assert [r.get_attribute("data-case") for r in ranked.all()] == [
        "nightly/flaky_random", "nightly/flaky_noretry"]
    heads = viewer_page.locator("#runs thead th").all_inner_texts()
    night7 = viewer_page.locator('#runs tr[data-run="night7"] td').all_inner_texts()
    said = dict(zip([h.upper() for h in heads], night7))
    assert (said["NEW FAILURES"], said["UNSTABLE ACROSS RUNS"], said["FLAKY (PASSED ON RETRY)"],
            said["FIXED"]) == ("0", "1", "0", "1")
    assert page_errors == []


def test_night_8_killed_after_6_s_keeps_last_nights_failures_and_its_mark_on_the_chart(
        nights, viewer_page, page_errors) -> None:
    viewer_page.goto(nights["history8"].as_uri())
    said = viewer_page.locator("#latest-interrupted").inner_text()
    assert said.startswith("It was interrupted: 0 case(s) finished in it; for the 5 case(s) "
                           "below that it did not finish, their state in the last complete "
                           "run (night7)")
    verdicts = _verdicts(viewer_page)
    assert verdicts["nightly/wrong_total"] == \
        "still failing\nas of night7: not finished in the newest run"
    assert sorted(verdicts) == ["nightly/flaky_noretry", "nightly/flaky_random",
                                "nightly/missing_button", "nightly/new_regression",
                                "nightly/wrong_total"]
    mark = viewer_page.locator('svg.chart g.cut-short[data-run="night8"]')
    assert mark.locator("circle").count() == 1 and mark.locator("circle").is_visible()
    assert "night8: interrupted before any case finished" in mark.locator("title").inner_html()
    assert "1 run(s) interrupted before any case finished (night8)" in \
        viewer_page.locator("#cut-short-legend").inner_text()
    assert page_errors == []


def test_night_5_says_1_new_failure_and_lists_it_first(nights, viewer_page, page_errors) -> None:
    viewer_page.goto(nights[5].as_uri())
    failed = viewer_page.locator('details.case[data-status="failed"]')
    assert failed.first.get_attribute("id") == "case=nightly/new_regression"
    count = viewer_page.locator("#new-count")
    assert count.inner_text() == "1 new failure"
    count.locator("a").click()
    assert viewer_page.url.endswith("#since=new-failure")
    assert viewer_page.locator("#shown").inner_text() == "1 of 6 cases"
    assert viewer_page.locator("details.case:not([hidden])").get_attribute("id") == \
        "case=nightly/new_regression"
    assert viewer_page.locator("select[data-pick=since]").input_value() == "new-failure"
    viewer_page.go_back()
    assert viewer_page.locator("#shown").inner_text() == "6 of 6 cases"
    assert page_errors == []


def test_back_undoes_a_search_then_the_filter_before_it(nights, viewer_page, page_errors) -> None:
    viewer_page.goto(nights[5].as_uri())
    shown = viewer_page.locator("#shown")
    viewer_page.locator("button[data-filter=failed]").click()
    viewer_page.select_option("select[data-pick=tag]", "cart")
    assert shown.inner_text() == "1 of 6 cases"
    viewer_page.locator("#search").press_sequentially("wrong")
    assert viewer_page.url.endswith("#status=failed&tag=cart&q=wrong")
    viewer_page.go_back()        # the search undone, the tag kept
    assert viewer_page.url.endswith("#status=failed&tag=cart")
    assert viewer_page.locator("#search").input_value() == ""
    viewer_page.go_back()        # then the tag
    assert viewer_page.url.endswith("#status=failed")
    assert shown.inner_text() == "4 of 6 cases"
    viewer_page.go_forward()
    viewer_page.go_forward()
    assert viewer_page.locator("#search").input_value() == "wrong"
    assert page_errors == []


def test_the_tag_menu_is_there_when_a_tag_leaves_some_cases_out(nights, viewer_page) -> None:
    viewer_page.goto(nights[5].as_uri())
    options = viewer_page.locator("select[data-pick=tag] option").all_inner_texts()
    assert options == ["all tags", "cart (2)", "nightly (6)"]


def test_a_tag_every_case_has_is_no_menu_and_one_some_have_is(tmp_path: Path,
                                                              viewer_page) -> None:
    from farm.report.html import write_html
    from farm.results import RunSummary
    every = [_case("r", c, P, 1) for c in ("nightly/a", "nightly/b")]
    some = [*every, _case("r", "nightly/add_to_cart", P, 1).model_copy(update={"tags": ["cart"]})]
    for name, cases in (("every", every), ("some", some)):
        summary = RunSummary(run_id=name, started="2026-12-01T02:00:00+00:00", cases=cases)
        summary.recount()
        viewer_page.goto(write_html(summary, tmp_path / name).as_uri())
        menus = viewer_page.locator("select[data-pick=tag]")
        if name == "every":
            assert menus.count() == 0      # picking "nightly" would pick all of them
        else:
            assert menus.locator("option").all_inner_texts() == [
                "all tags", "cart (1)", "nightly (2)"]
