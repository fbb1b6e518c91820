"""A killed run rebuilt by `farm report`: what --last-failed, the junit file and the report's
times say of it."""

from __future__ import annotations

from farm.results import CaseError, CaseResult, RunSummary
from farm.results_history import SqliteResults, record_for


def _summary(run_id: str, day: int, statuses: dict[str, str]) -> RunSummary:
    cases = [CaseResult(run_id=run_id, case_id=cid, name=cid, file=f"suites/{cid}.yaml",
                        platform="web", device="browser-1", status=status, duration=1.0,
                        started=f"2026-01-{day:02d}T02:00:00+00:00",
                        error=CaseError(kind="AssertionFailed", message="broke")
                        if status == "failed" else None)
             for cid, status in statuses.items()]
    s = RunSummary(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00", cases=cases,
                   interrupted=True)
    s.recount()
    return s


def test_a_killed_runs_failures_reach_last_failed_when_rebuilt_after_a_later_run(
        tmp_path, capsys):
    """The kill is said by the next run, so a rebuild always has a later run: the killed
    run's failures of cases the later run did not run join --last-failed; a case the later
    run ran keeps the later verdict; a case the killed run passed drops out."""
    from farm.config import Settings
    from farm.run_outputs import load_failures, remember_failures, remember_rebuilt
    state = tmp_path / "state"
    state.mkdir()
    remember_failures(state, _summary("r0", 1, {"demo/old": "failed"}).cases)
    later = _summary("r3", 3, {"demo/fixed": "passed", "demo/broke": "failed"})
    SqliteResults(state / "results.sqlite").add(record_for(later))
    remember_failures(state, later.cases)
    assert load_failures(state) == ["demo/broke", "demo/old"]
    killed = _summary("r2", 2, {"demo/fixed": "failed", "demo/broke": "passed",
                                "demo/new": "failed", "demo/old": "passed",
                                "demo/cut": "interrupted"})
    assert remember_rebuilt(Settings(state_dir=state), killed, tmp_path / "r2") is True
    assert load_failures(state) == ["demo/broke", "demo/new"]
    err = capsys.readouterr().err
    assert "farm: the run is now in the results history (and --last-failed; a case a later " \
        "run ran keeps that run's verdict there: the newest, r3)" in err


def test_the_run_after_a_killed_one_says_last_failed_reads_its_journal_until_rebuilt(tmp_path, capsys):
    """`farm run --lf` after a kill used an older run's failures and interrupted cases, unsaid:
    the line saying the run before was killed says --last-failed lacks it until rebuilt."""
    import json
    from pathlib import Path
    from farm.config import Settings
    from farm.run_outputs import output_dirs
    try:
        gone = int(Path("/proc/sys/kernel/pid_max").read_text())
    except OSError:
        gone = 2 ** 22 + 1
    killed = tmp_path / "state" / "runs" / "20261203-060000-aa11"
    killed.mkdir(parents=True)
    (killed / "results.jsonl").write_text(json.dumps(
        {"journal": "run", "run_id": killed.name, "started": "2026-12-03T06:00:00+00:00",
         "pid": gone, "planned": [{"case_id": "demo/a"}]}) + "\n")
    output_dirs(Settings(state_dir=tmp_path / "state"), "20261203-070000-bb22", False)
    err = capsys.readouterr().err
    assert f"`farm report {killed}` rebuilds" in err
    assert "the results history (--last-failed reads them from its journal until then)" in err


def test_a_run_refused_for_want_of_room_leaves_no_empty_run_folder(tmp_path, monkeypatch):
    """`no room for the run's results in …/runs/<id>` (exit 4) left that folder behind,
    empty, one per try."""
    import errno
    import os

    import pytest

    from farm.config import Settings
    from farm.errors import ConfigError
    from farm.run_outputs import output_dirs

    def full(fd, offset, size):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "posix_fallocate", full)
    state = tmp_path / "state"
    with pytest.raises(ConfigError, match="no room for the run's results in"):
        output_dirs(Settings(state_dir=state), "20261203-070000-bb22", False, cases=3)
    assert list((state / "runs").iterdir()) == []


RUN = "20261204-100000-ab12"


def _journal(run_dir, lines) -> None:
    import json
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _case(cid: str, status: str, started: str, duration: float) -> dict:
    return CaseResult(run_id=RUN, case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", status=status, started=started, duration=duration,
                      error=CaseError(kind="AssertionFailed", message="broke")
                      if status == "failed" else None).model_dump(mode="json")


