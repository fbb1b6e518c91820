"""junit.xml as a CI job's test tab reads it: a run --fail-on-skip failed (exit 1) with no
case failed carries an error saying so (failures="0" errors="0" read green while the job went
red). Runs use the in-memory ``fake`` device kind (tests/support/devices.py); no browser."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

PASSES = "name: passes\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - javascript: \"1\"\n"
NEEDS_MODEL = PASSES.replace('- javascript: "1"', "- aiAssert: the cart shows one mug")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL", "FARM_MODEL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_FAIL",
                 "FARM_FAIL_ON_SKIP"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "pass_login.yaml").write_text(PASSES)
    (tmp_path / "ci" / "needs_model.yaml").write_text(NEEDS_MODEL)
    return tmp_path


def test_fail_on_skip_leaves_a_red_junit(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "ci", "--devices", "fake:1",
                          "--fail-on-skip", "--junit-xml", "out/junit.xml", "--no-progress")
    assert code == 1, out + err
    root = ET.parse(here / "out" / "junit.xml").getroot()
    assert root.get("errors") == "1", ET.tostring(root, encoding="unicode")
    error = root.find(".//testcase[@classname='farm'][@name='run']/error")
    assert error is not None and error.get("type") == "RunFailedOnSkip"
    assert "1 case(s) were skipped under --fail-on-skip" in error.get("message")


def test_without_fail_on_skip_a_skip_stays_green(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "ci", "--devices", "fake:1",
                          "--junit-xml", "out/junit.xml", "--no-progress")
    assert code == 0, out + err
    root = ET.parse(here / "out" / "junit.xml").getroot()
    assert (root.get("failures"), root.get("errors")) == ("0", "0")
