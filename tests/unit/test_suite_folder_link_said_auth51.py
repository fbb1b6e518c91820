"""A link to a folder of cases inside a suite (``shared -> ../common``) is not followed; only
``-v`` said so, and the shared cases did not run without a word. Now a warning names the
link once in every run (a link within the suite, or to a folder with no YAML, is not one)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from farm.suite.loader import load_suites

CASE = ("name: c\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 1\n")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_to_a_folder_of_cases_is_warned_of(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for folder in ("common", "app", "s"):
        (tmp_path / folder).mkdir()
    (tmp_path / "common" / "deep").mkdir()
    (tmp_path / "common" / "deep" / "shared_case.yaml").write_text(CASE)
    (tmp_path / "app" / "index.html").write_text("<h1>hi</h1>")
    (tmp_path / "s" / "own.yaml").write_text(CASE)
    (tmp_path / "s" / "shared").symlink_to(tmp_path / "common", target_is_directory=True)
    (tmp_path / "s" / "web").symlink_to(tmp_path / "app", target_is_directory=True)
    (tmp_path / "s" / "up").symlink_to(tmp_path / "s", target_is_directory=True)  # a loop
    warnings: list[str] = []
    [suite] = load_suites([Path("s")], env={}, dotenv=None, warnings=warnings)
    assert [c.id for c in suite.cases] == ["s/own"]
    assert [w for w in warnings if "link" in w] == [
        f"s/shared{os.sep}: a link to a folder, not followed: its cases do not run "
        "(name it to run them)"]
