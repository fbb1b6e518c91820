"""`farm cache ls|clear` given the case's file or folder, as `farm run` and `farm cache export`
take it (suites/shop/login.yaml): after a redesign, `farm cache clear suites/shop/login.yaml`
said "removed 0 entries" and left every entry of the case to be replayed; it now clears the
case's entries (and only them: not login_success's), as `farm cache clear shop/login` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main as farm


def _case(name: str) -> str:
    return f"""\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - aiTap: Sign in
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    suite = tmp_path / "suites" / "shop"
    suite.mkdir(parents=True)
    (suite / "login.yaml").write_text(_case("Login"))
    (suite / "login_success.yaml").write_text(_case("Login success"))
    (suite / "farm.yaml").write_text("retries: 0\n")     # the suite's root: ids shop/...
    (suite / "cart").mkdir()
    (suite / "cart" / "add.yaml").write_text(_case("Add"))
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    for case in ("shop/login", "shop/login_success", "shop/login@pixel", "shop/cart/add",
                 "shop/gone"):     # a case whose file was deleted since
        store.put(Namespace(case, "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"], "updated": 0})
    store.close()
    return tmp_path


def test_ls_of_a_case_file_lists_that_case(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "cache", "ls", "suites/shop/login.yaml")
    assert (code, err) == (0, "")
    cases = sorted(line.split()[0] for line in out.splitlines()[:-1])
    assert cases == ["shop/login", "shop/login@pixel"]
    assert out.splitlines()[-1] == "2 entries in .farm/cache.db"


def test_clear_of_a_case_file_removes_that_case(here, monkeypatch, capsys):
    code, out, _ = farm(monkeypatch, capsys, "cache", "clear", "suites/shop/login.yaml")
    assert (code, out) == (0, "removed 2 entries from .farm/cache.db\n")
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls")
    assert sorted(line.split()[0] for line in out.splitlines()[:-1]) == [
        "shop/cart/add", "shop/gone", "shop/login_success"]


def test_a_suite_folder_is_its_cases_and_a_case_id_is_unchanged(here, monkeypatch, capsys):
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls", "suites/shop")
    assert out.splitlines()[-1] == "5 entries in .farm/cache.db"     # as `ls shop` lists
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls", "suites/shop/cart/")
    assert [line.split()[0] for line in out.splitlines()] == ["shop/cart/add", "1"]
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls", "shop/login")
    assert out.splitlines()[-1] == "2 entries in .farm/cache.db"


def test_a_case_file_deleted_since_is_the_id_it_had(here, monkeypatch, capsys):
    """suites/shop/gone.yaml, deleted: `farm cache clear` of it said "removed 0 entries" and
    left shop/gone's entries to be listed (and counted) ever after."""
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls", "suites/shop/gone.yaml")
    assert [line.split()[0] for line in out.splitlines()] == ["shop/gone", "1"]
    code, out, _ = farm(monkeypatch, capsys, "cache", "clear", "suites/shop/gone.yaml")
    assert (code, out) == (0, "removed 1 entry from .farm/cache.db\n")
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls", "shop/")
    assert "shop/gone" not in out and out.splitlines()[-1] == "4 entries in .farm/cache.db"


@pytest.mark.parametrize("command", ["ls", "clear"])
def test_a_case_file_that_is_not_there_is_said_to_be_missing(here, monkeypatch, capsys, command):
    """A typo (suites/shop/logn.yaml) said "0 entries" / "removed 0 entries", as if the case
    had nothing cached: it is an error naming the file, and nothing is removed."""
    code, out, err = farm(monkeypatch, capsys, "cache", command, "suites/shop/logn.yaml")
    assert (code, out) == (4, "")
    assert err == ("farm: error: suites/shop/logn.yaml: no such case file (nor entries of "
                   "shop/logn, the case a file deleted there was)\n")
    code, out, err = farm(monkeypatch, capsys, "cache", command, "suites/shoop/login.yaml")
    assert (code, err) == (4, "farm: error: suites/shoop/login.yaml: no such case file\n")
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls")
    assert out.splitlines()[-1] == "5 entries in .farm/cache.db"
    code, out, _ = farm(monkeypatch, capsys, "cache", "ls", "shop/nothing")     # an id: no file
    assert (code, out) == (0, "0 entries in .farm/cache.db: no case or suite named "
                              "shop/nothing has any (4 cases have: `farm cache ls` lists "
                              "them)\n")
