"""What a QA lead reading report.html sees (helper rdr49): the YAML links survive a rebuild
from another directory, the error badge's help, a Failures list at the top, keyboard reach,
a search that does not match the browser's version."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = """\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: steps
    flow:
      - javascript: return 1
"""


class _Page(HTMLParser):
    """The parsed page: every element as (tag, attrs, text inside it)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str], list[str]]] = []
        self._open: list[tuple[str, dict[str, str], list[str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        el = (tag, {k: v or "" for k, v in attrs}, [])
        self.elements.append(el)
        if tag not in ("img", "input", "meta", "link", "br", "col", "hr"):
            self._open.append(el)

    def handle_endtag(self, tag):
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i][0] == tag:
                del self._open[i:]
                break

    def handle_data(self, data):
        for el in self._open:
            el[2].append(data)

    def find(self, tag: str, **attrs: str) -> list[tuple[str, dict[str, str], str]]:
        return [(t, a, "".join(x)) for t, a, x in self.elements if t == tag and all(
            (v in a.get(k.rstrip("_"), "").split()) if k == "class_" else a.get(k) == v
            for k, v in attrs.items())]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory where ``farm run`` uses the in-memory ``fake`` device."""
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_SECRETS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    return proj


def _src_links(run_dir: Path) -> list[Path]:
    page = _Page((run_dir / "report.html").read_text())
    return [(run_dir / a["href"]).resolve() for _, a, _ in page.find("a", class_="src")]


def test_a_report_rebuilt_elsewhere_links_the_runs_own_yaml_rdr49(here, monkeypatch, capsys):
    from tests.support.devices import StagedFakeDevice
    monkeypatch.setattr(StagedFakeDevice, "run_script", lambda self, code, timeout_s: 1)
    (here / "s").mkdir()
    (here / "s" / "login.yaml").write_text(CASE.format(name="login"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--report-dir", "r")
    assert code == 0, out + err
    run_dir = here / "r"
    assert json.loads((run_dir / "results.json").read_text())["cwd"] == os.getcwd()
    mine = (here / "s" / "login.yaml").resolve()
    assert _src_links(run_dir) == [mine]
    elsewhere = here.parent / "elsewhere"         # no s/login.yaml there
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = run_main(monkeypatch, capsys, "report", str(run_dir))
    assert code == 0, out + err
    assert _src_links(run_dir) == [mine]
    other = here.parent / "other"                # a different s/login.yaml there
    (other / "s").mkdir(parents=True)
    (other / "s" / "login.yaml").write_text(CASE.format(name="someone else's"))
    monkeypatch.chdir(other)
    code, out, err = run_main(monkeypatch, capsys, "report", str(run_dir))
    assert code == 0, out + err
    assert _src_links(run_dir) == [mine]
    # the run's folder moved away: no link at all, never one to the other file
    (here / "s" / "login.yaml").unlink()
    code, out, err = run_main(monkeypatch, capsys, "report", str(run_dir))
    assert code == 0, out + err
    assert _src_links(run_dir) == []


def test_a_history_page_with_no_history_is_an_error_not_an_empty_page_rdr49(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL", "FARM_BROKER_URL",
                 "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = run_main(monkeypatch, capsys, "report", "--history")
    assert code == 4 and out == ""
    assert "farm: error: .farm/results.sqlite: no run recorded in this results history" in err
    assert "`farm run` records each run there" in err and "Traceback" not in err
    assert not (tmp_path / ".farm" / "history.html").exists()
    page = tmp_path / "history.html"
    page.write_text("<p>last week's page</p>")
    code, out, err = run_main(monkeypatch, capsys, "report", "--history", "--out", str(page))
    assert code == 4 and f"Nothing written; {page} left as it was" in err
    assert page.read_text() == "<p>last week's page</p>"


def _run(n_failed: int = 2, n_passed: int = 3):
    from farm.results import CaseError, CaseResult, RunSummary, StepRecord
    shell = "Chromium 156.0.8078.129 (chromium-headless-shell)"

    def case(i: int, status: str) -> CaseResult:
        bad = status != "passed"
        return CaseResult(
            run_id="r", case_id=f"s/c{i:02d}", name=f"case {i:02d}", file=f"s/c{i:02d}.yaml",
            platform="web", status=status, device="browser-1", device_info=shell,
            started=f"2026-01-01T00:00:{i:02d}+00:00", duration=1.0,
            error=CaseError(kind="CaseTimeout" if status == "error" else "AssertionFailed",
                            message=f"reason {i}\nsecond line", step=2) if bad else None,
            steps=[StepRecord(task="Open", index=1, kind="javascript", label="javascript: 1"),
                   StepRecord(task="Wait", index=2, kind="sleep", label='sleep "10000"',
                              status="failed" if bad else "passed")])
    cases = [case(i, "failed" if i % 2 else "error") for i in range(n_failed)]
    cases += [case(100 + i, "passed") for i in range(n_passed)]
    summary = RunSummary(run_id="r", started="2026-01-01T00:00:00+00:00", cases=cases,
                         devices=["browser-1"], device_info={"browser-1": shell})
    summary.recount()
    return summary


def test_the_error_badge_says_a_timeout_is_an_error_too_rdr49():
    from farm.report.html import render_html
    page = _Page(render_html(_run()))
    [(_, badge, _)] = [b for b in page.find("span", class_="st-error")
                       if "badge" in b[1]["class"]][:1]
    assert "timed out" in badge["title"] and "infrastructure" not in badge["title"]


def test_the_top_lists_each_failure_its_step_and_why_rdr49():
    from farm.report.html import render_html
    page = _Page(render_html(_run(n_failed=23)))
    [(_, _, text)] = page.find("section", id="failures")
    links = [a["href"] for _, a, _ in page.find("a") if a.get("href", "").startswith("#case=")]
    assert links[:3] == ["#case=s/c01", "#case=s/c03", "#case=s/c05"]   # failed first
    assert "Failures 23" in text and "step 2 · Wait: sleep \"10000\"" in text
    assert "AssertionFailed: reason 1" in text and "second line" not in text
    assert "and 3 more: all 11 failed, all 12 error" in text
    more = [a["href"] for _, a, x in page.find("a") if x in ("all 11 failed", "all 12 error")]
    assert more == ["#status=failed", "#status=error"]
    # a run that all passed has none
    assert not _Page(render_html(_run(n_failed=0))).find("section", id="failures")


def test_the_keyboard_skips_the_timeline_and_the_search_skips_versions_rdr49():
    from farm.report.html import render_html
    page = _Page(render_html(_run()))
    skips = [(a["href"], x) for _, a, x in page.find("a", class_="skip")]
    assert skips == [("#failures", "Skip to the failures"), ("#cases", "Skip to the cases")]
    bars = page.find("a", class_="bar")
    assert bars and all(a.get("tabindex") == "-1" for _, a, _ in bars)
    for _, case, _ in page.find("details", class_="case"):
        assert "156" not in case["data-q"] and "8078" not in case["data-q"]
        assert "chromium" in case["data-q"]


def _contrast(a: str, b: str) -> float:
    def lum(h: str) -> float:
        r, g, b_ = (int(h.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
        f = (lambda c: c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b_)
    x, y = sorted([lum(a), lum(b)])
    return (y + 0.05) / (x + 0.05)


def test_badge_and_flaky_words_are_readable_and_the_rate_says_flaky_rdr49():
    import re

    from farm.report.html import _asset, render_html
    css = _asset("report.css")
    error = re.search(r"--error: (#[0-9a-f]{6})", css).group(1)
    stripe = re.search(r"\.badge\.st-error \{[^}]*var\(--error\) 0 6px, (#[0-9a-f]{6})",
                       css).group(1)
    assert min(_contrast("#ffffff", error), _contrast("#ffffff", stripe)) >= 4.5
    hist = _asset("history.css")
    flaky = re.search(r"\.hist \.verdict\.v-flaky[^{]*\{ color: (#[0-9a-f]{6})", hist).group(1)
    assert _contrast("#ffffff", flaky) >= 4.5
    summary = _run(n_failed=1, n_passed=3)
    summary.cases[-1].status = "flaky"
    summary.recount()
    page = _Page(render_html(summary))
    [(_, _, said)] = page.find("small", id="pass-rate-of")
    assert said == "3 passed of 4 finished (1 flaky: passed after a retry)"
    assert [x for _, a, x in page.find("li") if "st-passed" in a.get("class", "")] == ["2 passed"]


def test_the_history_pages_newest_run_links_each_case_to_its_row_rdr49(tmp_path):
    from farm.report.history_page import render_history
    from farm.results import CaseResult, RunSummary
    from farm.results_history import record_for
    runs = []
    for n, status in enumerate(["passed", "failed"]):
        run_id = f"20260101-00000{n}-abcd"
        run_dir = tmp_path / "runs" / run_id
        run_dir.mkdir(parents=True)
        summary = RunSummary(run_id=run_id, started=f"2026-01-01T00:00:0{n}+00:00", cases=[
            CaseResult(run_id=run_id, case_id="s/login", name="log in", file="s/login.yaml",
                       platform="web", status=status, started=f"2026-01-01T00:00:0{n}+00:00")])
        summary.recount()
        (run_dir / "results.json").write_text(summary.model_dump_json())
        (run_dir / "report.html").write_text("<p>report</p>")
        runs.append(record_for(summary, run_dir / "report.html"))
    page = _Page(render_history(runs, tmp_path))
    [(_, _, latest)] = page.find("section", id="latest")
    assert "new failure" in latest
    hrefs = [(a["href"], x) for _, a, x in page.find("a") if x == "log in"]
    assert hrefs == [("runs/20260101-000001-abcd/report.html#case=s/login", "log in")]


def test_small_things_a_reader_tripped_on_rdr49():
    import re

    from farm.report.html import _asset, render_html
    summary = _run(n_failed=1, n_passed=0)
    [case] = summary.cases
    case.steps[0].before = "/etc/hostname"           # (a file that is there: linked)
    case.steps[1].no_image = "the case ended in this step"
    case.error.step = 1
    case.steps[0].status, case.steps[0].no_image = "failed", "the case ended in this step"
    case.screenshot = "/etc/hostname"
    page = _Page(render_html(summary))
    [caption] = [x for _, _, x in page.find("figcaption") if x.startswith("Last")]
    assert caption == ("Last screenshot (error) — taken before step 1 ran; none after it: "
                       "the case ended in this step")
    # headings go H1, H2 (Failures, Timeline), H3 (a case's tasks): none skipped
    levels = sorted({int(t[1]) for t, _, _ in page.elements if re.fullmatch(r"h\d", t)})
    assert levels == list(range(1, max(levels) + 1)) and 3 in levels
    css = _asset("report.css")
    assert ".steps td:nth-child(6) .noimg { white-space: normal" in css
    phone = css[css.index("@media (max-width: 720px)"):]
    assert ".toolbar { position: static; }" in phone[:phone.index("@media print")]
    printed = css[css.index("@media print"):]
    printed = printed[:printed.index("\n}\n")]
    assert "break-inside: avoid" in printed and ".case {" not in printed
