"""The run's outputs a CI job and a QA lead read in the morning, from a real `farm run`.

A run killed between two cases (SIGKILL: a CI time limit) and rebuilt with `farm report
RUN_DIR` had a junit.xml of the cases that ran, passes, and the rest skipped: nothing in it
said the run had not finished, and Jenkins, GitLab and GitHub (which read only <testcase>s)
showed it green. It now has a ``farm.run`` testcase with an <error type="RunInterrupted">
saying how many cases never ran, and which."""

from __future__ import annotations

import json
import signal
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, kill_tree, wait_for
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

PLUGINS = "tests.support.devices,tests.integration.held_phone"


def _passed(run_dir: Path, case_id: str) -> bool:
    """Whether the run's journal has ``case_id``'s final result, passed."""
    try:
        lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if data.get("case_id") == case_id and data.get("status") == "passed":
            return True
    return False


def test_a_run_killed_between_cases_is_not_green_in_its_rebuilt_junit(
        farm: FarmCli, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_case(suite, "web_first", ["sleep: 10"])
    (suite / "phone_later.yaml").write_text(
        "android:\n  launch: com.example.app\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 10\n")
    run_dir, note = tmp_path / "run", tmp_path / "held"
    proc = farm.start("run", suite, "--devices", "fake:1,heldphone:1", "--report-dir", run_dir,
                      FARM_DEVICE_PLUGINS=PLUGINS, FARM_TEST_HELD_NOTE=str(note))
    try:
        # the web case has ended; the phone case waits for a phone that is still starting
        wait_for(lambda: _passed(run_dir, "suite/web_first") and note.exists(), 120,
                 "the web case passed while the phone starts")
        kill_tree(proc.popen, signal.SIGKILL)
        proc.finish()
    finally:
        if proc.returncode is None:
            kill_tree(proc.popen, signal.SIGKILL)
    done = farm.run("report", run_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    root = ET.parse(run_dir / "junit.xml").getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert cases[("suite", "web_first")].find("failure") is None
    assert cases[("suite", "phone_later")].find("skipped") is not None
    run = cases[("farm", "run")].find("error")
    assert run is not None, ET.tostring(root, encoding="unicode")
    assert run.get("type") == "RunInterrupted"
    assert "before it ran 1 of its 2 case(s)" in run.get("message", "")
    assert "suite/phone_later" in (run.text or "")
    assert int(root.get("errors")) == 1 and int(root.get("tests")) == 3


# ---- report.html of a 400-case nightly, read in real Chromium from file:// ---------------------

XSS = "<img src=x onerror=alert(1)>"
RTL = "aiInput: שלום עולם 👋🏽 مرحبا"
N = 400


def _jpeg(path: Path, color: tuple[int, int, int]) -> None:
    from PIL import Image
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 40), color).save(path, "JPEG")


def _nightly_case(run_dir: Path, i: int) -> "CaseResult":
    """Case ``i`` of the nightly: 1 in 40 fails at its step 18 of 20 (a long error), 1 in 100
    is an infrastructure error, the rest pass in 5 steps; every step has its two images."""
    from farm.results import CaseError, CaseResult, StepRecord
    status = "failed" if i % 40 == 7 else "error" if i % 100 == 13 else "passed"
    case_id, bad = f"nightly/c{i:03d}", 18 if status != "passed" else None
    steps = []
    for k in range(1, 21 if bad else 6):
        shots = [f"artifacts/c{i:03d}/{k:03d}-{w}.jpg" for w in ("before", "after")]
        for n, rel in enumerate(shots):
            _jpeg(run_dir / rel, (i % 255, k * 10, 100 * n))
        state = "failed" if k == bad else "skipped" if bad and k > bad else "passed"
        steps.append(StepRecord(
            task="main", index=k, kind="aiTap", line=k + 4, status=state, duration=0.2,
            label=RTL if (i, k) == (7, 3) else f"aiTap: button {k}", before=shots[0],
            after=shots[1], error="Expected 'Total: 42' " + "x" * 3000 if k == bad else None))
    error = None
    if status == "failed":
        error = CaseError(kind="AssertionFailed", message="Expected 'Total: 42' " + "y" * 3000,
                          step=bad)
    elif status == "error":
        error = CaseError(kind="DeviceLost", message="adb: device offline", step=bad)
    name = XSS if i == 7 else "a_long_case_name_with_no_space_" * 8 if i == 47 else f"case {i}"
    return CaseResult(run_id="nightly-400", case_id=case_id, name=name,
                      file=f"suites/nightly/c{i:03d}.yaml", line=bad + 4 if bad else 0,
                      platform="web", device=f"browser-{i % 2 + 1}", status=status, error=error,
                      started="2026-12-06T01:00:00+00:00", duration=1.0, steps=steps,
                      screenshot=steps[bad - 1].after if bad else None)


