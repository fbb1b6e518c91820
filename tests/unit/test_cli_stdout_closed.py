"""`farm run … | head -1`: a reader that goes away costs the lines after it, not the run. At
the second line ("deselected 1 ios case(s)") click ended farm with exit 1: no case
ran, no report was written, nothing was said; `farm run --collect-only | grep -q x` exited 1.
Runs use the in-memory ``fake`` device kind (tests/support/devices.py): no browser."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

WEB = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""
PHONE = WEB.replace("web:\n  url: http://app.invalid/", "android:\n  launch: com.x").replace(
    'javascript: "1"', "sleep: 1")


class _ReaderLeavesAfterOneLine(io.StringIO):
    """A pipe whose reader took one line and left (`| head -1`)."""

    def write(self, text: str) -> int:
        if "\n" in self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a suite ``s``: a web case (it passes on a fake device), an
    android and an ios case (deselected: a line each before the run)."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(WEB)
    (tmp_path / "s" / "phone.yaml").write_text(PHONE)
    (tmp_path / "s" / "tablet.yaml").write_text(PHONE.replace("android:", "ios:"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_JOURNAL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_a_run_whose_reader_left_runs_its_cases_and_keeps_its_exit_code(here, monkeypatch,
                                                                        capsys):
    pipe = _ReaderLeavesAfterOneLine()
    monkeypatch.setattr(sys, "stdout", pipe)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                            "--no-progress", "--report-dir", "r")
    assert pipe.getvalue() == ("farm: deselected 1 android case(s): no android device in "
                               "--devices fake:1: add android:1, or android-sim:1 for "
                               "simulated phones farm starts itself\n")
    assert (code, err) == (0, "")
    results = json.loads((here / "r" / "results.json").read_text())
    assert [(c["case_id"], c["status"]) for c in results["cases"]] == [("s/one", "passed")]


def test_collect_only_whose_reader_left_exits_as_it_would(here, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", _ReaderLeavesAfterOneLine())
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert (code, err.splitlines()) == (0, [
        counted(3).rstrip(),
        "farm: a run without --devices takes browser:1 alone and would deselect 2 of these "
        "(1 android, 1 ios): give --devices browser:1,android:1,ios:1, or --devices "
        "browser:1,android-sim:1,ios-sim:1 (simulated)"])


def test_a_full_non_blocking_pipe_is_not_taken_for_a_reader_that_left():
    """EAGAIN: the reader is there, only slow; dropping every later line would hide the run."""
    from farm.cli import _ReaderMayLeave

    class _Full(io.StringIO):
        def write(self, text: str) -> int:
            raise BlockingIOError(11, "Resource temporarily unavailable")

    out = _ReaderMayLeave(_Full())
    with pytest.raises(BlockingIOError):
        out.write("farm: 1 passed\n")
    assert not out.reader_gone
