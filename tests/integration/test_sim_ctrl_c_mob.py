"""Ctrl-C stops `farm sim` (as its banner says) with "farm: interrupted" alone: the Ctrl-C
reaches Playwright's driver too, and asyncio printed "Future exception was never retrieved
... Exception: Connection closed while reading from the driver" under it, every time."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from tests.support.farm_cli import ROOT, FarmCli, FarmProcess

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_ctrl_c_stops_the_simulator_quietly(farm: FarmCli, platform: str):
    popen = subprocess.Popen(farm.command("sim", platform, "--count", "1"), cwd=ROOT,
                             env=farm.env(), text=True, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
    farm.started.append(popen)
    proc = FarmProcess(popen)
    proc.wait_for_line("Ctrl-C stops.")
    os.killpg(proc.pid, signal.SIGINT)          # a terminal's Ctrl-C: the whole group
    out = proc.finish()
    assert proc.returncode == 2, out
    assert out.rstrip().endswith("farm: interrupted"), out
    assert "never retrieved" not in out and "Traceback" not in out, out
