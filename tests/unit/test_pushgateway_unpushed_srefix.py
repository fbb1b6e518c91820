"""A Pushgateway down at a run's end lost that run's counts for good (68 -> 70 after 4 passed
cases, 2 of them run while it was down): they are kept in the totals file and the next push
that gets through, a later run's, adds them."""

from __future__ import annotations

import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.parser import text_string_to_metric_families

from farm import metrics, pushgateway


class _Gateway(BaseHTTPRequestHandler):
    pushed: list[str] = []

    def do_GET(self) -> None:          # noqa: N802 - the host's group holds nothing yet
        self.send_response(200)
        self.end_headers()

    def do_PUT(self) -> None:          # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.pushed.append(body.decode())
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _fresh_run() -> None:
    """As in a `farm run` process just started."""
    for metric in vars(metrics).values():
        if isinstance(metric, MetricWrapperBase) and metric._labelnames:
            metric.clear()
    pushgateway._RUN[0] = f"run-{os.urandom(6).hex()}"   # (an id() is reused)


def _passed(body: str) -> float:
    return next(s.value for f in text_string_to_metric_families(body) for s in f.samples
                if s.name == "farm_cases_total" and s.labels.get("status") == "passed")


def test_counts_of_a_run_whose_push_failed_go_with_the_next_run(tmp_path):
    totals = tmp_path / "pushed-metrics.json"
    _fresh_run()
    metrics.CASES.labels("web", "passed").inc(2)
    with socket.socket() as bound:       # bound, not listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{bound.getsockname()[1]}"
        try:
            pushgateway.push(down, totals=totals, timeout=2, counted={})
        except OSError:
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gateway)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # the same gateway back (the group is the URL: a gateway of the same address)
        (totals.with_suffix(".moved")).write_text(totals.read_text().replace(
            down, f"http://127.0.0.1:{server.server_address[1]}"))
        totals.with_suffix(".moved").replace(totals)
        _fresh_run()
        metrics.CASES.labels("web", "passed").inc(2)
        pushgateway.push(f"http://127.0.0.1:{server.server_address[1]}", totals=totals,
                         timeout=5, counted={})
    finally:
        server.shutdown()
        _fresh_run()
    assert _passed(_Gateway.pushed[-1]) == 4      # both runs' cases, not the last run's 2
    assert pushgateway.UNPUSHED not in totals.read_text()    # added once, not again


def test_a_push_failing_while_the_run_goes_on_keeps_nothing(tmp_path):
    """A failed push of a run still going kept its counts too; another run's push then added
    them and this run's next push its own counts again: counted twice. Only the end keeps."""
    totals = tmp_path / "pushed-metrics.json"
    _fresh_run()
    metrics.CASES.labels("web", "passed").inc(2)
    with socket.socket() as bound:       # bound, not listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{bound.getsockname()[1]}"
        pushes = pushgateway.RunPushes(down, totals, timeout=2)    # (its baseline alone)
        pushes._thread.join()
        pushes._push(baseline=False)        # a period's push, the run going on
    assert isinstance(pushes.error, OSError)
    assert pushgateway.UNPUSHED not in pushgateway._read_totals(totals)
