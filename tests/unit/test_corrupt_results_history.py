"""A damaged results history (.farm/results.sqlite: pages garbled, or cut short), as the user
sees it: farm moves its own file aside (never deletes it), rebuilds it from the runs under
.farm/runs and says so in one line, so the history does not stop for good; a file the user
named (--results) is left alone, and the error says to move it aside."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from farm.results import write_json
from farm.results_history import SqliteResults, record_for
from tests.support.farm_cli import run_main as farm
from tests.unit.test_results_history import summary

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


def _damaged(path: Path, how: str) -> bytes:
    """A results history that held three runs, then ``garbled`` (every page after the first
    overwritten) or ``cut`` (truncated to 100 bytes); its bytes."""
    SqliteResults(path).add_many([record_for(summary(f"old{n}", n, {"s/one": "passed"}))
                                  for n in range(1, 4)])
    data = bytearray(path.read_bytes())
    data = data[:100] if how == "cut" else data[:4096] + b"\x5a" * (len(data) - 4096)
    path.write_bytes(bytes(data))
    return bytes(data)


def _run_ids(path: Path) -> list[str]:
    con = sqlite3.connect(path)
    try:
        return [row[0] for row in con.execute("SELECT run_id FROM runs ORDER BY run_id")]
    finally:
        con.close()


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a one-case suite ``s`` (it passes on a fake device) and two
    earlier runs under .farm/runs."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    for n, run_id in ((1, "20260101-020000-aaaa"), (2, "20260102-020000-bbbb")):
        (tmp_path / ".farm" / "runs" / run_id).mkdir(parents=True)
        write_json(tmp_path / ".farm" / "runs" / run_id / "results.json",
                   summary(run_id, n, {"s/one": "failed"}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_TEST_FAKE_JOURNAL", str(tmp_path))
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _said_and_kept(here: Path, err: str, damaged: bytes) -> None:
    [aside] = (here / ".farm").glob("results.sqlite.corrupt-*[0-9]")
    assert err.splitlines()[0] == (
        "farm: warning: results history .farm/results.sqlite was corrupt (database disk image "
        f"is malformed): moved it to .farm/{aside.name}; rebuilt it from the 2 run(s) under "
        ".farm/runs")
    assert aside.read_bytes() == damaged        # moved aside as it was, never deleted


@pytest.mark.parametrize("how", ["garbled", "cut"])
def test_a_run_rebuilds_a_corrupt_history_from_its_runs_and_says_so(here, monkeypatch,
                                                                   capsys, how):
    damaged = _damaged(here / ".farm" / "results.sqlite", how)
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert code == 0, out + err
    assert "not updated" not in err
    _said_and_kept(here, err, damaged)
    ids = _run_ids(here / ".farm" / "results.sqlite")
    assert ids[:2] == ["20260101-020000-aaaa", "20260102-020000-bbbb"] and len(ids) == 3
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert (code, err) == (0, "")               # the history goes on: said once
    assert len(_run_ids(here / ".farm" / "results.sqlite")) == 4


@pytest.mark.parametrize("how", ["garbled", "cut"])
def test_the_history_page_rebuilds_a_corrupt_history_and_says_so(here, monkeypatch, capsys,
                                                                how):
    damaged = _damaged(here / ".farm" / "results.sqlite", how)
    code, out, err = farm(monkeypatch, capsys, "report", "--history")
    assert code == 0, err
    _said_and_kept(here, err, damaged)
    page = (here / ".farm" / "history.html").read_text()
    assert "20260101-020000-aaaa" in page and "20260102-020000-bbbb" in page


def test_a_corrupt_history_the_user_named_is_left_alone_and_said_what_to_do(here, monkeypatch,
                                                                           capsys):
    damaged = _damaged(here / "shared.sqlite", "garbled")
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--results",
                          "shared.sqlite")
    assert (code, out) == (4, "")
    assert err == ("farm: error: --results shared.sqlite: cannot read it as a results history "
                   "(shared.sqlite is corrupt (database disk image is malformed): move it "
                   "aside, and farm starts a new one there)\n")
    assert (here / "shared.sqlite").read_bytes() == damaged
    assert not list(here.glob("shared.sqlite.corrupt-*"))


def test_a_run_with_a_corrupt_history_the_user_named_says_which_file_and_what_to_do(
        here, monkeypatch, capsys):
    damaged = _damaged(here / "shared.sqlite", "cut")
    monkeypatch.setenv("FARM_RESULTS_HISTORY_URL", "shared.sqlite")
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert code == 0, out + err                 # the run's own results are not lost
    assert err == ("farm: warning: results history not updated: shared.sqlite is corrupt "
                   "(database disk image is malformed): move it aside, and farm starts a new "
                   "one there\n")
    assert (here / "shared.sqlite").read_bytes() == damaged



@pytest.mark.parametrize("how", ["garbled", "cut"])
def test_a_corrupt_history_with_no_runs_to_rebuild_from_starts_afresh(here, monkeypatch,
                                                                     capsys, how):
    """.farm/runs emptied (pruned by hand) and results.sqlite damaged: the history page and a
    run with a red case (which reads the history first) each start a fresh history, where
    the first ended with exit 4 ('a SQLite file, not farm's: no such table: runs') and the
    run's cases were left out of the history."""
    import shutil
    shutil.rmtree(here / ".farm" / "runs")
    _damaged(here / ".farm" / "results.sqlite", how)
    code, out, err = farm(monkeypatch, capsys, "report", "--history")
    assert code == 4, err                   # (a fresh history: no run in it to show)
    assert "rebuilt it from the 0 run(s)" in err and "no run recorded" in err
    assert "Traceback" not in err
    assert _run_ids(here / ".farm" / "results.sqlite") == []
    _damaged(here / ".farm" / "results.sqlite", how)
    (here / "s" / "one.yaml").write_text(CASE.replace('"1"', '"1"\n      - assertText: hi'))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert code == 1, out + err
    assert "not updated" not in err
    assert len(_run_ids(here / ".farm" / "results.sqlite")) == 1


def test_a_record_farm_cannot_read_costs_a_failing_run_its_verdicts_not_its_place(
        here, monkeypatch, capsys):
    """One run record in the history farm cannot read (another program's, or edited by hand
    in a shared one): a run with a failure is still added, saying its failures are not marked
    new or still failing, where it was left out (and so was every later such run)."""
    path = here / ".farm" / "results.sqlite"
    SqliteResults(path).add(record_for(summary("20260103-020000-cccc", 3, {"s/one": "failed"})))
    con = sqlite3.connect(path)
    with con:
        con.execute("INSERT INTO runs VALUES ('20260104-020000-dddd', 4.0, ?)",
                    ('{"run_id": "20260104-020000-dddd", "started": "", '
                     '"cases": [{"case_id": "s/one", "status": 5}]}',))
    con.close()
    (here / "s" / "one.yaml").write_text(CASE.replace('"1"', '"1"\n      - assertText: hi'))
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off")
    assert code == 1, out + err
    assert err.startswith("farm: warning: results history not read (this run's failures are "
                          "not marked new or still failing): a run record is not farm's"), err
    assert "not updated" not in err
    assert len(_run_ids(path)) == 3
