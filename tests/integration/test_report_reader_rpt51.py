"""Two nights of a small suite through `farm run` (real Chromium), each written with
`--report-dir` outside the state dir, then `farm report --history`, read as a QA lead reads
them: the Failures list says which failures are new and which still failing, the report links
the history page of its run's state dir, a step's note and its thumbnails fit their cell at
desktop widths, and the history page counts a flaky case's failed attempts as such."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PRESENT, ABSENT = "Farm Shop", "Text that is not on the page"

FARM_YAML = f"""
timeout: 60
apps:
  shop:
    serve: {ROOT / "suites" / "demo" / "app"}
    env: FARM_DEMO_URL
"""
WEB = "web:\n  url: ${FARM_DEMO_URL}/index.html\n  viewportWidth: %d\n  viewportHeight: %d\n"
CASES = {
    # red both nights: still failing on the second
    "stays.yaml": "name: Stays red\n" + WEB % (1280, 800) +
                  f"tasks:\n  - name: main\n    flow:\n      - assertText: {ABSENT}\n",
    # green, then red: a new failure; a wide, short screen (its thumbnails were cut at 1200 px)
    "breaks.yaml": "name: Breaks\n" + WEB % (800, 400) +
                   "tasks:\n  - name: main\n    flow:\n      - assertText: ${BREAKS}\n",
    # fails once, passes on its retry, both nights: flaky, and flaky before on the second
    "flaky.yaml": "name: Flaky\nretries: 1\n" + WEB % (1280, 800) +
                  "tasks:\n  - name: ask\n    flow:\n      - javascript: |\n"
                  "          return fetch('${FLAKY_URL}').then(r => {\n"
                  "            if (!r.ok) throw new Error('backend said ' + r.status);\n"
                  "            return r.status; });\n",
    # its step never ends: "no image: the case ended in this step" (cut at 1400 px)
    "hangs.yaml": "name: Hangs\ntimeout: 5\n" + WEB % (1280, 800) +
                  "tasks:\n  - name: wait\n    flow:\n"
                  '      - javascript: "return new Promise(() => {})"\n',
    "passes.yaml": "name: Passes\n" + WEB % (1280, 800) +
                   f"tasks:\n  - name: main\n    flow:\n      - assertText: {PRESENT}\n",
    # no model: skipped (a nightly's six status filters and two pickers: the toolbar wrapped)
    "skips.yaml": "name: Skips\n" + WEB % (1280, 800) +
                  "tasks:\n  - name: look\n    flow:\n      - aiAssert: the shop lists products\n",
}


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> dict:
    from tests.support.farm_cli import FarmCli
    from tests.support.flaky_backend import FlakyBackend
    tmp = tmp_path_factory.mktemp("rpt51")
    suite = tmp / "nightly"
    suite.mkdir()
    (suite / "farm.yaml").write_text(FARM_YAML)
    for name, text in CASES.items():
        (suite / name).write_text(text)
    cli = FarmCli(tmp)
    reports = tmp / "reports"
    try:
        for night, breaks in ((1, PRESENT), (2, ABSENT)):
            with FlakyBackend() as backend:
                done = cli.run("run", suite, "--devices", "browser:2", "--no-progress",
                               "--report-dir", reports / f"night{night}", BREAKS=breaks,
                               FLAKY_URL=backend.url)
            assert done.returncode == 1, done.stdout + done.stderr
            page = cli.run("report", "--history")    # (the state dir's history.html)
            assert page.returncode == 0, page.stdout + page.stderr
    finally:
        cli.close()
    return {"reports": reports, "history": tmp / "state" / "history.html", "tmp": tmp}


def _failure_rows(html: str) -> dict[str, str]:
    """The Failures list's rows: case name → the row's text, tags stripped."""
    section = html[html.index('<section class="failures"'):]
    section = section[:section.index("</section>")]
    rows = {}
    for row in section.split("<tr>")[2:]:
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip()
        rows[text.split(" ", 2)[1]] = text
    return rows


def test_failures_list_says_which_failures_are_new_and_which_still_failing(nights):
    html = (nights["reports"] / "night2" / "report.html").read_text()
    assert "<th>Case<th>Verdict<th>Failed at<th>Why" in html
    rows = _failure_rows(html)
    assert rows["Breaks"].startswith("failed Breaks new failure step 1")
    assert rows["Stays"].startswith("failed Stays red still failing step 1")
    assert rows["Hangs"].startswith("error Hangs still failing step 1")
    # the same chip as the case's row: words, colour class and hover text
    chip = re.search(r'<span class="since v-new-failure" title="against earlier runs: '
                     r'[^"]+">new failure</span>', html)
    assert chip and html.count(chip.group(0)) == 2       # its row and the Failures list


def test_report_links_the_history_page_of_its_state_dir_wherever_it_was_written(nights):
    first = (nights["reports"] / "night1" / "report.html").read_text()
    assert 'class="history-link"' not in first        # no history page when it was written
    second = nights["reports"] / "night2" / "report.html"
    href = re.search(r'<p class="history-link"><a href="([^"]+)">', second.read_text())
    assert href, "no link to the history page"
    assert not href.group(1).startswith(("/", "file:"))      # relative: the folder can move
    target = second.parent / href.group(1)
    assert os.path.samefile(target, nights["history"])


def test_a_report_rebuilt_elsewhere_links_the_history_page_too(nights):
    import shutil

    from tests.support.farm_cli import FarmCli
    moved = nights["tmp"] / "elsewhere" / "deeper" / "night2"
    shutil.copytree(nights["reports"] / "night2", moved)
    (moved / "report.html").unlink()
    cli = FarmCli(nights["tmp"])        # (the same state dir)
    try:
        done = cli.run("report", moved)
    finally:
        cli.close()
    assert done.returncode == 0, done.stdout + done.stderr
    href = re.search(r'<p class="history-link"><a href="([^"]+)">',
                     (moved / "report.html").read_text())
    assert href and href.group(1) == "../../../state/history.html"


def test_history_page_counts_a_flaky_case_failed_attempts_as_such(nights):
    html = nights["history"].read_text()
    ranking = html[html.index('<section id="flaky">'):]
    row = ranking[ranking.index('<tr data-case="nightly/flaky">'):]
    row = row[:row.index("</tr>") if "</tr>" in row else row.index("\n")]
    assert '<td class="n">0 · 2 / 2<' in row           # failed · flaky (passed on retry) / runs
    assert "2 failed attempts in 2 flaky runs" in row and " failures" not in row
    # what changed: the same words as the run's report
    latest = html[html.index('<section id="latest">'):html.index('<section id="flaky">')]
    verdict = re.search(r'<tr data-case="nightly/flaky">.*?<td class="verdict[^"]*">([^<]+)',
                        latest)
    assert verdict and "flaky before" in verdict.group(1)
    report = (nights["reports"] / "night2" / "report.html").read_text()
    assert re.search(r'id="case=nightly/flaky".*?<span class="since v-flaky-before"', report,
                     re.S)


CLIPPED = """() => [...document.querySelectorAll('.steps td:nth-child(6), .steps .noimg')]
    .filter(e => e.offsetParent && e.scrollWidth > e.clientWidth)
    .map(e => e.closest('details').id + ': ' + e.textContent.trim())"""


@pytest.mark.parametrize("width", [1200, 1400])
def test_notes_and_thumbnails_fit_their_cell_at_desktop_widths(nights, viewer_browser, width):
    page = viewer_browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto((nights["reports"] / "night2" / "report.html").as_uri(), wait_until="load")
        note = page.locator("details.case.st-error .noimg", has_text="the case ended")
        assert note.count() == 1 and note.is_visible()
        assert page.locator("details.case.st-failed .steps img").count() >= 4
        assert page.evaluate(CLIPPED) == []
        assert page.locator(".toolbar .filter").count() == 6
        assert page.locator(".toolbar select.pick:visible").count() == 2
        bar = page.locator(".toolbar").bounding_box()
        assert bar and bar["height"] < 60, bar       # one line: it was 86 px on two
    finally:
        page.close()
