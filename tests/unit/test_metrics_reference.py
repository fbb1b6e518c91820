"""The metric contract Grafana dashboards and alert rules are written against (REFERENCE.md §9):
every listed metric in metrics.prom with that name, type and those labels only, and series that
stay as many however many cases a run has, whatever its case ids, model or device names say."""

from __future__ import annotations

from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from farm import metrics
from farm.config import Settings
from farm.executors.base import NullEvents
from farm.llm.families import FAMILIES
from farm.llm.models import configured_families
from farm.results import CaseResult, StepRecord
from farm.usage import Usage

# REFERENCE.md §9 (family name as the parser gives it: a counter's without `_total`)
REFERENCE = {
    "farm_cases": ("counter", {"platform", "status"}),
    "farm_case_duration_seconds": ("histogram", {"platform", "status"}),
    "farm_agent_iterations": ("histogram", {"platform"}),
    "farm_model_requests": ("counter", {"family", "outcome"}),
    "farm_model_request_duration_seconds": ("histogram", {"family"}),
    "farm_model_tokens": ("counter", {"family", "kind"}),
    "farm_model_cost_usd": ("counter", {"family"}),
    "farm_locate_attempts": ("counter", {"tier", "result"}),
    "farm_screenshot_duration_seconds": ("histogram", {"platform"}),
    "farm_cache_requests": ("counter", {"cache", "result"}),
    "farm_device_busy": ("gauge", {"platform", "device"}),
    "farm_device_healthy": ("gauge", {"platform", "device"}),
    "farm_queue_depth": ("gauge", {"queue"}),
    "farm_build_info": ("gauge", {"version", "role"}),
}
LONG = "x" * 300


def case(n: int, status: str = "passed") -> CaseResult:
    """A case of a big suite: its own id, a long name, a retried ai attempt before it."""
    cid = f"suites/checkout/{LONG}-{n}.yaml"
    steps = [StepRecord(task="t", index=1, kind="ai", label=LONG, rounds=3)]
    first = CaseResult(run_id=f"run-{n}", case_id=cid, name=LONG, file=cid, platform="web",
                       device="d", status="failed", steps=steps, usage=Usage(prompt_tokens=9))
    return CaseResult(run_id=f"run-{n}", case_id=cid, name=LONG, file=cid, platform="web",
                      device="d", status=status, steps=steps, previous=[first],
                      usage=Usage(prompt_tokens=5, completion_tokens=2), duration=42.0)


def families(tmp_path: Path) -> dict:
    metrics.write_textfile(tmp_path / "metrics.prom")
    text = (tmp_path / "metrics.prom").read_text()
    return {f.name: f for f in text_string_to_metric_families(text)}


def series(found: dict) -> set[tuple]:
    return {(s.name, tuple(sorted(s.labels.items()))) for f in found.values() for s in f.samples}


def record_run(first: int, n: int, model: str, device: str) -> None:
    """One run's events as the process running it records them."""
    metrics.build_info("run")
    metrics.run_started({"web"})
    [family] = configured_families(Settings(model=model))
    metrics.device_state("web", device, "busy")
    tally = metrics.CaseMetrics(NullEvents())
    for i in range(first, first + n):
        metrics.model_request(family, "ok", 1.5, Usage(prompt_tokens=5, completion_tokens=2))
        metrics.model_request(family, "error", 0.2)
        metrics.locate_attempt("text", "hit")
        metrics.cache_request("locate", "miss")
        metrics.screenshot("web", 0.03)
        tally.count(case(i, ("passed", "failed", "error", "flaky")[i % 4]))


def test_metrics_prom_has_each_reference_metric_with_its_type_and_labels_only(tmp_path):
    record_run(0, 4, "openai/gpt-4o", "browser-1")
    source, final = metrics.QUEUE.source, metrics.QUEUE.final
    metrics.watch_queue(lambda: {"web": 3})          # a run's executor, while it runs
    try:
        found = families(tmp_path)
    finally:
        metrics.QUEUE.source, metrics.QUEUE.final = source, final
    got = {name: (f.type, {k for s in f.samples for k in s.labels} - {"le"})
           for name, f in found.items() if name in REFERENCE}
    assert got == REFERENCE
    for name, f in found.items():     # counters alone end in _total; no ms, no kilobytes
        assert name.startswith("farm_")
        assert not name.endswith(("_ms", "_milliseconds", "_kb", "_mb", "_bytes_total"))
        assert all(s.name.endswith("_total") == (f.type == "counter") for s in f.samples
                   if not s.name.endswith(("_bucket", "_count", "_sum"))), name


def test_a_bigger_suite_long_model_and_user_device_names_add_no_series(tmp_path):
    """A run of 4 cases, then one of 200 more (ids, names and run ids all new, 300 chars
    long), a long model string from a user: the same series, no label carrying any of it."""
    long_model = f"openai/my-org-finetuned-{LONG}-2025-06-01"
    record_run(0, 4, long_model, "browser-1")
    before = series(families(tmp_path))
    record_run(4, 200, long_model, "browser-1")
    after = series(families(tmp_path))
    assert after == before
    values = {v for _, labels in after for _, v in labels}
    assert not [v for v in values if LONG in v or "run-" in v or "/" in v]
    assert configured_families(Settings(model=long_model)) <= set(FAMILIES)


def test_histogram_buckets_fit_what_they_measure() -> None:
    """A case takes seconds to minutes, a screenshot tens of ms, an agent 1-40 rounds (100
    for AutoGLM), a model request a fraction of a second to a minute or two."""
    def bounds(histogram) -> list[float]:
        return [b for b in histogram._upper_bounds if b != float("inf")]
    case_s = bounds(metrics.CASE_DURATION)
    assert case_s[0] <= 2 and 600 <= case_s[-1] and len([b for b in case_s if b <= 300]) >= 6
    shot = bounds(metrics.SCREENSHOT_DURATION)
    assert shot[0] <= 0.01 and len([b for b in shot if b <= 0.1]) >= 3 and shot[-1] >= 2
    rounds = bounds(metrics.AGENT_ITERATIONS)
    assert rounds[0] == 1 and {20, 40, 100} <= set(rounds)
    model = bounds(metrics.MODEL_DURATION)
    assert model[0] <= 0.25 and model[-1] >= 60
