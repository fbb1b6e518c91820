"""A state dir shared by several hosts (an NFS .farm, a CI cache restored on another runner):
a run of another host cannot be asked whether its process lives, so its journal's last write
says. A live run writes it at least every BEAT_SECONDS (a heartbeat through a long step);
one silent for STALE_SECONDS has ended.

- FARM_KEEP_RUNS=1 on host `vm` deleted runner-A's nightly while it ran: its journal, farm.log
  and screenshots gone, its report pointing at missing images.
- A SIGKILLed run restored on another CI runner (host gh-runner-17) was never said to be
  killed, then pruned: its failures never reached --last-failed or the results history.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from farm import journal
from farm.config import Settings
from farm.errors import ConfigError
from farm.run_outputs import output_dirs, prune_runs

NIGHTLY, KILLED = "20261206-020000-aaaa", "20261206-030000-bbbb"
FIRST, SECOND = "20261206-090000-cccc", "20261206-091000-dddd"


def _run_of(host: str, folder: Path, silent: float, planned: bool = True) -> Path:
    """A run folder whose journal host ``host`` wrote, last ``silent`` seconds ago."""
    head = {"run_id": folder.name, "started": "2026-12-06T02:00:00.000+00:00", "pid": 4242,
            "host": host}
    lines = [{"journal": "claim", **head}]
    if planned:
        lines.append({"journal": "run", **head, "planned": [
            {"case_id": "shop/pay", "name": "Pay", "file": "shop/pay.yaml", "platform": "web"}]})
    (folder / "artifacts").mkdir(parents=True)
    (folder / "artifacts" / "001-step1.jpg").write_bytes(b"jpeg")
    (folder / "farm.log").write_text("log\n")
    (folder / journal.JOURNAL).write_text("".join(json.dumps(line) + "\n" for line in lines))
    _silent(folder, silent)
    return folder


def _silent(folder: Path, seconds: float) -> None:
    at = time.time() - seconds
    os.utime(folder / journal.JOURNAL, (at, at))


def test_a_run_another_host_is_writing_is_not_pruned(tmp_path: Path) -> None:
    state = tmp_path / "state"
    nightly = _run_of("runner-A", state / "runs" / NIGHTLY, silent=20)   # in a long step
    for run_id in (FIRST, SECOND):      # FARM_KEEP_RUNS=1 farm run, twice, on this host
        here = output_dirs(Settings(state_dir=state, keep_runs=1), run_id, False)
        (here / "results.json").write_text("{}")
        prune_runs(state / "runs", 1, here)
    assert sorted(p.name for p in (state / "runs").iterdir()) == [NIGHTLY, SECOND]
    assert {p.name for p in nightly.rglob("*")} >= {"results.jsonl", "farm.log",
                                                     "001-step1.jpg"}
    (nightly / "results.json").write_text("{}")     # it ended; later its journal is silent
    _silent(nightly, journal.STALE_SECONDS + 60)
    prune_runs(state / "runs", 1, here)
    assert sorted(p.name for p in (state / "runs").iterdir()) == [SECOND]


def test_a_killed_run_of_another_host_is_said_once_naming_its_host_then_pruned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    killed = _run_of("gh-runner-17", state / "runs" / KILLED, silent=2 * 3600 + 5 * 60)
    first = output_dirs(Settings(state_dir=state, keep_runs=1), FIRST, False)
    assert capsys.readouterr().err == (
        f"farm: run {KILLED} of host gh-runner-17 ended without writing its results (killed? "
        f"its journal was last written 2 h 5 min ago; a run going on writes it every 30s): "
        f"`farm report {killed}` rebuilds its report from its journal and puts its cases in "
        f"the results history\n")
    prune_runs(state / "runs", 1, first)    # the run that said it leaves it for the command
    assert (killed / journal.JOURNAL).is_file()
    second = output_dirs(Settings(state_dir=state, keep_runs=1), SECOND, False)
    assert capsys.readouterr().err == ""    # once
    prune_runs(state / "runs", 1, second)
    assert not killed.exists()


@pytest.mark.parametrize("silent, planned", [(60, True), (journal.STALE_SECONDS + 60, False)])
def test_a_run_of_another_host_going_on_or_killed_in_its_set_up_is_not_said_killed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], silent: float,
        planned: bool) -> None:
    state = tmp_path / "state"
    _run_of("runner-A", state / "runs" / NIGHTLY, silent=silent, planned=planned)
    output_dirs(Settings(state_dir=state), FIRST, False)
    assert capsys.readouterr().err == ""


def test_a_report_dir_another_host_is_writing_is_refused_naming_the_host(
        tmp_path: Path) -> None:
    out = _run_of("runner-A", tmp_path / "out", silent=20)
    with pytest.raises(ConfigError, match="is in use: farm process 4242 on host runner-A is "
                                          "still writing a run into it"):
        output_dirs(Settings(state_dir=tmp_path / "state", report_dir=out), FIRST, True)
    _silent(out, journal.STALE_SECONDS + 60)    # killed: --overwrite takes it
    assert output_dirs(Settings(state_dir=tmp_path / "state", report_dir=out), FIRST,
                       True) == out


def test_the_heartbeat_keeps_a_run_in_a_long_step_going_for_other_hosts(
        tmp_path: Path) -> None:
    """Nothing else writes the journal during a `sleep: 600000` or a long model call: the
    heartbeat marks it, until the run's end line."""
    from farm.results import RunSummary
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    journal.claim(run_dir, FIRST)
    path = run_dir / journal.JOURNAL
    line = json.loads(path.read_text())
    path.write_text(json.dumps({**line, "host": "runner-A"}) + "\n")   # read from elsewhere
    _silent(run_dir, journal.STALE_SECONDS + 60)
    assert journal.writer_of(run_dir) is None
    journal.HEARTBEAT.beat()
    assert journal.writer_of(run_dir) == journal.Writer(os.getpid(), "runner-A")
    journal.conclude(run_dir, RunSummary(run_id=FIRST, started=line["started"]))
    _silent(run_dir, journal.STALE_SECONDS + 60)
    journal.HEARTBEAT.beat()
    assert journal.writer_of(run_dir) is None
