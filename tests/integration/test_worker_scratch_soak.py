"""A `farm worker` killed hard (SIGKILL, a double Ctrl-C) left its case folders and Playwright's
profile folders in TMPDIR for good. Each device process works in a scratch folder of its own:
the next worker's start removes a dead one's, a clean stop its own. Real redis-server, real
`farm worker` with a real Chromium."""

from __future__ import annotations

import os
import signal
import time

import pytest

from farm import scratch
from tests.support.cluster import leases, wait_idle
from tests.support.farm_cli import kill_tree, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_a_worker_killed_hard_leaves_a_folder_the_next_start_removes(tmp_path, redis_url,
                                                                     workers):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp / "playwright_chromiumdev_profile-other").mkdir()     # not farm's: never touched
    killed = workers("browser:1", TMPDIR=str(tmp))
    [first] = wait_idle(redis_url, 1).values()
    [left] = tmp.glob(f"{scratch.PREFIX}*")
    assert list(left.glob("playwright_chromiumdev_profile-*"))      # Chromium's, inside it
    assert len(list(tmp.glob("playwright*"))) == 1
    kill_tree(killed)
    killed.wait(60)
    old = time.time() - 2 * scratch.YOUNG_S
    os.utime(left, (old, old))
    os.utime(tmp / "playwright_chromiumdev_profile-other", (old, old))

    worker = workers("browser:1", TMPDIR=str(tmp))
    wait_for(lambda: any(lease["pid"] != first["pid"] and lease.get("state") == "idle"
                         for lease in leases(redis_url).values()), 90, "the new device idle")
    assert not left.exists()
    [mine] = tmp.glob(f"{scratch.PREFIX}*")
    assert (tmp / "playwright_chromiumdev_profile-other").is_dir()
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(60) == 0
    assert not mine.exists()
