"""A wheel (`pip wheel .`, the Docker image's `pip install .`) carries the commit it was built
from in farm/_build_commit.txt: an installed farm has no .git, and farm_build_info said
`0.1.0` with no commit. FARM_BUILD_COMMIT gives it where the build sees no .git."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.farm_cli import ROOT

pytestmark = pytest.mark.integration


def _wheel(src: Path, out: Path, **env: str) -> zipfile.ZipFile:
    import os
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(src)], check=True, env={**os.environ, **env}, timeout=600)
    return zipfile.ZipFile(next(out.glob("farm-*.whl")))


def test_a_wheel_records_the_commit_of_the_tree_it_was_built_from_pkg49(tmp_path):
    src = tmp_path / "src"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(src)], check=True, timeout=300)
    head = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    wheel = _wheel(src, tmp_path / "dist")
    assert wheel.read("farm/_build_commit.txt").decode() == f"{head[:12]}\n"
    (src / ".git").rename(tmp_path / "git")         # a copy of the tree, as Docker's COPY
    given = "abcdef0123456789abcdef0123456789abcdef01"
    wheel = _wheel(src, tmp_path / "dist2", FARM_BUILD_COMMIT=given)
    assert wheel.read("farm/_build_commit.txt").decode() == f"{given[:12]}\n"
    wheel = _wheel(src, tmp_path / "dist3")
    assert "farm/_build_commit.txt" not in wheel.namelist()
