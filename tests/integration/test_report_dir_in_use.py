"""A run folder another farm process is still writing: a second `farm run` into the same
--report-dir, or a `farm report` of it, must not take it over (mixed journals and
screenshots; a half run's report, history record and journal end written mid-run)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from farm.config import Settings
from farm.errors import ConfigError

RUN_A, RUN_B = "20261204-020000-aaaa", "20261204-020001-bbbb"

CLAIM = """
import sys
from pathlib import Path
from farm.config import Settings
from farm.run_outputs import output_dirs
output_dirs(Settings(state_dir=Path(sys.argv[1]), report_dir=Path(sys.argv[2])), sys.argv[3],
            False)
print("claimed", flush=True)
sys.stdin.read()
"""

JOURNAL = """
import sys
from farm.executors.base import NullEvents
from farm.journal import JournalEvents
j = JournalEvents(NullEvents(), sys.argv[1], sys.argv[2],
                  [("s/a", "a", "s/a.yaml", "web"), ("s/b", "b", "s/b.yaml", "web")])
j.case_started("browser-1", "s/a", "a", 1)
print("running", flush=True)
sys.stdin.read()
"""


def _farm(code: str, *args: str) -> subprocess.Popen:
    """A farm process doing ``code``, held alive until its stdin closes (the run going on)."""
    child = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() in ("claimed", "running")
    return child


def _end(child: subprocess.Popen) -> None:
    child.stdin.close()
    assert child.wait(60) == 0


def test_a_second_run_into_a_report_dir_in_use_is_refused(tmp_path):
    """Two nightly jobs given the same --report-dir, started together: both ran into it,
    their journals and screenshots mixed, and each one's report showed the other's images.
    The second is refused (exit 4), --overwrite or not, and the first's journal is kept."""
    from farm.run_outputs import output_dirs
    state, report = tmp_path / "state", tmp_path / "report"
    first = _farm(CLAIM, str(state), str(report), RUN_A)
    try:
        for overwrite in (False, True):
            with pytest.raises(ConfigError) as exc:
                output_dirs(Settings(state_dir=state, report_dir=report), RUN_B, overwrite)
            assert exc.value.exit_code == 4
            assert (f"{report} is in use: farm process {first.pid} is still writing a run "
                    "into it; wait for it to end, or use another directory") in str(exc.value)
        assert RUN_A in (report / "results.jsonl").read_text()
    finally:
        _end(first)
    # once it has ended, --overwrite replaces it
    assert output_dirs(Settings(state_dir=state, report_dir=report), RUN_B, True) == report
    assert RUN_B in (report / "results.jsonl").read_text()
    assert RUN_A not in (report / "results.jsonl").read_text()


