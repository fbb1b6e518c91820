"""A state directory that cannot take what a run remembers (a full disk, gone read-only) costs
only what it would have remembered, never the run's verdict: `farm run` still prints every
failed case and the counts, and exits with the cases' code, not an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import farm.session
from farm.attempts import RetryPolicy
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.executors.local import LocalExecutor
from farm.history import DurationHistory
from farm.results import CaseResult
from tests.support.farm_cli import run_main

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])
CASE = """\
web:
  url: http://127.0.0.1:1/
tasks:
  - name: look
    flow:
      - assertText: {text}
"""


def _on_fake_browser(settings, specs, cases, services, *_rest) -> LocalExecutor:
    return LocalExecutor([FakeDevice(SCREEN, name="browser-1")], {c.id: c for c in cases},
                         services, RetryPolicy())


def _unwritable_durations(state: Path) -> None:
    """history.sqlite that SQLite cannot open for writing (as on a full disk)."""
    (state / "history.sqlite").mkdir(parents=True)


def _unwritable_results_history(state: Path) -> None:
    (state / "results.sqlite").mkdir(parents=True)


def test_a_state_dir_that_takes_nothing_does_not_turn_a_failed_run_into_an_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    state = tmp_path / "state"
    _unwritable_durations(state)
    _unwritable_results_history(state)
    monkeypatch.setenv("FARM_STATE_DIR", str(state))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(farm.session, "_executor", _on_fake_browser)
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "good.yaml").write_text(CASE.format(text="Welcome"))
    (suite / "bad.yaml").write_text(CASE.format(text="Goodbye"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--no-progress", "--cache",
                              "off", "--report-dir", "out")
    assert code == 1, out + err                     # a case failed: not 3, internal error
    assert "internal error" not in out + err
    assert "FAILED s/bad" in out and "1 passed, 1 failed" in out
    assert "case durations not recorded in" in err and "history.sqlite" in err
    assert "farm: warning: results history not updated" in err   # not in farm.log alone
    assert json.loads((tmp_path / "out" / "results.json").read_text())["exit_code"] == 1


def test_recording_durations_where_they_cannot_be_written_warns_and_returns(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    _unwritable_durations(tmp_path)
    history = DurationHistory(tmp_path)
    history.record([CaseResult(run_id="r", case_id="s/a", name="a", file="a.yaml",
                               platform="web", status="passed", duration=1.5)])
    assert "farm: warning: case durations not recorded in" in capsys.readouterr().err
    assert history.load() == {}


def test_only_the_newest_runs_are_kept_under_the_state_dir(tmp_path: Path) -> None:
    """FARM_KEEP_RUNS (30): each run under <state dir>/runs holds its screenshots; a nightly
    suite filled the disk with them. The oldest go; a folder farm did not name is kept."""
    from farm.run_outputs import prune_runs
    runs = tmp_path / "runs"
    names = [f"202612{day:02d}-020000-ab{day:02d}" for day in range(1, 32)]
    for name in names:
        (runs / name / "artifacts").mkdir(parents=True)
    (runs / "my-notes").mkdir()
    current = runs / names[0]             # (a run's own folder is never removed)
    prune_runs(runs, 3, current)
    assert sorted(p.name for p in runs.iterdir()) == sorted(
        [names[0], *names[-3:], "my-notes"])
    prune_runs(runs, 0, current)         # 0: keep them all
    assert len(list(runs.iterdir())) == 5


def test_a_device_restarted_before_a_case_says_why(tmp_path: Path) -> None:
    """`[tv-1] restarting` alone left the reason in farm.log at INFO: a health check that
    raised is said on the console with the restart."""
    from farm.config import Settings
    from farm.devices.base import UITree
    from farm.devices.fake import FakeDevice
    from farm.executors.base import NullEvents
    from farm.results import ArtifactStore
    from farm.runner import Services
    from farm.slot import DeviceSlot

    said: list[tuple[str, str]] = []

    class Seen(NullEvents):
        def device_state(self, device: str, state: str, detail: str = "") -> None:
            said.append((state, detail))

    class Unwell(FakeDevice):
        def healthy(self) -> bool:
            raise ConnectionError("the TV's control port refused")
    slot = DeviceSlot(Unwell(UITree(source="tv", nodes=[]), name="tv-1", platform="android"),
                      Services(Settings(), ArtifactStore(tmp_path), "run-1", {}), events=Seen())
    assert slot.open()
    assert slot._ensure_healthy()
    assert ("restarting", "its health check failed: the TV's control port refused") in said
