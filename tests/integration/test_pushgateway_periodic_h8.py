"""`farm run --pushgateway` pushes what it counted so far every FARM_PUSHGATEWAY_INTERVAL
seconds, not only at its start and its end: a long nightly showed nothing on Grafana until it
ended, and a run killed with SIGKILL (a CI job's hard timeout) lost every count it made. A
push while the run lasts replaces the run's part of the host's running totals (it never adds
it again), so the end's push is what a push at the end alone would have been; a gateway that
is down is said once, not at every period, and never fails the run."""

from __future__ import annotations

import threading
import urllib.request
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, kill_tree, wait_for
from tests.support.gate import Gate
from tests.support.http_site import serving
from tests.support.prometheus import Pushgateway
from tests.support.suites import write_case

INTERVAL = "0.3"        # FARM_PUSHGATEWAY_INTERVAL in these runs (the default is 30 s)
PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))
PUSHED_AT = ("push_time_seconds", ())
KILLED = "h8-killed"    # each test's runs push to a group of their own (FARM_PUSHGATEWAY_INSTANCE)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory):
    gateway = Pushgateway(tmp_path_factory.mktemp("gateway")).start()
    yield gateway
    gateway.stop()


@pytest.fixture
def cli(tmp_path: Path):
    cli = FarmCli(tmp_path, FARM_PUSHGATEWAY_INTERVAL=INTERVAL, FARM_PUSHGATEWAY_INSTANCE=KILLED)
    yield cli
    cli.close()


def _suite(folder: Path, gate: Gate, passing: str) -> Path:
    """``passing`` (a case that passes at once), then ``z_held``, held at ``gate`` (on a page
    farm serves: a page of about:blank may not fetch the gate)."""
    (folder / "app").mkdir(parents=True)
    (folder / "app" / "index.html").write_text("<title>h8</title><p>held here</p>")
    (folder / "farm.yaml").write_text("timeout: 300\napps:\n  site:\n    serve: app\n"
                                      "    env: H8_URL\n")
    write_case(folder, passing, ["sleep: 10"])
    write_case(folder, "z_held", [gate.step()], url="${H8_URL}/index.html")
    return folder


def _counters(held: dict) -> dict:
    """The counter and histogram samples of a gateway's (or metrics.prom's) samples, a
    bucket's bound as Go writes it (le="1", not prometheus_client's le="1.0")."""
    from prometheus_client.utils import floatToGoString
    out = {}
    for (name, labels), value in held.items():
        if name.endswith(("_total", "_bucket", "_count", "_sum")):
            out[name, tuple((k, floatToGoString(float(v)) if k == "le" else v)
                            for k, v in labels)] = value
    return out


def _metrics_prom(run_dir: Path) -> dict:
    from prometheus_client.parser import text_string_to_metric_families
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families((run_dir / "metrics.prom").read_text())
            for s in family.samples}


def test_a_run_killed_outright_keeps_its_counts_and_the_next_run_counts_on_from_them(
        gateway: Pushgateway, cli: FarmCli, tmp_path: Path) -> None:
    with Gate() as gate:
        killed = cli.start("run", _suite(tmp_path / "first", gate, "a_ok"), "--devices",
                           "browser:1", "--report-dir", tmp_path / "run-1", "--pushgateway",
                           gateway.url)
        gate.wait_for_arrivals(1)           # a_ok passed, z_held waits: the run goes on ...
        # ... and its pass reaches the gateway before the run ends
        wait_for(lambda: _group(gateway, KILLED).get(PASSED) == 1, 60, "the pass pushed")
        assert killed.returncode is None
        kill_tree(killed.popen)             # SIGKILL: no end of run, no end's push
        after_kill = _group(gateway, KILLED)
        assert after_kill[PASSED] == 1

    with Gate() as gate:
        run_dir = tmp_path / "run-2"
        second = cli.start("run", _suite(tmp_path / "second", gate, "b_ok"), "--devices",
                           "browser:1", "--report-dir", run_dir, "--pushgateway", gateway.url)
        gate.wait_for_arrivals(1)
        wait_for(lambda: _group(gateway, KILLED).get(PASSED) == 2, 60, "b_ok's pass pushed")
        pushed_at = _group(gateway, KILLED)[PUSHED_AT]
        # the pushes of the next periods carry the run's pass in place of the last one's
        wait_for(lambda: _group(gateway, KILLED)[PUSHED_AT] > pushed_at, 60, "a later push")
        assert _group(gateway, KILLED)[PASSED] == 2
        gate.open()
        out = second.finish()
    assert second.returncode == 0, out
    assert "2 passed" in out, out
    assert "push" not in out, out
    final = _group(gateway, KILLED)
    assert final[PASSED] == 3
    # the end's push is the totals before the run plus its own counts (its metrics.prom),
    # as a run that pushed only at its end would have left them
    before, own = _counters(after_kill), _counters(_metrics_prom(run_dir))
    expected = {k: before.get(k, 0.0) + own.get(k, 0.0) for k in before | own}
    assert _counters(final) == pytest.approx(expected)


