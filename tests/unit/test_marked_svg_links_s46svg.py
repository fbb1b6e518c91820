"""A step's marked copy links to its before JPEG instead of holding a base64 copy of it (a
150-case run kept 20 MB of such copies of JPEGs saved beside them): the report shows it over
that JPEG, and the Allure export, whose viewer shows an attachment alone, embeds it."""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

from farm.config import Settings
from farm.report.allure import write_allure
from farm.report.html import render_html
from farm.report.marks import marks_svg
from farm.results import ArtifactStore, CaseResult, Mark, RunSummary, StepRecord
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Step
from tests.unit.test_action_space import case_of, shop
from tests.unit.test_marks import NS, dots, jpeg, svg_of

STARTED = "2024-05-01T10:00:00+00:00"


def _href(svg: Path | bytes) -> str:
    return svg_of(svg).find("s:image", NS).get("href")


def test_a_marked_copy_names_its_before_jpeg_and_holds_no_copy_of_it(tmp_path):
    case = case_of(Step(kind="aiInput", target="Password", value="pw"),
                   Step(kind="aiTap", target="Sign in"))
    store = ArtifactStore(tmp_path)
    services = Services(settings=Settings(), artifacts=store, run_id="r", env={})
    res = run_case(Job(case.id, case.platform, 1), case, shop(), services)
    store.flush()
    assert res.status == "passed", res.error
    for st in res.steps:
        svg = tmp_path / st.marked
        assert b"data:" not in svg.read_bytes()
        assert svg.stat().st_size < 2000          # marks only: the JPEG is not in it
        assert (svg.parent / _href(svg)) == tmp_path / st.before
    assert dots(svg_of(tmp_path / res.steps[1].marked)) == [("tap", 60, 75)]


def test_a_marked_copy_names_the_image_that_stands_for_an_unchanged_screen(tmp_path):
    device = shop()
    first: list = []

    def capture_evidence():          # as the browser does: None when nothing changed
        image = None if first else device.screenshot()
        first.append(image)
        return lambda: image

    device.capture_evidence = capture_evidence
    case = case_of(Step(kind="aiInput", target="Password", value="pw"),
                   Step(kind="aiTap", target="Sign in"))
    store = ArtifactStore(tmp_path)
    services = Services(settings=Settings(), artifacts=store, run_id="r", env={})
    res = run_case(Job(case.id, case.platform, 1), case, device, services)
    store.flush()
    tapped = res.steps[1]
    svg = tmp_path / tapped.marked
    assert (svg.parent / _href(svg)).read_bytes() == (tmp_path / tapped.before).read_bytes()


def _run(tmp_path: Path, embedded: bool = False,
         href: str = "001-before.jpg") -> tuple[RunSummary, bytes]:
    """A run of one case whose step has a marked copy (as farm writes it now, or as older
    runs did, the JPEG embedded)."""
    folder = tmp_path / "artifacts" / "c" / "attempt-1"
    folder.mkdir(parents=True)
    shot = jpeg((64, 40), "navy")
    (folder / "001-before.jpg").write_bytes(shot)
    (folder / "step1-marked.svg").write_bytes(marks_svg(
        shot, [Mark(kind="tap", points=[[32, 20]])], None, None, [64, 40],
        href=None if embedded else href))
    step = StepRecord(task="t", index=1, kind="aiTap", label="aiTap x", status="passed",
                      before="artifacts/c/attempt-1/001-before.jpg",
                      marked="artifacts/c/attempt-1/step1-marked.svg")
    case = CaseResult(run_id="r1", case_id="c", name="C", file="c.yaml", platform="web",
                      device="browser-1", status="passed", started=STARTED, steps=[step])
    summary = RunSummary(run_id="r1", started=STARTED, duration=1.0, cases=[case])
    summary.recount()
    return summary, shot


def _marked_img(page: str) -> str:
    unfolded = page.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    found = re.findall(r'<img class="marked"[^>]*>', unfolded)
    assert len(found) == 1, found
    return found[0]


def test_the_report_shows_a_marked_copy_over_its_jpeg(tmp_path):
    summary, _ = _run(tmp_path)
    img = _marked_img(render_html(summary, tmp_path))
    assert 'src="artifacts/c/attempt-1/step1-marked.svg"' in img
    assert 'background-image:url("artifacts/c/attempt-1/001-before.jpg")' in html.unescape(img)


def test_an_older_run_s_embedded_copy_still_shows(tmp_path):
    summary, _ = _run(tmp_path, embedded=True)
    img = _marked_img(render_html(summary, tmp_path))
    assert 'src="artifacts/c/attempt-1/step1-marked.svg"' in img


def _attachment(tmp_path: Path, summary: RunSummary) -> bytes:
    out = write_allure(summary, tmp_path, tmp_path / "allure")
    (result,) = [json.loads(p.read_text()) for p in out.glob("*-result.json")]
    (attached,) = result["steps"][0]["attachments"]
    assert attached["type"] == "image/svg+xml"
    return (out / attached["source"]).read_bytes()


def test_the_allure_export_embeds_the_jpeg_its_viewer_would_not_load(tmp_path):
    summary, shot = _run(tmp_path)
    href = _href(_attachment(tmp_path, summary))
    head, _, data = href.partition(",")
    assert head == "data:image/jpeg;base64" and base64.b64decode(data) == shot
    # the run's own copy stays small
    assert b"data:" not in (tmp_path / summary.cases[0].steps[0].marked).read_bytes()


def test_the_allure_export_of_an_older_run_keeps_its_embedded_copy(tmp_path):
    summary, shot = _run(tmp_path, embedded=True)
    assert _attachment(tmp_path, summary) == (
        tmp_path / summary.cases[0].steps[0].marked).read_bytes()


def test_the_allure_export_embeds_no_file_from_outside_the_run(tmp_path):
    (tmp_path.parent / "secret.jpg").write_bytes(jpeg((8, 8)))
    summary, _ = _run(tmp_path, href="../../../../secret.jpg")
    assert _href(_attachment(tmp_path, summary)) == "../../../../secret.jpg"


def test_a_step_whose_before_image_is_gone_shows_the_image_its_copy_links_to(tmp_path):
    """A run killed while an unchanged screen's capture stood in for a step's before image:
    the rebuilt step has no before image, its marked copy links to the one it was made from."""
    summary, _ = _run(tmp_path)
    summary.cases[0].steps[0].before = None
    img = _marked_img(render_html(summary, tmp_path))
    assert 'background-image:url("artifacts/c/attempt-1/001-before.jpg")' in html.unescape(img)


def test_a_link_out_of_its_folder_is_not_shown(tmp_path):
    (tmp_path.parent / "secret.jpg").write_bytes(jpeg((8, 8)))
    summary, _ = _run(tmp_path, href="../../../../secret.jpg")
    summary.cases[0].steps[0].before = None
    assert "background-image" not in _marked_img(render_html(summary, tmp_path))
