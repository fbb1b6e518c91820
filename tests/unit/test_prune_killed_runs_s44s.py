"""FARM_KEEP_RUNS and a run of this host killed outright (kill -9, a CI timeout): its folder
is kept until `farm report` rebuilds it (its cases are in no results history before), said
once; then it is pruned as the others are. It was deleted two runs later, unsaid."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from farm import journal
from farm.run_outputs import prune_runs
from tests.unit.test_shared_state_dir_runs_s43t import FIRST, KILLED, SECOND, _run_of

GONE_PID = 2 ** 31 - 2      # (above any pid_max: no process has it)


def test_a_killed_run_of_this_host_is_kept_past_keep_runs_until_it_is_rebuilt(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "state" / "runs"
    killed = _run_of(socket.gethostname(), runs / KILLED, silent=60)
    text = (killed / journal.JOURNAL).read_text()       # its farm's process is gone
    (killed / journal.JOURNAL).write_text(text.replace('"pid": 4242', f'"pid": {GONE_PID}'))
    for run_id in (FIRST, SECOND):      # FARM_KEEP_RUNS=1 farm run, twice
        (runs / run_id).mkdir()
        (runs / run_id / "results.json").write_text("{}")
        prune_runs(runs, 1, runs / run_id)
    assert (killed / "results.jsonl").is_file() and (killed / "farm.log").is_file()
    assert not (runs / FIRST).exists()
    assert capsys.readouterr().err == (
        f"farm: kept run {KILLED} past FARM_KEEP_RUNS: it was killed and its cases are in no "
        f"results history; `farm report {killed}` rebuilds it and puts them there (then it is "
        f"pruned as the others are)\n")     # once
    (killed / "results.json").write_text("{}")      # `farm report` rebuilt it
    prune_runs(runs, 1, runs / SECOND)
    assert not killed.exists()

