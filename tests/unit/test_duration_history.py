"""Durations remembered across runs (farm/history.py) for longest-first order: every attempt
that held a device counts, errors such as a timeout included; attempts that never started or
were cut short by the user do not."""

from __future__ import annotations

from pathlib import Path

from farm.attempts import RetryPolicy, synthetic
from farm.config import Settings
from farm.devices.fake import HANG, FakeDevice
from farm.errors import DeviceLost
from farm.executors.local import LocalExecutor
from farm.history import DurationHistory
from farm.results import ArtifactStore, CaseResult, final_result
from farm.runner import Services
from farm.schedule import Job, expected_duration, order_jobs
from farm.suite.model import Case, Step, Task, WebTarget

SETTINGS = Settings(watchdog_grace_seconds=0.3, cache="off")   # (no .farm/ in the cwd)


def _case(name: str, steps: list[Step], timeout: float = 30.0) -> Case:
    return Case(id=f"s/{name}", name=name, file=Path(f"/tmp/{name}.yaml"),
                suite_root=Path("/tmp"), platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=steps)], timeout=timeout)


def _run(cases: list[Case], tmp_path: Path) -> dict[str, CaseResult]:
    """The final results of one local run of ``cases`` on one fake browser."""
    services = Services(settings=SETTINGS, artifacts=ArtifactStore(tmp_path / "run"),
                        run_id="r1", env={})
    executor = LocalExecutor([FakeDevice(scripts={"hang": HANG})], {c.id: c for c in cases},
                             services, RetryPolicy())
    outcome = executor.run([Job(c.id, "web", SETTINGS.default_case_seconds) for c in cases])
    return {r.case_id: r for r in outcome.results}


def _next_order(history: DurationHistory, ids: list[str]) -> list[str]:
    """The order the next run starts these cases in (farm.session plans jobs this way)."""
    remembered = history.load()
    return [j.case_id for j in order_jobs(
        Job(cid, "web", expected_duration(remembered, cid, "web", SETTINGS.default_case_seconds))
        for cid in ids)]


def test_a_case_that_timed_out_is_scheduled_by_the_time_it_held_its_device(tmp_path):
    hangs = _case("hangs", [Step(kind="javascript", value="hang")], timeout=0.5)
    results = _run([hangs], tmp_path)
    timed_out = results[hangs.id]
    assert timed_out.status == "error" and timed_out.error.kind == "CaseTimeout"
    history = DurationHistory(tmp_path / "state")
    history.record(results.values())
    assert history.load() == {"web:s/hangs": [timed_out.duration]}     # not the 30 s default
    # a case known to take longer than the timed-out one held its device starts before it,
    # one known to take less after it (as a never-seen case, it would have gone first)
    held = timed_out.duration
    history.record([CaseResult(run_id="r0", case_id=cid, name=cid, file="x", platform="web",
                               status="passed", duration=seconds)
                    for cid, seconds in (("s/longer", (held + SETTINGS.default_case_seconds) / 2),
                                         ("s/shorter", held / 2))])
    assert _next_order(history, ["s/shorter", "s/hangs", "s/longer"]) == [
        "s/longer", "s/hangs", "s/shorter"]


def test_attempts_that_held_no_device_or_were_cut_short_are_not_remembered(tmp_path):
    ok = _case("ok", [Step(kind="sleep", value="1")])
    needs_model = _case("ai", [Step(kind="ai", value="buy a mug")])
    results = _run([ok, needs_model], tmp_path)
    assert results[needs_model.id].status == "skipped"
    never_started = synthetic(_case("lost", []), "r1", 2, "error", "browser-1",
                              error=DeviceLost("browser-1 unusable"))
    interrupted = CaseResult(run_id="r1", case_id="s/cut", name="cut", file="x", platform="web",
                             status="interrupted", device="browser-1", duration=4.0)
    history = DurationHistory(tmp_path / "state")
    history.record([*results.values(), never_started, interrupted])
    assert history.load() == {"web:s/ok": [results[ok.id].duration]}


def test_a_retried_case_is_remembered_by_one_attempt_s_time(tmp_path):
    """A case that failed in 1 s and passed in 2 s on its retry is expected to take 2 s the
    next time (one run of it), not the 3 s its result reports as every attempt's."""
    first = CaseResult(run_id="r", case_id="s/flaky", name="f", file="x", platform="web",
                       status="failed", duration=1.0)
    retried = final_result([first, first.model_copy(update={"status": "passed", "attempt": 2,
                                                            "duration": 2.0})])
    assert retried.duration == 3.0
    history = DurationHistory(tmp_path / "state")
    history.record([retried])
    assert history.load() == {"web:s/flaky": [2.0]}
