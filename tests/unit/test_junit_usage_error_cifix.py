"""`farm run … --junit-xml FILE` that stops on a usage or settings mistake (exit 4): FILE no
longer holds the previous run's green results but one error naming the mistake; a FILE that is
itself the mistake is left as it was. Runs use the in-memory ``fake`` device kind."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

PASSES = "name: passes\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - javascript: \"1\"\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL", "FARM_MODEL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_FAIL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "pass_login.yaml").write_text(PASSES)
    (tmp_path / "log1.txt").write_text("a log\n")
    return tmp_path


def _green(monkeypatch, capsys, *more: str) -> tuple[int, str, str]:
    return farm(monkeypatch, capsys, "run", "ci", "--devices", "fake:1", "--no-progress",
                "--junit-xml", "out/green.xml", *more)


@pytest.mark.parametrize("mistake, said", [
    (("--devices", "browsers:2"), "unknown device kind 'browsers'"),
    (("--retries", "11"), "--retries"),
    (("--timeout", "0"), "--timeout"),
    (("--shard", "4/3"), "--shard 4/3"),
    (("--report-dir", "log1.txt/x"), "--report-dir log1.txt/x"),
    (("--report-dir", "out/ci1"), "already holds a run"),
])
def test_a_usage_error_replaces_the_green_junit(here, monkeypatch, capsys, mistake, said):
    if "out/ci1" in mistake:
        assert _green(monkeypatch, capsys, "--report-dir", "out/ci1")[0] == 0
    code, out, err = _green(monkeypatch, capsys)
    assert code == 0, out + err
    code, out, err = _green(monkeypatch, capsys, *mistake)
    assert code == 4, out + err
    root = ET.parse(here / "out" / "green.xml").getroot()
    assert (root.get("tests"), root.get("errors")) == ("1", "1")
    error = root.find(".//testcase[@classname='farm'][@name='run']/error")
    assert error is not None and error.get("type") == "UsageError"
    assert said in error.get("message") and said in err


def test_a_junit_path_that_is_the_mistake_is_left_as_it_was(here, monkeypatch, capsys):
    (here / "out").mkdir()
    (here / "out" / "green.xml").write_text("<testsuites tests='1'/>\n")
    code, out, err = _green(monkeypatch, capsys, "--collect-only")
    assert code == 4 and "--junit-xml" in err, out + err
    assert (here / "out" / "green.xml").read_text() == "<testsuites tests='1'/>\n"
