"""report.html served as Jenkins' HTML Publisher serves it, under its default Content-Security-
Policy (``sandbox; default-src 'none'; img-src 'self'; style-src 'self';``): no inline
<style>, no style="" attribute, no script. The page still tells a failed case from a passed
one by colour, draws the timeline's bars and shows a step's marked copy over its screenshot
(with its stylesheet beside it, report.css); a run folder moved elsewhere keeps it;
report.html opened alone (no report.css) keeps its styles from its inline copy."""

from __future__ import annotations

import functools
import http.server
import io
import shutil
from pathlib import Path

import pytest

from farm.report.html import write_html
from farm.report.marks import marks_svg
from farm.results import CaseError, CaseResult, Mark, RunSummary, StepRecord
from tests.support.http_site import serving

pytestmark = pytest.mark.integration

JENKINS_CSP = "sandbox; default-src 'none'; img-src 'self'; style-src 'self';"


def _marked_step(run: Path) -> dict:
    """A step's before screenshot (all red) and its marked copy (an SVG linking to it, a tap
    dot in its corner), as farm writes them."""
    from PIL import Image
    before = run / "artifacts" / "c1" / "step1-before.jpg"
    before.parent.mkdir(parents=True)
    buf = io.BytesIO()
    Image.new("RGB", (200, 400), "#d00000").save(buf, "JPEG")
    before.write_bytes(buf.getvalue())
    (before.parent / "step1-marked.svg").write_bytes(marks_svg(
        buf.getvalue(), [Mark(kind="tap", points=[[10, 10]])], None, None, [200, 400],
        href=before.name))
    return {"before": "artifacts/c1/step1-before.jpg", "marked": "artifacts/c1/step1-marked.svg"}


def _summary(run: Path) -> RunSummary:
    shots = _marked_step(run)

    def case(i: int, status: str, device: str, **kw) -> CaseResult:
        return CaseResult(run_id="r-csp", case_id=f"demo/c{i}", name=f"Case {i}",
                          file=f"suites/demo/c{i}.yaml", line=1, platform="web", device=device,
                          status=status, duration=3.0 + i,
                          started=f"2024-05-01T10:00:{5 * i:02d}+00:00",
                          steps=[StepRecord(task="t", index=1, kind="aiTap", label='aiTap "x"',
                                            status="failed" if status == "failed" else "passed",
                                            duration=0.5, **(shots if i == 1 else {}))],
                          **kw)
    failed = CaseError(kind="AssertionFailed", message='text "Welcome" not found', step=1)
    cases = [case(0, "passed", "browser-1"), case(1, "failed", "browser-2", error=failed),
             case(2, "passed", "browser-1"), case(3, "failed", "browser-2", error=failed),
             case(4, "flaky", "browser-1", attempt=2,
                  previous=[case(4, "failed", "browser-1", error=failed)])]
    return RunSummary(run_id="r-csp", started="2024-05-01T10:00:00+00:00", duration=30.0,
                      devices=["browser-1", "browser-2"], cases=cases, farm_version="0.1.0",
                      quarantined=["browser-2"])


class _Jenkins(http.server.SimpleHTTPRequestHandler):
    """Static files of a folder, each with HTML Publisher's default policy."""

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", JENKINS_CSP)
        super().end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _looks(page) -> dict:
    """What the page shows: each case row's left border colour by status, the timeline bars'
    and header bar's drawn widths, whether the (dead, script-less) filter buttons show."""
    return page.evaluate("""() => ({
      border: Object.fromEntries([...document.querySelectorAll('details.case')].map(
        c => [c.dataset.status, getComputedStyle(c).borderLeftColor])),
      bars: [...document.querySelectorAll('.timeline .bar')].map(
        b => b.getBoundingClientRect().width),
      segs: [...document.querySelectorAll('.top .bar .seg')].map(
        s => s.getBoundingClientRect().width),
      lanes: [...document.querySelectorAll('.timeline .track')].map(
        t => t.getBoundingClientRect().width),
      filters: !!document.querySelector('button[data-filter="all"]').offsetParent,
      under: getComputedStyle(document.querySelector('img.marked')).backgroundImage,
    })""")


