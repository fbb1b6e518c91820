"""report.html and the history page in real Chromium, with markup and script in every string a
run can put there (case, task and step names, errors, page text, javascript / aiQuery output,
model replies, devices, tags, file names): none of it runs, none becomes a link."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.report.history_page import write_history
from farm.report.html import write_html
from farm.results import CaseError, CaseResult, DeselectedCase, RunSummary, StepRecord
from farm.results_history import SqliteResults, record_for

pytestmark = pytest.mark.integration

# each sets window.__pwned (or the title) if it ever runs; some break out of <script>, an
# attribute, a comment or an SVG/MathML context first
HOSTILE = [
    "</script><script>window.__pwned='script'</script><!--",
    "<img src=x onerror=\"window.__pwned='img'\">",
    "\" onmouseover=\"window.__pwned='attr'\" x=\"",
    "' autofocus onfocus='window.__pwned=`attr1`' x='",
    "--><svg onload=\"window.__pwned='svg'\">",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned='math'\">",
    "javascript:window.__pwned='link'",
    "<a href=\"javascript:window.__pwned='a'\">click</a>",
    "<title>PWNED</title><base href=\"javascript://\">",
]


def _hostile(i: int) -> str:
    return f"{i}{HOSTILE[i % len(HOSTILE)]}"


def _summary() -> RunSummary:
    n = iter(range(1000))

    def h() -> str:
        return _hostile(next(n))

    steps = [StepRecord(task=h(), index=i, kind="javascript", label=h(), status=status,
                        error=h() if status == "failed" else None, tier=h(),
                        output={"q": h(), "url": HOSTILE[6]} if i == 1 else
                        {"steps": [h(), h()], "rounds": 2, "message": h()},
                        before=h(), after=h(), marked=h(), started="2026-01-01T02:00:00+00:00")
             for i, status in ((1, "passed"), (2, "failed"))]
    cases = [CaseResult(run_id="r1", case_id=f"s/{h()}", name=h(), file=f"s/{h()}.yaml",
                        line=3, platform="web", device=f"browser-{status}", device_info=h(),
                        status=status, steps=steps, tags=[h(), h()], reason=h(),
                        description=h(), since_last="new failure" if status == "failed" else None,
                        data={h(): h(), "n": [h(), {h(): h()}]}, screenshot=h(),
                        error=CaseError(kind=h(), message=h(), step=2)
                        if status != "passed" else None,
                        previous=[CaseResult(run_id="r1", case_id="s/p", name=h(), file="p",
                                             platform="web", device=h(), status="failed",
                                             screenshot=h(), started="2026-01-01T02:00:00",
                                             error=CaseError(kind=h(), message=h()))],
                        started="2026-01-01T02:00:01+00:00", duration=1.0)
             for status in ("failed", "passed", "error", "skipped", "flaky")]
    summary = RunSummary(run_id="r1", started="2026-01-01T02:00:00+00:00", cases=cases,
                         devices=[c.device or "" for c in cases],
                         device_info={"browser-failed": h()}, quarantined=["browser-error"],
                         lost={"browser-error": h()},
                         deselected=[DeselectedCase(case_id=f"s/{h()}", name=h(), file=h(),
                                                    platform="web", reason=h(), tags=[h()])])
    summary.recount()
    return summary


def _open(page, path: Path, title: str) -> None:
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.evaluate("""document.querySelectorAll('*').forEach(e => {   // no handler to run
        for (const t of ['mouseover', 'focus', 'load', 'error'])
            e.dispatchEvent(new Event(t, {bubbles: true}));
    })""")
    assert page.evaluate("window.__pwned") is None
    assert page.title() == title
    links = page.evaluate("[...document.querySelectorAll('[href],[src],[action]')]"
                          ".map(e => e.getAttribute('href') || e.getAttribute('src') || '')")
    assert not [u for u in links if u.strip().lower().startswith(("javascript:", "data:text"))]
    assert page.locator("base").count() == 0


def test_hostile_run_text_stays_text_in_the_report_and_the_history_page(
        tmp_path: Path, viewer_page, page_errors) -> None:
    summary = _summary()
    report = write_html(summary, tmp_path)
    _open(viewer_page, report,    # (the title leads with the verdict: audit s41)
          "1 failed, 1 error, 1 flaky, 1 passed, 1 skipped of 5 · farm report r1")
    shown = viewer_page.locator("main").inner_text()
    assert HOSTILE[0] in shown and HOSTILE[1] in shown      # shown as written, not dropped

    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(summary, report))
    page = write_history(store, tmp_path / "history.html")
    _open(viewer_page, page, "farm history")
    assert not [e for e in page_errors if e.startswith("dialog")]
