"""`farm run` with local browsers killed hard left Playwright's and Chromium's folders in TMPDIR
for good. A run's go in a scratch folder of its own (`farm.scratch`), removed as the run ends;
one a run killed hard left is removed as the next starts. Real Chromium, `farm run`."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from farm import scratch
from tests.support.farm_cli import ROOT

pytestmark = [pytest.mark.integration]


def test_a_run_leaves_nothing_in_tmpdir_and_removes_a_killed_runs_folder(tmp_path, farm):
    tmp = tmp_path / "tmp"
    dead = tmp / f"{scratch.PREFIX}1-killed"           # a run killed hard: its lock free
    (dead / "playwright_chromiumdev_profile-x").mkdir(parents=True)
    (dead / scratch.LOCK).write_text("1\n")
    old = time.time() - 2 * scratch.YOUNG_S
    os.utime(dead, (old, old))
    suite = tmp_path / "demo"
    shutil.copytree(ROOT / "suites" / "demo", suite)
    done = farm.run("run", suite, "-k", "login_success", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run", TMPDIR=str(tmp))
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(tmp.iterdir()) == []
