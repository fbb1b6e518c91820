"""Stopping a run: Ctrl-C, a second Ctrl-C, SIGTERM. Whatever the user does, the results known
so far are written (results.json, junit.xml, report.html, the journal) and the exit code is 2."""

from __future__ import annotations

import json
import signal

import pytest

from tests.support.farm_cli import ROOT, FarmCli, results

SUITE = ROOT / "tests" / "integration" / "suites" / "faults"


@pytest.fixture
def cli(tmp_path):
    cli = FarmCli(tmp_path, FARM_NO_PROGRESS="0")
    yield cli
    cli.close()


@pytest.mark.parametrize("signals", [
    pytest.param([signal.SIGINT, signal.SIGINT], id="double-ctrl-c"),
    pytest.param([signal.SIGTERM], id="sigterm"),
])
def test_stopping_a_run_still_writes_everything_it_knows(cli, tmp_path, signals):
    run_dir = tmp_path / "run"
    proc = cli.start("run", SUITE, "--devices", "browser:2", "--report-dir", run_dir,
                     FLAKY_URL="http://127.0.0.1:9/")   # flaky.yaml's backend: not needed here
    proc.wait_for_line("start faults/slow")       # a 12 s case: certainly in flight
    for sig in signals:
        proc.send_signal(sig)
    out = proc.finish()
    assert proc.returncode == 2, out              # not 143 (SIGTERM) nor -11 (SIGSEGV)
    assert "Traceback" not in out
    summary = results(run_dir)
    assert summary["interrupted"] is True
    status = {c["case_id"]: c["status"] for c in summary["cases"]}
    assert status["faults/slow"] == "interrupted"
    assert (run_dir / "junit.xml").exists() and (run_dir / "report.html").exists()
    started = {line.split("start ", 1)[1].split()[0] for line in out.splitlines()
               if "] start " in line}
    lines = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    journal = {line["case_id"] for line in lines if "journal" not in line}   # not the markers
    assert started <= journal, f"started but not journalled: {started - journal}"
    assert set(status) == journal               # every case, run or not, is in the journal
