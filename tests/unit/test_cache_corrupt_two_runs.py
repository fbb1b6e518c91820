"""Two runs that start at once on one damaged cache.db (two nightly suites sharing `.farm`):
both find it damaged; the first sets it aside and starts a fresh one. The second set that
fresh file aside as well, as 'corrupt' (the first run's entries went with it, and its later
writes went to the moved file), or, when the file was gone at that moment, ended its run's
cache with "No such file or directory" (uncached). The second now uses the fresh store the
first started and says nothing: one file set aside, one warning, every entry kept."""

from __future__ import annotations

from pathlib import Path

from farm.cache.sqlite_store import CorruptStore, SqliteStore, renewed_if_corrupt

ENTRY = {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"], "updated": 1}


class SawItDamaged(SqliteStore):
    """The second run's store: its quick check ran while the file was still the damaged one
    (before the first run set it aside)."""

    def check(self) -> None:
        raise CorruptStore(self.path, "file is not a database")


def test_the_second_run_uses_the_fresh_store_the_first_started(tmp_path: Path):
    path = tmp_path / "cache.db"
    path.write_bytes(b"\x5a" * 8192)
    first, said_first = renewed_if_corrupt(SqliteStore(path))
    assert said_first.startswith(f"the cache store {path} was corrupt (file is not a database)")
    first.put("k1", ENTRY)
    second, said_second = renewed_if_corrupt(SawItDamaged(path))
    assert said_second == ""
    second.put("k2", ENTRY)
    first.put("k3", ENTRY)
    assert [k for k, _ in SqliteStore(path).items()] == ["k1", "k2", "k3"]
    assert len(list(tmp_path.glob("cache.db.corrupt-*"))) == 1
    first.close()
    second.close()


def test_the_second_run_finds_the_file_moved_and_none_started_yet(tmp_path: Path):
    path = tmp_path / "cache.db"
    path.write_bytes(b"\x5a" * 8192)
    second = SawItDamaged(path)
    path.rename(tmp_path / "cache.db.corrupt-elsewhere")     # the first run, midway
    store, said = renewed_if_corrupt(second)
    assert said == ""
    store.put("k1", ENTRY)
    assert [k for k, _ in SqliteStore(path).items()] == ["k1"]
    store.close()
