"""The build's one step beyond pyproject.toml: a wheel records the git commit it was built
from in farm/_build_commit.txt (and "dirty" when that tree had uncommitted changes), so that
an installed farm, which has no .git to read, still names its commit (farm_build_info, the
lease `farm devices` lists). FARM_BUILD_COMMIT=<sha> gives it where the build sees no .git
(a Docker build). `pip install -e .` writes nothing: a checkout's .git is read at run time."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def commit_words() -> list[str]:
    """[commit] or [commit, "dirty"] for the tree being built; [] when it is not known."""
    given = os.environ.get("FARM_BUILD_COMMIT", "").strip().lower()
    if given:
        return [given[:12]] if re.fullmatch("[0-9a-f]{12,40}", given) else []
    spec = importlib.util.spec_from_file_location("_farm_source", ROOT / "farm" / "__init__.py")
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)         # (farm/__init__.py imports nothing heavy)
    commit = source.build_commit()
    if not commit:
        return []
    return [commit, "dirty"] if source.tree_modified() else [commit]


class BuildPyWithCommit(build_py):
    def run(self) -> None:
        super().run()
        words = [] if getattr(self, "editable_mode", False) else commit_words()
        target = Path(self.build_lib) / "farm" / "_build_commit.txt"
        if words:
            target.write_text(" ".join(words) + "\n")
        else:                   # (an earlier build's, left in build/)
            target.unlink(missing_ok=True)


setup(cmdclass={"build_py": BuildPyWithCommit})
