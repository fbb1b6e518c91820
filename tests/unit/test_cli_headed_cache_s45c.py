"""A newcomer's slips, said: `farm run --headed` (click offered --shard), `farm run --help`
on which of --timeout / a case's timeout: wins, and `farm cache clear nosuch/case`, which
exited 0 having removed nothing."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_CACHE_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text("name: a\nweb:\n  url: about:blank\nflow:\n"
                                           "  - sleep: 1\n")
    return tmp_path


@pytest.mark.parametrize("flag", ["--headed", "--headful", "--head", "--no-headless"])
def test_a_headed_flag_says_how_farm_shows_its_browser(here, monkeypatch, capsys, flag):
    code, out, err = run_main(monkeypatch, capsys, "run", "s", flag)
    assert code == 4
    assert f"farm has no {flag}: set FARM_HEADLESS=false for a visible browser" in err
    assert "Did you mean" not in err


def test_another_unknown_flag_keeps_clicks_suggestion(here, monkeypatch, capsys):
    _code, _out, err = run_main(monkeypatch, capsys, "run", "s", "--shrd")
    assert "No such option '--shrd'. Did you mean '--shard'?" in err


def test_run_help_names_farm_headless_and_which_timeout_wins(here, monkeypatch, capsys):
    _code, out, _err = run_main(monkeypatch, capsys, "run", "--help")
    said = " ".join(out.split())
    assert "FARM_HEADLESS=false shows them" in said
    assert "A case's own timeout: wins over --timeout" in said
    assert "--retries wins over a case's own retries:" in said


def test_clearing_an_id_nothing_matches_is_an_error_naming_the_closest(here, monkeypatch,
                                                                       capsys):
    store = SqliteStore(here / "state" / "cache.db")
    store.put(Namespace("shop/login", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='b']"]})
    code, out, err = run_main(monkeypatch, capsys, "cache", "clear", "shop/logn")
    assert (code, out) == (4, "")
    assert err == (f"farm: error: nothing removed from {store.where}: no case or suite named "
                   "shop/logn has any (did you mean shop/login?)\n")
    code, out, err = run_main(monkeypatch, capsys, "cache", "clear")
    assert (code, err) == (0, "") and out.startswith(f"removed 1 entry from {store.where}")
    code, out, err = run_main(monkeypatch, capsys, "cache", "clear", "nosuch/case")
    assert (code, err) == (4, f"farm: error: nothing removed from {store.where}: no entries "
                              "at all match nosuch/case\n")
    store.close()
