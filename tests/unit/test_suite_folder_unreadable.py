"""A folder of a suite that farm may not list (no read permission for the user running it):
its cases were left out without a word, and the run passed on the cases it could see, where
an unreadable case file is a problem of the suite. It is one now, naming the folder (exit 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_a_folder_that_cannot_be_listed_is_a_problem_of_the_suite(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    for rel in ("s/ok.yaml", "s/locked/x.yaml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(CASE)
    locked = str(tmp_path / "s" / "locked")
    real_scandir = os.scandir

    def scandir(path="."):      # as chmod 000 does for a user without root's override
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4 and "s/ok" not in out
    assert problems(err) == [
        "farm: 1 problem in suite files:",
        "  s/locked: cannot read folder: Permission denied (its cases could not be looked for)"]
