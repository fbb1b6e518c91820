"""report.html read on a phone (390 CSS px wide, real Chromium): the page does not scroll
sideways and a step's text and error get the width of the screen. Before, the step table kept
its six fixed columns: the step's text was squeezed to a letter a line and the page was 540 px
wide."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.report.html import write_html
from tests.integration.test_report_render import _summary

pytestmark = pytest.mark.integration
WIDTH = 390


@pytest.fixture
def viewer_context_args() -> dict:
    return {"viewport": {"width": WIDTH, "height": 844}}


def test_a_phone_reads_the_steps_across_its_width(tmp_path: Path, viewer_page,
                                                  page_errors) -> None:
    page = viewer_page
    page.goto(write_html(_summary(tmp_path), tmp_path).as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    failed = page.locator('details.case[data-status="failed"]')
    step = failed.locator(".steps tr.s-failed td").nth(1)
    assert 'aiTap "button 4"' in step.inner_text()
    assert step.bounding_box()["width"] > WIDTH * 0.6
    # the status, time and images are still there, under the text
    status = failed.locator(".steps tr.s-failed td").nth(2)
    assert status.inner_text() == "failed" and status.is_visible()
    assert status.bounding_box()["y"] > step.bounding_box()["y"]
    assert failed.locator(".steps tr.s-failed img").first.is_visible()
    assert page_errors == []


def test_the_history_page_fits_a_phone_and_its_chart_has_a_scale(tmp_path: Path, viewer_page,
                                                                 page_errors) -> None:
    """Its wide tables scroll inside themselves (before, the page was 534 px wide and its runs
    table cut off); the pass-rate line has 0 / 50 / 100 % beside it and a point per whole run
    that names its run and rate (before, a bare line: 50 % and 90 % looked alike)."""
    from farm.report.history_page import render_history
    from farm.results_history import record_for
    from tests.unit.test_history_steps import FAIL_AT_4, PASS, night

    records = [record_for(n) for n in (night(1, PASS), night(2, FAIL_AT_4),
                                       night(3, FAIL_AT_4))]
    out = tmp_path / "history.html"
    out.write_text(render_history(records, tmp_path))
    page = viewer_page
    page.goto(out.as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    assert page.locator("#pass-rate .axis").inner_text().split() == ["100%", "50%", "0%"]
    dots = page.locator("#pass-rate line.dot title")
    assert dots.all_text_contents() == ["r1: 100.0% of 2 case(s)", "r2: 50.0% of 2 case(s)",
                                        "r3: 50.0% of 2 case(s)"]
    assert "50.0% of 2 case(s), run r3" in page.locator("#latest-rate").inner_text()
    assert page_errors == []


def test_a_long_case_id_wraps_on_a_phone(tmp_path: Path, viewer_page) -> None:
    """A case id as suites name them (nightly/checkout/payment/credit_card_declined_…): its
    `id` fact was one unbreakable word, and the page scrolled sideways (490 px for 390)."""
    summary = _summary(tmp_path)
    summary.cases[2].case_id = "nightly/checkout/payment/credit_card_declined_shows_an_error"
    viewer_page.goto(write_html(summary, tmp_path).as_uri())
    viewer_page.click('button[data-expand="open"]')
    assert viewer_page.evaluate("document.documentElement.scrollWidth") <= WIDTH