def _marked_shows_its_jpeg(page) -> bool:
    """The marked copy's middle is the red screenshot under it, not the page's grey."""
    from PIL import Image
    img = page.locator("img.marked")
    page.wait_for_function("() => document.querySelector('img.marked').complete")
    shot = Image.open(io.BytesIO(img.screenshot())).convert("RGB")
    r, g, b = shot.getpixel((shot.width // 2, shot.height // 2))
    return r > 180 and g < 80 and b < 80


def _served_looks(page, folder: Path) -> dict:
    handler = functools.partial(_Jenkins, directory=str(folder))
    with serving(handler) as base:
        page.goto(base + "/report.html")
        page.wait_for_load_state("load")
        looks = _looks(page)
        looks["red"] = _marked_shows_its_jpeg(page)
        return looks


def _check(looks: dict) -> None:
    assert looks["border"]["failed"] != looks["border"]["passed"], looks["border"]
    assert len(looks["bars"]) == 6 and all(w > 0 for w in looks["bars"]), looks["bars"]
    assert len(looks["segs"]) == 3 and all(w > 0 for w in looks["segs"]), looks["segs"]
    # the bars are spread over the track, not piled at its start
    assert max(looks["bars"]) < looks["lanes"][0] * 0.5
    assert "step1-before.jpg" in looks["under"]


def test_the_report_keeps_its_colours_and_timeline_under_html_publisher_s_policy(
        tmp_path: Path, viewer_page) -> None:
    run = tmp_path / "build" / "runs" / "r-csp"
    write_html(_summary(run), run)
    assert (run / "report.css").is_file()
    looks = _served_looks(viewer_page, run)
    _check(looks)
    assert looks["red"]
    # no script runs there: the filter buttons, which would do nothing, are not shown
    assert not looks["filters"]

    moved = tmp_path / "archived" / "r-csp"       # a CI artifact unpacked somewhere else
    shutil.move(str(run), str(moved))
    looks = _served_looks(viewer_page, moved)
    _check(looks)
    assert looks["red"]


def test_report_html_opened_alone_keeps_its_styles(tmp_path: Path, viewer_page) -> None:
    """Only report.html copied out of its run folder (no report.css beside it): its inline
    stylesheet still colours it, and the filters work."""
    write_html(_summary(tmp_path / "run"), tmp_path / "run")
    alone = tmp_path / "mail" / "report.html"
    alone.parent.mkdir()
    shutil.copy(tmp_path / "run" / "report.html", alone)
    viewer_page.goto(alone.as_uri())
    viewer_page.wait_for_load_state("load")
    looks = _looks(viewer_page)
    _check(looks)
    assert looks["filters"]


def test_the_history_page_keeps_its_styles_under_html_publisher_s_policy(
        tmp_path: Path, viewer_page) -> None:
    """``farm report --history``'s page, served the same way: its stylesheet (history.html.css
    beside it) applies, and the pass-rate axis' labels stand at 100%, 50%, 0%."""
    from farm.report.history_page import write_history
    from farm.results_history import SqliteResults, record_for
    run = tmp_path / ".farm" / "runs" / "r-csp"
    summary = _summary(run)
    summary.recount()
    write_html(summary, run)
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(summary, run / "report.html"))
    write_history(store, tmp_path / ".farm" / "history.html")
    handler = functools.partial(_Jenkins, directory=str(tmp_path / ".farm"))
    with serving(handler) as base:
        viewer_page.goto(base + "/history.html")
        viewer_page.wait_for_load_state("load")
        looks = viewer_page.evaluate("""() => ({
          h2: getComputedStyle(document.querySelector('.hist h2')).fontSize,
          axis: ['.t100', '.t50', '.t0'].map(
            s => document.querySelector('.axis ' + s).getBoundingClientRect().top),
        })""")
    assert looks["h2"] == "17px", looks
    assert looks["axis"][0] < looks["axis"][1] < looks["axis"][2], looks
