"""`farm run regress --maxfail 1` stopped with 16 cases not run; one of them run alone since
(`-k 'legacy and case_19'`, passed) and `--lf` offered only the 1 failure: the 15 never-run
cases were dropped unsaid. A later stopped run of other cases hid an earlier Ctrl-C'd run the
same way. And the line credited every failure to the stopped run ("19 failed, 4 interrupted,
12 not run in run X", where X failed none). Each undone case now stays in --lf until a run of
it gives it a verdict, across several stopped runs, and the line says where each count is from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.results_history import CaseRecord, RunRecord, SqliteResults
from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""
MAXFAIL = "not run: the run stopped after 1 failed case(s) (--maxfail 1)"
CTRL_C = "not run: the run was interrupted"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    for name in "abcdef":
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE.format(name=name))
    (tmp_path / ".farm").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL",
                 "FARM_RESULTS_HISTORY_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _failed(here: Path, *ids: str) -> None:
    (here / ".farm" / "lastfailed.json").write_text(json.dumps({"failed": list(ids)}))


def _run(here: Path, run_id: str, minute: int, interrupted: bool,
         *cases: tuple[str, str, str | None]) -> None:
    SqliteResults(here / ".farm" / "results.sqlite").add(RunRecord(
        run_id=run_id, started="2026-12-06T16:45:00+00:00", at=1.8e9 + 60 * minute,
        interrupted=interrupted,
        cases=[CaseRecord(case_id=c, status=s, reason=r) for c, s, r in cases]))


def _lf(here, monkeypatch, capsys) -> tuple[list[str], list[str]]:
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--lf", "--collect-only")
    assert code == 0, out + err
    return ([line.split()[0] for line in out.splitlines() if line.startswith("s/")],
            [line for line in err.splitlines() if line.startswith("farm: --last-failed")])


def test_a_case_of_a_stopped_run_run_since_ends_only_itself(here, monkeypatch, capsys):
    _failed(here, "s/a")
    _run(here, "20261206-164500-maxf", 0, False, ("s/a", "failed", None),
         *((f"s/{n}", "skipped", MAXFAIL) for n in "bcdef"))
    _run(here, "20261206-165000-one", 5, False, ("s/f", "passed", None))
    cases, notes = _lf(here, monkeypatch, capsys)
    assert cases == ["s/a", "s/b", "s/c", "s/d", "s/e"]
    assert notes == ["farm: --last-failed: would run 1 failed earlier; 4 not run in run "
                     "20261206-164500-maxf (stopped before its end)"]


def test_two_stopped_runs_each_keep_their_undone_cases(here, monkeypatch, capsys):
    _failed(here, "s/d")
    _run(here, "20261206-164500-ctrc", 0, True, ("s/a", "passed", None),
         ("s/b", "interrupted", None), ("s/c", "skipped", CTRL_C))
    _run(here, "20261206-165000-maxf", 5, False, ("s/d", "failed", None),
         ("s/e", "skipped", MAXFAIL), ("s/f", "skipped", MAXFAIL))
    cases, notes = _lf(here, monkeypatch, capsys)
    assert cases == ["s/b", "s/c", "s/d", "s/e", "s/f"]
    assert notes == ["farm: --last-failed: would run 1 failed earlier; 2 not run in run "
                     "20261206-165000-maxf; 1 interrupted, 1 not run in run "
                     "20261206-164500-ctrc (stopped before their end)"]


def test_a_failure_since_counts_as_failed_not_as_undone(here, monkeypatch, capsys):
    _failed(here, "s/c")
    _run(here, "20261206-164500-ctrc", 0, True, ("s/a", "passed", None),
         ("s/b", "interrupted", None), ("s/c", "skipped", CTRL_C))
    _run(here, "20261206-165000-redo", 5, False, ("s/b", "passed", None),
         ("s/c", "failed", None))
    cases, notes = _lf(here, monkeypatch, capsys)
    assert cases == ["s/c"]
    assert notes == ["farm: --last-failed: would run 1 case(s) that failed last time"]


def _gone_pid() -> int:
    try:
        return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    except OSError:
        return 2 ** 22 + 1


def _killed_run(here: Path, run_id: str, started: str, *lines: dict) -> None:
    """A run killed with kill -9 (its journal, no results.json), not rebuilt yet."""
    import socket
    run_dir = here / ".farm" / "runs" / run_id
    run_dir.mkdir(parents=True)
    planned = [{"case_id": f"s/{n}", "name": n, "file": f"s/{n}.yaml", "platform": "web"}
               for n in "bcde"]
    head = {"journal": "run", "run_id": run_id, "started": started, "pid": _gone_pid(),
            "host": socket.gethostname(), "planned": planned}
    (run_dir / "results.jsonl").write_text(
        "\n".join(json.dumps(line) for line in (head, *lines)) + "\n")


def _ended(run_id: str, name: str, status: str) -> dict:
    return {"run_id": run_id, "case_id": f"s/{name}", "name": name, "file": f"s/{name}.yaml",
            "platform": "web", "device": "browser-1", "status": status, "duration": 1.0}


def test_a_killed_run_not_yet_rebuilt_is_read_from_its_journal(here, monkeypatch, capsys):
    """Ctrl-C (s/b interrupted, s/c not run), then a run killed with kill -9: it passed s/b,
    failed s/c, was in s/d and had not started s/e. --lf took the Ctrl-C'd run's list."""
    _failed(here, "s/f")
    _run(here, "20270115-080000-c0c0", 0, True, ("s/a", "passed", None),
         ("s/b", "interrupted", None), ("s/c", "skipped", CTRL_C))     # (at: 2027-01-15)
    killed = "20270116-170000-bb22"
    _killed_run(here, killed, "2027-01-16T17:00:00+00:00",
                _ended(killed, "b", "passed"), _ended(killed, "c", "failed"),
                {"journal": "start", "case_id": "s/d", "attempt": 1, "device": "browser-1",
                 "started": "2027-01-16T17:00:09+00:00"})
    cases, notes = _lf(here, monkeypatch, capsys)
    assert cases == ["s/c", "s/d", "s/e", "s/f"]
    assert notes == [f"farm: --last-failed: would run 2 failed earlier; 1 interrupted, 1 not "
                     f"run in run {killed} (stopped before its end)"]


def test_the_next_run_says_lf_reads_the_killed_run_already(here, capsys):
    from farm.config import Settings
    from farm.run_outputs import output_dirs
    killed = "20270116-170000-bb22"
    _killed_run(here, killed, "2027-01-16T17:00:00+00:00")
    output_dirs(Settings(state_dir=here / ".farm"), "20270116-180000-cc33", False)
    err = capsys.readouterr().err
    assert "puts its cases in the results history (--last-failed reads them from its " \
           "journal until then)" in err, err


def test_a_killed_run_is_read_after_a_later_run_of_other_cases(here, monkeypatch, capsys):
    """kill -9 of `farm run s`, then `farm run s -k b` (its case passed): --lf forgot the
    killed run's failure and its never-started cases."""
    killed = "20270116-170000-bb22"
    _killed_run(here, killed, "2027-01-16T17:00:00+00:00", _ended(killed, "c", "failed"))
    _run(here, "20270117-080000-d0d0", 2 * 24 * 60, False, ("s/b", "passed", None))
    cases, notes = _lf(here, monkeypatch, capsys)
    assert cases == ["s/c", "s/d", "s/e"]
    assert notes == [f"farm: --last-failed: would run 1 failed earlier; 2 not run in run "
                     f"{killed} (stopped before its end)"]
