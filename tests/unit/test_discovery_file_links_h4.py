"""A link to a case file beside the file itself (``a_smoke.yaml -> login.yaml``): the case
ran once, but under the link's id when its name sorted first, so ``s/login`` vanished from
the run, its durations, results history and --last-failed left under the old id, and nothing
said why. The file itself keeps its id; ``farm run -v`` lists the link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from farm.suite.loader import load_suites

CASE = ("name: c\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 1\n")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_a_link_beside_its_case_file_leaves_the_file_s_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "common").mkdir()
    (tmp_path / "s" / "login.yaml").write_text(CASE)
    (tmp_path / "s" / "a_smoke.yaml").symlink_to("login.yaml")        # sorts first
    (tmp_path / "common" / "shared.yaml").write_text(CASE)
    (tmp_path / "s" / "shared.yaml").symlink_to(tmp_path / "common" / "shared.yaml")
    skipped: list[str] = []
    [suite] = load_suites([Path("s")], env={}, dotenv=None, skipped=skipped)
    assert sorted(c.id for c in suite.cases) == ["s/login", "s/shared"]   # a link alone runs
    assert [s for s in skipped if "case file" in s] == [
        "link to a case file s/a_smoke.yaml (the same file as s/login.yaml: it runs once, "
        "as that one)"]
