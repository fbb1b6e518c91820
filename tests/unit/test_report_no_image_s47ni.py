"""A step without its "after" image says why, where the image would be in report.html and in
its results.json record (``no_image``): before, the run's end said once that images were not
taken and the report showed a blank at each such step."""

from __future__ import annotations

import json
import re

from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import DeviceError
from farm.evidence import CaseEvidence, flush_images
from farm.report.html import render_html
from farm.results import ArtifactStore, CaseResult, RunSummary, StepRecord
from tests.support.farm_cli import run_main
from tests.unit.test_plugin_contract_s46plug import plugin  # noqa: F401 (its fixture)
from tests.unit.test_report_images_not_taken_s46cap import BAD_SHOT_TV, CASE

TREE = UITree(source="t", nodes=[UINode(id=0, text="Home", rect=Rect(x=0, y=0, width=10,
                                                                    height=10))])
PNG = FakeDevice(TREE).screenshot()


def _evidence(tmp_path, policy="all", error=None, mask=None):
    device = FakeDevice(TREE, name="phone-2", errors={"screenshot": error} if error else None)
    store = ArtifactStore(tmp_path)
    return CaseEvidence(policy, ScreenshotGrabber(device), store, "s/a", 1, mask=mask), store


def _steps(evidence: CaseEvidence, statuses=("passed", "passed", "passed")) -> list[StepRecord]:
    before = evidence.start()
    records = [StepRecord(task="t", index=i, kind="tap", label=f"tap {i}", status=status)
               for i, status in enumerate(statuses, 1)]
    for rec in records:             # (as the runner does: a step's before is the last after)
        rec.before = before
        before = rec.after = evidence.after_step(rec, looks_only=False)
    return records


def _case(steps: list[StepRecord], status="passed", case_id="s/a") -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=case_id, file="s/a.yaml",
                      platform="android", status=status, steps=steps)


def _page(*cases: CaseResult, run_dir=None) -> str:
    summary = RunSummary(run_id="r1", started="2026-12-07T00:00:00+00:00", cases=list(cases))
    summary.recount()
    return render_html(summary, run_dir)


def _screens(html: str, label: str) -> str:
    """The Screens cell of the step row labelled ``label`` (the row's last cell)."""
    row = re.search(rf"<td>{re.escape(label)}(?:<| ).*?(?=<tr|</table>)", html, re.S)
    assert row, label
    return row.group(0).rsplit("<td>", 1)[1]


def test_a_plugin_whose_screenshots_are_no_images_says_why_at_each_step(
        plugin, monkeypatch, capsys, tmp_path):
    module = plugin(BAD_SHOT_TV)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "home.yaml").write_text(CASE)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", module)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "tv:1",
                              "--no-progress", "--report-dir", "r")
    assert code == 0, out + err
    [case] = json.loads((tmp_path / "r" / "results.json").read_text())["cases"]
    why = (f"not taken: screenshot() of device plugin {module!r} returned bytes b'not a png': "
           "expected the PNG or JPEG bytes of the screen (9 bytes, not a PNG or JPEG)")
    assert [s["no_image"] for s in case["steps"]] == [why, why]
    assert [s["after"] for s in case["steps"]] == [None, None]
    html = (tmp_path / "r" / "report.html").read_text()
    # the case passed: its body is in a <noscript> (report.js unfolds it), the row as markup
    from farm.report.html import cut_long, NO_IMAGE_SHOWN
    shown = cut_long(why, NO_IMAGE_SHOWN)      # (a long reason: its start, the rest in json)
    assert f'<span class="noimg">no image: {shown.replace(chr(39), "&#x27;")}</span>' \
        in _screens(html, 'assertText "Home"')
    assert html.count('<span class="noimg">no image: as at step 1</span>') == 1
    assert len([line for line in err.splitlines() if "could not be taken" in line]) == 1


def test_a_capture_error_holding_a_secret_is_masked_on_the_step_and_at_the_runs_end(
        tmp_path, capsys):
    evidence, store = _evidence(tmp_path, error=DeviceError(
        "screencap of https://qa:hunter2@app.example/ failed"),
        mask=lambda text: text.replace("hunter2", "***"))
    records = _steps(evidence)
    evidence.finish(records, _case(records))
    store.flush()
    assert [r.no_image for r in records] == [
        "not taken: screencap of https://qa:***@app.example/ failed"] * 3
    err = capsys.readouterr().err
    assert "hunter2" not in err and "qa:***@" in err, err


def test_a_capture_that_timed_out_says_the_device_did_not_answer(tmp_path):
    evidence, _store = _evidence(tmp_path, error=TimeoutError("screencap took over 5 s"))
    [rec] = _steps(evidence, ("failed",))
    assert rec.no_image == ("the device did not answer the capture (TimeoutError: "
                            "screencap took over 5 s)")


