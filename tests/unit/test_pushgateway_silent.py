"""`farm run --pushgateway` to a gateway whose packets go nowhere (a firewall that drops them,
a gateway process that hangs): each push waits out one request timeout, not two."""

from __future__ import annotations

import socket

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
    monkeypatch.setattr(pushgateway, "TIMEOUT_S", 0.5)
    metrics.run_started({"web"})
    totals = tmp_path / "pushed-metrics.json"
    with socket.socket() as listener:      # listening, never accepting: requests hang
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(OSError, match="timed out"):
            pushgateway.push(url, totals=totals)
        assert _connections(listener) == 1
    assert not totals.exists()
