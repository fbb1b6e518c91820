"""--shard-timings weighs a case a step skipped on its device (no model configured) by the
time it held that device, as the durations history does for longest-first order and
--collect-only (b1ad2f1): before, the file's skip counted as a case it lacked, weighed by its
steps, so a 60 s skip went to a shard as if it took 20 s. A case skipped before any device
opened, or left unrun by a stop, is still weighed by its steps: it took no device time."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.history import DurationHistory
from farm.report.junit import write_junit
from farm.results import CaseResult, RunSummary
from farm.select import SelectOptions, read_timings, select_cases
from farm.suite.loader import load_suites

CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - sleep: 5\n"
TYPO = 'needs a model (set FARM_MODEL): no zero-token match for "Frobnicate" on screen'


def _result(cid: str, status: str, seconds: float, device: str | None = "browser-1",
            reason: str | None = None) -> CaseResult:
    return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", device=device, status=status, duration=seconds,
                      reason=reason)


@pytest.fixture
def earlier(tmp_path: Path) -> tuple[Path, list, list[CaseResult]]:
    """Five one-step cases: three passed in 20 s each, "typo" was skipped on its browser
    after 60 s, "ai" was skipped before a browser opened."""
    (tmp_path / "s").mkdir()
    for name in ("a", "b", "c", "typo", "ai"):
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE)
    cases = [c for suite in load_suites([tmp_path / "s"], dotenv=None) for c in suite.cases]
    results = [_result(x, "passed", 20.0) for x in ("a", "b", "c")] + [
        _result("typo", "skipped", 60.0, reason=TYPO),
        _result("ai", "skipped", 0.0, None, "needs a model (set FARM_MODEL): ai at line 7")]
    summary = RunSummary(run_id="r1", started="", cases=results)
    summary.recount()
    (tmp_path / "results.json").write_text(summary.model_dump_json())
    write_junit(summary, tmp_path / "junit.xml", tmp_path)
    return tmp_path, cases, results


@pytest.mark.parametrize("given", ["results.json", "junit.xml"])
def test_a_case_skipped_on_its_device_weighs_the_time_it_held_it(earlier, given):
    here, cases, results = earlier
    timings = read_timings(here / given)
    assert timings == {"s/a": 20.0, "s/b": 20.0, "s/c": 20.0, "s/typo": 60.0}
    ran = [c for c in cases if c.id != "s/ai"]
    shards = [sorted(c.id for c in select_cases(ran, SelectOptions(
        shard=(i, 2), shard_timings=timings)).selected) for i in (1, 2)]
    # 60 s against 3 x 20 s (weighed as a case the file lacked, the skip was 20 s: two and two)
    assert sorted(shards, key=len) == [["s/typo"], ["s/a", "s/b", "s/c"]], shards
    # the durations history remembers the same cases, so both orders agree
    history = DurationHistory(here / "state")
    history.record(results)
    assert {k.removeprefix("web:") for k in history.load()} == set(timings)
