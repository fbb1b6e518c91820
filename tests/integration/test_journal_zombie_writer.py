"""A farm run killed (SIGKILL) by a program that has not collected its exit status yet (a CI
harness, a test runner between two steps) is a zombie: it still answers kill(pid, 0). Its run
directory read as "its run is still going (farm process N)", and `farm report` refused to
rebuild it, for as long as the zombie stayed. A zombie writes nothing more: the run is over."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from farm import journal
from farm.results import now_iso
from tests.support.farm_cli import wait_for

pytestmark = pytest.mark.integration


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return ""


def test_a_killed_farm_not_yet_collected_is_not_still_writing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    started = now_iso()
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        (run_dir / journal.JOURNAL).write_text(json.dumps(
            {"journal": "claim", "run_id": "r1", "started": started, "pid": child.pid,
             "host": socket.gethostname()}) + "\n")
        assert journal.running(run_dir) and journal.writer(run_dir) == child.pid
        child.kill()                  # not waited for: a zombie until collected below
        wait_for(lambda: _state(child.pid) == "Z", 60, "the killed child a zombie")
        assert not journal.running(run_dir)
        assert journal.writer(run_dir) is None
    finally:
        child.kill()
        child.wait()
