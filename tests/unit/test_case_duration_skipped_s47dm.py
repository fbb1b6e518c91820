"""farm_case_duration_seconds ("cases that ran on a device; none skipped"): a case skipped
part-way on its device (its steps reached one that needs a model: 1.1 s of a case that never
ran to its end) has no sample, so the dashboard's p50 / p95 are not pulled down by it; one
that passed on the same device has its sample."""

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


def result(status: str, reason: str | None, *steps: tuple[str, str]) -> CaseResult:
    return CaseResult(run_id="r1", case_id="s/mug", name="AI agent shops for a mug",
                      file="s/mug.yaml", platform="web", device="browser-2", attempt=1,
                      status=status, duration=1.104, reason=reason,
                      steps=[StepRecord(task="t", index=n, kind=kind, label="x", status=st)
                             for n, (kind, st) in enumerate(steps, 1)])


def test_a_case_skipped_part_way_on_its_device_has_no_duration_sample():
    before = duration_count("skipped")
    metrics.case_finished(result("skipped", "needs a model (set FARM_MODEL): ai at line 15",
                                 ("aiInput", "passed"), ("ai", "skipped"),
                                 ("assertText", "skipped")))
    assert duration_count("skipped") == before


def test_a_case_that_passed_on_its_device_has_its_sample():
    before = duration_count("passed")
    metrics.case_finished(result("passed", None, ("aiInput", "passed"), ("ai", "passed")))
    assert duration_count("passed") == before + 1
