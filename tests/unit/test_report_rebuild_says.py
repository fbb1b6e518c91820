"""What `farm report RUN_DIR` says when it rebuilds a run: the counts it gives of a stopped
run, and the report it names on stdout."""

from __future__ import annotations

import errno
import json
from pathlib import Path

from click.testing import CliRunner

from farm.results import CaseResult, RunSummary

RUN = "20261204-020000-ab12"


def _case(cid: str, status: str, reason: str | None = None) -> CaseResult:
    return CaseResult(run_id=RUN, case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", status=status, reason=reason,
                      device=None if status == "skipped" else "browser-1",
                      started="2026-12-04T02:00:01.000+00:00", duration=1.0)


def _report(run_dir: Path, tmp_path: Path, monkeypatch):
    from farm.cli import cli
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    return CliRunner().invoke(cli, ["report", str(run_dir)])


def test_a_stopped_runs_cases_never_started_are_not_counted_as_finished(tmp_path, monkeypatch):
    """A run stopped with SIGTERM (a CI cancel) ended and wrote its journal's end; its
    results.json was lost. `farm report` said '4 case(s) had finished, 1 interrupted before
    the run stopped' where one had passed, one needed a model, and three never started."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    never = "not run: the run was interrupted"
    cases = [_case("a", "passed"), _case("ai", "skipped", "needs a model (set FARM_MODEL)"),
             _case("b", "interrupted", "interrupted: the run was stopped"),
             _case("c", "skipped", never), _case("d", "skipped", never),
             _case("e", "skipped", never)]
    summary = RunSummary(run_id=RUN, started="2026-12-04T02:00:00.000+00:00", cases=cases,
                         interrupted=True, exit_code=2, duration=3.0)
    summary.recount()
    head = {"journal": "run", "run_id": RUN, "started": summary.started, "planned": [
        {"case_id": c.case_id, "name": c.name, "file": c.file, "platform": "web"}
        for c in cases]}
    end = {"journal": "end", "started": summary.started, "finished": "", "duration": 3.0,
           "exit_code": 2, "interrupted": True, "quarantined": [], "lost": {},
           "since_last": {}, "deselected": []}
    (run_dir / "results.jsonl").write_text("\n".join(
        [json.dumps(head), *(c.model_dump_json() for c in cases), json.dumps(end)]) + "\n")
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    assert (f"rebuilt from {run_dir / 'results.jsonl'}: 2 case(s) had finished, 1 interrupted, "
            "3 not run before the run stopped") in out.stderr
    assert json.loads((run_dir / "results.json").read_text())["counts"]["skipped"] == 4


def test_a_report_not_written_is_not_named_as_the_report(tmp_path, monkeypatch):
    """`farm report` on a disk still full printed the path of report.html on stdout (for a
    script to open) though it had not written it: the run's older page, or none at all."""
    import farm.report.html
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    summary = RunSummary(run_id=RUN, started="2026-12-04T02:00:00+00:00",
                         cases=[_case("a", "passed")])
    summary.recount()
    (run_dir / "results.json").write_text(summary.model_dump_json())
    (run_dir / "report.html").write_text("<html>the page of before</html>")

    def disk_full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(farm.report.html, "write_html", disk_full)
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 3
    assert out.stdout == ""
    assert (f"farm: error: not written: {run_dir / 'report.html'}: No space left on device"
            in out.stderr)
    assert (run_dir / "junit.xml").is_file()
    # with room again, it is written and named
    monkeypatch.undo()
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    assert out.stdout == f"{(run_dir / 'report.html').resolve()}\n"


