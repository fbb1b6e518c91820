"""Ctrl-C while a device is still starting (a browser slow to come up, a phone slow to answer):
farm stops the device; the console must not call it dead ("[browser-1] dead: could not start:
... farm stopped the device" read as a broken device), nor the results call it lost."""

from __future__ import annotations

import signal

import pytest

from tests.support.farm_cli import FarmCli, results, wait_for
from tests.support.suites import demo_copy

pytestmark = pytest.mark.integration

# a Chromium that answers --version and then never comes up: the device is starting for as
# long as the test likes (the file says it got there); the shell keeps the launch's command
# line, by which farm finds the browser to kill
SLOW_CHROMIUM = """#!/bin/sh
case "$*" in *--version*) echo "Chromium 156.0.8078.73"; exit 0;; esac
touch "{marker}"
sleep 600
"""


def test_a_device_stopped_while_it_starts_is_not_reported_dead(tmp_path):
    marker = tmp_path / "chromium-started"
    chromium = tmp_path / "chromium"
    chromium.write_text(SLOW_CHROMIUM.format(marker=marker))
    chromium.chmod(0o755)
    suite = demo_copy(tmp_path / "demo", "login_success.yaml")
    cli = FarmCli(tmp_path, FARM_NO_PROGRESS="0", FARM_CHROMIUM_PATH=str(chromium))
    try:
        proc = cli.start("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
        wait_for(marker.exists, what="the browser device starting")
        proc.send_signal(signal.SIGINT)
        out = proc.finish()
    finally:
        cli.close()
    assert proc.returncode == 2, out
    assert "dead" not in out and "Traceback" not in out, out
    summary = results(tmp_path / "run")
    assert summary["lost"] == {}
    assert [(c["status"], c["reason"]) for c in summary["cases"]] == [
        ("skipped", "not run: the run was interrupted")]
