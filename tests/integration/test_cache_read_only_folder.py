"""A cache.db in a folder this user may not write (another user's state directory, the
nightly's `.farm` mounted read-only): SQLite cannot create the -wal / -shm files its WAL
journal needs beside the file, and `farm cache ls` / `export` said only "cannot open the cache
store .farm/cache.db: unable to open database file", though the file reads fine. They list and
export what it holds; `farm cache clear` says the store is read-only.

The folder is made unwritable with chmod, or, for root (whom chmod does not stop), with
`chattr +i`; the test is skipped where neither stops a write."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm


def _lock(folder: Path) -> bool:
    """Make ``folder`` unwritable; whether a write there now fails."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
    elif shutil.which("chattr") is None or subprocess.run(
            ["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        return False
    try:
        (folder / "probe").write_text("")
    except OSError:
        return True
    (folder / "probe").unlink()
    return False


def _unlock(folder: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(folder)], capture_output=True)
    folder.chmod(0o755)


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A state folder whose cache.db holds one entry of s/login, the folder unwritable."""
    state = tmp_path / "nightly"
    store = SqliteStore(state / "cache.db")
    store.put(Namespace("s/login", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='login']"],
               "updated": 0})
    store.close()
    assert not (state / "cache.db-wal").exists()
    for name in ("FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_STATE_DIR", str(state))
    monkeypatch.chdir(tmp_path)
    if not _lock(state):
        _unlock(state)
        pytest.skip("cannot make a folder unwritable here")
    yield state
    _unlock(state)


def test_ls_lists_a_cache_in_a_folder_it_may_not_write(locked, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "cache", "ls")
    assert (code, err) == (0, "")
    assert "s/login  web  -  locate#0  \"Sign in\"  //*[@id='login']" in out
    assert out.rstrip().endswith(f"1 entry in {locked / 'cache.db'}")
    assert sorted(p.name for p in locked.iterdir()) == ["cache.db"]


def test_clear_says_the_store_is_read_only(locked, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "cache", "clear", "s")
    assert code == 4, out
    assert err == (f"farm: error: the cache store {locked / 'cache.db'} is read-only "
                   "(attempt to write a readonly database)\n")
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls")
    assert code == 0 and out.rstrip().endswith("1 entry in " + str(locked / "cache.db"))
