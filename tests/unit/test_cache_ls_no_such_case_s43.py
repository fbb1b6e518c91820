"""`farm cache ls` / `clear` of an id no case or suite in the cache has (a typo): it said
only "0 entries in .farm/cache.db", as of a case that had none; now it says no case or suite
of that name has entries and offers the nearest ids that do."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace, near_selections
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

CASES = ("shop/login", "shop/login_failure", "shop/checkout", "shop/checkout@pixel",
         "demo/mobile/cart")


@pytest.fixture
def cached(tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_CACHE_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    store = SqliteStore(tmp_path / "state" / "cache.db")
    for case in CASES:
        store.put(Namespace(case, "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='b']"]})
    yield store
    store.close()


def farm(monkeypatch, capsys, *args):
    code, out, err = run_main(monkeypatch, capsys, "cache", *args)
    assert code == 0, err
    return out.strip()


@pytest.mark.parametrize("typed, meant", [
    ("shop/chekout", "shop/checkout"), ("Shop/Login", "shop/login"), ("shp", "shop/"),
    ("demo/mobile/crt", "demo/mobile/cart"), ("shop/login_failur", "shop/login_failure")])
def test_a_mistyped_id_offers_the_one_meant(cached, monkeypatch, capsys, typed, meant):
    assert farm(monkeypatch, capsys, "ls", typed) == (
        f"0 entries in {cached.where}: no case or suite named {typed} has any "
        f"(did you mean {meant}?)")
    code, out, err = run_main(monkeypatch, capsys, "cache", "clear", typed)    # (s45c: exit 4)
    assert (code, out, err) == (4, "", (
        f"farm: error: nothing removed from {cached.where}: no case or suite named {typed} has "
        f"any (did you mean {meant}?)\n"))
    assert len(list(cached.items())) == len(CASES)


def test_an_id_like_none_says_how_many_cases_have_entries(cached, monkeypatch, capsys):
    assert farm(monkeypatch, capsys, "ls", "nosuch/case") == (
        f"0 entries in {cached.where}: no case or suite named nosuch/case has any "
        "(4 cases have: `farm cache ls` lists them)")


def test_an_empty_cache_and_a_case_that_has_entries_say_what_they_said(cached, monkeypatch,
                                                                       capsys):
    assert farm(monkeypatch, capsys, "ls", "shop/checkout").endswith(
        f"2 entries in {cached.where}")
    cached.delete()
    assert farm(monkeypatch, capsys, "ls", "shop/chekout") == f"0 entries in {cached.where}"


def test_near_selections_prefer_the_closest_name():
    keys = [Namespace(c, "web").key("plan", "p", 0) for c in CASES]
    assert near_selections("shop/logn", keys) == ["shop/login"]        # not also shop/
    assert near_selections("nosuch/case", keys) == []


def test_a_name_sharing_only_its_suite_is_not_offered():
    keys = [Namespace(c, "web").key("plan", "p", 0) for c in CASES]
    assert near_selections("shop/logout", keys) == []                  # not shop/login
    assert near_selections("shop/login@pixl", keys) == ["shop/login"]  # its device groups too