def _report(run_dir: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """`farm report RUN_DIR`, as the user types it (its exit code, its stderr)."""
    import os
    env = {k: v for k, v in os.environ.items()
           if k not in ("FARM_RESULTS_HISTORY_URL", "FARM_BROKER_URL")}
    env["FARM_STATE_DIR"] = str(tmp_path / "state")
    farm = Path(sys.executable).with_name("farm")
    return subprocess.run([str(farm), "report", str(run_dir)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_farm_report_of_a_run_still_going_leaves_it_be(tmp_path):
    """`farm report RUN_DIR` while the nightly still ran: it said 'rebuilt: 0 case(s) had
    finished, 1 interrupted, 1 not run before the run stopped', wrote that as results.json
    and report.html, put the half run in the results history and an end line in its journal;
    a kill of the run after that left the half report, not the journal's, to `farm report`."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    live = _farm(JOURNAL, str(run_dir), RUN_A)
    try:
        out = _report(run_dir, tmp_path)
        assert out.returncode == 4, out.stderr
        assert (f"{run_dir}: its run is still going (farm process {live.pid}): it writes its "
                "report when it ends") in out.stderr
        assert not (run_dir / "results.json").exists()
        assert not (run_dir / "report.html").exists()
        assert '"journal": "end"' not in (run_dir / "results.jsonl").read_text()
        assert not (tmp_path / "state" / "results.sqlite").exists()
    finally:
        _end(live)
    out = _report(run_dir, tmp_path)   # it ended without its end: killed
    assert out.returncode == 0, out.stderr
    assert "0 case(s) had finished, 1 interrupted, 1 not run" in out.stderr
    assert json.loads((run_dir / "results.json").read_text())["run_id"] == RUN_A


def test_a_dead_runs_process_id_taken_by_another_process_is_not_the_run(tmp_path):
    """A run killed hours ago whose process id the system gave to a new process since: its
    journal is still rebuilt (the process started after the journal did)."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        import socket
        began = (datetime.now(timezone.utc) - timedelta(hours=3)).isoformat()
        (run_dir / "results.jsonl").write_text(json.dumps({
            "journal": "run", "run_id": RUN_A, "started": began, "pid": other.pid,
            "host": socket.gethostname(), "planned": [
                {"case_id": "s/a", "name": "a", "file": "s/a.yaml", "platform": "web"}]}) + "\n")
        out = _report(run_dir, tmp_path)
        assert out.returncode == 0, out.stderr
        assert "rebuilt from" in out.stderr
    finally:
        other.stdin.close()
        other.wait(60)


def test_a_run_killed_while_it_set_up_says_there_is_nothing_to_rebuild(tmp_path):
    """kill -9 while the run still served its apps and opened its browsers: `farm report`
    said 'results.json does not exist', not that the run had stopped before any case."""
    from farm.run_outputs import output_dirs
    report = tmp_path / "report"
    setting_up = _farm(CLAIM, str(tmp_path / "state"), str(report), RUN_A)
    setting_up.kill()                       # kill -9
    setting_up.wait(60)
    out = _report(report, tmp_path)
    assert out.returncode == 4, out.stderr
    assert (f"results.jsonl: run {RUN_A} was stopped while it set up, before it planned any "
            "case: there is no report to rebuild") in out.stderr
    assert output_dirs(Settings(state_dir=tmp_path / "state", report_dir=report), RUN_B,
                       True) == report


SET_UP_FAILS = """
import sys
from pathlib import Path
from farm.config import Settings
from farm.run_outputs import output_dirs
output_dirs(Settings(state_dir=Path(sys.argv[1]), report_dir=Path(sys.argv[2])), sys.argv[3],
            False)
sys.exit("farm: error: --metrics-port 9464: cannot listen there (Address already in use)")
"""


def test_a_run_that_stopped_on_a_mistake_before_any_case_leaves_its_report_dir_free(tmp_path):
    """`farm run … --report-dir out --metrics-port 9464` with the port taken: exit 4, and
    the corrected command was refused, 'out already holds a run (results.jsonl): use
    --overwrite', of a folder no run had written a result into."""
    from farm.run_outputs import output_dirs
    state, report = tmp_path / "state", tmp_path / "report"
    failed = subprocess.run([sys.executable, "-c", SET_UP_FAILS, str(state), str(report),
                             RUN_A], capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1, failed.stderr
    assert output_dirs(Settings(state_dir=state, report_dir=report), RUN_B, False) == report
    assert RUN_B in (report / "results.jsonl").read_text()


STATE_RUN = """
import sys
from pathlib import Path
from farm.config import Settings
from farm.run_outputs import output_dirs
output_dirs(Settings(state_dir=Path(sys.argv[1])), sys.argv[2], False)
print("claimed", flush=True)
sys.stdin.read()
"""


def test_a_run_still_going_is_not_pruned_by_the_end_of_a_later_one(tmp_path):
    """A long nightly in .farm/runs beside short runs (FARM_KEEP_RUNS): a short run's end
    pruned the nightly's folder while it ran, its journal, farm.log and first screenshots
    deleted under it. Once it has ended, pruning takes it as before."""
    from farm.run_outputs import output_dirs, prune_runs
    state = tmp_path / "state"
    nightly = _farm(STATE_RUN, str(state), RUN_A)
    try:
        later = output_dirs(Settings(state_dir=state), RUN_B, False)
        prune_runs(state / "runs", 1, later)
        assert (state / "runs" / RUN_A / "results.jsonl").is_file()
    finally:
        _end(nightly)
    (state / "runs" / RUN_A / "results.json").write_text("{}")     # it ended
    prune_runs(state / "runs", 1, later)
    assert [p.name for p in (state / "runs").iterdir()] == [RUN_B]
