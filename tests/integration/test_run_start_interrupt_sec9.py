"""A Ctrl-C while `farm run` is still starting (reading its devices: nothing printed yet, no
report folder made) ends it with exit 2, and its --junit-xml says the run was interrupted
before any case started. Before, the file kept farm's first "has not written its results ...
or it was stopped then (killed: a CI timeout?)", as if the run might have been killed. A real
`farm run`, a device plugin that holds its start-up (tests/integration/start_block_sec9.py)."""

from __future__ import annotations

import signal

import pytest

from tests.support.farm_cli import FarmCli, wait_for
from tests.support.suites import sleep_suite

pytestmark = [pytest.mark.integration]


def test_a_ctrl_c_while_starting_leaves_a_junit_saying_so(tmp_path, farm: FarmCli):
    starting, junit = tmp_path / "starting", tmp_path / "junit.xml"
    junit.write_text('<testsuites tests="1" failures="0"/>\n')     # an earlier green run's
    proc = farm.start("run", sleep_suite(tmp_path / "s", 1, 10), "--devices", "blk:1",
                      "--report-dir", tmp_path / "run", "--junit-xml", junit, "--no-progress",
                      FARM_DEVICE_PLUGINS="tests.integration.start_block_sec9",
                      FARM_TEST_STARTING=str(starting))
    wait_for(starting.exists, 120, "farm run reading its device plugins")
    proc.popen.send_signal(signal.SIGINT)
    assert proc.popen.wait(timeout=120) == 2
    text = junit.read_text(encoding="utf-8")
    assert 'type="RunNotFinished"' in text and "interrupted (exit 2)" in text, text
    assert "before any case started" in text and "killed" not in text, text
    assert not (tmp_path / "run").exists()
