"""`farm run --pushgateway` pushes what it counted so far every FARM_PUSHGATEWAY_INTERVAL
seconds, not only at its start and its end: a long nightly showed nothing on Grafana until it
ended, and a run killed with SIGKILL (a CI job's hard timeout) lost every count it made. A
push while the run lasts replaces the run's part of the host's running totals (it never adds
it again), so the end's push is what a push at the end alone would have been; a gateway that
is down is said once, not at every period, and never fails the run."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, kill_tree, wait_for
from tests.support.gate import Gate
from tests.support.prometheus import Pushgateway
from tests.support.suites import write_case

INTERVAL = "0.3"        # FARM_PUSHGATEWAY_INTERVAL in these runs (the default is 30 s)
PASSED = ("farm_cases_total", (("platform", "web"), ("status", "passed")))
PUSHED_AT = ("push_time_seconds", ())


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory):
    gateway = Pushgateway(tmp_path_factory.mktemp("gateway")).start()
    yield gateway
    gateway.stop()


@pytest.fixture
def cli(tmp_path: Path):
    cli = FarmCli(tmp_path, FARM_PUSHGATEWAY_INTERVAL=INTERVAL)
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
        wait_for(lambda: gateway.held("farm_run").get(PASSED) == 1, 60, "the pass pushed")
        assert killed.returncode is None
        kill_tree(killed.popen)             # SIGKILL: no end of run, no end's push
        after_kill = gateway.held("farm_run")
        assert after_kill[PASSED] == 1

    with Gate() as gate:
        run_dir = tmp_path / "run-2"
        second = cli.start("run", _suite(tmp_path / "second", gate, "b_ok"), "--devices",
                           "browser:1", "--report-dir", run_dir, "--pushgateway", gateway.url)
        gate.wait_for_arrivals(1)
        wait_for(lambda: gateway.held("farm_run").get(PASSED) == 2, 60, "b_ok's pass pushed")
        pushed_at = gateway.held("farm_run")[PUSHED_AT]
        # the pushes of the next periods carry the run's pass in place of the last one's
        wait_for(lambda: gateway.held("farm_run")[PUSHED_AT] > pushed_at, 60, "a later push")
        assert gateway.held("farm_run")[PASSED] == 2
        gate.open()
        out = second.finish()
    assert second.returncode == 0, out
    assert "2 passed" in out, out
    assert "push" not in out, out
    final = gateway.held("farm_run")
    assert final[PASSED] == 3
    # the end's push is the totals before the run plus its own counts (its metrics.prom),
    # as a run that pushed only at its end would have left them
    before, own = _counters(after_kill), _counters(_metrics_prom(run_dir))
    expected = {k: before.get(k, 0.0) + own.get(k, 0.0) for k in before | own}
    assert _counters(final) == pytest.approx(expected)


class _DownGateway:
    """A gateway that is down behind its load balancer: every connection is accepted and
    closed at once, counted."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()


def test_a_gateway_down_all_run_long_is_said_once(cli: FarmCli, tmp_path: Path) -> None:
    down = _DownGateway()
    try:
        with Gate() as gate:
            proc = cli.start("run", _suite(tmp_path / "s", gate, "a_ok"), "--devices",
                             "browser:1", "--report-dir", tmp_path / "run", "--pushgateway",
                             down.url)
            gate.wait_for_arrivals(1)
            said = proc.wait_for_line("could not push metrics")
            tried = down.connections
            wait_for(lambda: down.connections >= tried + 3, 60, "three more periods' pushes")
            gate.open()
            out = proc.finish()
    finally:
        down.close()
    assert proc.returncode == 0, out
    assert "2 passed" in out, out
    assert "Traceback" not in out, out
    assert [line for line in out.splitlines() if "push" in line] == [said], out
    assert said.startswith(f"farm: warning: could not push metrics to {down.url}: "), said
    assert said.endswith(f" (pushing again every {INTERVAL} s and at the end; said once)")
