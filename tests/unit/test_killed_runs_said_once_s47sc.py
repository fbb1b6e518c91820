"""Each earlier run folder of this host that a killed farm left is said once: marked when
said; one a farm before the marks said as "the run before" (its next run started after it
was surely gone) is not said again."""

from __future__ import annotations

import json
import os
import socket
from datetime import datetime
from pathlib import Path

from farm.config import Settings
from farm.run_outputs import output_dirs

GONE_PID = 2 ** 31 - 2      # (above any pid_max: no process has it)
KILLED, NEXT, NOW = "20261203-060000-aa11", "20261203-070000-bb22", "20261203-080000-cc33"


def _killed(run_dir: Path) -> Path:
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text(json.dumps(
        {"journal": "run", "run_id": run_dir.name, "started": "2026-12-03T06:00:00+00:00",
         "pid": GONE_PID, "host": socket.gethostname(), "planned": []}) + "\n")
    at = datetime.strptime(run_dir.name[:15], "%Y%m%d-%H%M%S").timestamp() + 60
    os.utime(run_dir / "results.jsonl", (at, at))       # its last write: a minute in
    return run_dir


def test_a_killed_run_an_older_farm_said_as_the_run_before_is_not_said_again(
        tmp_path, capsys):
    state = tmp_path / "state"
    _killed(state / "runs" / KILLED)
    (state / "runs" / NEXT).mkdir()                     # started an hour after: it said it
    (state / "runs" / NEXT / "results.json").write_text("{}")
    output_dirs(Settings(state_dir=state), NOW, False)
    assert capsys.readouterr().err == ""


def test_a_killed_run_whose_next_run_began_while_it_ran_is_said_as_an_earlier_run(
        tmp_path, capsys):
    state = tmp_path / "state"
    killed = _killed(state / "runs" / KILLED)
    beside = "20261203-060030-bb22"                     # started while it still ran
    (state / "runs" / beside).mkdir()
    (state / "runs" / beside / "results.json").write_text("{}")
    output_dirs(Settings(state_dir=state), NOW, False)
    assert capsys.readouterr().err == (
        f"farm: an earlier run, {KILLED}, ended without writing its results (killed?): "
        f"`farm report {killed}` rebuilds its report from its journal and puts its cases in "
        "the results history (--last-failed reads them from its journal until then)\n")
    output_dirs(Settings(state_dir=state), "20261203-090000-dd44", False)
    assert capsys.readouterr().err == ""                # once
