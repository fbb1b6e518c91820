"""A batch's globs walk its suite as discovery does: ``**`` and ``*`` never enter a link to a
folder. glob's ``**`` followed them: a link to ``/`` in the suite made ``files:
['**/*.yaml']`` walk the whole filesystem (``farm run --collect-only`` never came back), and a
link to ``..`` went round until the path was too long. A folder named in the pattern is
entered, as ``farm run LINK`` runs its cases; and without links a pattern matches what
glob.glob matches."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from farm.suite.batch import _matches
from tests.support.farm_cli import run_main

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def write(path: Path, text: str = CASE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_link_to_the_root_and_one_upwards_are_not_walked(tmp_path, monkeypatch, capsys):
    write(tmp_path / "b" / "sub" / "a.yaml")
    (tmp_path / "b" / "root").symlink_to("/")
    (tmp_path / "b" / "sub" / "up").symlink_to("..")
    write(tmp_path / "b" / "index.yaml", "files: ['**/*.yaml', '*/*.yaml']\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "b", "--collect-only")
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines() if "[web]" in line] == ["b/sub/a"]


def test_a_linked_folder_named_in_the_pattern_is_entered(tmp_path) -> None:
    write(tmp_path / "shared" / "login.yaml")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "shared").symlink_to(tmp_path / "shared")
    assert [p.name for p in _matches("shared/*.yaml", tmp_path / "b")] == ["login.yaml"]
    assert _matches("*/*.yaml", tmp_path / "b") == []            # a wildcard does not


@pytest.mark.parametrize("pattern", ["**/*.yaml", "*/a.yaml", "sub/**", "sub/**/*.yml",
                                     ".hidden/*.yaml", "*.y*ml", "[ab].yaml", "**",
                                     "sub/../a.yaml", "./sub/*/c.yaml", "**/**/*.yaml"])
def test_without_links_a_pattern_matches_what_glob_does(tmp_path, pattern) -> None:
    for rel in ("a.yaml", "b.yaml", "c.yml", "sub/a.yaml", "sub/d.yml", "sub/deep/c.yaml",
                ".hidden/h.yaml", "sub/.dot/x.yaml", ".top.yaml"):
        write(tmp_path / rel)
    expected = sorted({Path(m) for m in glob.glob(str(tmp_path / pattern), recursive=True)
                       if m.endswith((".yaml", ".yml")) and os.path.isfile(m)})
    assert _matches(pattern, tmp_path) == expected      # (glob gives some twice: **/**)
