"""A link to a folder inside a suite (``shared -> ../common``) is not followed, as Midscene's
glob does not follow one; `farm run -v` (and a run that found no case) now says so. It was
passed over without a word: the shared cases did not run and nothing said why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from farm.suite.loader import load_suites

CASE = ("name: c\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 1\n")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_to_a_folder_is_listed_as_skipped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "shared_case.yaml").write_text(CASE)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "own.yaml").write_text(CASE)
    (tmp_path / "s" / "shared").symlink_to(tmp_path / "common", target_is_directory=True)
    (tmp_path / "s" / "up").symlink_to(tmp_path / "s", target_is_directory=True)  # a loop
    skipped: list[str] = []
    [suite] = load_suites([Path("s")], env={}, dotenv=None, skipped=skipped)
    assert [c.id for c in suite.cases] == ["s/own"]
    assert [s for s in skipped if s.startswith("link to a folder")] == [
        f"link to a folder s/shared{os.sep} (not followed: name it to run its cases)",
        f"link to a folder s/up{os.sep} (not followed: name it to run its cases)"]
    [named] = load_suites([Path("s/shared")], env={}, dotenv=None)
    assert [c.id for c in named.cases] == ["shared/shared_case"]