def test_a_killed_last_failed_run_is_rebuilt_as_the_rerun_it_was(tmp_path, monkeypatch):
    """`farm run --last-failed` (3 of 11 cases) killed by a CI timeout, then `farm report`:
    the rebuilt run listed no deselected case and went into the results history as a whole
    run, so the history page drew its 1-of-1 pass on the nights' pass-rate line, not as a
    partial rerun of the failures."""
    from farm.executors.base import NullEvents
    from farm.journal import JournalEvents
    from farm.results import DeselectedCase
    from farm.results_history import SqliteResults
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    left_out = [DeselectedCase(case_id=f"s/{c}", name=c, file=f"s/{c}.yaml", platform="web",
                               reason="--last-failed: did not fail last time")
                for c in ("x", "y")]
    journal = JournalEvents(NullEvents(), run_dir, RUN, [
        ("s/a", "a", "s/a.yaml", "web"), ("s/b", "b", "s/b.yaml", "web")], left_out)
    journal.case_started("browser-1", "s/a", "a", 1)
    journal.case_finished("browser-1", _case("a", "passed"), final=True)
    journal.case_started("browser-1", "s/b", "b", 1)      # killed here
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    data = json.loads((run_dir / "results.json").read_text())
    assert [(d["case_id"], d["reason"]) for d in data["deselected"]] == [
        ("s/x", "--last-failed: did not fail last time"),
        ("s/y", "--last-failed: did not fail last time")]
    assert "Deselected" in (run_dir / "report.html").read_text()
    [record] = SqliteResults(tmp_path / "state" / "results.sqlite").runs()
    assert record.selection == ["--last-failed"]


def test_a_killed_run_rebuilt_after_later_runs_is_judged_against_the_runs_before_it(
        tmp_path, monkeypatch):
    """The nightly was killed (case a failed in it: its first failure); the morning's run
    failed a too. `farm report` of the night then said 'still failing' for a, judged against
    the morning's run, which came after it: it was a new failure."""
    from farm.results import CaseError
    from farm.results_history import SqliteResults, record_for
    state = tmp_path / "state"
    state.mkdir()
    red = CaseError(kind="AssertionFailed", message="no 'Total' on the page", step=1)
    morning = RunSummary(run_id="20261204-090000-cd34", started="2026-12-04T09:00:00+00:00",
                         cases=[_case("a", "failed").model_copy(update={"error": red})])
    morning.recount()
    SqliteResults(state / "results.sqlite").add(record_for(morning))
    # (the evening before, a passed: a first run ever has no verdict at all)
    evening = RunSummary(run_id="20261203-200000-ab12", started="2026-12-03T20:00:00+00:00",
                         cases=[_case("a", "passed")])
    evening.recount()
    SqliteResults(state / "results.sqlite").add(record_for(evening))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    head = {"journal": "run", "run_id": RUN, "started": "2026-12-04T02:00:00.000+00:00",
            "planned": [{"case_id": f"s/{c}", "name": c, "file": f"s/{c}.yaml",
                         "platform": "web"} for c in "ab"]}
    failed = _case("a", "failed").model_copy(update={"error": red})
    (run_dir / "results.jsonl").write_text(
        "\n".join([json.dumps(head), failed.model_dump_json()]) + "\n")
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    [a] = [c for c in json.loads((run_dir / "results.json").read_text())["cases"]
           if c["case_id"] == "s/a"]
    assert a["since_last"] == "new failure"


