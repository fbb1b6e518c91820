"""A folder served over loopback HTTP on a free port, for the benches (standard library only:
the plain Playwright sides of bench/vs_playwright.py and bench/console.py import it without
paying for farm's modules)."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _Quiet(SimpleHTTPRequestHandler):
    """No request log on the terminal, and nothing cached between runs."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve(folder: Path | str) -> str:
    """Serve ``folder`` until the process ends; its base URL (ending in "/")."""
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Quiet, directory=str(folder)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"
