"""A farm.toml / pyproject.toml that is not TOML: the error starts with file:line:col, as a
suite file's errors do and as editors and terminals open them (it ended with tomllib's
"(at line 3, column 11)"), and farm exits 4 before anything runs."""

from __future__ import annotations

import os

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_a_farm_toml_syntax_error_is_named_at_file_line_and_column(tmp_path, monkeypatch,
                                                                  capsys):
    (tmp_path / "farm.toml").write_text("retries = 1\n\n[tool.farm\nkeep_runs = 2\n")
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert err == ("farm: error: cannot read configuration: farm.toml:3:11: Expected ']' at "
                   "the end of a table declaration\n")


def test_a_pyproject_syntax_error_in_tool_farm_too(tmp_path, monkeypatch, capsys):
    (tmp_path / "suites").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.farm]\nretries =\n')
    code, _, err = run_main(monkeypatch, capsys, "run", "suites", "--collect-only")
    assert code == 4
    assert "pyproject.toml:4:10: Invalid value" in err
