"""A process's scratch folder under TMPDIR (`farm.scratch`): a device process killed hard left
its case folders and Playwright's profile folders in TMPDIR for good. The folder of a process
gone (its lock free) is removed by the next start; a live process's folder, a young one and
anything else in TMPDIR are left alone. Real processes, real flock."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from farm import scratch

OWN = ("import sys, os, tempfile; from pathlib import Path; from farm import scratch; "
       "p = scratch.own(Path(sys.argv[1])); (p / 'playwright_chromiumdev_profile-x').mkdir(); "
       "print(p, os.environ['TMPDIR'], tempfile.gettempdir(), flush=True); sys.stdin.read()")


def owner(base: Path) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen([sys.executable, "-c", OWN, str(base)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    path, env, tmp = proc.stdout.readline().split()
    assert path == env == tmp           # its TMPDIR, for what it starts too
    return proc, Path(path)


def age(*paths: Path) -> None:
    old = time.time() - 2 * scratch.YOUNG_S
    for p in paths:
        os.utime(p, (old, old))


def test_the_folder_of_a_process_killed_hard_is_removed_and_a_live_ones_kept(tmp_path):
    live, live_dir = owner(tmp_path)
    killed, killed_dir = owner(tmp_path)
    killed.kill()
    killed.wait()
    others = [tmp_path / "playwright_chromiumdev_profile-abc", tmp_path / "farm-case-1"]
    for p in others:
        p.mkdir()
    age(live_dir, killed_dir, *others)
    assert scratch.sweep(tmp_path) == [killed_dir]
    assert not killed_dir.exists()
    assert live_dir.is_dir() and (live_dir / "playwright_chromiumdev_profile-x").is_dir()
    assert all(p.is_dir() for p in others)
    live.stdin.close()
    live.wait()
    age(live_dir)
    assert scratch.sweep(tmp_path) == [live_dir]     # its process gone now


def test_a_young_folder_is_left_alone(tmp_path):
    killed, path = owner(tmp_path)
    killed.kill()
    killed.wait()
    assert scratch.sweep(tmp_path) == []
    assert scratch.sweep(tmp_path, now=time.time() + 2 * scratch.YOUNG_S) == [path]
