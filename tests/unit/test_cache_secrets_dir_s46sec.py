"""A case whose ``${SEC_PASSWORD}`` comes from FARM_SECRETS_DIR: `farm cache ls FILE` listed
none of its entries ("0 entries", the file read as if the variable were undefined), and
`farm cache export FILE|RUN_DIR` stopped with "undefined variable ${SEC_PASSWORD}", where
`farm run` ran it. They read the secrets dir as `farm run` does; the export does not hold
the secret's value."""

from __future__ import annotations

import json
import os
from pathlib import Path

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
      - aiInput: Password
        value: ${SEC_PASSWORD}
"""
SECRET = "Hunter2-s46sec-value"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "SEC_PASSWORD"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "SEC_PASSWORD").write_text(SECRET + "\n")
    monkeypatch.setenv("FARM_SECRETS_DIR", str(tmp_path / "secrets"))
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "login.yaml").write_text(CASE)
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    store.put(Namespace("shop/login", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//*[@id='go']"]})
    store.close()
    return tmp_path


def test_cache_ls_of_the_case_file_lists_its_entries(here, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "cache", "ls", "shop/login.yaml")
    assert code == 0, out + err
    assert [line.split()[0] for line in out.splitlines() if "  web  " in line] == \
        ["shop/login"], out


@pytest.mark.parametrize("given", ["shop/login.yaml", "run"])
def test_cache_export_of_the_case_file_or_its_run_is_written(here, monkeypatch, capsys, given):
    (here / "run").mkdir()
    (here / "run" / "results.json").write_text(json.dumps({"cases": [
        {"file": "shop/login.yaml", "case_id": "shop/login", "status": "passed"}]}))
    code, out, err = run_main(monkeypatch, capsys, "cache", "export", given)
    assert code == 0, out + err
    solved = (here / "shop" / "login.solved.yaml").read_text()
    assert "xpath: //*[@id='go']" in solved, solved
    assert SECRET not in solved and "${SEC_PASSWORD}" in solved, solved
