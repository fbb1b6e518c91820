"""A run's /metrics as its settings say: one that cannot listen names what to change (the port
as it was set, the flag or FARM_METRICS_PORT, and FARM_METRICS_HOST when that is the address it
cannot listen on); FARM_METRICS_LINGER_SECONDS=0 waits for no final scrape, and says nothing."""

from __future__ import annotations

import socket

import pytest

from farm.config import load_settings
from farm.errors import ConfigError
from farm.run_metrics import start_metrics


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in ("FARM_METRICS_PORT", "FARM_METRICS_HOST", "FARM_PUSHGATEWAY_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)


def test_an_address_not_on_this_machine_is_named_not_just_the_port(monkeypatch):
    """It said "--metrics-port 9464: cannot listen there (Cannot assign requested address)":
    the user checked the port, which was free; FARM_METRICS_HOST (TEST-NET 192.0.2.1, on no
    interface here) was the address it could not listen on."""
    monkeypatch.setenv("FARM_METRICS_HOST", "192.0.2.1")
    settings = load_settings(metrics_port=9464)
    with pytest.raises(ConfigError) as refused:
        start_metrics(settings, {"web"})
    assert str(refused.value) == ("--metrics-port 9464 on FARM_METRICS_HOST 192.0.2.1: cannot "
                                  "listen there (Cannot assign requested address)")


def test_a_taken_port_set_in_the_environment_is_named_by_its_variable(monkeypatch):
    """A taken FARM_METRICS_PORT was reported as "--metrics-port N", a flag nobody gave."""
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        monkeypatch.setenv("FARM_METRICS_PORT", str(port))
        with pytest.raises(ConfigError) as refused:
            start_metrics(load_settings(), {"web"})
    assert str(refused.value) == (f"FARM_METRICS_PORT {port}: cannot listen there (Address "
                                  "already in use)")


def test_a_linger_of_zero_is_no_wait_and_no_warning(monkeypatch, tmp_path, capsys):
    """FARM_METRICS_LINGER_SECONDS=0 (documented: at most that long) still ended every run with
    "farm: warning: nothing scraped :PORT/metrics in 0s after the run": a warning of the wait
    the user had turned off."""
    from farm.run_metrics import export_metrics
    monkeypatch.setenv("FARM_METRICS_LINGER_SECONDS", "0")
    settings = load_settings(metrics_port=_free_port(), metrics_host="127.0.0.1")
    server, tally = start_metrics(settings, {"web"})
    assert server is not None
    export_metrics(settings, tmp_path, tally, [], server)
    assert capsys.readouterr().err == ""
    assert (tmp_path / "metrics.prom").exists()
    with socket.socket() as again:          # the server was stopped: its port is free again
        again.bind(("127.0.0.1", server.port))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
