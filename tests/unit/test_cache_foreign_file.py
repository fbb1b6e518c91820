"""A cache.db that is not farm's (FARM_STATE_DIR pointed at a folder where another program
keeps a `cache.db` with a table of its own named `entries`): `farm cache ls|clear|export` ended
in "farm: internal error: OperationalError: no such column: key" (exit 3, a traceback file).
They now say which file it is and what to do (exit 4), and leave the file as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - aiTap: Sign in
"""


@pytest.fixture
def foreign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    (tmp_path / ".farm").mkdir()
    path = tmp_path / ".farm" / "cache.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE entries (k TEXT, v TEXT)")
    conn.execute("INSERT INTO entries VALUES ('thumbnail', 'theirs')")
    conn.commit()
    conn.close()
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return path


SAID = ("farm: error: the cache store .farm/cache.db is not farm's: its table 'entries' has "
        "no column 'key'; set FARM_STATE_DIR to a folder of farm's own, or move the file "
        "away\n")


@pytest.mark.parametrize("command", [["ls"], ["clear"], ["export", "s/one.yaml"]])
def test_a_cache_db_of_another_program_is_named_not_an_internal_error(
        foreign, monkeypatch, capsys, command):
    code, out, err = farm(monkeypatch, capsys, "cache", *command)
    assert (code, out, err) == (4, "", SAID)
    conn = sqlite3.connect(foreign)
    assert conn.execute("SELECT * FROM entries").fetchall() == [("thumbnail", "theirs")]
    conn.close()
    assert sorted(p.name for p in foreign.parent.iterdir()) == ["cache.db"]
