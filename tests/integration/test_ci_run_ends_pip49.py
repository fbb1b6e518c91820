"""`farm run` in CI pipes and logs: --collect-only's standard output holds only its case lines
(its notes on stderr: `| wc -l` counted "farm: 2 case(s) collected …" as a case); a run that
found no case says "nothing to run: no report written" as a -k of none does; farm.log's last
line says how the run ended (the tally) and its exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CASE = """name: {name}
web:
  url: http://127.0.0.1:9/index.html
tasks:
  - name: t
    flow:
      - ai: buy a mug
"""


def _farm(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FARM_")}
    env.update(FARM_STATE_DIR=str(cwd / "state"), NO_COLOR="1", CI="1")
    return subprocess.run([sys.executable, "-c", "from farm.cli import main; main()", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "pay.yaml").write_text(CASE.format(name="pay"))
    (suite / "login.yaml").write_text(CASE.format(name="login"))
    return suite


def test_collect_only_stdout_is_the_case_lines_alone_pip49(tmp_path: Path):
    _suite(tmp_path)
    done = _farm(["run", "s", "--collect-only", "-v", "-k", "pay"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["s/pay  [web]  pay  (s/pay.yaml)"], done.stdout
    assert "deselected: s/login  [web]  -k pay" in done.stderr
    assert "farm: 1 case(s) collected" in done.stderr
    assert "would be skipped" in done.stderr


def test_a_run_of_no_case_says_nothing_to_run_pip49(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    done = _farm(["run", "empty"], tmp_path)
    assert done.returncode == 5
    assert done.stdout.splitlines() == ["farm: no cases found under empty",
                                        "farm: nothing to run: no report written"]


def test_farm_log_ends_with_the_tally_and_the_exit_code_pip49(tmp_path: Path):
    _suite(tmp_path)
    done = _farm(["run", "s", "-k", "pay", "--report-dir", "out", "--fail-on-skip"], tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    logs = list((tmp_path / "out").rglob("farm.log"))
    assert logs, done.stdout
    last = logs[0].read_text().splitlines()[-1]
    assert " INFO farm: RUN ENDED 1 skipped in " in last, last
    assert last.endswith("; exit code 1"), last
