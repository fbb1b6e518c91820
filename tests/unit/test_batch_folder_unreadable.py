"""A batch's glob reaching a folder farm may not list (chmod 000, another user's): its files
were passed over without a word (``locked/*.yaml`` then "matched no .yaml file"), so the
batch ran without them. Each such folder is a problem at the files: entry, naming it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_a_folder_a_glob_cannot_list_is_named_at_its_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    for rel in ("b/ok/a.yaml", "b/locked/x.yaml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(CASE)
    (tmp_path / "b" / "index.yaml").write_text("files: ['**/*.yaml', 'locked/*.yaml']\n")
    locked = str(tmp_path / "b" / "locked")
    real_scandir = os.scandir

    def scandir(path="."):      # as chmod 000 does for a user without root's override
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(monkeypatch, capsys, "run", "b", "--collect-only")
    assert code == 4
    assert problems(err) == [
        "farm: 2 problems in suite files:",
        "  b/index.yaml:1:9: files: '**/*.yaml': cannot read folder locked (Permission "
        "denied): its files could not be looked for",
        "  b/index.yaml:1:22: files: 'locked/*.yaml': cannot read folder locked (Permission "
        "denied): its files could not be looked for"]
