"""`farm run` from a sub-folder of the project warns that the farm.toml above it is not read:
the run went without the project's settings (its model, broker, retries) and said nothing, as
only `farm config show` named the file."""

from __future__ import annotations

from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

CASE = "name: c\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_a_run_from_a_sub_folder_names_the_farm_toml_it_does_not_read(tmp_path, monkeypatch,
                                                                      capsys):
    (tmp_path / "proj" / "suites" / "s").mkdir(parents=True)
    (tmp_path / "proj" / "farm.toml").write_text("retries = 2\n")
    (tmp_path / "proj" / "suites" / "s" / "c.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path / "proj" / "suites")
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 0 and "collected" not in out
    assert err.splitlines() == [
        f"farm: warning: {tmp_path / 'proj' / 'farm.toml'} is not read (farm reads farm.toml "
        f"and pyproject.toml from the working directory only: run farm in {tmp_path / 'proj'})",
        counted(1).rstrip()]


def test_a_run_where_the_farm_toml_is_says_nothing_of_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "farm.toml").write_text("retries = 2\n")
    (tmp_path / "s" / "c.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert (code, err) == (0, counted(1))
