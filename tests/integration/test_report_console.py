"""What `farm report RUN_DIR` prints on a disk still full, as the user's terminal shows it
(its own process: no test harness logging in between)."""

from __future__ import annotations

import os
import subprocess
import sys

from farm.results import CaseResult, RunSummary

FULL_DISK = """
import errno, sys
import farm.report.junit
def full(*_args, **_kw):
    raise OSError(errno.ENOSPC, "No space left on device")
farm.report.junit.write_junit = full
from farm.cli import main
sys.argv = ["farm", "report", sys.argv[1]]
main()
"""


def test_farm_report_says_each_output_it_could_not_write_once(tmp_path):
    """`farm report` on a disk still full: each output not written came twice on stderr, a
    bare 'cannot write …/junit.xml' (a log line meant for farm.log), then the error naming
    why."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    summary = RunSummary(run_id="20261204-020000-ab12", started="2026-12-04T02:00:00+00:00",
                         cases=[CaseResult(run_id="20261204-020000-ab12", case_id="s/a",
                                           name="a", file="s/a.yaml", platform="web",
                                           status="passed")])
    summary.recount()
    (run_dir / "results.json").write_text(summary.model_dump_json())
    out = subprocess.run([sys.executable, "-c", FULL_DISK, str(run_dir)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "FARM_STATE_DIR": str(tmp_path / "state")})
    assert out.returncode == 3, out.stderr
    assert out.stderr == (f"farm: error: not written: {run_dir / 'junit.xml'}: No space left "
                          "on device\n")
    assert out.stdout == f"{(run_dir / 'report.html').resolve()}\n"
