"""`farm cache clear "$CASE"` in a CI script with CASE unset removed the whole cache (exit 0),
and a CASE that is a folder holding no case (`/`) said "removed 0 entries", exit 0, where the
README says a CASE nothing cached matches exits 4. Both are refused now, nothing removed."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main as farm
from tests.unit.test_cache_clear_by_file import here  # noqa: F401  (the fixture)


def _left(monkeypatch, capsys) -> str:
    _, out, _ = farm(monkeypatch, capsys, "cache", "ls")
    return out.splitlines()[-1]


def test_an_empty_case_id_is_refused_and_nothing_removed(here, monkeypatch, capsys):  # noqa: F811
    for empty in ("", "  "):
        code, out, err = farm(monkeypatch, capsys, "cache", "clear", empty)
        assert code == 4 and out == ""
        assert "empty case id" in err and "`farm cache clear` with no argument" in err
    assert _left(monkeypatch, capsys) == "5 entries in .farm/cache.db"


def test_a_folder_holding_no_case_is_refused(here, monkeypatch, capsys):  # noqa: F811
    Path("empty").mkdir()
    code, out, err = farm(monkeypatch, capsys, "cache", "clear", "empty")
    assert (code, out) == (4, "")
    assert "nothing removed from .farm/cache.db: no case in empty has any" in err
    assert _left(monkeypatch, capsys) == "5 entries in .farm/cache.db"


def test_no_argument_still_clears_everything(here, monkeypatch, capsys):  # noqa: F811
    code, out, _ = farm(monkeypatch, capsys, "cache", "clear")
    assert code == 0 and out.startswith("removed 5 entries from .farm/cache.db")
