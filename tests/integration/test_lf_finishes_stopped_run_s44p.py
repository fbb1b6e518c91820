"""Ctrl-C into a run, then `farm run SUITE --lf`: it collected only the failures of an earlier
complete run, never the cases the stopped run interrupted or did not reach. It now takes
them, and says so."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from tests.support.farm_cli import ROOT, FarmCli
from tests.support.gate import Gate
from tests.support.suites import write_case

FAULTS = ROOT / "tests" / "integration" / "suites" / "faults"


@pytest.fixture
def gate():
    with Gate() as g:
        yield g


def test_lf_after_ctrl_c_takes_the_interrupted_and_unrun_cases(tmp_path: Path, farm: FarmCli,
                                                                gate: Gate):
    suite = tmp_path / "stop"
    page = "${FARM_DEMO_URL}/index.html"     # (the gate answers a page served over http)
    write_case(suite, "a_ok", ['javascript: "1"'], url=page)
    write_case(suite, "b_gate", [gate.step()], timeout=180, url=page)
    for stem in ("c_later", "d_later"):
        write_case(suite, stem, ['javascript: "1"'], url=page)
    (suite / "farm.yaml").write_text((FAULTS / "farm.yaml").read_text().replace(
        "../../../../suites/demo/app", str(ROOT / "suites" / "demo" / "app")))
    proc = farm.start("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "r")
    gate.wait_for_arrivals(1)       # a_ok ran first; b_gate is in flight and stays so
    proc.send_signal(signal.SIGINT)
    out = proc.finish(180)
    assert proc.returncode == 2, out

    again = farm.run("run", suite, "--lf", "--collect-only")
    assert again.returncode == 0, again.stdout + again.stderr
    taken = [line.split()[0] for line in again.stdout.splitlines() if "[web]" in line]
    assert taken == ["stop/b_gate", "stop/c_later", "stop/d_later"]
    assert re.search(r"^farm: --last-failed: would run 1 interrupted, 2 not run in run "
                     r"\S+ \(stopped before its end\)$", again.stderr, re.M), again.stderr
