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
