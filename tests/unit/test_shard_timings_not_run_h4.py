"""--shard-timings from a run that did not run every case (stopped by --maxfail, Ctrl-C or the
model budget; a case skipped; one interrupted): the cases it never ran took "0 s" there, and
LPT gave every such weightless case to the same least-loaded shard, so one CI job got eleven
cases and another none. A case that did not run to its end is weighed as one the file lacks
(its steps at the known cases' seconds per step), from results.json and JUnit alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary
from farm.select import SelectOptions, read_timings, select_cases
from farm.suite.loader import load_suites

CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - sleep: 5\n"
NOT_RUN = "not run: --maxfail 1 reached"


def _result(cid: str, status: str, duration: float, kind: str | None = None) -> CaseResult:
    return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", device="fake-1", status=status, duration=duration,
                      started="2026-12-06T10:00:00+00:00",
                      reason=NOT_RUN if status == "skipped" else None,
                      error=CaseError(kind=kind, message="x") if kind else None)


@pytest.fixture
def stopped_run(tmp_path: Path) -> tuple[Path, list]:
    """Twelve cases: c00 failed (4 s) and stopped the run, c01 timed out (30 s), c02's device
    was lost at 1 s, c03 was interrupted at 2 s, the other eight never started."""
    (tmp_path / "s").mkdir()
    for i in range(12):
        (tmp_path / "s" / f"c{i:02d}.yaml").write_text(CASE)
    cases = [c for suite in load_suites([tmp_path / "s"], dotenv=None) for c in suite.cases]
    results = [_result("c00", "failed", 4.0, "AssertionFailed"),
               _result("c01", "error", 30.0, "CaseTimeout"),
               _result("c02", "error", 1.0, "DeviceLost"),
               _result("c03", "interrupted", 2.0),
               *(_result(f"c{i:02d}", "skipped", 0.0) for i in range(4, 12))]
    summary = RunSummary(run_id="r1", started="2026-12-06T10:00:00+00:00", cases=results)
    summary.recount()
    (tmp_path / "r1").mkdir()
    (tmp_path / "r1" / "results.json").write_text(summary.model_dump_json())
    write_junit(summary, tmp_path / "junit.xml", tmp_path / "r1")
    return tmp_path, cases


@pytest.mark.parametrize("given", ["r1", "r1/results.json", "junit.xml"])
def test_cases_an_earlier_run_did_not_run_are_spread_over_the_shards(stopped_run, given):
    here, cases = stopped_run
    timings = read_timings(here / given)
    assert sorted(timings) == ["s/c00", "s/c01"]    # a verdict, and a timeout's whole time
    shards = [select_cases(cases, SelectOptions(shard=(i, 3), shard_timings=timings))
              for i in (1, 2, 3)]
    ids = [sorted(c.id for c in s.selected) for s in shards]
    assert sorted(i for shard in ids for i in shard) == sorted(c.id for c in cases)
    # the ten others weigh 17 s each (the known cases' 34 s over their 4 steps and opens, at 2
    # a case): four cases a job, where the eight that never started all went to one
    assert [len(shard) for shard in ids] == [4, 4, 4], ids
    assert "planned on the timings of 2 of 12 case(s) (the rest by their steps)" \
        in shards[0].notes[0]


def test_a_run_that_ran_none_of_its_cases_is_said_so(tmp_path: Path):
    summary = RunSummary(run_id="r1", started="2026-12-06T10:00:00+00:00",
                         cases=[_result("a", "skipped", 0.0)])
    (tmp_path / "results.json").write_text(summary.model_dump_json())
    timings = read_timings(tmp_path / "results.json")    # (a warning, not a failed CI job)
    assert timings == {} and timings.notes == [
        f"warning: --shard-timings {tmp_path / 'results.json'}: no case timings in it (no case "
        "of it ran to its end): planned without it"]
