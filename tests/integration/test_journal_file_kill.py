"""`farm run` killed (kill -9) in a shareBrowserContext batch whose first file failed early
(continueOnError: true) while the next one runs a long step: `farm report` rebuilt the run
with the failed file as the one "farm stopped while it ran" and the one running as "not run"
(the journal guessed which file ran from step numbers). The runner now says when each file
begins, on this machine and from a `farm worker`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, kill_tree, results, wait_for

FAILS = """\
web:
  url: about:blank
tasks:
  - name: t
    flow:
      - javascript: "throw new Error('boom')"
      - javascript: "1"
"""
WAITS = """\
web:
  url: about:blank
tasks:
  - name: t
    flow:
      - sleep: 120000
      - javascript: "2"
"""


def _batch(folder: Path) -> Path:
    folder.mkdir()
    (folder / "a.yaml").write_text(FAILS)
    (folder / "b.yaml").write_text(WAITS)
    (folder / "index.yaml").write_text(
        "continueOnError: true\nshareBrowserContext: true\nfiles:\n  - a.yaml\n  - b.yaml\n")
    return folder


def _b_began(run_dir: Path) -> bool:
    try:
        lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    return any(json.loads(line).get("file") == "s/b" for line in lines if line.endswith("}"))


def _killed_in_b(farm: FarmCli, run_dir: Path, *args: str | Path, **env: str) -> None:
    run = farm.start("run", *args, "--report-dir", run_dir, **env)
    wait_for(lambda: _b_began(run_dir), timeout=120, what="b.yaml's start in the journal")
    kill_tree(run.pid)      # the run only: a worker's device goes on
    run.finish()
    rebuilt = farm.run("report", run_dir)
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    cases = {c["case_id"]: c for c in results(run_dir)["cases"]}
    assert cases["s/a"]["status"] == "interrupted", cases["s/a"]
    assert "result was not saved" in cases["s/a"]["reason"]
    assert cases["s/b"]["status"] == "interrupted", cases["s/b"]
    assert cases["s/b"]["reason"].startswith("farm stopped while it ran")


def test_a_killed_run_names_the_file_that_was_running(farm: FarmCli, tmp_path: Path) -> None:
    _killed_in_b(farm, tmp_path / "r", _batch(tmp_path / "s"), "--devices", "browser:1")


def test_a_killed_run_names_the_file_a_worker_was_running(farm: FarmCli, tmp_path: Path,
                                                          redis_url: str, workers) -> None:
    workers("browser:1")
    wait_idle(redis_url, 1)
    _killed_in_b(farm, tmp_path / "r", _batch(tmp_path / "s"), "--broker", redis_url,
                 "--devices", "browser:1", FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
