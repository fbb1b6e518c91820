"""FARM_MODEL (or any setting's variable) written in the working directory's .env, where
Midscene keeps its model configuration, did nothing and nobody said so: ai steps were skipped
"needs a model (set FARM_MODEL)" while .env set it. farm now warns, naming the variables."""

from __future__ import annotations

import os

from click.testing import CliRunner

from farm.cli import cli
from farm.suite.dotenv import dotenv_settings


def test_settings_in_dotenv_are_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("FARM_")]:
        monkeypatch.delenv(name)
    (tmp_path / ".env").write_text("FARM_MODEL=openai/gpt-4o\nFARM_DEMO_URL=http://x\n"
                                   "FARM_RETRIES=2\n")
    result = CliRunner().invoke(cli, ["config", "show"])
    assert result.exit_code == 0
    assert ("farm: warning: .env sets FARM_MODEL, FARM_RETRIES, which farm does not read as "
            "settings (.env gives a suite's ${NAME} values only): set them in the environment "
            "or in farm.toml") in result.output
    assert "model                    (not set)" in result.output


def test_one_the_environment_sets_too_is_not(tmp_path):
    (tmp_path / ".env").write_text("FARM_MODEL=a\nFARM_RETRIES=2\nOPENAI_API_KEY=k\n")
    assert dotenv_settings(path=tmp_path / ".env", environ={"FARM_MODEL": "a"}) == [
        "FARM_RETRIES"]
    assert dotenv_settings(path=tmp_path / "none", environ={}) == []