def _report(tmp_path, monkeypatch, run_dir, *args):
    from click.testing import CliRunner

    from farm.cli import cli
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    return CliRunner().invoke(cli, ["report", str(run_dir), *args])


def test_a_run_killed_after_its_last_case_is_rebuilt_whole_in_every_output(
        tmp_path, monkeypatch):
    """Killed after its last case ended: results.json said exit 2, interrupted, the report
    "results are partial", while its junit read green. A Ctrl-C then is no interruption
    (exit 0): the rebuild says the same everywhere, and keeps its failures for --lf."""
    import json
    import xml.etree.ElementTree as ET

    from farm.run_outputs import load_failures
    planned = [{"case_id": c, "name": c, "file": f"{c}.yaml", "platform": "web"}
               for c in ("s/a", "s/b")]
    run_dir = tmp_path / "run"
    _journal(run_dir, [
        {"journal": "run", "run_id": RUN, "started": "2026-12-04T10:00:00+00:00",
         "planned": planned},
        _case("s/a", "passed", "2026-12-04T10:00:01+00:00", 1.0),
        _case("s/b", "failed", "2026-12-04T10:00:02+00:00", 1.0)])
    out = _report(tmp_path, monkeypatch, run_dir, "--junit-xml", str(tmp_path / "x.xml"))
    assert out.exit_code == 0, out.stderr
    assert "the run had finished (2 cases): farm was stopped after its last case ended" \
        in out.stderr
    results = json.loads((run_dir / "results.json").read_text())
    assert (results["interrupted"], results["exit_code"]) == (False, 1)
    assert "results are partial" not in (run_dir / "report.html").read_text()
    root = ET.parse(tmp_path / "x.xml").getroot()
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    assert "RunInterrupted" not in (tmp_path / "x.xml").read_text()
    assert load_failures(tmp_path / "state") == ["s/b"]


def test_a_rebuilt_case_cut_short_lasts_past_the_step_it_had_ended(tmp_path, monkeypatch):
    """The run's end was the last result's or attempt start's: a case farm was killed in
    read "69 ms" beside the 198 ms step it had ended. Its end is the journal's latest
    moment, its step lines' too."""
    import json
    from farm.results import StepRecord
    step = StepRecord(index=1, task="tap", kind="tap", label="tap", status="passed",
                      started="2026-12-04T10:00:01.100+00:00", duration=0.198)
    _journal(tmp_path / "run", [
        {"journal": "run", "run_id": RUN, "started": "2026-12-04T10:00:00+00:00",
         "planned": [{"case_id": "s/a", "name": "a", "file": "s/a.yaml", "platform": "web"}]},
        {"journal": "start", "case_id": "s/a", "attempt": 1, "device": "browser-1",
         "started": "2026-12-04T10:00:01.000+00:00"},
        {"journal": "step", "case_id": "s/a", "attempt": 1,
         "record": step.model_dump(mode="json")}])
    out = _report(tmp_path, monkeypatch, tmp_path / "run")
    assert out.exit_code == 0, out.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    case = results["cases"][0]
    assert case["status"] == "interrupted" and case["duration"] == 0.298
    assert results["duration"] == 1.298


def test_a_run_whose_folder_is_deleted_under_it_names_what_was_lost_and_ends_3(tmp_path):
    """`rm -rf .farm/runs/<id>` while the run went on: it ended 0 with results.json and
    report.html made anew, no farm.log, no journal, and stderr said only "2 screenshot(s) not
    written". Its end names what went with the folder, and the run's code is 3."""
    import json
    import shutil

    from farm.config import Settings
    from farm.run_outputs import output_dirs, write_outputs
    run_dir = output_dirs(Settings(state_dir=tmp_path / "state"), "20261203-070000-bb22",
                          False)
    assert write_outputs(_summary("whole", 1, {"demo/a": "passed"}), run_dir,
                         not_written=[]) == []
    summary = _summary("20261203-070000-bb22", 3, {"demo/a": "passed"})
    summary.interrupted, summary.exit_code = False, 0
    shutil.rmtree(run_dir)
    lost = write_outputs(summary, run_dir, not_written=[])
    assert lost[:2] == [
        f"{run_dir / 'farm.log'}: the run's directory was deleted while the run went on",
        f"{run_dir / 'results.jsonl'}: the run's directory was deleted while the run went on"]
    assert "screenshots taken before then" in lost[2]
    assert summary.exit_code == 3
    assert json.loads((run_dir / "results.json").read_text())["exit_code"] == 3
