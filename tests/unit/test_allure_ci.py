"""Allure results as a CI server's Allure report shows them: an interrupted case is *broken*
(it did not finish: as junit.xml's <error type="Interrupted">, as an error is) and says why, and
a page's control characters show as the console shows them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from farm.report.allure import write_allure
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.text import printable

SCHEMA = Path(__file__).parents[1] / "schemas" / "allure-result.schema.json"
STARTED = "2024-05-01T10:00:00+00:00"


def results(summary: RunSummary, run_dir: Path) -> dict[str, dict]:
    """The Allure results written for ``summary``, each checked against Allure's model, by
    case id."""
    out = write_allure(summary, run_dir, run_dir / "allure")
    schema = json.loads(SCHEMA.read_text())
    found = {}
    for path in out.glob("*-result.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(result, schema)
        found[result["fullName"]] = result
    return found


def _case(case_id: str, status: str, **kw) -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=case_id.title(), file=f"{case_id}.yaml",
                      platform="web", device="browser-1", status=status, started=STARTED, **kw)


def _summary(*cases: CaseResult) -> RunSummary:
    summary = RunSummary(run_id="r1", started=STARTED, duration=3.0, cases=list(cases))
    summary.recount()
    return summary


def test_an_interrupted_case_is_broken_and_says_why(tmp_path):
    found = results(_summary(
        _case("s/stopped", "interrupted", reason="interrupted by user"),
        _case("s/cut", "interrupted"),
        _case("s/lost", "error", error=CaseError(kind="DeviceLost", message="browser closed")),
        _case("s/later", "skipped", reason="not run: the run was interrupted")), tmp_path)
    assert {k: (r["status"], r["stage"]) for k, r in found.items()} == {
        "s/stopped": ("broken", "interrupted"), "s/cut": ("broken", "interrupted"),
        "s/lost": ("broken", "finished"), "s/later": ("skipped", "finished")}
    assert found["s/stopped"]["statusDetails"]["message"] == "interrupted by user"
    assert found["s/cut"]["statusDetails"]["message"] == "interrupted"
    assert found["s/lost"]["statusDetails"]["message"] == "DeviceLost: browser closed"


def test_a_page_s_control_characters_show_as_the_console_shows_them(tmp_path):
    """statusDetails and step names carry ``\\x1b[31m`` where the page sent ESC [31m, as the
    console, report.html and junit.xml do: no raw \\u001b, \\u0001, \\u0007 in the JSON."""
    message = "javascript error: boom \x1b[31mred\x1b[0m \x01 \x07bell"
    label = 'javascript "throw \x1b[2J"'
    case = _case("s/js", "failed", error=CaseError(kind="StepFailed", message=message, step=1),
                 steps=[StepRecord(task="t", index=1, kind="javascript", label=label,
                                   status="failed", error=message, started=STARTED)])
    found = results(_summary(case), tmp_path)
    js = found["s/js"]
    assert js["statusDetails"]["message"] == f"StepFailed: {printable(message)}"
    assert "\\x1b[31mred\\x1b[0m \\x01 \\x07bell" in js["statusDetails"]["message"]
    (step,) = js["steps"]
    assert step["name"] == f"1. {printable(label)}"
    assert step["statusDetails"]["message"] == printable(message)
    for path in (tmp_path / "allure").glob("*-result.json"):
        raw = path.read_text(encoding="utf-8")
        assert "\\u001b" not in raw and "\\u0001" not in raw and "\\u0007" not in raw
