"""An HTTP backend that answers 500 to its first request and 200 afterwards: a case that calls
it fails once and passes on its retry (tests/integration/suites/faults/flaky.yaml).

    with FlakyBackend() as backend:
        farm.run("run", FAULTS / "flaky.yaml", FLAKY_URL=backend.url, ...)
"""

from __future__ import annotations

import http.server
import threading
from typing import Any


class FlakyBackend:
    def __init__(self, failures: int = 1) -> None:
        self.failures = failures
        self.hits = 0
        lock = threading.Lock()
        backend = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with lock:
                    backend.hits += 1
                    failing = backend.hits <= backend.failures
                self.send_response(500 if failing else 200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def __enter__(self) -> "FlakyBackend":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