@pytest.fixture(scope="module")
def nightly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run dir of 400 cases written by farm's own writers (results.json, junit.xml,
    report.html, --alluredir)."""
    from farm.results import RunSummary
    from farm.run_outputs import write_outputs
    run_dir = tmp_path_factory.mktemp("nightly")
    summary = RunSummary(run_id="nightly-400", started="2026-12-06T01:00:00+00:00",
                         duration=400.0, devices=["browser-1", "browser-2"], exit_code=1,
                         cases=[_nightly_case(run_dir, i) for i in range(N)])
    summary.recount()
    assert write_outputs(summary, run_dir, alluredir=run_dir / "allure") == []
    return run_dir


def test_the_tab_of_a_nightly_says_its_verdict(nightly: Path, viewer_page, page_errors) -> None:
    viewer_page.goto((nightly / "report.html").as_uri())
    assert viewer_page.title() == "10 failed, 4 error, 386 passed of 400 · farm report nightly-400"
    assert page_errors == []


def _in_view(box: dict | None, height: int = 800) -> bool:
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_the_first_failure_its_step_and_screenshot_show_without_scrolling(
        nightly: Path, viewer_page, page_errors) -> None:
    viewer_page.set_viewport_size({"width": 1280, "height": 800})
    viewer_page.goto((nightly / "report.html").as_uri())
    first = viewer_page.locator("details.case").first
    assert first.get_attribute("data-status") == "failed" and first.get_attribute("open") == ""
    # the first screen lists the failures, the first one with the step it failed at (of 20,
    # after 17 passes) and its reason; its link brings the case: a 3000-character error
    # scrolls in its box, so the step and its screenshot are on that screen
    listed = viewer_page.locator("#failures tbody tr").first
    assert _in_view(listed.bounding_box()), listed.bounding_box()
    assert "step 18 · main: aiTap: button 18" in listed.inner_text()
    listed.locator("a").click()
    at = first.locator(".at-step")
    assert at.inner_text() == "Failed at step 18 of 20 · line 22 · main: aiTap: button 18"
    assert _in_view(at.bounding_box()), at.bounding_box()
    assert _in_view(first.locator(".evidence img").bounding_box())
    at.locator("a").click()     # and one click shows the step's row, with its images
    row = first.locator("tr.at")
    assert row.locator("td").nth(2).inner_text() == "failed"
    assert _in_view(row.bounding_box()), row.bounding_box()
    assert page_errors == []


@pytest.mark.parametrize("viewer_context_args", [{"java_script_enabled": False}])
def test_with_javascript_off_the_failures_are_readable_and_no_dead_control_shows(
        nightly: Path, viewer_page, viewer_context_args) -> None:
    viewer_page.goto((nightly / "report.html").as_uri())
    opened = viewer_page.locator("details.case[open]")
    assert opened.count() == 14
    assert {opened.nth(i).get_attribute("data-status") for i in range(14)} == {"failed", "error"}
    assert viewer_page.locator("details.case").first.locator("pre.error").is_visible()
    assert not viewer_page.locator("#search").is_visible()
    assert not viewer_page.locator("button[data-filter]").first.is_visible()
    assert "JavaScript is off" in viewer_page.locator(".toolbar").inner_text()


def test_a_nightly_opens_light_filters_and_searches_from_file(
        nightly: Path, viewer_page, page_errors) -> None:
    """What behaves well, kept so: ~2.5 KB a case, images fetched as they scroll into view,
    filter and search without a server, hostile and RTL text shown as written."""
    report = nightly / "report.html"
    assert report.stat().st_size < 1.5 * 1024 * 1024
    fetched: list[str] = []
    viewer_page.on("request", lambda r: fetched.append(r.url) if r.url.endswith(".jpg")
                   else None)
    viewer_page.set_viewport_size({"width": 1280, "height": 800})
    viewer_page.goto(report.as_uri())
    viewer_page.wait_for_load_state("load")
    # (a closed case's steps are built as it opens: its images are in the file, not the page)
    assert report.read_text().count("<img") > 4000 and len(fetched) < 200
    viewer_page.locator("button[data-filter=failed]").click()
    assert viewer_page.locator("#shown").inner_text() == f"10 of {N} cases"
    assert viewer_page.locator("details.case:not([hidden])").count() == 10
    viewer_page.locator("button[data-filter=all]").click()
    viewer_page.fill("#search", "device offline")
    assert viewer_page.locator("#shown").inner_text() == f"4 of {N} cases"
    viewer_page.fill("#search", "")
    assert viewer_page.locator("details.case").first.locator(".name").inner_text() == XSS
    assert RTL in viewer_page.locator("main").inner_text()
    # nothing wider than the page: long names and errors wrap
    assert viewer_page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert page_errors == []        # (a dialog would be there: the <img onerror> name ran)


def test_a_name_of_markup_stays_text_in_junit_and_allure(nightly: Path) -> None:
    root = ET.parse(nightly / "junit.xml").getroot()
    case = next(c for c in root.iter("testcase") if c.get("name") == "c007")
    assert f"title: {XSS}" in case.find("system-out").text
    names = [json.loads(p.read_text())["name"] for p in (nightly / "allure").glob("*-result.json")]
    assert XSS in names
