"""Two killed runs of this host that no `farm report` rebuilt: the next `farm run` names each
in one line (the older one, whose next run was killed too, was never said), first few and a
count, and once."""

from __future__ import annotations

import json
import os
import socket
from datetime import datetime
from pathlib import Path

from farm.config import Settings
from farm.run_outputs import output_dirs

GONE_PID = 2 ** 31 - 2      # (above any pid_max: no process has it)
NOW = "20261207-120000-cc33"


def _killed(run_dir: Path) -> Path:
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text(json.dumps(
        {"journal": "run", "run_id": run_dir.name, "started": "2026-12-07T06:00:00+00:00",
         "pid": GONE_PID, "host": socket.gethostname(), "planned": []}) + "\n")
    at = datetime.strptime(run_dir.name[:15], "%Y%m%d-%H%M%S").timestamp() + 60
    os.utime(run_dir / "results.jsonl", (at, at))       # its last write: a minute in
    return run_dir


def test_two_killed_runs_are_each_named_upg49(tmp_path, capsys):
    state = tmp_path / "state"
    older = _killed(state / "runs" / "20261207-060000-014d")
    _killed(state / "runs" / "20261207-070000-a122")     # started after the older was gone
    output_dirs(Settings(state_dir=state), NOW, False)
    assert capsys.readouterr().err == (
        "farm: 2 earlier runs ended without writing their results (killed?): "
        f"20261207-060000-014d, 20261207-070000-a122: `farm report {older.parent}/RUN_ID` "
        "rebuilds each one's report from its journal and puts its cases in the results "
        "history (--last-failed reads them from their journals until then)\n")
    output_dirs(Settings(state_dir=state), "20261207-130000-dd44", False)
    assert capsys.readouterr().err == ""                # once


def test_many_killed_runs_are_named_first_few_and_counted_upg49(tmp_path, capsys):
    state = tmp_path / "state"
    for hour in range(1, 9):
        _killed(state / "runs" / f"20261207-0{hour}0000-aa1{hour}")
    output_dirs(Settings(state_dir=state), NOW, False)
    err = capsys.readouterr().err
    assert err.startswith("farm: 8 earlier runs ended without writing their results (killed?): "
                          "20261207-010000-aa11, 20261207-020000-aa12, 20261207-030000-aa13, "
                          "20261207-040000-aa14, 20261207-050000-aa15 and 3 more: "), err
    assert err.count("\n") == 1
