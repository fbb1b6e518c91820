"""Run from ``myapp/bad/`` a case referring to ${APP_URL}, which ``myapp/.env`` sets: farm
reads the working directory's ``.env`` only (as Midscene's CLI does), and said "undefined
variable ${APP_URL}" and no more. The error now names the ``.env`` above (as the working
directory reaches it, ``../.env``) and where to run farm. Names only, never a value."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main


def _run_in(folder: Path, monkeypatch, capsys, case: str = "envvar.yaml"):
    monkeypatch.chdir(folder)
    return run_main(monkeypatch, capsys, "run", case, "--collect-only")


def _case(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "envvar.yaml").write_text("name: env var\nweb:\n  url: ${APP_URL}/index.html\n"
                                        "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")


def test_the_parent_folder_s_dotenv_is_named(tmp_path, monkeypatch, capsys):
    _case(tmp_path / "myapp" / "bad")
    (tmp_path / "myapp" / ".env").write_text("APP_URL=http://127.0.0.1:1/s9v-value\n")
    code, out, err = _run_in(tmp_path / "myapp" / "bad", monkeypatch, capsys)
    assert code == 4 and "s9v-value" not in out + err
    assert err.splitlines()[1].endswith(
        "envvar.yaml:3:8: undefined variable ${APP_URL} (set it in the environment, a .env file "
        "in the working directory, vars:, or a secrets dir); ../.env sets it, but farm reads "
        ".env from the working directory only, as Midscene's CLI does (run farm in .., or set "
        "APP_URL in the environment)")


def test_three_folders_up_and_no_further(tmp_path, monkeypatch, capsys):
    _case(tmp_path / "a" / "b" / "c" / "d")
    (tmp_path / "a" / ".env").write_text("APP_URL=http://x\n")
    code, out, err = _run_in(tmp_path / "a" / "b" / "c" / "d", monkeypatch, capsys)
    assert code == 4 and "../../../.env sets it" in err and "(run farm in ../../.., " in err
    _case(tmp_path / "e" / "f" / "g" / "h" / "i")
    (tmp_path / "e" / ".env").write_text("APP_URL=http://x\n")
    code, out, err = _run_in(tmp_path / "e" / "f" / "g" / "h" / "i", monkeypatch, capsys)
    assert code == 4 and ".env sets it" not in err


def test_a_name_the_dotenv_above_does_not_set_is_as_before(tmp_path, monkeypatch, capsys):
    _case(tmp_path / "myapp" / "bad")
    (tmp_path / "myapp" / ".env").write_text("OTHER_URL=http://x\n")
    code, out, err = _run_in(tmp_path / "myapp" / "bad", monkeypatch, capsys)
    assert code == 4 and "sets it" not in err
