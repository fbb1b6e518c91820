"""Two `farm run --pushgateway` of one host at the same time (CI jobs of the cluster path on
one runner machine). The gateway holds one group per host, and each push carries the host's
running totals, read back from the gateway: runs that overlap add up rather than overwrite
each other. The one way a run's counts were lost was two pushes at the same moment (both
read the totals, both pushed their own on top: the second push said the first's counts were
never there); the host's farm processes now push to a group one at a time."""

from __future__ import annotations

import logging
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from prometheus_client.metrics import MetricWrapperBase

from farm import metrics, pushgateway
from tests.support.farm_cli import PLUGIN, FarmCli, wait_for
from tests.support.prometheus import Pushgateway
from tests.support.suites import write_case

PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))


@pytest.fixture
def gateway(tmp_path: Path):
    gateway = Pushgateway(tmp_path / "gateway").start()
    yield gateway
    gateway.stop()


def test_two_overlapping_runs_of_one_host_both_count(gateway: Pushgateway,
                                                     tmp_path: Path) -> None:
    """Run A and run B start, A ends, B ends (two CI runners: two state dirs): the gateway
    says 2 passed, not B's 1."""
    runs = {}
    for name in ("a", "b"):
        cli = FarmCli(tmp_path / name)
        suite = tmp_path / f"suite-{name}"
        write_case(suite, "held", [f"javascript: farm-test:wait-for:{tmp_path / f'go-{name}'}"])
        runs[name] = (cli, cli.start("run", suite, "--devices", "fake:1", "--report-dir",
                                     tmp_path / f"run-{name}", "--pushgateway", gateway.url,
                                     FARM_DEVICE_PLUGINS=PLUGIN))
    try:
        for name, (_, proc) in runs.items():
            proc.wait_for_line(f"start suite-{name}/held")
        wait_for(lambda: gateway.held("farm_run").get(PASSED) == 0, 60, "the baselines")
        for name, (_, proc) in runs.items():
            (tmp_path / f"go-{name}").touch()
            out = proc.finish()
            assert proc.returncode == 0, out
    finally:
        for cli, _ in runs.values():
            cli.close()
    assert gateway.held("farm_run")[PASSED] == 2


class _Proxy(BaseHTTPRequestHandler):
    """In front of the gateway: the first read of its totals (GET /metrics) is taken from
    the gateway at once and answered only when ``release`` is set, as a slow network would;
    the second read sets it (two pushes at once); everything else passes through."""

    target = ""
    first_read = threading.Event()
    release = threading.Event()

    def do_GET(self) -> None:          # noqa: N802 - http.server's names
        with urllib.request.urlopen(self.target + self.path) as reply:
            body = reply.read()
        if not self.first_read.is_set():
            self.first_read.set()
            self.release.wait(60)
        else:
            self.release.set()
        self._answer(200, body)

    def do_PUT(self) -> None:          # noqa: N802
        data = self.rfile.read(int(self.headers["Content-Length"]))
        request = urllib.request.Request(self.target + self.path, data=data, method="PUT",
                                         headers={"Content-Type": self.headers["Content-Type"]})
        with urllib.request.urlopen(request) as reply:
            self._answer(reply.status, b"")

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Waiting(logging.Handler):
    """Sets ``release`` when a push says it waits for another process's."""

    def __init__(self, release: threading.Event) -> None:
        super().__init__(logging.DEBUG)
        self.waits = release        # (not `release`: a Handler's own method)

    def emit(self, record: logging.LogRecord) -> None:
        if "is pushing to" in record.getMessage():
            self.waits.set()


def test_two_pushes_at_the_same_moment_both_count(gateway: Pushgateway,
                                                  tmp_path: Path) -> None:
    """Push A has read the totals (0) and is slow to push; push B starts. B either reads the
    totals as well (then both push 0 + 1: one run lost) or waits for A (then 1 + 1)."""
    for metric in vars(metrics).values():     # as in a `farm run` process just started
        if isinstance(metric, MetricWrapperBase) and metric._labelnames:
            metric.clear()
    metrics.CASES.labels("web", "passed").inc()              # each "run" passed one case
    handler = type("Proxy", (_Proxy,), {"target": gateway.url, "first_read": threading.Event(),
                                        "release": threading.Event()})
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{proxy.server_address[1]}"
    logger = logging.getLogger("farm.metrics")
    waiting, level = _Waiting(handler.release), logger.level
    logger.addHandler(waiting)
    logger.setLevel(logging.DEBUG)
    pushes = [threading.Thread(target=pushgateway.push, args=(url,),
                               kwargs={"totals": tmp_path / f"runner-{i}" / "totals.json"})
              for i in (1, 2)]
    try:
        pushes[0].start()
        assert handler.first_read.wait(60)
        pushes[1].start()
        for push in pushes:
            push.join(60)
    finally:
        logger.removeHandler(waiting)
        logger.setLevel(level)
        handler.release.set()
        proxy.shutdown()
        proxy.server_close()
    assert gateway.held("farm_run")[PASSED] == 2
