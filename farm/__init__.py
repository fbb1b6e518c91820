"""farm: a distributed device-farm test orchestrator.

Public API: ``Agent``, ``Settings``, ``load_settings``, ``load_suites``, ``run``. Everything else
may move.
Heavy modules (Playwright, litellm) are imported lazily.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Agent", "Settings", "load_settings", "load_suites", "run", "__version__"]


def build_commit() -> str:
    """The git commit farm runs from (12 hex digits) when it runs from a checkout, read from
    .git (HEAD, its ref or packed-refs) without spawning git, so that a worker on a days-old
    checkout can be told apart from one on today's (`farm_build_info{commit}`, the lease
    `farm devices` lists); installed from a wheel (no .git), the commit its build recorded
    in farm/_build_commit.txt (setup.py); else ""."""
    import re
    built = _built()
    if commit := _checkout_commit():
        return commit
    return built[0][:12] if built and re.fullmatch("[0-9a-f]{12,40}", built[0]) else ""


def _built() -> list[str]:
    """The words of farm/_build_commit.txt, which a wheel's build writes (setup.py): the
    commit it was built from, then "dirty" when that tree had uncommitted changes."""
    from pathlib import Path
    try:
        return Path(__file__).with_name(BUILD_COMMIT_FILE).read_text().split()
    except (OSError, UnicodeError):
        return []


BUILD_COMMIT_FILE = "_build_commit.txt"


def _checkout_commit() -> str:
    from pathlib import Path
    try:
        git = Path(__file__).resolve().parent.parent / ".git"
        if git.is_file():       # a worktree or submodule: "gitdir: <path>"
            target = git.read_text().partition("gitdir:")[2].strip()
            git = (git.parent / target).resolve()
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head[:12] if _hex(head) else ""
        ref = head[4:].strip()
        common = git / "commondir"      # a worktree's refs are its main checkout's
        base = (git / common.read_text().strip()).resolve() if common.is_file() else git
        for root in (git, base):
            if (root / ref).is_file():
                sha = (root / ref).read_text().strip()
                return sha[:12] if _hex(sha) else ""
        for line in (base / "packed-refs").read_text().splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref and _hex(sha):
                return sha[:12]
    except (OSError, UnicodeError):
        pass
    return ""


_MODIFIED: list[bool] = []


def tree_modified() -> bool:
    """Whether the checkout farm runs from has uncommitted changes to tracked files (one
    `git diff --quiet HEAD`, once per process; only asked where build_commit() found a
    checkout; installed from a wheel, whether the tree it was built from had): its build
    version then says `+<commit>.dirty`, so that a worker running edits nobody committed is
    not taken for one on that commit. No git, or git refusing the
    checkout (another user's: "dubious ownership"), is taken as unmodified."""
    if not _MODIFIED and not _checkout_commit():     # a wheel's build said so, or not
        _MODIFIED.append("dirty" in _built()[1:])
    if not _MODIFIED:
        import os
        import subprocess
        from pathlib import Path
        env = {k: v for k, v in os.environ.items()
               if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
        try:
            done = subprocess.run(
                ["git", "-C", str(Path(__file__).resolve().parent.parent), "diff", "--quiet",
                 "HEAD", "--"], env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
            _MODIFIED.append(done.returncode == 1)
        except (OSError, subprocess.SubprocessError):
            _MODIFIED.append(False)
    return _MODIFIED[0]


def _hex(text: str) -> bool:
    return len(text) >= 40 and all(c in "0123456789abcdef" for c in text.lower())


def __getattr__(name: str) -> Any:
    if name in ("Settings", "load_settings"):
        from farm import config
        return getattr(config, name)
    if name == "load_suites":
        from farm.suite.loader import load_suites
        return load_suites
    if name == "Agent":
        from farm.agent.api import Agent
        return Agent
    if name == "run":
        from farm.session import run
        return run
    raise AttributeError(name)
