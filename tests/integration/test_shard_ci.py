"""`farm run --shard I/N` as CI runs it: N jobs, each on its own runner (its own state dir,
remembering its own durations) or one after another on one runner (a state dir that learns
between shards). Merged, their results hold every case exactly once, failures included, on
in-memory `fake` devices (no Chromium)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from farm.history import DurationHistory
from farm.results import CaseResult
from tests.support.farm_cli import PLUGIN, FarmCli, results
from tests.support.suites import write_case

CASES = 16
FAILING = "sel/c07"


def _suite(folder: Path) -> list[str]:
    """16 cases of 1-4 steps; c07 fails."""
    for i in range(CASES):
        steps = ["sleep: 1"] * (i % 4 + 1)
        write_case(folder, f"c{i:02d}", steps + (["assertText: not on the empty page"]
                                                 if f"sel/c{i:02d}" == FAILING else []))
    return [f"sel/c{i:02d}" for i in range(CASES)]


def _shard_job(cli: FarmCli, tmp: Path, index: int, state: Path,
               *more: object) -> tuple[list[dict], list[str]]:
    """One CI job: its results.json cases and its JUnit test case names."""
    out = tmp / f"job{index}"
    done = cli.run("run", tmp / "sel", "--devices", "fake:1", "--shard", f"{index}/3",
                   "--report-dir", out, "--junit-xml", out / "junit.xml", "--no-progress",
                   *more, FARM_STATE_DIR=str(state))
    assert done.returncode in (0, 1, 5), done.stdout + done.stderr
    cases = results(out)["cases"]
    junit = [tc.get("name") for tc in ET.parse(out / "junit.xml").iter("testcase")]
    return cases, junit


def _merged(jobs: list[tuple[list[dict], list[str]]]) -> tuple[Counter, dict[str, str], Counter]:
    ran = Counter(c["case_id"] for cases, _ in jobs for c in cases)
    status = {c["case_id"]: c["status"] for cases, _ in jobs for c in cases}
    junit = Counter(name for _, names in jobs for name in names)
    return ran, status, junit


def test_parallel_jobs_on_runners_with_different_memories_run_every_case_once(tmp_path):
    ids = _suite(tmp_path / "sel")
    # runner 2 remembers the later cases as the slower; runners 1 and 3 remember nothing
    DurationHistory(tmp_path / "runner2").record(
        CaseResult(run_id="old", case_id=cid, name=cid, file="x", platform="web",
                   status="passed", duration=float(i + 1)) for i, cid in enumerate(ids))
    cli = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN)
    try:
        jobs = [_shard_job(cli, tmp_path, i, tmp_path / f"runner{i}") for i in (1, 2, 3)]
    finally:
        cli.close()
    ran, status, junit = _merged(jobs)
    assert ran == Counter(ids)                       # each case exactly once
    assert status[FAILING] == "failed"
    assert max(junit.values()) == 1 and sum(junit.values()) == CASES


def test_sequential_jobs_sharing_a_state_dir_run_every_case_once(tmp_path):
    """Each job records the durations of its cases before the next job plans its shard."""
    ids = _suite(tmp_path / "sel")
    cli = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN)
    try:
        jobs = [_shard_job(cli, tmp_path, i, tmp_path / "shared") for i in (1, 2, 3)]
    finally:
        cli.close()
    ran, status, junit = _merged(jobs)
    assert DurationHistory(tmp_path / "shared").load()     # the jobs did learn between shards
    assert ran == Counter(ids) and status[FAILING] == "failed"
    assert max(junit.values()) == 1 and sum(junit.values()) == CASES


def test_jobs_given_last_nights_junit_as_timings_run_every_case_once(tmp_path):
    """The nightly run's --junit-xml, handed to every job as --shard-timings (Flank's way):
    each job reads the same times, so they split one plan, each runner's own memory aside."""
    ids = _suite(tmp_path / "sel")
    cli = FarmCli(tmp_path, FARM_DEVICE_PLUGINS=PLUGIN)
    try:
        nightly = cli.run("run", tmp_path / "sel", "--devices", "fake:2", "--report-dir",
                          tmp_path / "nightly", "--junit-xml", tmp_path / "nightly.xml",
                          "--no-progress", FARM_STATE_DIR=str(tmp_path / "ci-server"))
        assert nightly.returncode == 1, nightly.stdout + nightly.stderr     # c07 fails
        jobs = [_shard_job(cli, tmp_path, i, tmp_path / f"runner{i}", "--shard-timings",
                           tmp_path / "nightly.xml") for i in (1, 2, 3)]
    finally:
        cli.close()
    ran, status, junit = _merged(jobs)
    assert ran == Counter(ids) and status[FAILING] == "failed"
    assert max(junit.values()) == 1 and sum(junit.values()) == CASES
