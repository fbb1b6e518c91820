"""`farm config show` run from a sub-folder of the project names the farm.toml (or
pyproject.toml [tool.farm]) above it that farm does not read: it said "where set: nowhere"
and every setting was farm's default, with no word of the file the team keeps its settings in."""

from __future__ import annotations

from click.testing import CliRunner

from farm.cli import cli
from farm.config import unread_above


def test_the_file_above_the_working_directory_is_named(tmp_path, monkeypatch):
    (tmp_path / "proj" / "suites").mkdir(parents=True)
    (tmp_path / "proj" / "farm.toml").write_text("retries = 2\n")
    (tmp_path / "proj" / "suites" / "pyproject.toml").write_text("[tool.black]\n")
    monkeypatch.chdir(tmp_path / "proj" / "suites")
    for name in [n for n in __import__("os").environ if n.startswith("FARM_")]:
        monkeypatch.delenv(name)
    result = CliRunner().invoke(cli, ["config", "show"])
    assert result.exit_code == 0
    assert (f"not read: {tmp_path / 'proj' / 'farm.toml'} (farm reads farm.toml and "
            "pyproject.toml from the working directory only: run farm in "
            f"{tmp_path / 'proj'})") in result.output
    assert "retries                  (not set" in result.output


def test_a_pyproject_table_above_counts_and_one_here_hides_it(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.farm]\nretries = 1\n")
    assert unread_above(tmp_path / "a" / "b") == tmp_path / "pyproject.toml"
    assert unread_above(tmp_path) is None
    (tmp_path / "a" / "b" / "farm.toml").write_text("")
    assert unread_above(tmp_path / "a" / "b") is None
