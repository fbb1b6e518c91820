"""`farm run --pushgateway` and a gateway that is slow or silent (it accepts the connection
and never answers: a hung gateway process, a proxy in front of a dead one). The run's first
case waited for the push of its baseline (up to the 10 s request timeout, silent) before it
started; now that push goes in the background, the end of the run never waits twice for
the same silent gateway, and its failure is one warning in words, no traceback. A baseline
that reaches the gateway after a case ended does not make the end's push count it twice."""

from __future__ import annotations

import errno
import json
import socket
import threading
from pathlib import Path

import pytest

from prometheus_client.metrics import MetricWrapperBase

from farm import metrics, pushgateway
from tests.support.farm_cli import PLUGIN, FarmCli
from tests.support.prometheus import Pushgateway
from tests.support.suites import write_case


# the push's request timeout (FARM_PUSHGATEWAY_TIMEOUT) in these runs: longer than a one-case
# fake run takes to reach its first case (or its end) on a busy machine
SLOW_GATEWAY_S = 60
SILENT_S = 20


class SilentGateway:
    """A TCP server that accepts every connection, reads the request, and never answers."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.requested = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return              # closed
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                request += chunk
            self.held.append(conn)
            self.requested.set()

    def still_waiting(self, conn: socket.socket) -> bool:
        """Whether the client of ``conn`` still waits for its answer (has not given up and
        closed the connection)."""
        try:
            return conn.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) != b""
        except OSError as exc:
            return exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK)

    def close(self) -> None:
        try:        # (close alone leaves a blocked accept() taking connections, on Linux)
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        for conn in self.held:
            try:
                conn.shutdown(socket.SHUT_RDWR)     # the client sees the end at once
            except OSError:
                pass
            conn.close()


def test_the_first_case_runs_while_a_silent_gateway_holds_the_baseline_push(
        tmp_path: Path, farm: FarmCli) -> None:
    gate = tmp_path / "go"
    suite = tmp_path / "s"
    write_case(suite, "held", [f"javascript: farm-test:wait-for:{gate}"])
    gateway = SilentGateway()
    try:
        proc = farm.start("run", suite, "--devices", "fake:1", "--report-dir", tmp_path / "run",
                          "--pushgateway", gateway.url, FARM_DEVICE_PLUGINS=PLUGIN,
                          FARM_PUSHGATEWAY_TIMEOUT=str(SLOW_GATEWAY_S))
        proc.wait_for_line("start s/held")
        # the baseline push went out (its thread may reach the gateway after the case began:
        # waited for, up to the push's own timeout) ...
        assert gateway.requested.wait(SLOW_GATEWAY_S)
        assert gateway.still_waiting(gateway.held[0])   # ... and the case did not wait for it
        gate.touch()
    finally:
        gateway.close()    # the gateway goes away: its pushes fail now, not after a timeout
    out = proc.finish()
    assert proc.returncode == 0, out
    assert "1 passed" in out, out
    said = [line for line in out.splitlines() if "push" in line or "Pushgateway" in line]
    assert len(said) == 1 and said[0].startswith(
        f"farm: warning: could not push metrics to {gateway.url}: "), out
    assert "Traceback" not in out, out
    assert (tmp_path / "run" / "report.html").exists()


def test_a_gateway_silent_all_run_long_costs_the_end_one_timeout(
        tmp_path: Path, farm: FarmCli) -> None:
    """The run ends while its baseline push still waits: the end waits for that one (at
    most the request timeout), and does not push again into the same silence."""
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    gateway = SilentGateway()
    try:
        proc = farm.run("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                        tmp_path / "run", "--pushgateway", gateway.url,
                        FARM_DEVICE_PLUGINS=PLUGIN, FARM_PUSHGATEWAY_TIMEOUT=str(SILENT_S))
    finally:
        gateway.close()
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "push" in line]
    assert said == [f"farm: warning: could not push metrics to {gateway.url}: no answer in "
                    f"{SILENT_S:g} s (this run's counts are kept in "
                    f"{tmp_path / 'state' / 'pushed-metrics.json'} and pushed with the next run "
                    f"that reaches it)"], proc.stderr
    assert "Traceback" not in proc.stderr
    # (a one-case fake run ends well within SILENT_S of its baseline's request, even on a
    # busy machine: the end waits for that request, as long as is left of SILENT_S)
    assert len(gateway.held) == 1, "the end pushed again into the silence"


PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))


@pytest.fixture
def gateway(tmp_path: Path):
    gateway = Pushgateway(tmp_path).start()
    yield gateway
    gateway.stop()


def test_a_baseline_that_arrives_after_a_case_ended_does_not_count_it_twice(
        gateway: Pushgateway, tmp_path: Path) -> None:
    """The baseline goes out in the background: on a slow gateway a case may end before it
    is sent. It pushes the totals so far, not the case: with it, the end's push (the totals
    so far plus this run's counts) said the case twice."""
    for metric in vars(metrics).values():     # as in a `farm run` process just started
        if isinstance(metric, MetricWrapperBase) and metric._labelnames:
            metric.clear()
    totals = tmp_path / "pushed-metrics.json"
    passed = pushgateway._key("farm_cases_total", {"platform": "web", "status": "passed"})
    totals.write_text(json.dumps({f"{gateway.url} farm_run": {passed: 7}}))  # earlier runs
    metrics.run_started({"web"})
    metrics.CASES.labels("web", "passed").inc()             # this run's case ends ...
    pushgateway.Baseline(gateway.url, totals).settle()      # ... before its baseline is sent
    assert gateway.held("farm_run")[PASSED] == 7
    pushgateway.push(gateway.url, totals=totals)            # the end of the run
    assert gateway.held("farm_run")[PASSED] == 8
