"""A SIGTERM (a CI runner cancelling the job) or SIGHUP that comes while farm is still reading
its settings or suites, before `farm run` takes the stop signals over: farm was killed by it
(exit 143 / 129, nothing said) where README gives 2 for an interrupt, as Ctrl-C there gave."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys

import pytest

from tests.support.farm_cli import ROOT, kill_tree, wait_for

pytestmark = pytest.mark.integration


def _reader_is_there(fifo: str) -> int | None:
    """A write end of ``fifo`` once farm has opened it to read (ENXIO until then)."""
    try:
        return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        return None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_while_farm_reads_its_settings_is_an_interrupt(tmp_path, sig):
    fifo = str(tmp_path / "farm.toml")     # farm blocks reading it: the signal comes there
    os.mkfifo(fifo)
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "a.yaml").write_text(
        "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FARM_")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "farm.cli", "run", "suite"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        writer = wait_for(lambda: _reader_is_there(fifo), what="farm reading farm.toml")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        os.close(writer)
    finally:
        kill_tree(proc)
    assert (proc.returncode, err.strip()) == (2, "farm: interrupted"), (out, err)
