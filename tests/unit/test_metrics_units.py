"""farm/metrics.py: each final case counted once (tokens of every attempt, agent rounds),
locate attempts by tier and result, screenshots, device gauges, the /metrics server and the
metrics.prom text file. Counters are process-global, so every test compares before/after."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from farm import metrics, pushgateway
from farm.agent.locator import default_chain
from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import LocateError
from farm.executors.base import NullEvents
from farm.executors.local import LocalExecutor
from farm.results import ArtifactStore, CaseResult, StepRecord
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from farm.usage import Usage


def value(name: str, **labels: str) -> float:
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def result(case: str, status: str = "passed", *, platform: str = "unit", device: str | None = "d1",
           usage: Usage | None = None, rounds: list[int | None] = (), attempt: int = 1,
           previous: list[CaseResult] = (), duration: float = 2.5) -> CaseResult:
    steps = [StepRecord(task="t", index=i + 1, kind="ai", label="x", rounds=r)
             for i, r in enumerate(rounds)]
    return CaseResult(run_id="r", case_id=case, name=case, file="f.yaml", platform=platform,
                      device=device, status=status, usage=usage, steps=steps, attempt=attempt,
                      previous=list(previous), duration=duration)


class Seen(NullEvents):
    def __init__(self) -> None:
        self.finals: list[str] = []

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        if final:
            self.finals.append(result.case_id)


def test_each_final_result_is_counted_once_with_the_tokens_of_every_attempt() -> None:
    before = {s: value("farm_cases_total", platform="unit", status=s)
              for s in ("passed", "flaky", "skipped")}
    prompt0 = value("farm_case_tokens_total", platform="unit", kind="prompt")
    cost0 = value("farm_case_cost_usd_total", platform="unit")
    iters0 = value("farm_agent_iterations_count", platform="unit")
    iters_sum0 = value("farm_agent_iterations_sum", platform="unit")
    dur0 = value("farm_case_duration_seconds_count", platform="unit", status="skipped")
    inner = Seen()
    tally = metrics.CaseMetrics(inner)
    failed = result("a", "failed", usage=Usage(prompt_tokens=100, completion_tokens=5,
                                              cost_usd=0.25, calls=1), rounds=[3])
    flaky = result("a", "flaky", attempt=2, previous=[failed], rounds=[2, None, 4],
                   usage=Usage(prompt_tokens=40, completion_tokens=2, cost_usd=0.5, calls=1))
    tally.case_finished("d1", failed, final=False)       # retried: not a case result yet
    tally.case_finished("d1", flaky, final=True)
    tally.case_finished("d1", result("b"), final=True)
    tally.count(result("b"), settling=True)               # the end-of-run pass: already counted
    tally.count(result("c", "skipped", device=None), settling=True)   # decided up front

    assert inner.finals == ["a", "b"]                     # events still reach the journal/view
    assert value("farm_cases_total", platform="unit", status="flaky") == before["flaky"] + 1
    assert value("farm_cases_total", platform="unit", status="passed") == before["passed"] + 1
    assert value("farm_cases_total", platform="unit", status="skipped") == before["skipped"] + 1
    assert value("farm_case_tokens_total", platform="unit", kind="prompt") == prompt0 + 140
    assert value("farm_case_cost_usd_total", platform="unit") == pytest.approx(cost0 + 0.75)
    # one observation per case with ai steps: the rounds of every attempt (3 + 2 + 4)
    assert value("farm_agent_iterations_count", platform="unit") == iters0 + 1
    assert value("farm_agent_iterations_sum", platform="unit") == iters_sum0 + 9
    assert value("farm_case_duration_seconds_count", platform="unit", status="skipped") == dur0


def test_agent_iterations_count_the_rounds_of_a_retried_cases_failed_attempts() -> None:
    """A case that ran 20 rounds, failed, and passed on its retry in 3 showed 3 on the
    iterations panel: the loops spent exactly when things went wrong were not there. A case
    whose only ai rounds were in an attempt before its last (the retry replayed a cached
    plan) is a case with ai steps too."""
    def histogram() -> dict[str, float]:
        return {k: value(f"farm_agent_iterations_{k}", platform="retried")
                for k in ("count", "sum")} | {
            "le=5": value("farm_agent_iterations_bucket", platform="retried", le="5.0")}

    before = histogram()
    tally = metrics.CaseMetrics(NullEvents())
    looped = result("r1", "failed", platform="retried", rounds=[20])
    tally.count(result("r1", "flaky", platform="retried", attempt=2, previous=[looped],
                       rounds=[3]))
    tally.count(result("r2", "passed", platform="retried", attempt=2, rounds=[None],
                       previous=[result("r2", "failed", platform="retried", rounds=[4])]))
    after = histogram()
    assert {k: after[k] - before[k] for k in after} == {"count": 2, "sum": 27, "le=5": 1}


def test_run_started_creates_the_case_series_at_zero() -> None:
    metrics.run_started({"fresh-platform"})
    for status in metrics.STATUSES:
        sample = metrics.REGISTRY.get_sample_value(
            "farm_cases_total", {"platform": "fresh-platform", "status": status})
        assert sample == 0.0


def tree() -> UITree:
    return UITree(source="dom", nodes=[
        UINode(id=0, role="button", text="Go", rect=Rect(x=10, y=10, width=50, height=20)),
        UINode(id=1, role="button", text="Stop", rect=Rect(x=10, y=40, width=50, height=20)),
        UINode(id=2, role="button", text="Stop", rect=Rect(x=10, y=70, width=50, height=20))])


def test_locate_attempts_by_tier_and_result() -> None:
    names = [("xpath", r) for r in ("hit", "miss", "error")] + \
            [("text", r) for r in ("hit", "miss", "error")]
    before = {n: value("farm_locate_attempts_total", tier=n[0], result=n[1]) for n in names}
    chain = default_chain()
    device = FakeDevice(tree())
    chain.locate("Go", device)                       # no XPath: that tier did not try
    with pytest.raises(LocateError):
        chain.locate("Stop", device)                 # ambiguous text
    with pytest.raises(Exception):
        chain.locate("Gone", device)                 # nothing similar
    after = {n: value("farm_locate_attempts_total", tier=n[0], result=n[1]) for n in names}
    delta = {n: after[n] - before[n] for n in names}
    assert delta == {("xpath", "hit"): 0, ("xpath", "miss"): 0, ("xpath", "error"): 0,
                     ("text", "hit"): 1, ("text", "miss"): 1, ("text", "error"): 1}


def test_a_model_tier_that_asks_nothing_is_not_counted(server) -> None:
    """A step without deepLocate never reaches the deep-locate tier's question (and one with it
    never the plain ai tier's): only the tier that asked the model counts an attempt, as the
    server's requests show."""
    from farm.agent.api import Agent
    from farm.llm.litellm_client import LiteLLMClient
    from farm.llm.models import ModelSet
    from tests.support.model_server import serve
    srv = serve(server, ['{"bbox": [], "error": "not on screen"}'])
    agent = Agent(FakeDevice(tree()),
                  ModelSet.single(LiteLLMClient("openai/scripted", base_url=srv.base_url)))
    names = [(t, r) for t in ("ai", "deep-locate") for r in ("hit", "miss", "error")]

    def counted() -> dict[tuple[str, str], float]:
        return {n: value("farm_locate_attempts_total", tier=n[0], result=n[1]) for n in names}

    for deep, asked, tier in ((False, "Find the element", "ai"),
                              (True, "Find the section", "deep-locate")):
        before, sent = counted(), len(srv.requests)
        with pytest.raises(LocateError):
            agent.ai_tap("the purple elephant", deep_locate=deep)
        delta = {n: v - before[n] for n, v in counted().items() if v != before[n]}
        assert delta == {(tier, "miss"): 1}, (deep, delta)
        [request] = srv.requests[sent:]
        assert asked in str(request["messages"])


