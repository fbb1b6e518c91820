"""farm started in a working directory removed since (a checkout rebuilt under the shell):
it was "farm: internal error: FileNotFoundError: [Errno 2] No such file or directory" and a
traceback, with no path; it says the working directory is gone, exit 4."""

from __future__ import annotations

import os

from tests.support.farm_cli import run_main


def test_a_removed_working_directory_is_said(tmp_path, monkeypatch, capsys):
    case = tmp_path / "c.yaml"
    case.write_text("web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
                    "      - sleep: 1\n")
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    os.rmdir(gone)
    code, out, err = run_main(monkeypatch, capsys, "run", str(case), "--collect-only")
    assert (code, out) == (4, "")
    assert err == ("farm: error: the working directory no longer exists (removed since the "
                   "shell went there, or replaced by a new one): cd into it again\n")
