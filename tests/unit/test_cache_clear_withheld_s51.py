"""`farm cache clear` leaves no note of a plan withheld for its secret behind: the note
(`withheld|<key>`, not an entry) outlived the entries, and `farm cache export` then said a
plan cleared since "would hold a secret value"."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace, withheld_key
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main


@pytest.mark.parametrize("selection", [None, "demo/login"])
def test_cache_clear_drops_the_withheld_notes_of_what_it_clears_s51(
        selection, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_CACHE_URL", "FARM_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    store = SqliteStore(tmp_path / "state" / "cache.db")
    key = Namespace("demo/login", "web").key("plan", "sign in", 0)
    other = Namespace("demo/other", "web").key("plan", "sign in", 0)
    store.put(key, {"type": "plan", "prompt": "sign in", "actions": []})
    for each in (key, other):
        store.put(withheld_key(each), {"type": "withheld", "updated": 0})
    store.close()
    args = ["cache", "clear", *([selection] if selection else [])]
    code, out, err = run_main(monkeypatch, capsys, *args)
    assert code == 0, err
    store = SqliteStore(tmp_path / "state" / "cache.db")
    kept = [k for k, _ in store.items()]
    store.close()
    assert withheld_key(key) not in kept
    assert (withheld_key(other) in kept) == (selection is not None)   # (only what it clears)
