"""`farm cache ls` says how old each entry is: an entry written by a machine whose clock runs a
little ahead (a cluster worker) read "(-0.0 h ago)", and one from last month "(720.0 h ago)".
A `cache.db` that is a directory said only "unable to open database file"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / ".farm"


def _written(state: Path, ages: dict[str, float]) -> None:
    store = SqliteStore(state / "cache.db")
    for n, (prompt, age) in enumerate(ages.items()):
        key = Namespace("demo/login", "web").key("locate", prompt, n)
        store.put(key, {"type": "locate", "prompt": prompt, "xpaths": ["//button"],
                        "updated": time.time() - age})
    store.close()


def test_each_entry_says_its_age_in_a_unit_that_reads(state, monkeypatch, capsys):
    _written(state, {"ahead": -5.0, "minutes": 12.5 * 60, "hours": 3.5 * 3600,
                     "days": 30 * 86400 + 60})
    code, out, err = farm(monkeypatch, capsys, "cache", "ls")
    assert (code, err) == (0, "")
    said = {line.split('"')[1]: line.rsplit("(", 1)[1] for line in out.splitlines()[:-1]}
    assert said == {"ahead": "just now)", "minutes": "12 min ago)", "hours": "3.5 h ago)",
                    "days": "30 d ago)"}


@pytest.mark.parametrize("command", [["ls"], ["clear"]])
def test_a_cache_db_that_is_a_directory_is_named(state, monkeypatch, capsys, command):
    (state / "cache.db").mkdir(parents=True)
    code, out, err = farm(monkeypatch, capsys, "cache", *command)
    assert (code, out) == (4, "")
    assert err == ("farm: error: the cache store .farm/cache.db is a directory, not a SQLite "
                   "file: move it away (or set FARM_STATE_DIR elsewhere)\n")
    assert (state / "cache.db").is_dir()