class _Proxy(BaseHTTPRequestHandler):
    """In front of the gateway, counting requests: while ``down`` is set, the gateway behind
    its load balancer is down (every request's connection closed unanswered); after it,
    requests pass through."""

    target = ""
    down = threading.Event()
    requests = 0

    def do_GET(self) -> None:          # noqa: N802 - http.server's names
        self._forward(urllib.request.Request(self.target + self.path))

    def do_PUT(self) -> None:          # noqa: N802
        data = self.rfile.read(int(self.headers["Content-Length"]))
        self._forward(urllib.request.Request(
            self.target + self.path, data=data, method="PUT",
            headers={"Content-Type": self.headers["Content-Type"]}))

    def _forward(self, request: urllib.request.Request) -> None:
        type(self).requests += 1
        if self.down.is_set():
            self.close_connection = True
            return
        with urllib.request.urlopen(request) as reply:
            body = reply.read()
            self.send_response(reply.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_a_gateway_down_for_a_while_is_said_once_and_pushed_to_again(
        gateway: Pushgateway, cli: FarmCli, tmp_path: Path) -> None:
    handler = type("Proxy", (_Proxy,), {"target": gateway.url, "down": threading.Event()})
    handler.down.set()
    with serving(handler) as url, Gate() as gate:
        proc = cli.start("run", _suite(tmp_path / "s", gate, "a_ok"), "--devices",
                         "browser:1", "--report-dir", tmp_path / "run", "--pushgateway", url,
                         FARM_PUSHGATEWAY_INSTANCE="h8-down-for-a-while")
        gate.wait_for_arrivals(1)
        said = proc.wait_for_line("could not push metrics")
        tried = handler.requests
        wait_for(lambda: handler.requests >= tried + 3, 60, "three more periods' pushes")
        handler.down.clear()            # the gateway is back: the run's pass reaches it
        wait_for(lambda: _group(gateway, "h8-down-for-a-while").get(PASSED) == 1, 60,
                 "a push after the gateway came back")
        gate.open()
        out = proc.finish()
    assert proc.returncode == 0, out
    assert "2 passed" in out, out
    assert "Traceback" not in out, out
    assert [line for line in out.splitlines() if "push" in line] == [
        said, f"farm: metrics pushed to {url} at the end"], out
    assert said.startswith(f"farm: warning: could not push metrics to {url}: "), said
    assert f" (pushing again every {INTERVAL} s and at the end, said once; if none gets " \
           "through, this run's counts are kept in " in said, said
    assert said.endswith("pushed-metrics.json and pushed with the next run that reaches it)")
    assert _group(gateway, "h8-down-for-a-while")[PASSED] == 2


def _group(gateway: Pushgateway, instance: str) -> dict:
    """The samples of the gateway's group ``instance``: (name, sorted labels other than job
    and instance) -> value."""
    from prometheus_client.parser import text_string_to_metric_families
    out = {}
    for family in text_string_to_metric_families(gateway.exposition()):
        for s in family.samples:
            labels = dict(s.labels)
            if labels.pop("instance", None) == instance and labels.pop("job", None):
                out[s.name, tuple(sorted(labels.items()))] = s.value
    return out
