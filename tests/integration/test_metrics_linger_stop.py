"""`farm run --metrics-port` waits up to FARM_METRICS_LINGER_SECONDS after the run for one
scrape of its final values. A user's Ctrl-C, or a container stop's SIGTERM, while nothing
scrapes it ends that wait at once: the results are written, and metrics.prom has the values.
A terminal or a log pipe that is gone by then costs the lines farm could not write, never the
run's exit code."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.support.farm_cli import PLUGIN, FarmCli, wait_for
from tests.support.redis_server import free_port
from tests.support.suites import write_case


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_ends_the_wait_for_the_final_scrape(tmp_path: Path, farm: FarmCli,
                                                          sig: int) -> None:
    """It said "farm: SIGINT: writing the results; farm ends once they are written" (they
    were written) and went on waiting out the linger (15 s by default; an hour here): Ctrl-C
    did nothing, and `docker stop` killed the run after its grace period."""
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    run_dir = tmp_path / "run"
    port = free_port()
    proc = farm.start("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                      run_dir, "--metrics-port", str(port), FARM_DEVICE_PLUGINS=PLUGIN,
                      FARM_METRICS_LINGER_SECONDS="3600")
    wait_for(lambda: (run_dir / "metrics.prom").exists(), 120, "metrics.prom written")
    proc.send_signal(sig)
    out = proc.finish()
    assert proc.returncode == 0, out          # the run passed: its results say so
    name = signal.Signals(sig).name
    assert (f"farm: {name}: not waiting for a scrape of :{port}/metrics; metrics.prom has "
            "the final values") in out
    assert "nothing scraped" not in out and "Traceback" not in out, out
    assert 'farm_cases_total{platform="web",status="passed"} 1.0' in \
        (run_dir / "metrics.prom").read_text()


def test_a_hangup_while_waiting_for_the_final_scrape_is_no_error(tmp_path: Path,
                                                                 farm: FarmCli) -> None:
    """An ssh session that drops while the run waits for its final scrape: SIGHUP, and the
    terminal is gone. The line that says the wait ended must not make the run end as an
    error (its results are written, and they passed)."""
    import subprocess
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    run_dir = tmp_path / "run"
    with (tmp_path / "stdout.txt").open("w") as stdout:
        proc = subprocess.Popen(
            farm.command("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                         run_dir, "--metrics-port", str(free_port())),
            cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE,
            env=farm.env(FARM_DEVICE_PLUGINS=PLUGIN, FARM_METRICS_LINGER_SECONDS="3600"))
    farm.started.append(proc)
    wait_for(lambda: (run_dir / "metrics.prom").exists(), 120, "metrics.prom written")
    assert proc.stderr is not None
    proc.stderr.close()                 # the terminal is gone: writing to it fails
    proc.send_signal(signal.SIGHUP)
    assert proc.wait(240) == 0, (tmp_path / "stdout.txt").read_text()
    assert "internal error" not in (tmp_path / "stdout.txt").read_text()


def test_a_closed_stderr_does_not_turn_a_metrics_warning_into_an_error(tmp_path: Path,
                                                                         farm: FarmCli) -> None:
    """`farm run … |& tee log` whose tee died: the run passed, but its warning that the
    Pushgateway refused the connection could not be written, and the run exited 1."""
    import socket
    import subprocess
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    with socket.socket() as bound, (tmp_path / "stdout.txt").open("w") as stdout:
        bound.bind(("127.0.0.1", 0))            # bound, not listening: the push is refused
        proc = subprocess.Popen(
            farm.command("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                         tmp_path / "run", "--pushgateway",
                         f"http://127.0.0.1:{bound.getsockname()[1]}"),
            cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE,
            env=farm.env(FARM_DEVICE_PLUGINS=PLUGIN))
        farm.started.append(proc)
        assert proc.stderr is not None
        proc.stderr.close()             # nobody reads it any more
        assert proc.wait(240) == 0, (tmp_path / "stdout.txt").read_text()
    assert (tmp_path / "run" / "metrics.prom").exists()


def test_a_run_the_broker_refuses_does_not_wait_for_a_scrape(tmp_path: Path,
                                                              farm: FarmCli) -> None:
    """A mistyped broker URL with --metrics-port: the run counted nothing, yet it waited out
    the linger (15 s by default; an hour here) before its error said why it had failed."""
    import socket
    suite = tmp_path / "s"
    write_case(suite, "ok", ["javascript: ok"])
    with socket.socket() as bound:       # bound, not listening: connections are refused
        bound.bind(("127.0.0.1", 0))
        done = farm.run("run", suite, "--devices", "fake:1", "--no-progress", "--report-dir",
                        tmp_path / "run", "--metrics-port", str(free_port()), "--broker",
                        f"redis://127.0.0.1:{bound.getsockname()[1]}/0",
                        FARM_DEVICE_PLUGINS=PLUGIN, FARM_METRICS_LINGER_SECONDS="3600",
                        FARM_CLUSTER_OUTAGE_SECONDS="1")
    assert done.returncode == 3, done.stdout + done.stderr      # (waited for, then given up)
    assert "farm: error: cannot reach the broker" in done.stderr
    assert "nothing scraped" not in done.stderr
