"""farm_case_duration_seconds counts cases that ran on a device. A case a worker skipped
before its session (its first step needs a model, the worker has none) did not: `farm run`
skips it up front with no device, but the worker's result names its device, and the cluster
run put a 0 s sample in the duration histogram for each, pulling the dashboard's p50 / p95 of
cluster runs towards 0 where a local run of the same suite had none."""

from __future__ import annotations

from farm import metrics
from farm.results import CaseResult, StepRecord


def duration_count(status: str) -> float:
    for family in metrics.REGISTRY.collect():
        if family.name == "farm_case_duration_seconds":
            for sample in family.samples:
                if sample.name.endswith("_count") and sample.labels == {
                        "platform": "web", "status": status}:
                    return sample.value
    return 0.0


def result(*step_statuses: str, device: str | None = "fake-1@h") -> CaseResult:
    return CaseResult(run_id="r1", case_id="s/c", name="c", file="s/c.yaml", platform="web",
                      device=device, attempt=1, status="skipped", duration=0.001,
                      reason="needs a model (set FARM_MODEL): aiAssert at line 7",
                      steps=[StepRecord(task="t", index=n, kind="aiAssert", label="x",
                                        status=st) for n, st in enumerate(step_statuses, 1)])


def test_a_case_a_worker_skipped_before_its_session_has_no_duration_sample():
    before = duration_count("skipped")
    metrics.case_finished(result("skipped"))
    metrics.case_finished(result("skipped", device=None))        # as `farm run` skips it
    assert duration_count("skipped") == before


def test_a_case_skipped_after_steps_that_ran_has_no_duration_sample_either():
    """(A skipped case's time would pull the dashboard's p50 / p95 of real cases: none is
    observed, tests/unit/test_case_duration_skipped_s47dm.py.)"""
    before = duration_count("skipped")
    metrics.case_finished(result("passed", "skipped"))
    assert duration_count("skipped") == before
