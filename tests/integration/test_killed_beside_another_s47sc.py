"""Two `farm run`s sharing one state dir (.farm/): the one started first is killed (kill -9)
while the other goes on. Neither the other run (it saw it running) nor the next one said it
was killed: the next run looked only at its newest earlier run folder, the other run's,
which had ended. Every earlier run folder is looked at now, and a killed one said once."""

from __future__ import annotations

from pathlib import Path

from farm import journal
from tests.support.devices import WAIT_FOR
from tests.support.farm_cli import PLUGIN, FarmCli, kill_tree, wait_for

SAID = "ended without writing its results (killed?)"


def _waits_for(folder: Path, gate: Path) -> Path:
    folder.mkdir()
    (folder / "c.yaml").write_text(f"web: {{url: 'about:blank'}}\ntasks:\n  - name: t\n"
                                   f"    flow:\n      - javascript: '{WAIT_FOR}{gate}'\n")
    return folder


def _planned_run(runs: Path, known: set[str]) -> Path | None:
    """The one run folder not in ``known`` once its journal has its planned cases."""
    new = [p for p in runs.glob("*") if p.name not in known] if runs.is_dir() else []
    return new[0] if len(new) == 1 and journal.planned(new[0]) else None


def test_a_run_killed_while_another_ran_beside_it_is_said_once_by_the_next(
        tmp_path: Path) -> None:
    farm = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN)
    runs = tmp_path / "state" / "runs"
    try:
        b = farm.start("run", _waits_for(tmp_path / "b", tmp_path / "never"), "--devices",
                       "fake:1", "--no-progress")
        b_dir = wait_for(lambda: _planned_run(runs, set()), what="run B's planned cases")
        a = farm.start("run", _waits_for(tmp_path / "a", tmp_path / "go"), "--devices",
                       "fake:1", "--no-progress")
        wait_for(lambda: _planned_run(runs, {b_dir.name}), what="run A's planned cases")
        kill_tree(b.pid)
        b.finish()
        (tmp_path / "go").touch()
        assert SAID not in a.finish()       # (B was still running when A started)
        quick = _waits_for(tmp_path / "q", tmp_path / "go")
        after = farm.run("run", quick, "--devices", "fake:1", "--no-progress")
        assert after.returncode == 0, after.stdout + after.stderr
        assert f", {b_dir.name}, {SAID}: `farm report {b_dir}` rebuilds" in after.stderr, \
            after.stderr
        again = farm.run("run", quick, "--devices", "fake:1", "--no-progress")
        assert again.returncode == 0 and SAID not in again.stderr, again.stderr   # once
    finally:
        farm.close()
