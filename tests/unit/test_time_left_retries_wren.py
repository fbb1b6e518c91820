"""The time left of a `--retries 1` run of 300 cases ran short ("about 8s left" with 56 cases
to go): a case that failed last night will likely be retried tonight, a retry queued is
another attempt, and the pace was weighted by duration, so the long fixed `sleep` cases
longest-first runs first (pace 1) hid the short CPU-bound ones taking twice their time on a
loaded machine. Fake data, no clock."""

from __future__ import annotations

from types import SimpleNamespace as NS

from farm.progress import Standing, retry_odds
from farm.results import CaseError, CaseResult


def _result(cid: str, seconds: float, status: str = "passed") -> CaseResult:
    error = CaseError(kind="AssertionFailed", message="no", step=1) if status == "failed" \
        else None
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device="browser-1", attempt=1, status=status, error=error,
                      started="2026-12-07T00:00:00+00:00", duration=seconds)


def test_the_pace_follows_the_short_cases_not_the_long_sleeps_before_them():
    expected = {f"s/sleep{n}": 10.0 for n in range(10)}
    expected |= {f"s/cpu{n}": 1.0 for n in range(40)}
    standing = Standing(expected)
    standing.devices.add("browser-1")
    for n in range(10):                     # longest first: fixed sleeps, on time
        standing.finished(_result(f"s/sleep{n}", 10.0), final=True)
    for n in range(20):                     # then the CPU-bound ones, twice their time
        standing.finished(_result(f"s/cpu{n}", 2.0), final=True)
    assert standing.pace() == 2.0           # (by duration: 140 / 120, about 1.17)
    assert standing.left({}) == 40.0        # 20 cases of 1 s, at twice their time


def test_a_case_that_failed_recently_counts_its_likely_retry():
    expected = {f"s/c{n}": 10.0 for n in range(4)}
    standing = Standing(expected, retry_odds={"s/c0": 1.0, "s/c1": 0.5})
    standing.devices.add("browser-1")
    assert standing.left({}) == 55.0        # 4 × 10 s, and 10 s + 5 s of retries


def test_a_queued_retry_counts_in_full_and_no_second_one():
    standing = Standing({"s/a": 10.0, "s/b": 10.0}, retry_odds={"s/a": 1.0})
    standing.devices.add("browser-1")
    standing.finished(_result("s/a", 10.0, "failed"), final=False)   # its retry is queued
    assert standing.left({}) == 20.0
    assert standing.left({"s/a": 4.0}) == 16.0      # the retry running 4 s


def test_failures_do_not_set_the_pace():
    standing = Standing({f"s/c{n}": 10.0 for n in range(5)})
    for n in range(4):
        standing.finished(_result(f"s/c{n}", 1.0, "failed"), final=True)
    assert standing.pace() == 1.0


def test_retry_odds_from_recent_runs_for_cases_with_retries():
    def run(*cases: tuple[str, str, int]) -> NS:
        return NS(cases=[NS(case_id=c, status=s, attempts=[None] * a) for c, s, a in cases])
    runs = [run(("s/a", "failed", 1), ("s/b", "passed", 0), ("s/c", "failed", 0),
                ("s/d", "error", 0)),
            run(("s/a", "passed", 0), ("s/b", "flaky", 1), ("s/c", "failed", 0),
                ("s/d", "skipped", 0)),
            run(("s/a", "passed", 0), ("s/b", "passed", 0))]
    assert retry_odds(runs, {"s/a": 1, "s/b": 1, "s/c": 0, "s/d": 1}) == \
        {"s/a": 1 / 3, "s/b": 1 / 3}


def test_the_odds_come_from_the_results_history(tmp_path):
    from farm.config import Settings
    from farm.progress import recent_retry_odds
    from farm.results_history import CaseRecord, RunRecord, SqliteResults
    from farm.schedule import Job

    state = tmp_path / "state"
    state.mkdir()
    history = SqliteResults(state / "results.sqlite", runs=state / "runs")
    for n, status in enumerate(("failed", "passed")):
        history.add(RunRecord(run_id=f"r{n}", started="2026-12-06T00:00:00+00:00",
                              at=1000.0 + n, cases=[CaseRecord(case_id="s/a", status=status)]))
    settings = Settings(state_dir=state)
    jobs = [Job(case_id="s/a", platform="web", expected_seconds=1.0, test_retries=1)]
    assert recent_retry_odds(settings, jobs) == {"s/a": 0.5}
    jobs = [Job(case_id="s/a", platform="web", expected_seconds=1.0, test_retries=0)]
    assert recent_retry_odds(settings, jobs) == {}
