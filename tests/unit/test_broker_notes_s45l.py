"""What a run without --devices says of the cases it leaves out, when a --broker run's devices
are the cluster workers' (it said "farm runs on browser:1 alone", as if on this machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

import farm.session
from tests.support.farm_cli import run_main

WEB = """web:
  url: https://example.com
tasks:
  - name: t
    flow:
      - aiAssert: the page loaded
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("broker", ["--broker", "FARM_BROKER_URL"])
def test_a_broker_run_without_devices_says_the_cluster_workers_pick_the_devices(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
        broker: str) -> None:
    """Nothing left to run: no broker is asked (exit 5), and the line names --broker."""
    def no_device(*_args, **_kw):
        raise AssertionError("a device was asked for: the mobile case was not deselected")
    monkeypatch.setattr(farm.session, "_executor", no_device)
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "m" / "phone.yaml", "android:\n  launch: com.example\n"
           + WEB[WEB.index("tasks"):])
    url = "redis://broker.invalid:6379/12"
    args = ["--broker", url] if broker == "--broker" else []
    if broker == "FARM_BROKER_URL":
        monkeypatch.setenv("FARM_BROKER_URL", url)
    code, out, err = run_main(monkeypatch, capsys, "run", "m", *args, "--no-progress")
    assert code == 5, out + err
    assert [line for line in out.splitlines() if "deselected" in line] == [
        "farm: deselected 1 android case(s): no --devices given, and without it a --broker run "
        "takes only browser:1 of the cluster's devices (its workers pick which): give "
        "--devices android:1 (--devices browser:1,android:1 runs both)"]
    assert "alone" not in out


def test_a_local_run_without_devices_still_says_browser_1_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(farm.session, "_executor", lambda *_a, **_k: None)
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "m" / "phone.yaml", "android:\n  launch: com.example\n"
           + WEB[WEB.index("tasks"):])
    code, out, err = run_main(monkeypatch, capsys, "run", "m", "--no-progress")
    assert code == 5, out + err
    assert "without it farm runs on browser:1 alone: give --devices android:1" in out
    assert "--broker" not in out
