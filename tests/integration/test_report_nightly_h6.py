"""A 2,000-case nightly's report.html, read in the morning in real Chromium.

Found at this scale: the page took 25 s to open (every case's steps parsed as markup: 700,000
nodes), so "expand all" took 15 s; a case could not be linked to in a chat; the only filters
were status and a free-text search (a search for "pixel-2" also found the cases whose error
named that device); Back undid nothing the reader did."""

from __future__ import annotations

import http.server
import json
import xml.etree.ElementTree as ET
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from tests.support.http_site import serving

N = 2000
DEVICES = [("browser-1", "web"), ("browser-2", "web"), ("pixel-1", "android"),
           ("pixel-2", "android"), ("iphone-1", "ios")]
TAGS = ["smoke", "checkout", "login", "search", "slow"]


def _status(i: int) -> str:
    return ("failed" if i % 29 == 3 else "error" if i % 97 == 5 else "flaky" if i % 53 == 7
            else "skipped" if i % 41 == 9 else "interrupted" if i % 401 == 11 else "passed")


def _case(i: int, shots: list[str]) -> "CaseResult":
    from farm.results import CaseError, CaseResult, StepRecord
    device, platform = DEVICES[i % len(DEVICES)]
    status = _status(i)
    bad = 11 if status in ("failed", "error", "interrupted") else None
    steps = [StepRecord(task="checkout", index=k, kind="aiTap", line=k + 3, label=f"aiTap: pay {k}",
                        status="failed" if k == bad else "skipped" if bad and k > bad else "passed",
                        duration=0.3, before=shots[k % 4], after=shots[(k + 1) % 4],
                        error="Card declined banner instead of the receipt" if k == bad else None)
             for k in range(1, 13)]
    error = CaseError(kind="DeviceLost" if status == "error" else "AssertionFailed",
                      message=f"adb: device {device} offline" if status == "error"
                      else "Card declined banner instead of the receipt", step=bad) if bad else None
    previous = []
    if status == "flaky":
        previous = [CaseResult(run_id="nightly-2000", case_id=f"nightly/{platform}/c{i:04d}",
                               name=f"pay {i}", file=f"suites/nightly/c{i:04d}.yaml",
                               platform=platform, device=device, status="failed", duration=3.6,
                               started="2026-12-06T01:00:00+00:00")]
    return CaseResult(run_id="nightly-2000", case_id=f"nightly/{platform}/c{i:04d}",
                      name=f"pay with a saved card {i}", file=f"suites/nightly/c{i:04d}.yaml",
                      platform=platform, device=device, status=status, error=error,
                      tags=[TAGS[i % 5], TAGS[(i // 5) % 5]] if i % 5 != i // 5 % 5 else [TAGS[i % 5]],
                      reason="tagged slow" if status == "skipped" else None,
                      started="2026-12-06T01:00:00+00:00", duration=3.6, steps=steps,
                      previous=previous, screenshot=shots[0] if bad else None)


@pytest.fixture(scope="module")
def nightly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run dir of 2,000 cases over 5 devices and 3 platforms, by farm's own writers."""
    from PIL import Image

    from farm.results import RunSummary
    from farm.run_outputs import write_outputs
    run_dir = tmp_path_factory.mktemp("nightly")
    shots = [f"artifacts/shot{k}.jpg" for k in range(4)]
    (run_dir / "artifacts").mkdir()
    for k, rel in enumerate(shots):
        Image.new("RGB", (64, 40), (60 * k, 120, 200)).save(run_dir / rel, "JPEG")
    summary = RunSummary(run_id="nightly-2000", started="2026-12-06T01:00:00+00:00",
                         duration=3600.0, devices=[d for d, _ in DEVICES], exit_code=1,
                         cases=[_case(i, shots) for i in range(N)])
    summary.recount()
    assert write_outputs(summary, run_dir) == []
    return run_dir


def _open_quick(page, url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)


def test_a_nightly_opens_with_the_failures_steps_and_a_passed_case_opens_on_click(
        nightly: Path, viewer_page, page_errors) -> None:
    _open_quick(viewer_page, (nightly / "report.html").as_uri())
    # the page holds the steps of the cases that did not pass (open), not all 2,000 cases'
    nodes = viewer_page.evaluate("document.getElementsByTagName('*').length")
    assert nodes < 60_000, nodes
    first = viewer_page.locator("details.case").first
    assert first.get_attribute("data-status") == "interrupted"
    assert first.locator("tr.s-failed").count() == 1
    passed = viewer_page.locator('details.case[data-status="passed"]').first
    assert passed.locator("table.steps").count() == 0    # not yet: opened on demand
    passed.locator("summary").click(position={"x": 4, "y": 4})   # (its middle: a link)
    assert passed.locator("table.steps tbody tr").count() == 12
    assert passed.locator("img").first.is_visible()
    assert passed.locator("tr").nth(3).locator("td").nth(1).inner_text() == "aiTap: pay 3 line 6"
    assert page_errors == []


@pytest.mark.parametrize("viewer_context_args", [{"java_script_enabled": False}])
def test_with_javascript_off_a_passed_case_still_shows_its_steps(
        nightly: Path, viewer_page, viewer_context_args) -> None:
    _open_quick(viewer_page, (nightly / "report.html").as_uri())
    passed = viewer_page.locator('details.case[data-status="passed"]').first
    passed.locator("summary").click(position={"x": 4, "y": 4})   # (its middle: a link)
    assert passed.locator("table.steps tbody tr").count() == 12
    assert passed.locator("tr").nth(3).locator("td").nth(1).inner_text() == "aiTap: pay 3 line 6"


def _expected(run_dir: Path, **want: str) -> int:
    cases = json.loads((run_dir / "results.json").read_text())["cases"]
    return sum(all((v in c["tags"]) if k == "tag" else c[k] == v for k, v in want.items())
               for c in cases)


def test_a_link_to_one_case_opens_it_and_back_forward_step_through_filters(
        nightly: Path, viewer_page, page_errors) -> None:
    url = (nightly / "report.html").as_uri()
    _open_quick(viewer_page, url + "#case=nightly/android/c1802")   # a pass far down the list
    case = viewer_page.locator('details.case[data-q*="nightly/android/c1802"]')
    assert case.get_attribute("open") == ""
    assert case.locator("table.steps tbody tr").count() == 12
    box = case.locator("summary").bounding_box()
    assert box is not None and 0 <= box["y"] < 800, box
    # the link a reader copies from the case
    link = case.locator("a.permalink")
    assert link.get_attribute("href") == "#case=nightly/android/c1802"
    # filters are steps of the page's history
    viewer_page.locator("button[data-filter=failed]").click()
    assert viewer_page.url.endswith("#status=failed")
    failed = _expected(nightly, status="failed")
    assert viewer_page.locator("#shown").inner_text() == f"{failed} of {N} cases"
    viewer_page.select_option("select[data-pick=device]", "pixel-2")
    on_pixel2 = _expected(nightly, status="failed", device="pixel-2")
    assert 0 < on_pixel2 < failed
    assert viewer_page.locator("#shown").inner_text() == f"{on_pixel2} of {N} cases"
    viewer_page.go_back()
    assert viewer_page.locator("#shown").inner_text() == f"{failed} of {N} cases"
    assert viewer_page.locator("select[data-pick=device]").input_value() == ""
    viewer_page.go_forward()
    assert viewer_page.locator("#shown").inner_text() == f"{on_pixel2} of {N} cases"
    # the filtered list's URL, pasted elsewhere, shows the same list
    pasted = viewer_page.context.new_page()
    pasted.goto(viewer_page.url)
    assert pasted.locator("#shown").inner_text() == f"{on_pixel2} of {N} cases"
    assert pasted.locator("button[data-filter=failed]").get_attribute("aria-pressed") == "true"
    pasted.close()
    assert page_errors == []


def test_platform_and_tag_menus_count_as_results_json_and_junit(
        nightly: Path, viewer_page, page_errors) -> None:
    _open_quick(viewer_page, (nightly / "report.html").as_uri())
    summary = json.loads((nightly / "results.json").read_text())
    counts = {li.split()[1]: int(li.split()[0])
              for li in viewer_page.locator("ul.counts li").all_inner_texts()}
    assert counts == {k: v for k, v in summary["counts"].items() if k != "total" and v}
    root = ET.parse(nightly / "junit.xml").getroot()
    assert int(root.get("tests")) == N == sum(counts.values())
    assert int(root.get("failures")) == counts["failed"]
    viewer_page.select_option("select[data-pick=platform]", "ios")
    assert viewer_page.locator("#shown").inner_text() == \
        f"{_expected(nightly, platform='ios')} of {N} cases"
    viewer_page.select_option("select[data-pick=tag]", "checkout")
    both = _expected(nightly, platform="ios", tag="checkout")
    assert viewer_page.locator("#shown").inner_text() == f"{both} of {N} cases"
    assert dict(Counter(viewer_page.locator("details.case:not([hidden])").evaluate_all(
        "cs => cs.map(c => c.dataset.platform)"))) == {"ios": both}
    assert page_errors == []


def test_served_under_a_ci_sub_path_it_loads_nothing_from_elsewhere(
        nightly: Path, viewer_page, page_errors) -> None:
    handler = partial(_SubPath, directory=str(nightly))
    with serving(handler) as base:
        requests: list[str] = []
        viewer_page.on("request", lambda r: requests.append(r.url))
        _open_quick(viewer_page, base + "/job/41/artifacts/report.html#case=nightly/web/c0010")
        case = viewer_page.locator('details.case[data-q*="nightly/web/c0010"]')
        img = case.locator("img").first
        img.scroll_into_view_if_needed()
        img.evaluate("i => i.decode()")
        assert img.evaluate("i => i.naturalWidth") == 64
    assert requests and all(u.startswith(base + "/job/41/artifacts/") for u in requests), requests
    assert page_errors == []


class _SubPath(http.server.SimpleHTTPRequestHandler):
    """A CI artifact server: the run dir under /job/41/artifacts/."""

    def log_message(self, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        prefix = "/job/41/artifacts"
        return super().translate_path(path[len(prefix):] if path.startswith(prefix) else "/x")


REASON = ("the cart shows 2 items but the total reads 0.00 EUR; the checkout button is greyed "
          "out and a banner at the top says the card was declined by the issuer, so the "
          "order was never placed and no receipt number is on screen " * 2).strip()


def test_why_the_model_failed_a_step_shows_under_the_error_without_a_click(
        tmp_path: Path, viewer_page, page_errors) -> None:
    """A failed aiAssert with the suite's errorMessage: the model's reasoning was only in its
    step's row, cut at 200 characters; a failed ai step's rounds were folded away."""
    from farm.report.html import write_html
    from farm.results import CaseError, CaseResult, RunSummary, StepRecord
    steps = [StepRecord(task="pay", index=1, kind="ai", label='ai "pay for the order"',
                        status="failed", error="gave up after 3 rounds",
                        output={"rounds": 3, "message": "", "steps": [
                            "Tap 'Pay'", "Tap 'Pay' again", "Scroll down: no receipt"]})]
    ai = CaseResult(run_id="r", case_id="n/ai", name="pays", file="n/ai.yaml", platform="web",
                    device="browser-1", status="failed", steps=steps,
                    error=CaseError(kind="StepFailed", message="gave up after 3 rounds", step=1))
    steps = [StepRecord(task="pay", index=1, kind="aiAssert", label='aiAssert "paid"',
                        status="failed", error="Payment did not go through",
                        output=f"the model: {REASON}")]
    judged = ai.model_copy(update={"case_id": "n/assert", "name": "judged", "steps": steps,
                                   "error": CaseError(kind="AssertionFailed",
                                                      message="Payment did not go through",
                                                      step=1)})
    summary = RunSummary(run_id="r", started="", cases=[ai, judged])
    summary.recount()
    viewer_page.set_viewport_size({"width": 1280, "height": 800})
    viewer_page.goto(write_html(summary, tmp_path).as_uri())
    why = viewer_page.locator('details.case[data-q*="n/assert"] .why')
    assert why.count() == 1 and why.inner_text() == f"The model: {REASON}"
    assert why.is_visible()
    rounds = viewer_page.locator('details.case[data-q*="n/ai"] tr.at details.out li')
    assert rounds.all_inner_texts() == ["Tap 'Pay'", "Tap 'Pay' again", "Scroll down: no receipt"]
    assert rounds.last.is_visible()
    assert page_errors == []
