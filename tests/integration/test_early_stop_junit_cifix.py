"""A CI job cancelled (SIGTERM) while `farm run --junit-xml FILE` is still starting (here:
reading farm.toml): FILE no longer holds the previous run's green results, and, with no
terminal, farm's stderr is its one line, with no blank line before it."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from tests.support.farm_cli import ROOT, kill_tree, wait_for

pytestmark = pytest.mark.integration

GREEN = ('<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="farm run x" tests="1" '
         'failures="0" errors="0" time="1.0"><testsuite name="ci" tests="1" errors="0" '
         'failures="0" skipped="0" time="1.0"><testcase name="pass_login" classname="ci" '
         'time="1.0"/></testsuite></testsuites>\n')


def _writer_opened(fifo: str, writers: list[int]) -> bool:
    try:
        writers.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        return False
    return True


def test_a_cancel_while_starting_leaves_no_green_junit(tmp_path):
    fifo = str(tmp_path / "farm.toml")     # farm blocks reading it: the SIGTERM comes there
    os.mkfifo(fifo)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "a.yaml").write_text(
        "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n")
    (tmp_path / "out").mkdir()
    junit = tmp_path / "out" / "green.xml"
    junit.write_text(GREEN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FARM_")}
    env.update(PYTHONPATH=str(ROOT), CI="true")
    command = [sys.executable, "-m", "farm.cli", "run", "ci", "--junit-xml", str(junit)]
    with open(tmp_path / "stdout", "w") as out, open(tmp_path / "stderr", "w") as err:
        proc = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)
    writers: list[int] = []
    try:
        wait_for(lambda: _writer_opened(fifo, writers), what="farm reading farm.toml")
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    finally:
        kill_tree(proc)
        for fd in writers:
            os.close(fd)
    assert proc.returncode == 2
    assert (tmp_path / "stderr").read_text() == "farm: interrupted\n"
    root = ET.parse(junit).getroot()
    assert root.get("errors") == "1", junit.read_text()
    error = root.find(".//testcase[@classname='farm'][@name='run']/error")
    assert error is not None and error.get("type") == "RunNotFinished"
