"""`farm run --pushgateway` to a gateway that does not take the push: one whose packets go
nowhere (a firewall that drops them, a gateway process that hangs) costs one request timeout
per push, not two; one that refuses the credentials is one warning, not three lines."""

from __future__ import annotations

import logging
import socket
import threading
import urllib.error
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from farm import metrics, pushgateway


def _connections(listener: socket.socket) -> int:
    """How many connections reached ``listener`` (none of them ever answered)."""
    listener.setblocking(False)
    count = 0
    while True:
        try:
            conn, _ = listener.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


def test_a_gateway_that_never_answers_costs_one_timeout_per_push(tmp_path, monkeypatch):
    """Reading the host's totals timed out (10 s), then the push itself timed out (10 s more):
    a run sat 20 s silent before its first case and 20 s after its last. The totals file is
    left as it was: nothing reached the gateway."""
    metrics.run_started({"web"})
    totals = tmp_path / "pushed-metrics.json"
    with socket.socket() as listener:      # listening, never accepting: requests hang
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(OSError, match="timed out"):
            pushgateway.push(url, totals=totals, timeout=0.5)
        assert _connections(listener) == 1
    assert not totals.exists()


def test_the_request_timeout_is_the_setting_farm_toml_gives(tmp_path, monkeypatch, capsys):
    """farm.toml's pushgateway_timeout (which `farm config show` lists) was not what the push
    waited: it read FARM_PUSHGATEWAY_TIMEOUT from the environment alone, and a gateway that
    never answered held the end of the run 10 s, "no answer in 10 s", whatever farm.toml said."""
    import urllib.request

    from farm.config import Settings
    from farm.run_metrics import _push
    waited: list[float] = []

    def silent(request: object, timeout: float) -> None:     # a gateway that never answers
        waited.append(timeout)
        raise urllib.error.URLError(TimeoutError("timed out"))

    monkeypatch.setattr(urllib.request, "urlopen", silent)
    monkeypatch.delenv("FARM_PUSHGATEWAY_TIMEOUT", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "farm.toml").write_text("pushgateway_timeout = 0.5\n")
    metrics.run_started({"web"})
    _push(Settings(pushgateway_url="http://gateway:9091", state_dir=str(tmp_path / "state")))
    assert waited == [0.5]
    assert capsys.readouterr().err == ("farm: warning: could not push metrics to "
                                       "http://gateway:9091: no answer in 0.5 s\n")


class _Gateway(BaseHTTPRequestHandler):
    """A gateway behind an auth proxy: GET /metrics answers ``read``; a push answers
    ``pushed`` (status codes)."""

    read, pushed = 401, 401

    def _answer(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:          # noqa: N802 - http.server's names
        self._answer(self.read)

    def do_PUT(self) -> None:          # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._answer(self.pushed)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serving(read: int, pushed: int):
    handler = type("Gateway", (_Gateway,), {"read": read, "pushed": pushed})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.parametrize("read, pushed, said", [
    (401, 401, []),
    (403, 200, ["cannot read the Pushgateway's totals for this host (HTTP Error 403: "
                "Forbidden): they continue from the state dir's"])])
def test_totals_that_cannot_be_read_are_said_only_when_the_push_went_through(
        tmp_path, caplog, read, pushed, said):
    """A gateway that refused the credentials printed "cannot read the Pushgateway's totals
    ..." before the run's first case and again after its last, then the warning that the push
    failed: three lines for one wrong password. Said now only when the push itself worked."""
    metrics.run_started({"web"})
    server = _serving(read, pushed)
    caplog.set_level(logging.DEBUG, logger="farm.metrics")
    try:
        url = f"http://u:pw@127.0.0.1:{server.server_address[1]}"
        if pushed >= 400:
            with pytest.raises(urllib.error.HTTPError):
                pushgateway.push(url, totals=tmp_path / "pushed-metrics.json")
        else:
            pushgateway.push(url, totals=tmp_path / "pushed-metrics.json")
    finally:
        server.shutdown()
        server.server_close()
    assert [r.getMessage() for r in caplog.records if "Pushgateway" in r.getMessage()] == said
