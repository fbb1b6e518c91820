"""A SIGTERM (a CI runner cancelling the job) or SIGHUP that comes while farm is still reading
its settings or suites, before `farm run` takes the stop signals over: farm was killed by it
(exit 143 / 129, nothing said) where README gives 2 for an interrupt, as Ctrl-C there gave."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.support.farm_cli import ROOT, kill_tree, wait_for

pytestmark = pytest.mark.integration


def _writer_opened(fifo: str, writers: list[int]) -> bool:
    """A write end of ``fifo`` in ``writers`` once farm has opened it to read (ENXIO until
    then). Kept in a list: the descriptor may be 0, which `wait_for` would take for "not
    yet" and open another."""
    try:
        writers.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        return False
    return True


def _kernel_view(pid: int, sig: int) -> str:
    """What the kernel says of process ``pid``: its state, where it waits, how it takes
    ``sig`` (a handler, ignored, blocked: inherited from this process?), its children."""
    try:
        status = dict(line.split(":", 1) for line in
                      Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    except OSError as exc:
        return f"pid {pid}: {exc.strerror}"
    bit = 1 << (sig - 1)
    takes = [word for word, key in (("a handler", "SigCgt"), ("ignored", "SigIgn"),
                                    ("blocked", "SigBlk"), ("pending", "SigPnd"),
                                    ("pending", "ShdPnd")) if int(status[key], 16) & bit]
    try:
        children = [" ".join(c.cmdline()[:3]) for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        children = []
    return (f"state {status['State'].strip()}, waits in {_read(f'/proc/{pid}/wchan')!r}, "
            f"{signal.Signals(sig).name}: {', '.join(takes) or 'default (ends it)'}, "
            f"children {children}\n{_read(f'/proc/{pid}/stack')}")


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return "?"


def _stuck(proc: subprocess.Popen, sig: int) -> str:
    """Where a farm that did not end is, then its Python stack (faulthandler, on stderr)."""
    seen = _kernel_view(proc.pid, sig)
    proc.send_signal(signal.SIGABRT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        pass
    return seen


@pytest.mark.parametrize("sig, ignored", [
    pytest.param(signal.SIGTERM, False, id="SIGTERM"),
    pytest.param(signal.SIGHUP, False, id="SIGHUP"),
    # as a run heeds it: a wrapper's `trap '' TERM` (farm waited for farm.toml for ever)
    pytest.param(signal.SIGTERM, True, id="SIGTERM-its-parent-ignored"),
    # a script's background `farm run … &` (SIGINT ignored): its Ctrl-C while farm started
    # was lost, and the run went on to its end
    pytest.param(signal.SIGINT, True, id="SIGINT-its-parent-ignored"),
])
def test_a_stop_while_farm_reads_its_settings_is_an_interrupt(tmp_path, sig, ignored):
    fifo = str(tmp_path / "farm.toml")     # farm blocks reading it: the signal comes there
    os.mkfifo(fifo)
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "a.yaml").write_text(
        "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FARM_")}
    env.update(PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1")   # a stack if it hangs
    command = [sys.executable, "-m", "farm.cli", "run", "suite"]
    if ignored:     # (exec: farm keeps the shell's pid and the ignored signal)
        command = ["sh", "-c", f"trap '' {sig.name[3:]}; exec \"$@\"", "sh", *command]
    # files, not pipes: farm's end is waited for, not that of whoever else holds a pipe
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        proc = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=out, stderr=err)
    writers: list[int] = []
    stuck = ""
    try:
        wait_for(lambda: _writer_opened(fifo, writers), what="farm reading farm.toml")
        sent = _kernel_view(proc.pid, sig)
        proc.send_signal(sig)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            stuck = f"\nstill running 60 s after the signal: {_stuck(proc, sig)}"
    finally:
        kill_tree(proc)
        for fd in writers:
            os.close(fd)
    said = (tmp_path / "err").read_text()
    assert (proc.returncode, said.strip()) == (2, "farm: interrupted"), (
        f"exit {proc.returncode}; farm as the signal was sent: {sent}{stuck}\n"
        f"stdout:\n{(tmp_path / 'out').read_text()}\nstderr:\n{said}")
