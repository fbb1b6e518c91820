"""With --retries, a timed-out case is not retried (by design: another attempt would most
likely wait its whole timeout again), and its line says so instead of nothing. Runs use the
in-memory ``fake`` device kind (tests/support/devices.py); no browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

SLOW = "name: slow\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
       "      - sleep: 60000\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_MODEL", "FARM_DEFAULT_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "slow.yaml").write_text(SLOW)
    return tmp_path


@pytest.mark.parametrize("retries, said", [("2", True), ("0", False)])
def test_a_timed_out_case_says_it_was_not_retried(here, monkeypatch, capsys, retries, said):
    code, out, err = farm(monkeypatch, capsys, "run", "ci", "--devices", "fake:1",
                          "--no-progress", "--timeout", "0.2", "--retries", retries,
                          "--report-dir", "out")
    assert code == 3, out + err
    line = next(line for line in out.splitlines() if line.startswith("ERROR ci/slow"))
    assert ("; not retried: a timeout is not retried" in line) is said, line
    case = json.loads((here / "out" / "results.json").read_text())["cases"][0]
    assert case["attempt"] == 1
    assert ("a timeout is not retried" in (case.get("reason") or "")) is said
