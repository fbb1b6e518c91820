"""A cache.db damaged inside (a page garbled: SQLite opens it, its quick check finds the
damage) is named with SQLite's first finding, where `farm cache ls` said
"is corrupt (*** in database main ***)", the heading of SQLite's report."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import CorruptStore, SqliteStore


def test_the_damage_is_named_by_what_sqlite_found(tmp_path):
    path = tmp_path / "cache.db"
    store = SqliteStore(path)
    for n in range(8):
        store.put(Namespace(f"s/case{n}", "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"]})
    store.close()
    data = bytearray(path.read_bytes())
    data[5000:9000] = b"\xff" * 4000            # its pages garbled, the header intact
    path.write_bytes(bytes(data))
    store = SqliteStore(path)
    with pytest.raises(CorruptStore) as found:
        store.check()
    store.close()
    reason = str(found.value).split(" is corrupt (", 1)[1].split("): `farm cache clear`")[0]
    assert "***" not in reason and reason, found.value
