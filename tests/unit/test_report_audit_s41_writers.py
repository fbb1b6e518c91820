"""The run's outputs as CI and a QA lead read them (session 41 audit): pure writers, no
subprocess."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from farm.budget import NOT_RUN
from farm.report.junit import build_junit
from farm.results import NOT_RUN_INTERRUPTED, CaseResult, RunSummary

XSD = xmlschema.XMLSchema(str(Path(__file__).parents[1] / "schemas" / "junit-10.xsd"))


START = "2026-01-01T00:00:00+00:00"


def _case(case_id: str, status: str = "passed", reason: str | None = None) -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=case_id.rsplit("/", 1)[-1],
                      file=f"{case_id}.yaml", platform="web", status=status, reason=reason,
                      started=START, duration=1.0)


def _junit(summary: RunSummary) -> ET.Element:
    summary.recount()
    text = build_junit(summary)
    XSD.validate(text)
    return ET.fromstring(text)


def _run_error(root: ET.Element) -> ET.Element | None:
    case = next((c for c in root.iter("testcase")
                 if (c.get("classname"), c.get("name")) == ("farm", "run")), None)
    return None if case is None else case.find("error")


def test_a_ctrl_c_between_cases_is_an_error_of_the_run_naming_what_never_ran():
    cases = [_case("s/a"), *(_case(f"s/n{i:02d}", "skipped", NOT_RUN_INTERRUPTED[0])
                             for i in range(60))]
    root = _junit(RunSummary(run_id="r1", started=START, cases=cases, interrupted=True, exit_code=2))
    error = _run_error(root)
    assert error is not None and error.get("type") == "RunInterrupted"
    assert "before it ran 60 of its 61 case(s)" in error.get("message")
    assert "s/n00" in error.text and "... and 10 more" in error.text
    assert root.get("errors") == "1"


def test_a_run_the_model_budget_stopped_says_so_too():
    reached = "model budget reached ($0.5 spent of $0.5)"
    cases = [_case("s/a"), _case("s/b", "skipped", NOT_RUN + reached)]
    error = _run_error(_junit(RunSummary(run_id="r1", started=START, cases=cases, stopped=reached,
                                         exit_code=3)))
    assert error is not None and error.get("type") == "RunStopped"
    assert reached in error.get("message") and "s/b" in error.text


def test_a_whole_run_has_no_run_error():
    # skipped by the suite itself, and a stop that came after the last case (not cut short)
    cases = [_case("s/a"), _case("s/b", "skipped", "skipped: not on this platform")]
    for summary in (RunSummary(run_id="r1", started=START, cases=cases),
                    RunSummary(run_id="r1", started=START, cases=cases, interrupted=True)):
        root = _junit(summary)
        assert _run_error(root) is None and root.get("errors") == "0"


def _title(summary: RunSummary) -> str:
    import re

    from farm.report.html import render_html
    summary.recount()
    return re.search(r"<title>(.*)</title>", render_html(summary)).group(1)


def test_the_report_s_title_says_the_verdict_worst_first():
    cases = [_case("s/a"), _case("s/b", "failed"), _case("s/c", "error"), _case("s/d")]
    assert _title(RunSummary(run_id="r9", started=START, cases=cases)) == \
        "1 failed, 1 error, 2 passed of 4 · farm report r9"
    assert _title(RunSummary(run_id="r9", started=START, cases=cases[:1],
                             interrupted=True)).startswith("interrupted: 1 passed of 1 · ")
    assert _title(RunSummary(run_id="r9", started=START, cases=[])) == \
        "no case ran · farm report r9"


def test_a_title_of_markup_is_text():
    case = _case("s/a", "failed")
    summary = RunSummary(run_id="<img src=x onerror=alert(1)>", started=START, cases=[case])
    assert "<img" not in _title(summary) and "&lt;img src=x" in _title(summary)
