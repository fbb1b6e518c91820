"""A signal can come to any thread of a process: under load the kernel gave `farm sim`'s
SIGTERM to one of its busy request threads, and the main thread, asleep in `time.sleep(3600)`,
was not woken to run the handler — the simulator went on serving for the hour its sleep had
left (CI: "still running after 240s"). `farm sim` now waits on a wakeup socket that a signal
on any thread writes to. The child below blocks SIGTERM in its main thread so that the
kernel gives it to its other thread every time (the case the load made by chance), and the
test sends it once the main thread sleeps in its wait (as the simulator's did for hours)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from tests.support.farm_cli import ROOT, FarmProcess, kill_tree, wait_for

pytestmark = pytest.mark.integration

CHILD = textwrap.dedent("""
    import signal, sys, threading
    from farm.cli import _until_a_signal

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    other = threading.Event()
    threading.Thread(target=other.wait, daemon=True).start()    # mask: as the main thread's now
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # only the other thread takes it
    print("waiting", flush=True)
    try:
        _until_a_signal()
    except KeyboardInterrupt:
        print("stopped", flush=True)
""")


def _main_thread_sleeps(pid: int) -> bool:
    """Is ``pid``'s main thread asleep in a system call (its /proc state S)?"""
    with open(f"/proc/{pid}/task/{pid}/stat") as f:
        return f.read().rpartition(")")[2].split()[0] == "S"


def test_a_signal_taken_by_another_thread_ends_the_wait() -> None:
    popen = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    proc = FarmProcess(popen)
    try:
        proc.wait_for_line("waiting")       # (then nothing but the wait: no other sleep)
        wait_for(lambda: _main_thread_sleeps(popen.pid), what="the main thread's wait")
        proc.send_signal(signal.SIGTERM)
        out = proc.finish()
    finally:
        kill_tree(popen)
    assert "stopped" in out and proc.returncode == 0, out