def test_screenshots_count_real_captures_only() -> None:
    device = FakeDevice(tree(), size=(64, 48))
    platform = device.platform
    before = value("farm_screenshot_duration_seconds_count", platform=platform)
    grabber = ScreenshotGrabber(device, ttl=60)
    grabber.grab()
    grabber.grab()                                   # cached
    grabber.invalidate()
    grabber.grab()
    assert value("farm_screenshot_duration_seconds_count", platform=platform) == before + 2


def test_device_gauges_follow_the_slot_state() -> None:
    seen = []
    for state in ("starting", "idle", "busy", "quarantined"):
        metrics.device_state("unit", "phone-1", state)
        seen.append(tuple(value(f"farm_device_{g}", platform="unit", device="phone-1")
                          for g in ("busy", "healthy", "quarantined")))
    assert seen == [(0, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1)]


def test_metrics_prom_is_the_text_exposition_format(tmp_path: Path) -> None:
    metrics.build_info("run")
    metrics.CaseMetrics(NullEvents()).count(result("prom-case", platform="prom"))
    metrics.write_textfile(tmp_path / "metrics.prom")
    families = {f.name: f for f in text_string_to_metric_families(
        (tmp_path / "metrics.prom").read_text())}
    cases = [s for s in families["farm_cases"].samples if s.labels.get("platform") == "prom"]
    assert [(s.labels["status"], s.value) for s in cases] == [("passed", 1.0)]
    assert families["farm_build_info"].samples[0].labels["role"] == "run"
    assert not [n for n in families if n.endswith("_created")]


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_server_serves_metrics_health_and_readiness_and_scans_past_a_taken_port() -> None:
    ready = threading.Event()
    first = metrics.MetricsServer(0, "127.0.0.1")
    taken = first.start()
    second = metrics.MetricsServer(taken, "127.0.0.1", ready=ready.is_set, scan=20)
    try:
        port = second.start()
        assert taken < port < taken + 20
        base = f"http://127.0.0.1:{port}"
        assert get(base + "/healthz")[0] == 200
        assert get(base + "/ready")[0] == 503
        ready.set()
        assert get(base + "/ready")[0] == 200
        status, body = get(base + "/metrics")
        assert status == 200 and "farm_cases_total" in body
        with pytest.raises(OSError):
            metrics.MetricsServer(taken, "127.0.0.1").start()     # no scan: the port is taken
    finally:
        first.stop()
        second.stop()


