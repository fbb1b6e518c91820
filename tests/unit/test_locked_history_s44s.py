"""A results history another process holds locked (``BEGIN EXCLUSIVE`` on
.farm/results.sqlite) as the user sees it: farm says once that it waits for the file, and a
history it could not read marks no failure *new* (it had failed in every earlier run)."""

from __future__ import annotations

import json
import sqlite3

from farm import results_history
from farm.results_history import SqliteResults, record_for
from tests.support.farm_cli import run_main as farm
from tests.unit.test_corrupt_results_history import CASE, here  # noqa: F401  (fixture)
from tests.unit.test_results_history import summary


def test_a_locked_history_marks_no_failure_new_and_says_it_waited_for_the_file(
        here, monkeypatch, capsys):  # noqa: F811
    path = here / ".farm" / "results.sqlite"
    SqliteResults(path).add_many([record_for(summary(f"2026010{n}-020000-aaa{n}", n,
                                                     {"s/one": "failed"})) for n in (1, 2)])
    (here / "s" / "one.yaml").write_text(CASE.replace('"1"', '"1"\n      - assertText: hi'))
    monkeypatch.setattr(results_history, "LOCK_WAIT", 0)    # (waits no time for it here)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--cache", "off")
    finally:
        holder.close()
    assert code == 1, out + err
    assert err.count("farm: waiting for the results history") == 1, err
    assert "results.sqlite (locked by another process" in err
    assert ("results history not read (this run's failures are not marked new or still "
            "failing): database is locked (.farm/results.sqlite)") in err
    assert "results history not updated: database is locked (.farm/results.sqlite)" in err
    assert "new failure" not in out and "(1 new)" not in out, out
    [results] = [p for p in (here / ".farm" / "runs").glob("*/results.json")
                 if not p.parent.name.startswith("20260")]
    assert [c["since_last"] for c in json.loads(results.read_text())["cases"]] == [None]
