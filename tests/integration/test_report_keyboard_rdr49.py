"""report.html by keyboard in real Chromium (helper rdr49): the first Tab reaches a skip link,
the filters come a few Tabs in (not after every timeline bar), a screenshot takes focus and
Enter opens it full size, Escape gives focus back; a number searched for does not match every
case through its browser's version."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.report.html import write_html
from farm.results import CaseError, CaseResult, RunSummary, StepRecord

pytestmark = pytest.mark.integration
SHELL = "Chromium 156.0.8078.129 (chromium-headless-shell)"


def _jpeg(run_dir: Path, rel: str) -> str:
    from PIL import Image
    (run_dir / rel).parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (60, 120), "#cf222e").save(run_dir / rel, "JPEG")
    return rel


def _summary(run_dir: Path, n: int = 60) -> RunSummary:
    cases = []
    for i in range(n):
        bad = i < 3
        cases.append(CaseResult(
            run_id="r", case_id=f"s/c{i:02d}", name=f"case {i:02d}", file=f"s/c{i:02d}.yaml",
            platform="web", status="failed" if bad else "passed", device=f"browser-{i % 3}",
            device_info=SHELL, started=f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00",
            duration=1.0, error=CaseError(kind="AssertionFailed", message="no Welcome",
                                          step=1) if bad else None,
            steps=[StepRecord(task="Wait", index=1, kind="sleep", label='sleep "10000"',
                              status="failed" if bad else "passed",
                              after=_jpeg(run_dir, f"artifacts/c{i}/after.jpg"))]))
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00+00:00", cases=cases,
                         devices=["browser-0", "browser-1", "browser-2"])
    summary.recount()
    return summary


def _focused(page) -> str:
    return page.evaluate("""() => { const e = document.activeElement;
        return e.tagName + (e.id ? '#' + e.id : '') + ' ' + (e.getAttribute('alt')
               || e.textContent.trim().slice(0, 40)); }""")


def test_the_report_by_keyboard_rdr49(viewer_page, page_errors, tmp_path):
    page = viewer_page
    page.goto(write_html(_summary(tmp_path), tmp_path).as_uri())
    page.keyboard.press("Tab")
    assert _focused(page) == "A Skip to the failures"
    stops = [_focused(page)]
    for _ in range(40):                 # 60 timeline bars: none of them a stop
        page.keyboard.press("Tab")
        stops.append(_focused(page))
        if stops[-1].startswith("INPUT#search"):
            break
    assert stops[-1].startswith("INPUT#search") and len(stops) < 20, stops
    assert not any("s/c" in s for s in stops if s.startswith("A ") and "case" not in s)
    # the skip link lands on the failures; the first failure's row opens from its link
    page.focus("a.skip")
    page.keyboard.press("Enter")
    assert _focused(page).startswith("SECTION#failures")
    # a failed case's screenshot: Tab reaches it, Enter opens the lightbox, Escape closes it
    page.locator("details.case[open] a.permalink").first.focus()
    for _ in range(6):
        page.keyboard.press("Tab")
        if _focused(page).startswith("IMG"):
            break
    assert _focused(page) == 'IMG after step 1: sleep "10000"'
    page.keyboard.press("Enter")
    assert page.locator("#lightbox").is_visible()
    assert page.locator("#lightbox figcaption span").inner_text() == 'after step 1: sleep "10000"'
    page.keyboard.press("Escape")
    assert page.locator("#lightbox").is_hidden()
    assert _focused(page) == 'IMG after step 1: sleep "10000"'
    # a number is not every case: the browser's version is not searched, nor "attempt 1"
    page.fill("#search", "156")
    assert page.locator("#shown").inner_text() == "0 of 60 cases"
    page.fill("#search", "9")      # (in the version 156.0.8078.129 too)
    assert page.locator("#shown").inner_text() == "6 of 60 cases"    # c09, c19, … c59
    page.fill("#search", "chromium")
    assert page.locator("#shown").inner_text() == "60 of 60 cases"
    assert page_errors == []
