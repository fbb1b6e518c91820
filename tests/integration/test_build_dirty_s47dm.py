"""farm_build_info's version (and what `farm devices --broker` lists) said `0.1.0+<commit>`
for a checkout with uncommitted edits as for a clean one: a worker running changes nobody
committed passed for one on that commit. A modified checkout now says `+<commit>.dirty`
(one `git diff --quiet HEAD`); an untracked file alone leaves it clean. Run on a real git
checkout holding a copy of farm."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import farm

pytestmark = pytest.mark.integration

GIT = shutil.which("git")


def git(repo: Path, *argv: str) -> str:
    return subprocess.run([GIT, "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                           *argv], capture_output=True, text=True, check=True).stdout.strip()


def version(repo: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    return subprocess.run([sys.executable, "-c", "from farm import metrics; "
                           "print(metrics.build_version())"], cwd=repo, env=env,
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()


@pytest.mark.skipif(GIT is None, reason="no git")
def test_a_modified_checkout_says_dirty_in_its_build_version(tmp_path):
    repo = tmp_path / "checkout"
    shutil.copytree(Path(farm.__file__).resolve().parent, repo / "farm",
                    ignore=shutil.ignore_patterns("__pycache__"))
    git(repo, "init", "-q")
    git(repo, "add", "farm")
    git(repo, "commit", "-q", "-m", "farm")
    head = git(repo, "rev-parse", "HEAD")[:12]
    assert version(repo) == f"{farm.__version__}+{head}"
    (repo / "notes.txt").write_text("untracked\n")
    assert version(repo) == f"{farm.__version__}+{head}"
    with (repo / "farm" / "metrics.py").open("a") as f:
        f.write("# a local edit\n")
    assert version(repo) == f"{farm.__version__}+{head}.dirty"
    git(repo, "add", "farm/metrics.py")          # staged, not committed: still modified
    assert version(repo) == f"{farm.__version__}+{head}.dirty"
    git(repo, "commit", "-q", "-m", "edit")
    assert version(repo) == f"{farm.__version__}+{git(repo, 'rev-parse', 'HEAD')[:12]}"
