"""--maxfail reached while the run's only device was quarantined: the run ended in
`farm: internal error: ValueError: list.remove(x): x not in list` (exit 3, no results.json):
ending a job no device could run reached --maxfail, which ended the other queued jobs, and
the loop went on removing them from the queue. Now every case ends with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_TEST_FAKE_FAIL", "1")       # every start_session: DeviceLost
    (tmp_path / "s").mkdir()
    for name in "abc":
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE)
    return tmp_path


def test_maxfail_with_the_only_device_quarantined_ends_every_case(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--maxfail", "1", "--no-progress", "--report-dir", "r")
    assert "internal error" not in out + err
    assert code == 3, out + err
    cases = json.loads((here / "r" / "results.json").read_text())["cases"]
    assert sorted(c["case_id"] for c in cases) == ["s/a", "s/b", "s/c"]
    assert {c["status"] for c in cases} == {"error"}
