"""A run's push while it lasts replaces what its last push carried: the end's push, after
any number of them, is what a push at the end alone would have been."""

from __future__ import annotations

from prometheus_client.metrics import MetricWrapperBase

from farm import metrics, pushgateway

PASSED = pushgateway._key("farm_cases_total", {"platform": "web", "status": "passed"})
FAILED = pushgateway._key("farm_cases_total", {"platform": "web", "status": "failed"})


def _pushed(before: dict[str, float], counted: dict[str, float] | None = None
            ) -> pushgateway._Carried:
    carried = pushgateway._Carried(before, counted=counted)
    list(carried.collect())
    return carried


def test_pushes_while_a_run_lasts_count_its_cases_once():
    for metric in vars(metrics).values():     # as in a `farm run` process just started
        if isinstance(metric, MetricWrapperBase) and metric._labelnames:
            metric.clear()
    earlier = {PASSED: 7.0, FAILED: 2.0}       # the host's totals before this run
    metrics.CASES.labels("web", "passed").inc()
    first = _pushed(earlier)                   # a period: 7 + 1
    assert first.pushed[PASSED] == 8
    metrics.CASES.labels("web", "passed").inc()
    metrics.CASES.labels("web", "failed").inc()
    # the next period reads the totals back (8 passed: this run's 1 among them)
    second = _pushed(first.pushed, counted=first.own_counts)
    assert (second.pushed[PASSED], second.pushed[FAILED]) == (9, 3)
    end = _pushed(second.pushed, counted=second.own_counts)
    assert end.pushed == _pushed(earlier).pushed      # as the end's push alone
