"""The run's outputs a CI job and a QA lead read in the morning, from a real `farm run`.

A run killed between two cases (SIGKILL: a CI time limit) and rebuilt with `farm report
RUN_DIR` had a junit.xml of the cases that ran, passes, and the rest skipped: nothing in it
said the run had not finished, and Jenkins, GitLab and GitHub (which read only <testcase>s)
showed it green. It now has a ``farm.run`` testcase with an <error type="RunInterrupted">
saying how many cases never ran, and which."""

from __future__ import annotations

import json
import signal
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, kill_tree, wait_for
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

PLUGINS = "tests.support.devices,tests.integration.held_phone"


def _passed(run_dir: Path, case_id: str) -> bool:
    """Whether the run's journal has ``case_id``'s final result, passed."""
    try:
        lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    for line in lines:
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if data.get("case_id") == case_id and data.get("status") == "passed":
            return True
    return False


def test_a_run_killed_between_cases_is_not_green_in_its_rebuilt_junit(
        farm: FarmCli, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_case(suite, "web_first", ["sleep: 10"])
    (suite / "phone_later.yaml").write_text(
        "android:\n  launch: com.example.app\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 10\n")
    run_dir, note = tmp_path / "run", tmp_path / "held"
    proc = farm.start("run", suite, "--devices", "fake:1,heldphone:1", "--report-dir", run_dir,
                      FARM_DEVICE_PLUGINS=PLUGINS, FARM_TEST_HELD_NOTE=str(note))
    try:
        # the web case has ended; the phone case waits for a phone that is still starting
        wait_for(lambda: _passed(run_dir, "suite/web_first") and note.exists(), 120,
                 "the web case passed while the phone starts")
        kill_tree(proc.popen, signal.SIGKILL)
        proc.finish()
    finally:
        if proc.returncode is None:
            kill_tree(proc.popen, signal.SIGKILL)
    done = farm.run("report", run_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    root = ET.parse(run_dir / "junit.xml").getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert cases[("suite", "web_first")].find("failure") is None
    assert cases[("suite", "phone_later")].find("skipped") is not None
    run = cases[("farm", "run")].find("error")
    assert run is not None, ET.tostring(root, encoding="unicode")
    assert run.get("type") == "RunInterrupted"
    assert "before it ran 1 of its 2 case(s)" in run.get("message", "")
    assert "suite/phone_later" in (run.text or "")
    assert int(root.get("errors")) == 1 and int(root.get("tests")) == 3
