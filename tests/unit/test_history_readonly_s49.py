"""A results.sqlite that cannot be written (a CI cache mounted read-only, a shared folder), at
SCHEMA_VERSION but from before the table of rows an older farm added: read as it is, silently,
as before that table came; one an older farm left below SCHEMA_VERSION still says it is not
upgraded."""

from __future__ import annotations

import sqlite3

from farm import results_history
from farm.results import CaseResult, RunSummary
from farm.results_history import SCHEMA_VERSION, SqliteResults, record_for


def _history(path, version: int) -> None:
    summary = RunSummary(run_id="20261206-020000-ab12", started="2026-12-06T02:00:00+00:00",
                         cases=[CaseResult(run_id="20261206-020000-ab12", case_id="s/a",
                                           name="a", file="s/a.yaml", platform="web",
                                           status="passed")])
    summary.recount()
    SqliteResults(path).add(record_for(summary))
    con = sqlite3.connect(path)
    con.executescript("DROP TRIGGER runs_unfilled; DROP TABLE unfilled;")
    con.execute(f"PRAGMA user_version = {version}")
    con.commit()
    con.close()


def _read_only(monkeypatch) -> None:
    connect = sqlite3.connect

    def opened_read_only(target, *args, **kwargs):
        return connect(str(target).replace("mode=rw", "mode=ro"), *args, **kwargs)
    monkeypatch.setattr(results_history.sqlite3, "connect", opened_read_only)


def test_a_read_only_history_this_farm_wrote_is_read_silently(tmp_path, monkeypatch, capsys):
    path = tmp_path / "results.sqlite"
    _history(path, SCHEMA_VERSION)
    _read_only(monkeypatch)
    assert SqliteResults(path).upgrade() == 0
    assert capsys.readouterr().err == ""


def test_a_read_only_history_an_older_farm_left_says_it_is_not_upgraded(tmp_path, monkeypatch,
                                                                         capsys):
    path = tmp_path / "results.sqlite"
    _history(path, 0)
    _read_only(monkeypatch)
    assert SqliteResults(path).upgrade() == 0
    assert "not upgraded" in capsys.readouterr().err
