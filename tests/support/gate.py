"""An HTTP gate that holds every request until the test opens it: a browser case that fetches
it is held mid-case for as long as the test needs (kill its browser, press Ctrl-C) — the test
waits for the case to arrive instead of sleeping and hoping the case is still running.

    with Gate() as gate:
        suite = write_case(folder, "wait_for_gate", [gate.step()], url="${FARM_DEMO_URL}/...")
        proc = farm.start("run", suite, ...)
        gate.wait_for_arrivals(1)       # the case is inside its javascript step now
        ...
        gate.open()                     # it (and every later request) goes on
"""

from __future__ import annotations

import http.server
import threading
from typing import Any

from tests.support.farm_cli import wait_for


class Gate:
    def __init__(self) -> None:
        self.arrivals = 0
        self._opened = threading.Event()
        self._lock = threading.Lock()
        gate = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with gate._lock:
                    gate.arrivals += 1
                gate._opened.wait()
                try:
                    self.send_response(200)
                    self.send_header("Access-Control-Allow-Origin", "*")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass        # the browser that asked was killed meanwhile

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def step(self) -> str:
        """A ``javascript:`` step (YAML) that waits at the gate."""
        return f"javascript: \"return fetch('{self.url}').then(r => r.status)\""

    def wait_for_arrivals(self, n: int, timeout: float = 120) -> None:
        """Until ``n`` requests in all have reached the gate."""
        wait_for(lambda: self.arrivals >= n, timeout, f"{n} request(s) at the gate")

    def open(self) -> None:
        self._opened.set()

    def __enter__(self) -> "Gate":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.open()             # no handler thread stays blocked
        self._server.shutdown()
        self._server.server_close()
