"""A state dir whose path is too long for SQLite (its files' full names 511 bytes at most):
every store there failed with "unable to open database file" while the runs exited 0 every
night. The run is refused before it starts (exit 4), naming the directory and the limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.config import Settings
from farm.errors import ConfigError
from farm.run_outputs import output_dirs


def _deep(base: Path, length: int) -> Path:
    """A directory under ``base`` whose absolute path is ``length`` bytes long."""
    path = base.resolve()
    while len(str(path)) < length - 101:
        path = path / ("d" * 100)
    path = path / ("e" * (length - len(str(path)) - 1))
    path.mkdir(parents=True)
    assert len(str(path)) == length
    return path


def test_a_state_dir_too_long_for_sqlite_is_refused_naming_the_limit(tmp_path: Path) -> None:
    state = _deep(tmp_path, 489)
    with pytest.raises(ConfigError) as caught:
        output_dirs(Settings(state_dir=state), "20261206-020000-aaaa", False)
    assert str(caught.value).endswith(
        "is too long a path for SQLite (489 bytes; its files' full names may be 511 at most, "
        "so the directory 488): the results history and the cache could not be opened "
        "there; use a shorter path")
    assert not (state / "runs").exists()


def test_a_state_dir_just_short_enough_runs_and_its_history_opens(tmp_path: Path) -> None:
    from farm.results_history import SqliteResults, record_for
    from tests.unit.test_results_history import summary
    state = _deep(tmp_path, 488)
    output_dirs(Settings(state_dir=state), "20261206-020000-aaaa", False)
    SqliteResults(state / "results.sqlite").add(
        record_for(summary("20261206-020000-aaaa", 1, {"s/one": "failed"})))
    assert [r.run_id for r in SqliteResults(state / "results.sqlite").runs()] == [
        "20261206-020000-aaaa"]
