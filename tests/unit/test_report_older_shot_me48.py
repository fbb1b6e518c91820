"""A failed case whose failing step took no image (an iPhone's unreadable tree with a secret
on screen, a device error) keeps an earlier step's image as its "Last screenshot": the
caption says which step's it is and why the failing one has none, so the login form of step 2
is not read as the empty screen step 3 failed on (the j-ios tester's report)."""

from __future__ import annotations

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary, StepRecord


def _case(failing_after: str | None, no_image: str | None) -> RunSummary:
    steps = [StepRecord(task="t", index=1, kind="aiTap", label="aiTap Sign in", status="passed",
                        line=5, after="artifacts/c/001-step1.jpg"),
             StepRecord(task="t", index=2, kind="aiInput", label="aiInput Password",
                        status="passed", line=6, after="artifacts/c/002-step2.jpg"),
             StepRecord(task="t", index=3, kind="assertText", label="assertText Farm Shop",
                        status="failed", line=7, after=failing_after, no_image=no_image,
                        error="expected text \"Farm Shop\" is not on screen")]
    last = failing_after or "artifacts/c/002-step2.jpg"
    case = CaseResult(run_id="r", case_id="s/term", name="s/term", file="s/term.yaml", line=7,
                      platform="ios", device="iphone-1", status="failed", steps=steps,
                      screenshot=last)
    summary = RunSummary(run_id="r", started="2026-12-07T05:00:00+00:00", duration=3.0,
                         cases=[case])
    summary.recount()
    return summary


def test_an_earlier_step_s_image_is_named_as_such_with_why_the_failing_step_has_none():
    why = "not taken: the screen's UI tree could not be read"
    page = render_html(_case(None, why))
    caption = page[page.index("Last screenshot (failed)"):]
    caption = caption[:caption.index("</figcaption>")]
    assert "taken at step 2" in caption
    assert "step 3 has none: not taken: the screen&#x27;s UI tree could not be read" in caption \
        or "step 3 has none: not taken: the screen's UI tree could not be read" in caption


def test_the_failing_step_s_own_image_has_the_plain_caption():
    page = render_html(_case("artifacts/c/003-step3.jpg", None))
    assert "Last screenshot (failed)</figcaption>" in page
    assert "has none" not in page
