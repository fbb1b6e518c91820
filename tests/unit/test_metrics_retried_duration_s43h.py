"""farm_case_duration_seconds is "Duration of a case's final attempt" (its HELP): a case that
failed, was retried and failed again took 5.2 s in its last attempt and 10.5 s in all; the
dashboard's p50 / p95 read the 10.5 s (every attempt summed), twice what the history page's
"Slowest cases" and results.json's `attempt_duration` say of it."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from farm import metrics
from farm.results import CaseResult, final_result


def _attempt(n: int, seconds: float) -> CaseResult:
    return CaseResult(run_id="r", case_id="nightly/wrong_total", name="Wrong total",
                      file="nightly/wrong_total.yaml", platform="s43h", device="browser-1",
                      attempt=n, status="failed", duration=seconds)


def _in_metrics_prom(name: str) -> float:
    """A sample of ``name`` (platform s43h, status failed) as metrics.prom says it."""
    for family in text_string_to_metric_families(metrics.exposition().decode()):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("platform") == "s43h" \
                    and sample.labels.get("status") == "failed":
                return sample.value
    return 0.0


def test_a_retried_case_is_one_sample_of_its_last_attempts_own_time() -> None:
    case = final_result([_attempt(1, 5.287), _attempt(2, 5.202)])
    assert (case.duration, case.attempt_duration) == (10.489, 5.202)   # results.json's
    sum0 = _in_metrics_prom("farm_case_duration_seconds_sum")
    count0 = _in_metrics_prom("farm_case_duration_seconds_count")
    metrics.case_finished(case)
    assert _in_metrics_prom("farm_case_duration_seconds_count") == count0 + 1
    assert round(_in_metrics_prom("farm_case_duration_seconds_sum") - sum0, 3) == 5.202


def test_a_case_run_once_is_its_duration() -> None:
    sum0 = _in_metrics_prom("farm_case_duration_seconds_sum")
    metrics.case_finished(final_result([_attempt(1, 3.25)]))
    assert round(_in_metrics_prom("farm_case_duration_seconds_sum") - sum0, 3) == 3.25