def test_a_killed_runs_failed_attempt_awaiting_its_retry_is_not_lost(tmp_path, monkeypatch):
    """retries: 1, and the nightly killed while case a was on its retry (and b's retry had
    not begun): the rebuilt report said a was interrupted and b interrupted, 'its steps were
    not saved', of two cases whose first attempts had failed, steps and screenshots on disk;
    the failures were gone from the report and from the results history."""
    from farm.executors.base import NullEvents
    from farm.journal import JournalEvents
    from farm.results import CaseError
    from farm.results_history import SqliteResults
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    red = CaseError(kind="AssertionFailed", message="no 'Total' on the page", step=1)
    journal = JournalEvents(NullEvents(), run_dir, RUN, [
        ("s/a", "a", "s/a.yaml", "web"), ("s/b", "b", "s/b.yaml", "web")])
    for cid in "ab":
        journal.case_started("browser-1", f"s/{cid}", cid, 1)
        journal.case_finished("browser-1", _case(cid, "failed").model_copy(
            update={"error": red}), final=False)
    journal.case_started("browser-2", "s/a", "a", 2)        # killed here
    out = _report(run_dir, tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    a, b = json.loads((run_dir / "results.json").read_text())["cases"]
    assert (a["status"], a["attempt"], a["device"]) == ("interrupted", 2, "browser-2")
    assert [(p["status"], p["error"]["message"]) for p in a["previous"]] == [
        ("failed", "no 'Total' on the page")]
    assert (b["status"], b["error"]["message"]) == ("failed", "no 'Total' on the page")
    assert b["reason"] == "not retried: farm stopped before it started"
    [record] = SqliteResults(tmp_path / "state" / "results.sqlite").runs()
    assert {c.case_id: c.status for c in record.cases} == {"s/a": "interrupted",
                                                           "s/b": "failed"}
    assert [p.status for p in record.cases[0].attempts] == ["failed"]


def test_a_killed_run_rebuilt_a_second_time_is_the_same_run(tmp_path, monkeypatch):
    """`farm report` of a killed run, then again (its results.json lost, or the first one
    stopped by a full disk after it had put the run in the results history): the second
    said 'the journal stops before the run's end (it could not be written: a full disk?)',
    and gave every case it had not seen finish the reason 'the run's journal could not be
    written; its verdict is the results history's': its own guesses of before."""
    from farm.executors.base import NullEvents
    from farm.journal import CUT_SHORT, NOT_STARTED, JournalEvents
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    journal = JournalEvents(NullEvents(), run_dir, RUN, [
        (f"s/{c}", c, f"s/{c}.yaml", "web") for c in "abc"])
    journal.case_started("browser-1", "s/a", "a", 1)
    journal.case_finished("browser-1", _case("a", "passed"), final=True)
    journal.case_started("browser-1", "s/b", "b", 1)      # killed here
    first = _report(run_dir, tmp_path, monkeypatch)
    assert first.exit_code == 0, first.output
    before = json.loads((run_dir / "results.json").read_text())
    (run_dir / "results.json").unlink()
    again = _report(run_dir, tmp_path, monkeypatch)
    assert again.exit_code == 0, again.output
    assert "could not be written" not in again.stderr
    after = json.loads((run_dir / "results.json").read_text())
    assert [(c["status"], c["reason"]) for c in after["cases"]] == [
        ("passed", None), ("interrupted", CUT_SHORT), ("skipped", NOT_STARTED)]
    assert (after["counts"], after["exit_code"]) == (before["counts"], before["exit_code"])


def _killed_journal(run_dir: Path) -> None:
    from farm.executors.base import NullEvents
    from farm.journal import JournalEvents
    from farm.results import CaseError
    run_dir.mkdir()
    journal = JournalEvents(NullEvents(), run_dir, RUN, [("s/a", "a", "s/a.yaml", "web"),
                                                          ("s/b", "b", "s/b.yaml", "web")])
    journal.case_finished("browser-1", _case("a", "failed").model_copy(update={
        "error": CaseError(kind="AssertionFailed", message="no 'Total'", step=1)}), final=True)
    journal.case_started("browser-1", "s/b", "b", 1)      # killed here


def test_a_killed_run_rebuilt_after_a_later_run_says_last_failed_is_the_later_runs(
        tmp_path, monkeypatch):
    """`farm report` of the night's killed run after the morning's run: it said 'the run is
    now in the results history (and --last-failed)', but --last-failed rightly kept the
    morning's failures: `farm run --lf` then did not rerun the night's failure it promised."""
    from farm.results_history import SqliteResults, record_for
    from farm.run_outputs import load_failures, remember_failures
    from datetime import datetime, timedelta, timezone
    state = tmp_path / "state"
    _killed_journal(tmp_path / "run")       # (started now)
    later = (datetime.now(timezone.utc) + timedelta(hours=1)).isoformat()
    morning = RunSummary(run_id="20261204-090000-cd34", started=later,
                         cases=[_case("a", "passed")])
    morning.recount()
    SqliteResults(state / "results.sqlite").add(record_for(morning))
    remember_failures(state, morning.cases)
    out = _report(tmp_path / "run", tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    assert ("farm: the run is now in the results history (and --last-failed; a case a later "
            "run ran keeps that run's verdict there: the newest, 20261204-090000-cd34)"
            ) in out.stderr
    assert load_failures(state) == []       # "a" passed in the morning: that verdict stays


def test_a_killed_run_the_history_could_not_take_is_not_said_to_be_in_it(tmp_path,
                                                                          monkeypatch):
    """The results history could not be written (`farm report` on a machine whose state dir
    is read-only): it warned 'results history not updated', then said 'the run is now in the
    results history (and --last-failed)'."""
    import farm.results_history

    def refused(*_args, **_kw):
        raise OSError(errno.EROFS, "Read-only file system")
    monkeypatch.setattr(farm.results_history.SqliteResults, "add", refused)
    _killed_journal(tmp_path / "run")
    out = _report(tmp_path / "run", tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    assert "farm: warning: results history not updated: [Errno 30] Read-only" in out.stderr
    assert "now in the results history" not in out.stderr


def test_failed_cases_not_recorded_for_last_failed_are_said(tmp_path, capsys, monkeypatch):
    """A state dir that filled up by the run's end: the run's new failure was not recorded
    for --last-failed, said only in farm.log; the next `farm run --lf` ran the failures of
    the run before and left the new one out, without a word."""
    import farm.report.paths as paths
    from farm.run_outputs import LAST_FAILED, load_failures, remember_failures

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(paths.os, "replace", full)
    remember_failures(tmp_path, [_case("a", "failed")])
    assert load_failures(tmp_path) == []
    assert capsys.readouterr().err == (
        f"farm: warning: failed cases not recorded for --last-failed in {tmp_path / LAST_FAILED}"
        " (No space left on device): it keeps the list of the run before\n")



def test_farm_report_of_the_runs_folder_names_a_run_to_give(tmp_path, monkeypatch):
    """`farm report .farm/runs` (the folder of runs, not one of them) said only
    '.farm/runs/results.json does not exist'."""
    runs = tmp_path / ".farm" / "runs"
    for run_id in ("20261203-020000-aaaa", "20261204-020000-bbbb"):
        (runs / run_id).mkdir(parents=True)
        summary = RunSummary(run_id=run_id, started="2026-12-04T02:00:00+00:00",
                             cases=[_case("a", "passed")])
        summary.recount()
        (runs / run_id / "results.json").write_text(summary.model_dump_json())
    out = _report(runs, tmp_path, monkeypatch)
    assert out.exit_code == 2       # click's usage error (exit 4 from the `farm` command)
    assert (f"{runs / 'results.json'} does not exist; {runs} holds 2 run folder(s): give "
            f"one, e.g. `farm report {runs / '20261204-020000-bbbb'}` (the newest)"
            ) in out.stderr


def test_a_killed_runs_finished_cases_teach_the_longest_first_order(tmp_path, monkeypatch):
    """A nightly killed by the CI timeout every night, rebuilt each morning with `farm
    report`: its finished cases' durations were never remembered, so the next night still
    started its longest case last (the one the timeout then cut)."""
    from farm.history import DurationHistory
    _killed_journal(tmp_path / "run")
    out = _report(tmp_path / "run", tmp_path, monkeypatch)
    assert out.exit_code == 0, out.output
    assert DurationHistory(tmp_path / "state").load() == {"web:s/a": [1.0]}


def test_the_history_page_on_a_full_disk_is_an_output_not_written(tmp_path, monkeypatch):
    """`farm report --history --out` on a disk that filled up: 'farm: internal error:
    OSError: [Errno 28] No space left on device (traceback in .farm/last-error.log)', as if
    farm had a bug."""
    import farm.report.history_page
    from farm.results_history import SqliteResults, record_for
    from farm.cli import cli
    summary = RunSummary(run_id=RUN, started="2026-12-04T02:00:00+00:00",
                         cases=[_case("a", "passed")])
    summary.recount()
    SqliteResults(tmp_path / "state" / "results.sqlite").add(record_for(summary))

    def disk_full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(farm.report.history_page, "replace_file", disk_full)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    out = CliRunner().invoke(cli, ["report", "--history", "--out", str(tmp_path / "h.html")])
    assert out.exit_code == 3, out.output
    assert out.stderr == (f"farm: error: not written: {tmp_path / 'h.html'}: No space left on "
                          "device\n")
    assert out.stdout == ""
