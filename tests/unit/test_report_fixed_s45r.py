"""The run report says what got fixed since the run before (a pass of a case that failed the
last time it ran) and what was flaky before too, as the results history knows them: in
results.json's since_last, the header's counts and the verdict menu, the console's tally; the
header's counts and the timeline's bars are links; a step that never ran shows no screen;
the history page is a link away; a skipped case's line is its first step's everywhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from farm.report.html import render_html, write_html
from farm.results import CaseResult, RunSummary, StepRecord, write_json
from farm.results_history import since_last
from farm.run_console import skipped_lines, summary_line
from tests.support.farm_cli import run_main as farm
from tests.unit.test_results_history import record_for, summary

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-case suite ``s`` that passes on a fake device, and a run before in which it
    failed (kept under .farm/runs: the results history starts from it)."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    run_id = "20260101-020000-aaaa"
    (tmp_path / ".farm" / "runs" / run_id).mkdir(parents=True)
    write_json(tmp_path / ".farm" / "runs" / run_id / "results.json",
               summary(run_id, 1, {"s/one": "failed"}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_TEST_FAKE_JOURNAL", str(tmp_path))
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_a_case_that_failed_last_night_and_passes_now_is_fixed_everywhere(
        here: Path, monkeypatch, capsys):
    (here / ".farm" / "history.html").write_text("<p>history</p>")   # farm report --history's
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert code == 0, out + err
    assert re.search(r"farm: 1 passed \(1 fixed\) in [\d.]+s", out), out
    [run_dir] = [p for p in (here / ".farm" / "runs").iterdir()
                 if p.name != "20260101-020000-aaaa"]
    [case] = json.loads((run_dir / "results.json").read_text())["cases"]
    assert case["since_last"] == "fixed"
    page = (run_dir / "report.html").read_text()
    assert '<a href="#since=fixed"><b>1</b> fixed</a>' in page      # the header's count
    assert '<option value="fixed">fixed (1)</option>' not in page    # (one case: no menu)
    assert 'data-since="fixed"' in page
    assert '<a href="../../history.html">' in page


def _case(cid: str, status: str, **kw) -> CaseResult:
    return CaseResult(run_id="r9", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml", line=3,
                      platform="web", device="browser-1", status=status,
                      started="2026-01-03T02:00:00+00:00", **kw)


def _night(*cases: CaseResult) -> RunSummary:
    s = RunSummary(run_id="r9", started="2026-01-03T02:00:00+00:00", duration=5.0,
                   cases=list(cases))
    s.recount()
    return s


def test_fixed_and_flaky_before_are_verdicts_with_counts_and_menu_options(tmp_path: Path):
    before = [record_for(summary("r1", 1, {"s/fix": "passed", "s/fl": "flaky", "s/ok": "passed",
                                           "s/new": "passed", "s/fl1": "passed"})),
              record_for(summary("r2", 2, {"s/fix": "failed", "s/fl": "passed", "s/ok": "passed",
                                           "s/new": "passed", "s/fl1": "passed"}))]
    night = _night(_case("fix", "passed"), _case("fl", "flaky"), _case("ok", "passed"),
                   _case("new", "failed"), _case("fl1", "flaky"))
    verdicts = since_last(before, night)
    assert verdicts == {"s/fix": "fixed", "s/fl": "flaky before", "s/new": "new failure"}
    for c in night.cases:
        c.since_last = verdicts.get(c.case_id)
    page = render_html(night)
    assert '<a href="#since=fixed"><b>1</b> fixed</a>' in page
    assert '<a href="#since=flaky-before"><b>1</b> flaky before</a>' in page
    assert '<a href="#since=new-failure"><b>1</b> new failure</a>' in page
    assert '<option value="fixed">fixed (1)</option>' in page
    assert '<option value="flaky-before">flaky before (1)</option>' in page
    assert summary_line(night).startswith("farm: 2 passed (1 fixed), 1 failed (1 new), 2 flaky")


def test_header_counts_and_timeline_bars_are_links(tmp_path: Path):
    page = render_html(_night(_case("a", "failed"), _case("b", "passed"), _case("c", "flaky")))
    for status, n in (("failed", 1), ("passed", 1), ("flaky", 1)):
        assert f'<a href="#status={status}"><b>{n}</b> {status}</a>' in page
    assert "<b>0</b> error</li>" in page           # a zero count links nowhere
    bars = re.findall(r'<a class="bar st-(\w+)[^"]*" href="([^"]+)"', page)
    assert sorted(bars) == [("failed", "#case=s/a"), ("flaky", "#case=s/c"),
                            ("passed", "#case=s/b")]
    assert 'id="case=s/a"' in page


def test_no_history_link_when_the_page_is_not_there(tmp_path: Path):
    run_dir = tmp_path / ".farm" / "runs" / "r9"
    page = write_html(_night(_case("a", "passed")), run_dir).read_text()
    assert "history.html" not in page


def test_a_step_that_never_ran_shows_no_screen(tmp_path: Path):
    shot = tmp_path / "artifacts" / "at-failure.jpg"
    shot.parent.mkdir()
    shot.write_bytes(b"\xff\xd8jpeg")
    steps = [StepRecord(task="t", index=1, kind="assertText", label="assertText x", line=3,
                        status="failed", error="not on screen", before="artifacts/at-failure.jpg"),
             StepRecord(task="t", index=2, kind="aiTap", label="aiTap y", line=4,
                        status="skipped", before="artifacts/at-failure.jpg")]
    page = write_html(_night(_case("a", "failed", steps=steps)), tmp_path).read_text()
    rows = re.findall(r"<tr[^>]*><td>(\d)<td>.*?(?=<tr|</table>)", page, re.S)
    assert rows == ["1", "2"]
    skipped_row = page[page.index("<td>2<td>aiTap y"):].split("</table>")[0]
    failed_row = page[page.index("<td>1<td>assertText x"):page.index("<td>2<td>aiTap y")]
    assert "at-failure.jpg" in failed_row and "<img" not in skipped_row


def test_a_skipped_case_s_console_line_is_its_first_step_s_as_results_json_says(tmp_path):
    step = StepRecord(task="t", index=4, kind="aiQuery", label="aiQuery z", line=18,
                      status="skipped")
    case = _case("q", "skipped", reason="needs a model (set FARM_MODEL): aiQuery at line 18",
                 steps=[step])
    [line] = skipped_lines(_night(case))
    assert line.startswith("SKIPPED s/q (s/q.yaml:3) — needs a model")