def test_wait_for_scrape_waits_for_a_scrape_that_began_after_the_call() -> None:
    server = metrics.MetricsServer(0, "127.0.0.1")
    port = server.start()
    try:
        get(f"http://127.0.0.1:{port}/metrics")               # an earlier scrape does not count
        assert not server.wait_for_scrape(0.05)
        got: list[bool] = []
        waiter = threading.Thread(target=lambda: got.append(server.wait_for_scrape(30)))
        waiter.start()
        # scrape until the waiter (which may start late on a loaded machine) has seen one
        while waiter.is_alive():
            get(f"http://127.0.0.1:{port}/metrics")
            waiter.join(0.05)
        assert got == [True]
    finally:
        server.stop()


def _tcp_send_buffer_max() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    except (OSError, IndexError, ValueError):
        return 4 << 20


def test_a_scrape_counts_as_answered_only_once_its_body_is_written_out() -> None:
    """A batch job waits for one scrape of its final values, then exits: the scrape must have
    been written out by then, not only built (the server's threads die with the process)."""
    import socket

    from prometheus_client.core import GaugeMetricFamily

    # a body far larger than the socket's buffers can hold, so that the server can write it
    # out only as fast as this client reads it
    size = 4 * _tcp_send_buffer_max() + (16 << 20)
    label = "x" * 1000

    class Big:
        def collect(self):
            family = GaugeMetricFamily("farm_test_big", "a large scrape", labels=["n", "pad"])
            for n in range(size // 1000):
                family.add_metric([str(n), label], 1.0)
            yield family

    big = Big()
    metrics.REGISTRY.register(big)
    server = metrics.MetricsServer(0, "127.0.0.1")
    port = server.start()
    client = socket.socket()
    try:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", port))
        since = server.scrapes
        client.sendall(b"GET /metrics HTTP/1.0\r\nHost: farm\r\n\r\n")
        assert client.recv(1)                          # the body is built: it is being sent
        assert not server.wait_for_scrape(0.05, since=since)
        received = 1
        while chunk := client.recv(1 << 20):
            received += len(chunk)
        assert received > size
        assert server.wait_for_scrape(30, since=since)
    finally:
        client.close()
        metrics.REGISTRY.unregister(big)
        server.stop()


def test_background_evidence_captures_are_timed_once_when_their_image_arrives() -> None:
    device = FakeDevice(tree(), size=(64, 48))
    calls = []

    def capture_evidence():
        calls.append("start")
        return lambda: calls.append("image") or b"jpeg"
    device.capture_evidence = capture_evidence  # type: ignore[attr-defined]
    platform = device.platform
    before = value("farm_screenshot_duration_seconds_count", platform=platform)
    image = ScreenshotGrabber(device).capture_evidence()
    assert value("farm_screenshot_duration_seconds_count", platform=platform) == before
    assert image() == image() == b"jpeg"
    assert calls == ["start", "image"]
    assert value("farm_screenshot_duration_seconds_count", platform=platform) == before + 1


def test_push_sends_the_registry_to_the_pushgateway_api_with_basic_auth_from_the_url() -> None:
    import base64
    import socket
    from http.server import BaseHTTPRequestHandler, HTTPServer

    seen: list[tuple[str, str, str | None, bytes]] = []

    class Gateway(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((self.command, self.path, self.headers.get("Authorization"), body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass
    server = HTTPServer(("127.0.0.1", 0), Gateway)
    threading.Thread(target=server.handle_request, daemon=True).start()
    try:
        pushgateway.push(f"http://ci:p%40ss@127.0.0.1:{server.server_address[1]}")
    finally:
        server.server_close()
    [(method, path, auth, body)] = seen
    assert (method, path) == ("PUT", f"/metrics/job/farm_run/instance/{socket.gethostname()}")
    assert auth == "Basic " + base64.b64encode(b"ci:p@ss").decode()
    assert b"farm_cases_total" in body


def test_each_push_sends_running_totals_so_prometheus_sees_the_counts_go_up(tmp_path) -> None:
    """The gateway replaces a group's values at every push: two nightly runs of 2 passed cases
    each pushed "2" twice, which increase() reads as no increase. With the totals kept in the
    state dir, the second push says 4 (here: the first push's values plus this process's)."""
    from http.server import BaseHTTPRequestHandler, HTTPServer

    bodies: list[bytes] = []

    class Gateway(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.end_headers()

        def do_GET(self) -> None:          # /metrics: a gateway that holds no group yet
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    def passed(body: bytes) -> float:
        return next(s.value for f in text_string_to_metric_families(body.decode())
                    for s in f.samples if s.name == "farm_cases_total"
                    and s.labels == {"platform": "web", "status": "passed"})
    server = HTTPServer(("127.0.0.1", 0), Gateway)
    url = f"http://ci:secret@127.0.0.1:{server.server_address[1]}"
    totals = tmp_path / "pushed-metrics.json"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        for _ in range(2):
            metrics.CASES.labels("web", "passed").inc(2)
            pushgateway.push(url, totals=totals)
    finally:
        server.shutdown()
        server.server_close()
    here = value("farm_cases_total", platform="web", status="passed")
    first, second = passed(bodies[0]), passed(bodies[1])
    assert first == here - 2                 # the first push: this process's count then
    assert second == first + here            # the second: what was pushed before, plus it
    assert "secret" not in totals.read_text()


def test_the_queue_depth_counts_waiting_jobs_and_the_last_scrape_keeps_each_queue_at_zero(
        tmp_path: Path) -> None:
    """A run's final scrape (which `farm run --metrics-port` waits for) still has a series for
    every queue of the run, at 0: a dashboard shows an empty queue, not "no data"."""
    def depth() -> dict[str, float]:
        return {s.labels["queue"]: s.value
                for f in text_string_to_metric_families(metrics.exposition().decode())
                if f.name == "farm_queue_depth" for s in f.samples}

    cases = {f"s/c{i}": Case(id=f"s/c{i}", name=f"c{i}", file=Path(f"/tmp/c{i}.yaml"),
                             suite_root=Path("/tmp"), platform="web",
                             web=WebTarget(url="http://127.0.0.1:1/"),
                             tasks=[Task(name="t", steps=[Step(kind="assertText", value="ok")])])
             for i in range(3)}
    screen = UITree(source="dom", page_text="ok", nodes=[])
    ex = LocalExecutor([FakeDevice(screen)], cases, Services(
        settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r", env={}),
        RetryPolicy())

    seen: list[dict[str, float]] = []

    class Watch(NullEvents):
        def case_started(self, device: str, case_id: str, name: str, attempt: int,
                         started: str = "") -> None:
            seen.append(depth())

    metrics.watch_queue(ex.queued)
    try:
        ex.run([Job(c, "web", 1.0) for c in cases], Watch())
    finally:
        metrics.watch_queue(None)
    assert seen == [{"web": 2}, {"web": 1}, {"web": 0}]   # one device: the rest wait
    assert depth() == {"web": 0}


def test_a_run_the_broker_refuses_counts_and_pushes_no_case(monkeypatch, capsys, tmp_path) -> None:
    """A `farm run` whose broker is not there (or refuses its password) ran no case: its
    cases are listed in results.json as errors "not run", but metrics.prom and the push held
    them as `farm_cases_total{status="error"}`, so FarmInfraErrorRate and the pass-rate
    alerts fired for one CI job's wrong broker URL."""
    import json

    from tests.support.farm_cli import run_main
    from tests.support.redis_server import free_port
    monkeypatch.chdir(tmp_path)
    for var in ("FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_MODEL", "FARM_PUSHGATEWAY_URL"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "s").mkdir()
    for name in ("one", "two"):
        (tmp_path / "s" / f"{name}.yaml").write_text(
            "web:\n  url: http://127.0.0.1:9/\ntasks:\n  - name: t\n    flow:\n"
            "      - sleep: 1\n")
    before = {s: value("farm_cases_total", platform="web", status=s) for s in metrics.STATUSES}
    monkeypatch.setenv("FARM_CLUSTER_OUTAGE_SECONDS", "1")     # (waited for, then exit 3)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--no-progress", "--report-dir",
                              "r", "--broker", f"redis://127.0.0.1:{free_port()}/0")
    assert code == 3 and "cannot reach the broker" in err, out + err
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert [(c["status"], c["reason"]) for c in results["cases"]] == [("error", "not run")] * 2
    after = {s: value("farm_cases_total", platform="web", status=s) for s in metrics.STATUSES}
    assert after == before
    written = {s.labels["status"]: s.value for f in text_string_to_metric_families(
        (tmp_path / "r" / "metrics.prom").read_text()) for s in f.samples
        if s.name == "farm_cases_total" and s.labels["platform"] == "web"}
    assert written.get("error", 0.0) == before["error"]


def test_a_shared_context_unit_is_counted_as_its_files_once() -> None:
    """A batch of 2 files run as one unit counted 3 cases: the unit's result while the run
    lasted, then its 2 files at the end (the run's results); its tokens were its worst
    file's only."""
    from farm.shared_context import files_of
    before = value("farm_cases_total", platform="units", status="passed")
    prompt0 = value("farm_case_tokens_total", platform="units", kind="prompt")
    a = result("b/a", platform="units", usage=Usage(prompt_tokens=100, calls=1))
    b = result("b/b", platform="units", usage=Usage(prompt_tokens=30, calls=1))
    unit = result("b/index", platform="units", usage=a.usage).model_copy(
        update={"parts": [a, b]})
    tally = metrics.CaseMetrics(NullEvents())
    tally.case_finished("d1", unit, final=True)
    for file in files_of(unit):                 # the end-of-run pass over the run's results
        tally.count(file, settling=True)
    assert value("farm_cases_total", platform="units", status="passed") == before + 2
    assert value("farm_case_tokens_total", platform="units", kind="prompt") == prompt0 + 130


def test_a_matrix_runs_unit_is_counted_as_its_row() -> None:
    """--matrix keeps a unit's result whole in the run's results (one row per device group):
    counted as that row, as the report counts it, not as files of every group."""
    before = value("farm_cases_total", platform="matrix-units", status="passed")
    files = [result(f"b/{n}", platform="matrix-units") for n in ("a", "b", "c")]
    tally = metrics.CaseMetrics(NullEvents())
    for group in ("g1", "g2"):
        row = result(f"b/index@{group}", platform="matrix-units").model_copy(
            update={"parts": files})
        tally.case_finished("d1", row, final=True)
        tally.count(row, settling=True)
    assert value("farm_cases_total", platform="matrix-units", status="passed") == before + 2
