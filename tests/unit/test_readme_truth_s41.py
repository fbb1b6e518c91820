"""What README's commands promise, checked in-process.

`farm cache export demo/ai_shopping` (a case id, as `farm cache ls demo/ai_shopping` and
`farm cache clear demo/ai_shopping` take it, and as README's `farm cache export CASE_OR_RUN`
reads) was refused with click's "Path 'demo/ai_shopping' does not exist": the user was not
told that export takes the case's file or a run directory. It now says so, naming the file
of that id when the working directory (or a folder in it) holds one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = "name: Shop\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - aiTap: Go\n"


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith("FARM_") or key == "CELERY_BROKER_URL":
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "suites" / "demo").mkdir(parents=True)
    (tmp_path / "suites" / "demo" / "ai_shopping.yaml").write_text(CASE)
    return tmp_path


def test_a_case_id_is_answered_with_its_file(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "cache", "export", "demo/ai_shopping")
    assert (code, out) == (4, "")
    assert ("'demo/ai_shopping' is no case file or run directory here: give its file "
            "(suites/demo/ai_shopping.yaml) or a run directory") in err
    assert "export takes no case id" in err
    assert "does not exist" not in err and "Traceback" not in err


def test_an_id_with_no_file_here_says_what_export_takes(monkeypatch, capsys):
    code, _, err = run_main(monkeypatch, capsys, "cache", "export", "shop/checkout")
    assert code == 4
    assert ("'shop/checkout' is no case file or run directory here: give the case's file "
            "(the .yaml `farm run` ran) or a run directory (.farm/runs/<run-id>)") in err


@pytest.mark.parametrize("given", ["nosuch.yaml", "../elsewhere/x.yml", "/no/such/dir"])
def test_a_missing_path_is_named_without_guessing(monkeypatch, capsys, given):
    code, _, err = run_main(monkeypatch, capsys, "cache", "export", given)
    assert code == 4
    assert f"{given!r} is no case file or run directory here\n" in err
