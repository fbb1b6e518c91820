"""farm.toml and [tool.farm] mistakes a user makes when setting farm up for CI: one line that
says what to write instead, exit 4."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("file, text, said", [
    ("farm.toml", "[tool.farm]\nretries = 3\n",
     "farm.toml:1: unknown setting 'tool' ([tool.farm] is pyproject.toml's table: in farm.toml "
     "write its settings at the top, without a [section])"),
    ("farm.toml", "[run]\nretries = 3\n",
     "farm.toml:1: unknown setting 'run' (a [run] table: farm.toml's settings are plain keys, "
     "none in a section)"),
    ("pyproject.toml", "[tool.farm]\nkeep_runs = 3\n[tool.farm.cluster]\nprefix = 'x'\n",
     "pyproject.toml:3 [tool.farm]: unknown setting 'cluster' (a [tool.farm.cluster] table: "
     "[tool.farm]'s settings are plain keys, none in a section: write cluster_prefix = …)"),
    # a table named as a setting read "setting 'model': Input should be a valid string"
    ("pyproject.toml", "[tool.farm]\nretries = 1\n\n[tool.farm.model]\nname = 'openai/x'\n"
                       "base_url = 'http://127.0.0.1:9/v1'\n",
     "pyproject.toml:4 [tool.farm]: setting 'model' (a [tool.farm.model] table: [tool.farm]'s "
     "settings are plain keys, none in a section: write model = …, model_base_url = …)"),
    ("farm.toml", "[cache]\nmode = 'off'\n",
     "farm.toml:1: setting 'cache' (a [cache] table: farm.toml's settings are plain keys, "
     "none in a section: write cache = …)"),
])
def test_a_section_among_the_settings_says_settings_are_plain_keys(
        tmp_path, monkeypatch, capsys, file, text, said):
    """`[tool.farm]` pasted from pyproject.toml into farm.toml was "unknown setting 'tool'",
    leaving the user to guess why the section they were told about is unknown."""
    (tmp_path / file).write_text(text)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, out, err) == (4, "", f"farm: error: cannot read configuration: {said}\n")
