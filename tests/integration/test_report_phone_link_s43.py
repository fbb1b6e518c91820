"""A case's link (``report.html#case=<id>``) opened on a phone (390 CSS px, real Chromium): the
case's title shows below the sticky filter bar. The bar is one row on a laptop and three on a
phone; a fixed scroll margin of 72 px put the title under it there (fine at 1280 px)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.report.html import write_html
from farm.results import CaseResult
from tests.integration.test_report_render import _summary

pytestmark = pytest.mark.integration
WIDTH = 390


@pytest.fixture
def viewer_context_args() -> dict:
    return {"viewport": {"width": WIDTH, "height": 844}}


def _report(tmp_path: Path) -> str:
    """The report's URL; the failed case comes after 40 passed ones, far down the page."""
    summary = _summary(tmp_path)
    summary.cases[:0] = [CaseResult(run_id=summary.run_id, case_id=f"demo/p{i:02}",
                                    name=f"passes {i}", file=f"suites/demo/p{i:02}.yaml",
                                    platform="web", device="browser-1", status="passed")
                         for i in range(40)]
    summary.recount()
    return write_html(summary, tmp_path).as_uri()


def _below_the_bar(page, selector: str) -> tuple[float, float]:
    """(the bar's bottom, the top of ``selector``'s element) on the screen."""
    return page.evaluate("""(sel) => [
        document.querySelector('.toolbar').getBoundingClientRect().bottom,
        document.querySelector(sel).getBoundingClientRect().top]""", selector)


@pytest.mark.parametrize("width", [WIDTH, 1280])
def test_a_case_link_shows_the_case_title_below_the_filter_bar(tmp_path, viewer_page,
                                                               page_errors, width):
    page = viewer_page
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(_report(tmp_path) + "#case=demo/checkout-shows-total")
    page.wait_for_load_state("load")
    title = 'details[id="case=demo/checkout-shows-total"] > summary'
    bar, top = _below_the_bar(page, title)
    assert page.evaluate("window.scrollY") > 0         # (the case is far down: it scrolled)
    if width == WIDTH:      # on a phone the bar (three rows) scrolls away: the case's title
        assert page.evaluate("getComputedStyle(document.querySelector('.toolbar')).position")\
            != "sticky"     # comes at the top of the screen
        assert 0 <= top < 40, (bar, top)
    else:
        assert bar <= top < bar + 40, (bar, top)
    assert page.locator(title + " .name").inner_text() == "Checkout shows total"
    # and the case's "step 4 of 4" link brings the failed step below the bar too
    page.locator(title.replace(" > summary", " .at-step a")).click()
    bar, top = _below_the_bar(page, "tr.at")
    assert bar <= top, (bar, top)
    assert page_errors == []
