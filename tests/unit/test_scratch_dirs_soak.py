"""A process's scratch folder under TMPDIR (`farm.scratch`): a device process killed hard left
its case folders and Playwright's profile folders in TMPDIR for good. The folder of a process
gone (its lock free) is removed by the next start; a live process's folder, a young one and
anything else in TMPDIR are left alone. Real flock: a lock is held by its open file, so
another open of it here is refused as another process's would be; a process's end is the
close of that file (tests/integration/test_worker_scratch_soak.py kills a real worker)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from farm import scratch


@pytest.fixture
def owners(monkeypatch):
    """``owner(base)``: a scratch folder as a process makes it; ``end()`` its process's end."""
    monkeypatch.setattr(scratch, "_held", [])
    monkeypatch.setenv("TMPDIR", "/nowhere-before")
    monkeypatch.setattr(tempfile, "tempdir", None)
    yield
    for fd, _, _ in scratch._held:
        os.close(fd)


def owner(base: Path) -> tuple[Path, int]:
    path = scratch.own(base)
    (path / "playwright_chromiumdev_profile-x").mkdir()
    assert os.environ["TMPDIR"] == str(path) == str(scratch.here())  # for what it starts
    assert tempfile.gettempdir() == str(base)   # its own: where other farms see its locks
    return path, scratch._held[-1][0]


def ended(fd: int) -> None:
    scratch._held[:] = [h for h in scratch._held if h[0] != fd]
    os.close(fd)


def age(*paths: Path) -> None:
    old = time.time() - 2 * scratch.YOUNG_S
    for p in paths:
        os.utime(p, (old, old))


def test_the_folder_of_a_process_gone_is_removed_and_a_live_ones_kept(tmp_path, owners):
    live_dir, _ = owner(tmp_path)
    gone_dir, gone = owner(tmp_path)
    ended(gone)
    others = [tmp_path / "playwright_chromiumdev_profile-abc", tmp_path / "farm-case-1"]
    for p in others:
        p.mkdir()
    age(live_dir, gone_dir, *others)
    assert scratch.sweep(tmp_path) == [gone_dir]
    assert not gone_dir.exists()
    assert live_dir.is_dir() and (live_dir / "playwright_chromiumdev_profile-x").is_dir()
    assert all(p.is_dir() for p in others)


def test_a_young_folder_is_left_alone(tmp_path, owners):
    path, fd = owner(tmp_path)
    ended(fd)
    assert scratch.sweep(tmp_path) == []
    assert scratch.sweep(tmp_path, now=time.time() + 2 * scratch.YOUNG_S) == [path]


def test_leaving_removes_the_folder_and_puts_tmpdir_back(tmp_path, owners):
    path, _ = owner(tmp_path)
    scratch.leave()
    assert not path.exists() and os.environ["TMPDIR"] == "/nowhere-before"
