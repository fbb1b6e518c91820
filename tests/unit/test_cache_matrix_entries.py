"""A case run with ``--matrix`` keeps its cache entries per device group (``demo/login@pixel``,
``demo/login@tablet``). `farm cache ls|clear demo/login` now take them in, where they named
none (a redesign's `farm cache clear demo/login` left every group replaying the old flow);
``demo/login@pixel`` is that group alone; `farm cache export RUN_DIR` of a matrix run exports
the case from a group's entries, where it said the case's file was missing."""

from __future__ import annotations

import json

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

CASE = """name: login
web:
  url: http://127.0.0.1:1/
tasks:
  - name: t
    flow:
      - aiTap: Sign in
"""
IDS = ("demo/login@pixel", "demo/login@tablet", "demo/login", "demo/login_success")


@pytest.fixture
def here(tmp_path, monkeypatch):
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    for case_id in IDS:
        store.put(Namespace(case_id, "web").key("locate", "Sign in", 0),
                  {"type": "locate", "prompt": "Sign in",
                   "xpaths": [f"//*[@id='{case_id.rsplit('/', 1)[1]}']"]})
    store.close()
    return tmp_path


def _listed(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines() if "  web  " in line]


def test_ls_and_clear_of_a_case_take_in_its_device_groups(here, monkeypatch, capsys):
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "demo/login")
    assert (code, sorted(_listed(out))) == (0, sorted(IDS[:3])), out
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "demo/login@pixel")
    assert _listed(out) == ["demo/login@pixel"], out
    code, out, _ = run_main(monkeypatch, capsys, "cache", "clear", "demo/login@tablet")
    assert out.startswith("removed 1 entry"), out
    code, out, _ = run_main(monkeypatch, capsys, "cache", "clear", "demo/login")
    assert out.startswith("removed 2 entries"), out
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls")
    assert _listed(out) == ["demo/login_success"], out


def test_a_matrix_run_is_exported_from_a_groups_entries(here, monkeypatch, capsys):
    (here / "demo").mkdir()
    (here / "demo" / "login.yaml").write_text(CASE)
    (here / "run").mkdir()
    (here / "run" / "results.json").write_text(json.dumps({"cases": [
        {"file": "demo/login.yaml", "case_id": case_id, "status": "passed"}
        for case_id in IDS[:2]]}))
    code, out, err = run_main(monkeypatch, capsys, "cache", "export", "run")
    assert code == 0, out + err
    solved = (here / "demo" / "login.solved.yaml").read_text()
    assert "xpath: //*[@id='login@pixel']" in solved, solved
