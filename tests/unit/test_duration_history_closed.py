"""Reading the remembered durations (farm/history.py) left its SQLite connection open until
the garbage collector came by: a connection's own `with` ends a transaction, not the
connection, and a corrupt file's connection was dropped open as well. Each `farm run` reads
the history once; a process that plans runs (a worker, a script calling farm.run) held one
more descriptor of history.sqlite each time."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from farm.history import DurationHistory
from farm.results import CaseResult


def _open_on(path: Path) -> int:
    """How many of this process's descriptors are open on ``path``."""
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            found += os.readlink(f"/proc/self/fd/{fd}") == str(path)
        except OSError:
            pass
    return found


@pytest.fixture
def no_collector():
    """The collector would close a dropped connection some time later; off, it never does."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_reading_the_history_leaves_no_file_open(tmp_path, no_collector):
    history = DurationHistory(tmp_path)
    history.record([CaseResult(run_id="r", case_id="s/a", name="a", file="a.yaml", platform="web", status="passed",
                               duration=2.0, started="2026-12-05T00:00:00Z")])
    for _ in range(3):
        assert history.load() == {"web:s/a": [2.0]}
    assert _open_on(history.path) == 0


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_reading_a_corrupt_history_leaves_no_file_open(tmp_path, no_collector):
    history = DurationHistory(tmp_path)
    history.path.write_bytes(b"not a database " * 100)
    for _ in range(3):
        assert history.load() == {}
    assert _open_on(history.path) == 0
