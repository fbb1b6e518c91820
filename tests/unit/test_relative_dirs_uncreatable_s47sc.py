"""A relative state or report directory farm cannot create (a read-only working directory)
is named, with its absolute path, not as "." (``Path('.').parent`` is ``.``: "cannot create
the folder .: Permission denied"); and the default state directory is called farm's
default, with FARM_STATE_DIR to move it, not "(FARM_STATE_DIR)" to a user who never set
it. As root nothing is read-only: /proc, which takes no new folders, stands in."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main

CASE = "web: {url: 'about:blank'}\ntasks:\n  - name: t\n    flow:\n      - javascript: '1'\n"


def _run_in_proc(tmp_path: Path, monkeypatch, capsys, *args: str,
                 state: str | None = None) -> tuple[int, str, str]:
    (tmp_path / "case.yaml").write_text(CASE)
    monkeypatch.delenv("FARM_STATE_DIR", raising=False)
    if state:
        monkeypatch.setenv("FARM_STATE_DIR", state)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")     # no browser
    monkeypatch.chdir("/proc")
    return run_main(monkeypatch, capsys, "run", tmp_path / "case.yaml", "--devices", "fake:1",
                    "--no-progress", *args)


def test_the_default_state_dir_that_cannot_be_made_is_named_as_the_default(
        tmp_path, monkeypatch, capsys):
    code, out, err = _run_in_proc(tmp_path, monkeypatch, capsys)
    assert (code, out, err) == (4, "", (
        "farm: error: farm's default state directory .farm: cannot write there (cannot "
        "create the folder .farm (/proc/.farm): /proc takes no new folders); set "
        "FARM_STATE_DIR to put it elsewhere\n"))


def test_a_relative_report_dir_that_cannot_be_made_names_its_first_missing_folder(
        tmp_path, monkeypatch, capsys):
    code, out, err = _run_in_proc(tmp_path, monkeypatch, capsys, "--report-dir", "out/r1",
                                  state=str(tmp_path / "state"))
    assert (code, out, err) == (4, "", (
        "farm: error: --report-dir out/r1: cannot write there (cannot create the folder out "
        "(/proc/out): /proc takes no new folders)\n"))
