"""A red case whose verdict goes back and forth across runs (passed the night before, failed
before that) is "unstable" in results.json, as the end line, report.html and junit.xml say
it ("unstable across runs"): results.json said since_last "flaky", the README's word for a
case that passed on a retry in this run. Allure's `statusDetails.flaky` is that alone: it was
set for such a red case too. An older results.json's "flaky" still reads as "unstable"."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from farm.config import Settings
from farm.report.allure import write_allure
from farm.results import CaseError, CaseResult, RunSummary, since_last_words, write_json
from farm.results_history import open_results, record_for, remember_run

START = datetime(2026, 12, 1, 2, 0, tzinfo=timezone.utc)


def _run(run_id: str, night: int, statuses: dict[str, str]) -> RunSummary:
    started = (START + timedelta(days=night)).isoformat()
    cases = []
    for case_id, status in statuses.items():
        red = status in ("failed", "error")
        case = CaseResult(run_id=run_id, case_id=case_id, name=case_id, file=f"{case_id}.yaml",
                          platform="web", device="browser-1", status=status, started=started,
                          duration=1.0, error=CaseError(kind="AssertionFailed",
                                                        message="no Total") if red else None)
        if status == "flaky":
            case.previous = [case.model_copy(update={
                "status": "failed", "error": CaseError(kind="AssertionFailed", message="x")})]
            case.attempt = 2
            case.started = (START + timedelta(days=night, seconds=5)).isoformat()
        cases.append(case)
    summary = RunSummary(run_id=run_id, started=started, devices=["browser-1"], cases=cases)
    summary.recount()
    return summary


def _tonight(tmp_path: Path) -> RunSummary:
    """Night 3 of a case that failed, passed, failed again (and of one that passed on a
    retry tonight), as `farm run` marks them against the results history."""
    settings = Settings(state_dir=tmp_path / "state")
    store = open_results(settings)
    store.add(record_for(_run("n1", 1, {"s/flip": "failed", "s/retry": "passed"})))
    store.add(record_for(_run("n2", 2, {"s/flip": "passed", "s/retry": "passed"})))
    tonight = _run("n3", 3, {"s/flip": "failed", "s/retry": "flaky"})
    remember_run(settings, tonight, tmp_path / "n3" / "report.html")
    return tonight


def test_results_json_says_unstable_as_every_other_output(tmp_path: Path) -> None:
    tonight = _tonight(tmp_path)
    write_json(tmp_path / "results.json", tonight)
    cases = {c["case_id"]: c for c in
             json.loads((tmp_path / "results.json").read_text())["cases"]}
    assert cases["s/flip"]["since_last"] == "unstable"
    assert cases["s/retry"]["status"] == "flaky" and cases["s/retry"]["since_last"] is None
    assert since_last_words("unstable") == "unstable across runs"


def test_allure_calls_flaky_only_a_pass_on_a_retry_in_this_run(tmp_path: Path) -> None:
    tonight = _tonight(tmp_path)
    write_allure(tonight, tmp_path, tmp_path / "allure")
    latest = {}
    for path in (tmp_path / "allure").glob("*-result.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        if result["fullName"] not in latest or result["start"] > latest[result["fullName"]][
                "start"]:
            latest[result["fullName"]] = result
    flip, retry = latest["s/flip"], latest["s/retry"]
    assert flip["status"] == "failed"
    assert not flip.get("statusDetails", {}).get("flaky")      # red: not flaky
    assert retry["status"] == "passed" and retry["statusDetails"]["flaky"] is True


def test_an_older_results_json_s_flaky_reads_as_unstable(tmp_path: Path) -> None:
    """A results.json an older farm wrote ("flaky" of a red case) is read by `farm report`,
    --lf and the history upgrade: the case is unstable across runs, not flaky, in report.html
    and Allure, and rewritten it says "unstable"."""
    from farm.report.html import write_html
    old = _run("n1", 1, {"s/flip": "failed"}).model_dump(mode="json")
    old["cases"][0]["since_last"] = "flaky"
    (tmp_path / "results.json").write_text(json.dumps(old))
    summary = RunSummary.model_validate_json((tmp_path / "results.json").read_bytes())
    assert summary.cases[0].since_last == "unstable"
    page = write_html(summary, tmp_path / "run").read_text(encoding="utf-8")
    assert 'data-since="unstable"' in page and "unstable across runs" in page
    write_allure(summary, tmp_path, tmp_path / "allure")
    (result,) = [json.loads(p.read_text()) for p in (tmp_path / "allure").glob("*-result.json")]
    assert not result.get("statusDetails", {}).get("flaky")
    write_json(tmp_path / "again.json", summary)
    assert json.loads((tmp_path / "again.json").read_text())["cases"][0]["since_last"] == \
        "unstable"
