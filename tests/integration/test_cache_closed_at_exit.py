"""`farm run` leaves its cache in cache.db itself, not in SQLite's write-ahead log: the store was
never closed, so every run ended with cache.db-wal beside cache.db and the run's entries in the
log alone (a CI cache or a copy of cache.db kept none of them). Checked after a run that failed
and after one stopped with Ctrl-C."""

from __future__ import annotations

import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.integration.test_farm_run import gate, gated_faults  # noqa: F401  (a fixture)
from tests.support.suites import demo_copy, write_case

pytestmark = pytest.mark.integration


def entries_in_the_file_alone(state: Path, tmp: Path) -> int:
    """How many entries a copy of cache.db, without any -wal / -shm beside it, holds."""
    copy = tmp / "copy" / "cache.db"
    copy.parent.mkdir()
    shutil.copy(state / "cache.db", copy)
    with sqlite3.connect(copy) as conn:
        return conn.execute("SELECT count(*) FROM entries").fetchone()[0]


def test_a_failed_run_leaves_its_entries_in_cache_db(tmp_path, farm):
    suite = demo_copy(tmp_path / "demo", "login_success.yaml")    # its locate entries
    write_case(suite, "fails", ["assertText: no such text anywhere"],
               url="${FARM_DEMO_URL}/index.html")
    done = farm.run("run", suite, "--devices", "browser:1")
    assert done.returncode == 1, done.stdout + done.stderr
    state = tmp_path / "state"
    assert not (state / "cache.db-wal").exists(), sorted(p.name for p in state.iterdir())
    assert entries_in_the_file_alone(state, tmp_path) >= 3


def test_a_run_stopped_with_ctrl_c_leaves_its_entries_in_cache_db(tmp_path, farm, gate):
    suite = gated_faults(tmp_path, gate)
    proc = farm.start("run", suite, "--devices", "browser:1")
    gate.wait_for_arrivals(1)       # ok_login passed (its entries written); the next waits
    proc.send_signal(signal.SIGINT)
    out = proc.finish(180)
    assert proc.returncode == 2, out
    state = tmp_path / "state"
    assert not (state / "cache.db-wal").exists(), sorted(p.name for p in state.iterdir())
    assert entries_in_the_file_alone(state, tmp_path) >= 3
