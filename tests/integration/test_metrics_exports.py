"""A `farm run`'s metrics as the real Pushgateway and node_exporter take them: running totals
that never go down or leave the gateway whatever a run did not produce, totals that continue
from the gateway on a new state dir (a CI runner's), a metrics.prom node_exporter's textfile
collector reads without errors, and the test harness's own gateways starting empty.

Each "run" is the metrics of one `farm run` process: the registry is emptied first, as in a
process that has just started, then the run's events are recorded and pushed."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from prometheus_client.metrics import MetricWrapperBase

from farm import metrics, pushgateway
from tests.support.farm_cli import PLUGIN, FarmCli, wait_for
from tests.support.prometheus import NodeExporter, Pushgateway
from tests.support.suites import write_case

HITS = ("farm_locate_attempts_total", (("result", "hit"), ("tier", "text")))


def shots(platform: str, suffix: str = "count", le: str | None = None) -> tuple:
    labels = (("le", le),) if le else ()
    return (f"farm_screenshot_duration_seconds_{suffix}", labels + (("platform", platform),))


PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))


def new_process() -> None:
    """The registry as a `farm run` process that has just started has it: no series yet."""
    for metric in vars(metrics).values():
        if isinstance(metric, MetricWrapperBase) and metric._labelnames:
            metric.clear()


def run(passed: int, text_hits: int = 0, web_shots: int = 0, android_shots: int = 0) -> None:
    """One run's events: cases passed, text-tier hits, screenshots (0.3 s web, 0.03 s
    android). A cluster run has no hits or screenshots: its workers have them."""
    new_process()
    metrics.run_started({"web"})
    metrics.CASES.labels("web", "passed").inc(passed)
    for _ in range(text_hits):
        metrics.locate_attempt("text", "hit")
    for _ in range(web_shots):
        metrics.screenshot("web", 0.3)
    for _ in range(android_shots):
        metrics.screenshot("android", 0.03)


def saved(totals: Path, name: str, labels: tuple) -> float:
    """A sample's total in the state dir's file (keyed: name + its sorted labels as JSON)."""
    [group] = json.loads(totals.read_text()).values()
    return group[name + json.dumps(labels)]


@pytest.fixture
def gateway(tmp_path: Path):
    gateway = Pushgateway(tmp_path).start()
    yield gateway
    gateway.stop()


def test_a_series_a_run_does_not_produce_keeps_its_total_at_the_gateway(
        gateway: Pushgateway, tmp_path: Path) -> None:
    """The auditor's sequence: a local run pushed 59 text hits, a cluster run from the same
    host pushed none of its own (its workers located), the next local run 59 more. The
    gateway must say 59, 59, 118 — the series never leaves it, so increase() sees the 59."""
    totals = tmp_path / "state" / "pushed-metrics.json"
    run(passed=3, text_hits=59, web_shots=2, android_shots=1)         # local
    pushgateway.push(gateway.url, totals=totals)
    assert gateway.held("farm_run")[HITS] == 59
    run(passed=2)                                                     # cluster
    pushgateway.push(gateway.url, totals=totals)
    held = gateway.held("farm_run")
    assert (held[HITS], held[PASSED]) == (59, 5)
    assert (held[shots("web")], held[shots("android")]) == (2, 1)
    assert held[shots("android", "bucket", "0.05")] == held[shots("android", "bucket", "+Inf")]
    assert saved(totals, *HITS) == 59
    run(passed=1, text_hits=59, web_shots=1)                          # local again
    pushgateway.push(gateway.url, totals=totals)
    held = gateway.held("farm_run")
    assert (held[HITS], held[PASSED]) == (118, 6)
    assert (held[shots("web")], held[shots("android")]) == (3, 1)
    assert saved(totals, *HITS) == 118


def test_a_new_state_dir_continues_from_the_totals_at_the_gateway(
        gateway: Pushgateway, tmp_path: Path) -> None:
    """CI runners start with an empty state dir: the second runner's push continues from what
    this host's group holds at the gateway instead of starting the totals again (which
    Prometheus would read as a counter reset)."""
    run(passed=2, text_hits=59, web_shots=2)
    pushgateway.push(gateway.url, totals=tmp_path / "runner-1" / "pushed-metrics.json")
    run(passed=1, text_hits=59, web_shots=1)
    pushgateway.push(gateway.url, totals=tmp_path / "runner-2" / "pushed-metrics.json")
    held = gateway.held("farm_run")
    assert (held[HITS], held[PASSED]) == (118, 3)
    # every bucket carried, whichever way its bound is written ("1" by the gateway, "1.0"
    # by prometheus_client): 0.3 s is under 0.5, 1, 2, 5 and +Inf
    assert [held[shots("web", "bucket", le)] for le in ("0.25", "0.5", "1", "5", "+Inf")] == \
        [0, 3, 3, 3, 3]
    assert held[shots("web", "sum")] == pytest.approx(0.9)


def test_a_hosts_first_run_pushes_its_zero_baseline_before_its_cases_end(
        gateway: Pushgateway, tmp_path: Path, farm: FarmCli) -> None:
    """`increase()` counts from a series' second sample: a host's first run, pushed only at
    its end (passed = 1), was not counted at all. `farm run --pushgateway` pushes the totals
    so far (0 here) when it starts, so Prometheus has the base while the run lasts."""
    gate = tmp_path / "go"
    suite = tmp_path / "s"
    write_case(suite, "held", [f"javascript: farm-test:wait-for:{gate}"])
    proc = farm.start("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                      tmp_path / "run", "--pushgateway", gateway.url, FARM_DEVICE_PLUGINS=PLUGIN)
    wait_for(lambda: gateway.held("farm_run").get(PASSED) == 0, 120,
             "the run's baseline at the gateway")
    gate.touch()                                # only now may the case end
    out = proc.finish()
    assert proc.returncode == 0, out
    assert gateway.held("farm_run")[PASSED] == 1


def test_node_exporter_reads_metrics_prom_without_errors(tmp_path: Path) -> None:
    """node_exporter has process_* of its own: a textfile with a farm process's process_*
    made it log "was collected before" on every scrape and drop them."""
    textfiles = tmp_path / "textfile"
    textfiles.mkdir()
    run(passed=2)
    metrics.write_textfile(textfiles / "farm.prom")
    exporter = NodeExporter(tmp_path, textfiles).start()
    try:
        scraped = exporter.exposition()
    finally:
        exporter.stop()
    assert 'farm_cases_total{platform="web",status="passed"} 2' in scraped
    assert "node_textfile_scrape_error 0" in scraped
    assert "error" not in exporter.log().lower(), exporter.log()


def test_each_harness_gateway_starts_empty(tmp_path: Path) -> None:
    """A gateway tests/support starts holds no group another one held (Debian's default
    persistence file would carry them over, and share them between tests running at once)."""
    job = f"farm_harness_{uuid.uuid4().hex[:8]}"
    first = Pushgateway(tmp_path / "first").start()
    try:
        run(passed=1)
        pushgateway.push(first.url, job=job)
        assert first.held(job)
    finally:
        first.stop()                 # a gateway with a persistence file writes it as it stops
    second = Pushgateway(tmp_path / "second").start()
    try:
        assert second.held(job) == {}
    finally:
        second.stop()


def test_a_pushgateway_that_does_not_answer_is_one_warning_in_words(
        tmp_path: Path, farm: FarmCli) -> None:
    """A gateway that is down made three log lines (the totals it could not read, twice, the
    baseline it could not push) before the warning, in urllib's words ("<urlopen error [Errno
    111] Connection refused>"). Now one warning; the run passes and its report is written."""
    import socket
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    with socket.socket() as bound:       # bound, not listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{bound.getsockname()[1]}"
        proc = farm.run("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                        tmp_path / "run", "--pushgateway", url, FARM_DEVICE_PLUGINS=PLUGIN)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "ushgateway" in line or "push" in line]
    kept = tmp_path / "state" / "pushed-metrics.json"     # (the farm fixture's state dir)
    assert said == [f"farm: warning: could not push metrics to {url}: connection refused (this "
                    f"run's counts are kept in {kept} and pushed with the next run that "
                    f"reaches it)"], proc.stderr
    assert "unpushed" in json.loads(kept.read_text()), "the warning said they were kept"
    assert (tmp_path / "run" / "report.html").exists()
