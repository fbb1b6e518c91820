"""What a `farm run` leaves for later, driven through the CLI in this process on the in-memory
``fake`` device kind (tests/support/devices.py, no browser): results.json's devices, and the
history page's links to each run's report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm
from tests.support.suites import sleep_suite


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory (state under its .farm) with fake devices available."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_FAIL",
                 "FARM_RETRIES"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_results_json_lists_every_device_an_attempt_ran_on(here, monkeypatch, capsys):
    """fake-1 loses every session: its attempts are retried on fake-2 and it is quarantined.
    Every final attempt ran on fake-2, yet fake-1 ran attempts too: "devices" names it, as
    device_info, quarantined and the report's Devices line do."""
    sleep_suite(here / "s", 6, 100)
    monkeypatch.setenv("FARM_TEST_FAKE_FAIL", "fake-1")
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:2",
                          "--no-progress", "--report-dir", "r")
    summary = json.loads((here / "r" / "results.json").read_text())
    assert code == 0, out + err
    ran = {a["device"] for c in summary["cases"] for a in (*c["previous"], c) if a["device"]}
    assert "fake-1" in ran and {c["device"] for c in summary["cases"]} == {"fake-2"}
    assert summary["devices"] == sorted(ran) == ["fake-1", "fake-2"]
    assert summary["quarantined"] == ["fake-1"]


def test_an_overwritten_report_dir_is_linked_from_the_later_run_only(here, monkeypatch, capsys):
    """`farm run --report-dir r`, then again with --overwrite: r/report.html is the second
    run's now, so the history page links it from the second run's row, not the first's."""
    sleep_suite(here / "s", 1, 0)
    ids = []
    for again in ([], ["--overwrite"]):
        code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--report-dir", "r", *again)
        assert code == 0, out + err
        ids.append(json.loads((here / "r" / "results.json").read_text())["run_id"])
    code, out, err = farm(monkeypatch, capsys, "report", "--history", "--out", "h.html")
    assert code == 0, out + err
    html = (here / "h.html").read_text()
    rows = dict(re.findall(r'<tr data-run="([^"]+)"[^>]*><td>(?:<a href="([^"]+)">)?', html))
    assert rows == {ids[0]: "", ids[1]: "r/report.html"}
