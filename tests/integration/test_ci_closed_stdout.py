"""`farm run … | head -1`, or a CI log collector that dies mid-run: farm's stdout is closed
while cases run. What it could not print is lost; the cases' verdicts, results.json,
metrics.prom and the exit code are not."""

from __future__ import annotations

import json
import subprocess

from tests.support.farm_cli import FarmCli
from tests.support.suites import write_case

PLUGIN = "tests.support.devices"


def test_a_closed_stdout_changes_no_verdict_and_no_exit_code(tmp_path):
    """Every case ended ERROR "internal error: [Errno 32] Broken pipe" (the progress line of
    its start or end could not be written) and the run exited 3."""
    farm = FarmCli(tmp_path)
    go = tmp_path / "go"
    suite = tmp_path / "s"
    write_case(suite, "waits", [f"javascript: farm-test:wait-for:{go}"])
    write_case(suite, "red", ["assertText: not on an empty page"])
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        farm.command("run", suite, "--devices", "fake:1", "--report-dir", run_dir),
        env=farm.env(FARM_DEVICE_PLUGINS=PLUGIN), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "farm: 2 case(s) to run\n"
        proc.stdout.close()                     # as `| head -1` does, having its line
        go.touch()                              # only now may the first case end
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    verdicts = {c["case_id"]: c["status"]
                for c in json.loads((run_dir / "results.json").read_text())["cases"]}
    assert verdicts == {"s/waits": "passed", "s/red": "failed"}
    assert (proc.returncode, err) == (1, "")
    assert (run_dir / "metrics.prom").is_file()
