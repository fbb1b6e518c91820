"""An installed farm (a wheel, the Docker image) has no .git to read: `farm_build_info` said
`0.1.0` with no commit. The wheel's build records it in farm/_build_commit.txt (setup.py);
a checkout's own .git still wins, and with neither there is no commit."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import farm

SHA = "0123456789abcdef0123456789abcdef01234567"


def _installed_copy(tmp_path: Path, built: str | None) -> ModuleType:
    """farm/__init__.py as a wheel installs it: in site-packages/farm, no .git above."""
    package = tmp_path / "site-packages" / "farm"
    package.mkdir(parents=True)
    shutil.copy(Path(farm.__file__), package / "__init__.py")
    if built is not None:
        (package / "_build_commit.txt").write_text(built)
    spec = importlib.util.spec_from_file_location("farm_copy_pkg49", package / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_installed_farm_names_the_commit_its_wheel_was_built_from_pkg49(tmp_path):
    copy = _installed_copy(tmp_path, f"{SHA[:12]}\n")
    assert copy.build_commit() == SHA[:12]
    assert copy.tree_modified() is False


def test_a_wheel_built_from_a_modified_tree_says_so_pkg49(tmp_path):
    copy = _installed_copy(tmp_path, f"{SHA[:12]} dirty\n")
    assert (copy.build_commit(), copy.tree_modified()) == (SHA[:12], True)


def test_no_recorded_commit_or_a_garbled_one_is_no_commit_pkg49(tmp_path):
    assert _installed_copy(tmp_path / "a", None).build_commit() == ""
    assert _installed_copy(tmp_path / "b", "not-a-sha\n").build_commit() == ""
    assert _installed_copy(tmp_path / "c", "").build_commit() == ""


def test_a_checkouts_git_wins_over_a_recorded_commit_pkg49(tmp_path):
    copy = _installed_copy(tmp_path, "ffffffffffff\n")
    git = tmp_path / "site-packages" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "refs" / "heads" / "main").write_text(SHA + "\n")
    assert copy.build_commit() == SHA[:12]
