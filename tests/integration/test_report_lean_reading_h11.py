"""report.html, leaner (a case's summary words no longer written again in its search text, a
step label's quotes written as quotes, no blank lines between step rows), read in real Chromium:
the search still finds a case by every word it found it by, a closed case still opens on its
link and shows its steps, with JavaScript off too, and a null answer reads "→ null"."""

from __future__ import annotations

from pathlib import Path

import pytest


CARDS = {1: "visa", 2: "amex", 3: "jcb", 4: "maestro"}


def _case(i: int, status: str, **more):
    from farm.results import CaseResult, StepRecord
    steps = [StepRecord(task="checkout", index=1, kind="aiTap", line=4,
                        label='aiTap "Pay now"', duration=0.3),
             StepRecord(task="checkout", index=2, kind="aiQuery", line=5,
                        label='aiQuery "the coupon shown"', duration=0.3, output=None),
             StepRecord(task="receipt", index=3, kind="aiNumber", line=8,
                        label='aiNumber "the total"', duration=0.3, output=42)]
    return CaseResult(run_id="lean", case_id=f"shop/c{i}", name=f"pay with {CARDS[i]}",
                      file=f"suites/shop/c{i}.yaml", platform="web" if i % 2 else "android",
                      device=f"dev-{i}", device_info=f"Model {i}, Android {10 + i}",
                      status=status, duration=2.0, steps=steps, **more)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> str:
    from farm.report.html import write_html
    from farm.results import CaseError, CaseResult, RunSummary
    earlier = CaseResult(run_id="lean", case_id="shop/c3", name="pay with jcb",
                         file="suites/shop/c3.yaml", platform="web", device="dev-3",
                         status="failed", error=CaseError(kind="AssertionFailed",
                                                          message="receipt never came"))
    cases = [_case(1, "passed", tags=["smoke"]), _case(2, "passed", tags=["checkout"]),
             _case(3, "flaky", previous=[earlier]),
             _case(4, "failed", error=CaseError(kind="AssertionFailed",
                                                message="the total read 41"))]
    summary = RunSummary(run_id="lean", started="2026-12-06T01:00:00+00:00", cases=cases)
    summary.recount()
    run_dir = tmp_path_factory.mktemp("lean")
    return write_html(summary, run_dir).as_uri()


def _names(page) -> list[str]:
    return [n.inner_text() for n in page.locator("details.case:not([hidden]) .name").all()]


def test_the_search_finds_cases_by_their_summary_tags_device_and_errors(
        report: str, viewer_page, page_errors) -> None:
    viewer_page.goto(report)
    search = viewer_page.locator("#search")
    found = {}
    for words in ("amex", "c3.yaml", "dev-4", "web", "flaky", "smoke", "android 11",
                  "receipt never", "total read 41", "shop/c1", "attempt 1"):
        search.fill(words)
        found[words] = _names(viewer_page)
    assert found == {
        "amex": ["pay with amex"],                     # name (the summary's words)
        "c3.yaml": ["pay with jcb"],                # file
        "dev-4": ["pay with maestro"],                  # device chip
        "web": ["pay with jcb", "pay with visa"],      # platform
        "flaky": ["pay with jcb"],                  # status badge
        "smoke": ["pay with visa"],                  # tag
        "android 11": ["pay with visa"],             # what the device is (its chip's title)
        "receipt never": ["pay with jcb"],          # an earlier attempt's error
        "total read 41": ["pay with maestro"],          # the case's error
        "shop/c1": ["pay with visa"],                # its id
        "attempt 1": []}                            # not the chips' numbers (every case)
    assert page_errors == []


def test_a_link_opens_a_closed_case_with_its_steps_and_a_null_answer(
        report: str, viewer_page, page_errors) -> None:
    viewer_page.goto(report + "#case=shop/c2")
    case = viewer_page.locator('details.case[id="case=shop/c2"]')
    assert case.get_attribute("open") == ""
    rows = case.locator("table.steps tbody tr")
    assert [r.locator("td").nth(1).inner_text() for r in rows.all()] == [
        'aiTap "Pay now" line 4', 'aiQuery "the coupon shown" line 5\n→ null',
        'aiNumber "the total" line 8\n→ 42']
    assert case.locator("table.steps thead th").first.inner_text() == "#"
    viewer_page.locator("button[data-filter=failed]").click()
    assert _names(viewer_page) == ["pay with maestro"]
    assert page_errors == []


@pytest.mark.parametrize("viewer_context_args", [{"java_script_enabled": False}])
def test_with_javascript_off_a_closed_case_shows_its_steps(
        report: str, viewer_page, viewer_context_args) -> None:
    viewer_page.goto(report)
    case = viewer_page.locator('details.case[id="case=shop/c1"]')
    case.locator("summary").click(position={"x": 4, "y": 4})     # (its middle: a link)
    rows = case.locator("table.steps tbody tr")
    assert rows.count() == 3
    assert rows.nth(1).locator("td").nth(1).inner_text() == (
        'aiQuery "the coupon shown" line 5\n→ null')
