"""Once -x / --maxfail (or the run's model budget) stops a run taking cases, no retry starts
either, and a retry not started leaves the case's verdict to the attempt it was for: FAILED,
saying it was not retried. Before, a case in flight when the run stopped was retried anyway,
and a retry still queued ended SKIPPED "not run", its failure gone from the counts, junit and
the pass rate. `farm run` on in-memory `fake` devices (the test plugin)."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import PLUGIN, FarmCli, results, wait_for
from tests.support.suites import write_case

FAIL = "assertText: not on the empty page"


def test_no_retry_starts_once_maxfail_is_reached(tmp_path: Path) -> None:
    gate = tmp_path / "go"
    write_case(tmp_path / "s", "alpha_quick", [FAIL])
    write_case(tmp_path / "s", "beta_held", [f"javascript: farm-test:wait-for:{gate}", FAIL])
    journal = tmp_path / "run" / "results.jsonl"

    def alpha_final() -> bool:      # the journal holds a case's line once it is final
        return journal.is_file() and '"case_id":"s/alpha_quick"' in journal.read_text()

    cli = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN)
    try:
        # two devices: alpha fails twice (its retry) while beta's first attempt is held; the
        # run then stops taking cases, and beta's failure comes in after that
        proc = cli.start("run", tmp_path / "s", "--devices", "fake:2", "--retries", "1",
                         "--maxfail", "1", "--no-progress", "--report-dir", tmp_path / "run")
        wait_for(alpha_final, 120, "alpha's final result")
        gate.touch()
        output = proc.finish(120)
    finally:
        cli.close()
    assert proc.returncode == 1, output
    summary = results(tmp_path / "run")
    cases = {c["case_id"].split("/")[-1]: c for c in summary["cases"]}
    alpha, beta = cases["alpha_quick"], cases["beta_held"]
    assert (alpha["status"], alpha["attempt"]) == ("failed", 2), alpha
    assert (beta["status"], beta["attempt"], beta["reason"]) == (
        "failed", 1, "not retried: --maxfail 1 reached"), beta
    assert '"not on the empty page" is not on screen' in beta["error"]["message"]
    assert summary["counts"]["failed"] == 2
