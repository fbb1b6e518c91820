"""`farm cache export CASE --output FILE` where FILE is the case itself, or another case (a
tab-completed `-o suites/shop/login.yaml`), replaced it without a word: the ai steps by the
steps their cached plans took, the comments and the name gone. It is refused (exit 4), the
file untouched; an earlier export, an empty file or a new path is written as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

CASE = ("# the login flow, kept by hand\nname: Login\nweb:\n  url: about:blank\ntasks:\n"
        "  - name: t\n    flow:\n      - aiTap: Sign in\n")


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL",):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    SqliteStore(tmp_path / ".farm" / "cache.db").close()
    (tmp_path / "login.yaml").write_text(CASE)
    (tmp_path / "cart.yaml").write_text(CASE.replace("Login", "Cart"))
    return tmp_path


@pytest.mark.parametrize("output, said", [
    ("login.yaml", "is the case file itself"),
    ("./login.yaml", "is the case file itself"),
    ("cart.yaml", "holds something other than an earlier export"),
])
def test_an_output_holding_a_case_is_refused_and_kept(here, monkeypatch, capsys, output, said):
    before = {name: (here / name).read_text() for name in ("login.yaml", "cart.yaml")}
    code, out, err = run_main(monkeypatch, capsys, "cache", "export", "login.yaml",
                              "--output", output)
    assert (code, out) == (4, "")
    assert err.startswith(f"farm: error: --output {Path(output)} {said}: the export would "
                          "replace it")
    assert "leave --output out (login.solved.yaml beside the case)" in err
    assert {name: (here / name).read_text() for name in before} == before


@pytest.mark.parametrize("existing", [None, "", "# Exported by `farm cache export` from x\n"])
def test_a_new_file_an_empty_one_or_an_earlier_export_is_written(here, monkeypatch, capsys,
                                                                 existing):
    if existing is not None:
        (here / "out.yaml").write_text(existing)
    code, out, _ = run_main(monkeypatch, capsys, "cache", "export", "login.yaml",
                            "--output", "out.yaml")
    assert (code, out) == (0, "out.yaml\n")
    assert (here / "out.yaml").read_text().startswith("# Exported by `farm cache export` "
                                                      "from login.yaml")
