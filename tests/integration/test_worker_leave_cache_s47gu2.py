"""A worker's device process that leaves without the interpreter's teardown (a device call
farm gave up on still running: `worker.main._leave`, os._exit) has closed its cache store
first (`DeviceRuntime.stop`): the entries its cases wrote are in cache.db itself. Before, the
store was closed by an exit handler os._exit skips: they stayed in cache.db-wal alone (a copy
of cache.db, as a CI cache keeps, had none of them). A real process, its real exit."""

from __future__ import annotations

import shutil
import socket
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.farm_cli import ROOT

pytestmark = pytest.mark.integration

PROCESS = textwrap.dedent('''
    import atexit, sys, threading
    from pathlib import Path
    from farm.cache.sqlite_store import SqliteStore
    from farm.config import Settings
    from farm.devices.base import OwnThread
    from farm.errors import DeviceLost
    from farm.executors.base import DEVICE_THREAD
    from worker.main import _leave
    from worker.runtime import DeviceRuntime

    state, broker = Path(sys.argv[1]), sys.argv[2]
    atexit.register(print, "exit handlers ran")
    runtime = DeviceRuntime(Settings(broker_url=broker), "browser", "web", "browser", "b-1")
    runtime._cache = SqliteStore(state / "cache.db")
    runtime._cache.put("locate:k", {"x": 1})
    own = OwnThread(DEVICE_THREAD + "b-1 (its calls)", grace=0.1)    # a call that outlives
    own.kill()                                                      # kill(): given up
    try:
        own.run(lambda: "b-1: tap()", threading.Event().wait)
    except DeviceLost:
        pass
    runtime.stop()
    _leave(0)
''')


def test_a_device_process_leaving_without_teardown_has_its_cache_in_cache_db(tmp_path):
    with socket.socket() as no_redis:       # (bound, not listening: refused at once)
        no_redis.bind(("127.0.0.1", 0))
        done = subprocess.run([sys.executable, "-c", PROCESS, str(tmp_path),
                               f"redis://127.0.0.1:{no_redis.getsockname()[1]}/0"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "exit handlers ran" not in done.stdout       # it left through os._exit
    assert not (tmp_path / "cache.db-wal").exists(), sorted(p.name for p in tmp_path.iterdir())
    copy = tmp_path / "copy" / "cache.db"               # cache.db alone, as a CI cache keeps
    copy.parent.mkdir()
    shutil.copy(tmp_path / "cache.db", copy)
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 1
