"""The Midscene corpus site (tests/midscene/site) served the way a test needs it: over HTTPS
with a self-signed certificate made at test time (the `openssl` CLI), and with ``/slow?ms=N``,
which answers only after N milliseconds (a page that loads slowly).

    with CorpusSite(tmp_path, https=True) as site:
        site.url        # https://127.0.0.1:PORT
"""

from __future__ import annotations

import functools
import ssl
import subprocess
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

SITE = Path(__file__).resolve().parents[1] / "midscene" / "site"


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """(certificate, key) for 127.0.0.1, signed by nobody a browser trusts."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        url = urlparse(self.path)
        if url.path != "/slow":
            return super().do_GET()
        time.sleep(int(parse_qs(url.query).get("ms", ["0"])[0]) / 1000)   # the slow server
        body = b'{"data": "Data arrived"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class CorpusSite:
    def __init__(self, tmp: Path, https: bool = False) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(_Handler, directory=str(SITE)))
        self.server.daemon_threads = True
        if https:
            cert, key = self_signed_certificate(tmp)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if https else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "CorpusSite":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