def test_a_capture_failing_in_the_background_is_said_on_its_step(tmp_path):
    evidence, store = _evidence(tmp_path)

    def later_fails():
        raise DeviceError("the screen went away")
    evidence.grabber.capture_evidence = lambda: later_fails      # (a browser's Later)
    records = _steps(evidence, ("passed", "failed"))
    evidence.finish(records, _case(records, "failed"))
    assert [(r.after, r.no_image) for r in records] == [
        (None, "not taken: the screen went away")] * 2


def test_an_image_the_disk_refused_says_not_written_and_why(tmp_path, capsys):
    (tmp_path / "artifacts").write_text("a file where the artifacts folder goes")
    evidence, store = _evidence(tmp_path)
    records = _steps(evidence)
    case = _case(records)
    evidence.finish(records, case)
    assert all(r.after for r in records)             # handed to the store: not on disk yet
    flush_images([case], store)
    assert [(r.before, r.after, r.no_image) for r in records] == [
        (None, None, "not written: Not a directory")] * 3
    assert "4 screenshot(s) not written" in capsys.readouterr().err   # the end line as before
    html = _page(case, run_dir=tmp_path)
    assert _screens(html, "tap 1") == ('<span class="noimg">no image: not written: Not a '
                                       'directory</span>')
    assert "missing</span>" not in html             # ("before missing", "after missing")


def test_a_screenshots_off_run_says_it_once_not_on_every_step(tmp_path):
    cases = []
    for n in range(20):
        evidence, _store = _evidence(tmp_path / str(n), policy="off")
        records = _steps(evidence, ("passed",) * 5)
        evidence.finish(records, case := _case(records, case_id=f"s/c{n}"))
        cases.append(case)
    assert {r.no_image for c in cases for r in c.steps} == {"--screenshots off"}
    html = _page(*cases)
    assert html.count("--screenshots off") == 1
    assert "<dt>Images</dt><dd>100 steps without one: --screenshots off</dd>" in html
    assert 'class="noimg"' not in html


def test_on_failure_a_passing_step_has_none_by_policy_the_failing_one_its_image(tmp_path):
    evidence, _store = _evidence(tmp_path, policy="on-failure")
    passed, failed = _steps(evidence, ("passed", "failed"))
    assert (passed.after, passed.no_image) == (None, "--screenshots on-failure: it passed")
    assert failed.after and failed.no_image is None


def test_steps_that_never_ran_or_ended_the_case_say_so(tmp_path):
    evidence, _store = _evidence(tmp_path)
    evidence.start()
    ended = StepRecord(task="t", index=1, kind="tap", label="tap 1", status="error",
                       error="DeviceLost: adb: device offline")    # (no after_step: it raised)
    skipped = StepRecord(task="t", index=2, kind="tap", label="tap 2", status="skipped")
    evidence.finish([ended, skipped], case := _case([ended, skipped], "error"))
    assert (ended.no_image, skipped.no_image) == ("the case ended in this step", "not run")
    html = _page(case)
    assert _screens(html, "tap 1").endswith(
        '<span class="noimg">no image: the case ended in this step</span>')
    assert _screens(html, "tap 2") == '<span class="noimg">no image: not run</span>'


def test_a_step_with_its_image_writes_no_no_image_field(tmp_path):
    evidence, store = _evidence(tmp_path)
    records = _steps(evidence)
    evidence.finish(records, case := _case(records))
    flush_images([case], store)
    assert all((tmp_path / r.after).is_file() for r in records)
    assert all("no_image" not in r.model_dump() for r in records)   # results.json as before


def test_a_long_reason_is_cut_in_the_page_and_whole_in_results_json():
    why = "not taken: " + "x" * 2000
    page = _page(_case([StepRecord(task="t", index=1, kind="tap", label="tap 1",
                                   no_image=why)]))
    cell = _screens(page, "tap 1")
    assert len(cell) < 300 and "more characters in results.json" in cell


def test_a_first_capture_that_found_the_screen_unchanged_says_so(tmp_path):
    """A browser whose page had not changed since the image of the case before on it: this
    case has no image of its own to show."""
    evidence, _store = _evidence(tmp_path)
    evidence.grabber.capture_evidence = lambda: (lambda: None)
    records = _steps(evidence, ("passed",))
    evidence.finish(records, _case(records))
    assert [(r.after, r.no_image) for r in records] == [
        (None, "the screen had not changed since an earlier case's image")]


def test_a_workers_image_the_runs_disk_refused_says_not_written_on_its_step(tmp_path):
    """A cluster run: the worker's images are written by the run's client (`save_artifacts`);
    one its disk refused is said on the step as a local run's."""
    import base64

    from farm.cluster.jobs import save_artifacts
    (tmp_path / "artifacts").write_text("a file where the artifacts folder goes")
    store = ArtifactStore(tmp_path)
    shot = "artifacts/s-a/attempt-1/002-step1.jpg"
    rec = StepRecord(task="t", index=1, kind="tap", label="tap 1", after=shot)
    save_artifacts(tmp_path, {shot: base64.b64encode(PNG).decode()}, store.not_written)
    flush_images([_case([rec])], store)
    assert (rec.after, rec.no_image) == (None, "not written: Not a directory")
