"""The app server that serves a suite's ``apps:`` / ``web.serve`` folders for a run: a browser
that goes away mid-response (a tab closed, `farm run` stopped with SIGTERM) prints nothing over
the progress view; any other error of a request goes to farm.log, not to stderr."""

from __future__ import annotations

import logging
import socket
import struct
import threading
from pathlib import Path
from urllib.parse import urlsplit

from farm.appserver import AppServer
from farm.suite.model import AppSpec


def test_a_client_that_goes_away_mid_download_prints_nothing(tmp_path: Path, capfd):
    with (tmp_path / "big.bin").open("wb") as f:
        f.truncate(256 * 1024 * 1024)     # far more than the socket buffers hold (sparse)
    with AppServer() as served:
        served.serve([AppSpec(name="shop", serve=tmp_path)])
        url = urlsplit(served.urls[tmp_path.resolve()])
        before = set(threading.enumerate())
        with socket.create_connection((url.hostname, url.port)) as client:
            client.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
            assert client.recv(8) == b"HTTP/1.0"        # the response is under way
            handlers = [t for t in threading.enumerate()
                        if t not in before and "process_request" in t.name]
            # close with the rest unread and no linger: the server's next write fails at once
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        assert handlers
        for handler in handlers:        # the request's thread has seen the failed write
            handler.join(60)
        assert not [h for h in handlers if h.is_alive()]
    out, err = capfd.readouterr()
    assert err == "" and out == ""


def test_any_other_request_error_goes_to_the_log_not_stderr(tmp_path: Path, capfd, caplog):
    from farm.appserver import _QuietServer
    caplog.set_level(logging.WARNING, "farm.appserver")
    server = _QuietServer(("127.0.0.1", 0), lambda *a: None)
    try:
        try:
            raise ValueError("the handler broke")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 52162))
    finally:
        server.server_close()
    assert "request from 127.0.0.1:52162 failed" in caplog.text
    assert "ValueError: the handler broke" in caplog.text           # with its traceback
    assert capfd.readouterr().err == ""
