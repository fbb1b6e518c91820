"""A run's metrics.prom says which device served to its end and which was lost: written once
every device has closed, it said farm_device_healthy 0 for each, even after a clean run, so a
lost device could not be told from the others and a dashboard's sum by platform read 0 for
every run a textfile collector read. Real `farm run`, the test device plugin's devices."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.farm_cli import PLUGIN, FarmCli, results

pytestmark = pytest.mark.integration


def healthy(run_dir: Path) -> dict[str, float]:
    return {s.labels["device"]: s.value
            for family in text_string_to_metric_families((run_dir / "metrics.prom").read_text())
            for s in family.samples if s.name == "farm_device_healthy"}


def suite(tmp_path: Path, cases: int) -> Path:
    folder = tmp_path / "s"
    folder.mkdir()
    for i in range(cases):
        (folder / f"c{i}.yaml").write_text(
            f"name: c{i}\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
            "      - sleep: 10\n")
    return folder


def test_devices_that_served_to_the_end_are_healthy_in_metrics_prom(
        tmp_path: Path, farm: FarmCli) -> None:
    done = farm.run("run", suite(tmp_path, 4), "--devices", "fake:2", "--report-dir",
                    tmp_path / "run", FARM_DEVICE_PLUGINS=PLUGIN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert healthy(tmp_path / "run") == {"fake-1": 1.0, "fake-2": 1.0}


def test_a_quarantined_device_is_0_in_metrics_prom(tmp_path: Path, farm: FarmCli) -> None:
    done = farm.run("run", suite(tmp_path, 4), "--devices", "fake:1", "--report-dir",
                    tmp_path / "run", FARM_DEVICE_PLUGINS=PLUGIN, FARM_TEST_FAKE_FAIL="fake-1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "quarantined: fake-1" in done.stdout + done.stderr
    assert healthy(tmp_path / "run") == {"fake-1": 0.0}
