"""``farm run --report-dir /dev/null`` (or a named pipe, a socket, a file) said "cannot write
there (File exists)", the system's word for mkdir over something that is no folder: the
message now says what the path is and that it must be a folder, exit 4 as for any
--report-dir farm cannot write, before any device starts. Runs use the in-memory ``fake``
device kind (tests/support/devices.py): no browser."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - javascript: '1'\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a one-case suite ``s``; devices note what they do in
    ``devices/``."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    (tmp_path / "devices").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_TEST_FAKE_JOURNAL", str(tmp_path / "devices"))
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_REPORT_DIR", "FARM_RESULTS_HISTORY_URL", "FARM_BROKER_URL",
                 "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _run(monkeypatch, capsys, report_dir: str) -> tuple[int, str]:
    code, _, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                        "--no-progress", "--report-dir", report_dir)
    return code, err


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null here")
def test_dev_null_as_the_report_dir_is_said_to_be_no_folder(here, monkeypatch, capsys):
    assert _run(monkeypatch, capsys, "/dev/null") == (
        4, "farm: error: --report-dir /dev/null: cannot write there (is a character device; "
           "it must be a folder)\n")
    assert list((here / "devices").iterdir()) == []         # no device was opened


def test_a_pipe_a_socket_or_a_file_as_the_report_dir_is_said_to_be_no_folder(
        here, monkeypatch, capsys):
    os.mkfifo(here / "pipe")
    (here / "afile").write_text("hi\n")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("sock")                    # relative: a tmp_path may be too long for AF_UNIX
        for name, kind in (("pipe", "a named pipe"), ("sock", "a socket"), ("afile", "a file")):
            assert _run(monkeypatch, capsys, name) == (
                4, f"farm: error: --report-dir {name}: cannot write there (is {kind}; it must "
                   "be a folder)\n")
    assert list((here / "devices").iterdir()) == []


def test_something_in_the_way_above_the_report_dir_is_named(here, monkeypatch, capsys):
    os.mkfifo(here / "pipe")
    assert _run(monkeypatch, capsys, "pipe/r") == (
        4, "farm: error: --report-dir pipe/r: cannot write there (pipe is a named pipe)\n")
