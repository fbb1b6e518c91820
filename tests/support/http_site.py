"""A site for a test: an HTTP server on a free loopback port, answering with a handler class
of the test's own, in threads of its own."""

from __future__ import annotations

import http.server
import threading
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` (no trailing slash) while the block runs; the server is shut
    down after it, requests still held by the handler included (daemon threads)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A handler that logs nothing and answers with `send_page`."""

    def log_message(self, *args: object) -> None:
        pass

    def send_page(self, body: bytes, status: int = 200, kind: str = "text/html") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
