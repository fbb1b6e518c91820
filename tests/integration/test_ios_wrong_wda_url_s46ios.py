"""A FARM_IOS_WDA_URLS entry that is not a WebDriverAgent is said plainly before the run
(exit 4), and by `farm devices`: an HTTP server of something else (404, not JSON) read
"is not answering: Expecting value: line 1 column 1 (char 0)"; an Appium-style URL with a
path (``/wd/hub``) passed the pre-run check on WDA's 404 JSON there, then the run ended with
exit 3 and a WDARequestError."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.farm_cli import run_main

pytestmark = pytest.mark.integration

CASE = "ios:\n  launch: com.qa.shop\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n"


class _NotFound(BaseHTTPRequestHandler):
    def do_GET(self) -> None:   # noqa: N802 - http.server's name
        body = b"<html><body><h1>404 File not found</h1></body></html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def web_server() -> Iterator[str]:
    """A plain web server (not WebDriverAgent) on a free port: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def farm_run(monkeypatch, capsys, tmp_path: Path, urls: str) -> tuple[int, str]:
    suite = tmp_path / "phone"
    suite.mkdir(exist_ok=True)
    (suite / "t.yaml").write_text(CASE)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FARM_IOS_WDA_URLS", urls)
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--devices", "ios:1",
                              "--report-dir", tmp_path / "run", "--no-progress")
    assert "Traceback" not in err
    return code, err


def test_a_web_server_that_is_not_wda_is_said_before_the_run(web_server, monkeypatch, capsys,
                                                             tmp_path):
    code, err = farm_run(monkeypatch, capsys, tmp_path, web_server)
    assert code == 4, err
    assert f"{web_server} answered HTTP 404 / not JSON: not a WebDriverAgent" in err, err
    assert "Expecting value" not in err


def test_a_wda_url_with_a_path_is_refused_before_the_run(web_server, monkeypatch, capsys,
                                                         tmp_path):
    url = web_server + "wd/hub"
    code, err = farm_run(monkeypatch, capsys, tmp_path, url)
    assert code == 4, err
    assert f"FARM_IOS_WDA_URLS: {url}: (WebDriverAgent's URL has no path: drop /wd/hub?)" \
        in err, err


def test_farm_devices_says_why_the_url_is_not_a_wda(web_server, monkeypatch, capsys, tmp_path):
    """`farm devices` said "not answering: Expecting value: …" for the web server, and "?"
    for an Appium-style URL whose WDA answered 404 JSON there."""
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FARM_IOS_WDA_URLS", f"{web_server},{web_server}wd/hub")
    code, out, err = run_main(monkeypatch, capsys, "devices")
    assert code == 0 and "Traceback" not in err, err
    assert f"{web_server}  not usable: answered HTTP 404 / not JSON: not a WebDriverAgent" \
        in out, out
    assert (f"{web_server}wd/hub  not usable: (WebDriverAgent's URL has no path: drop "
            "/wd/hub?)") in out, out
    assert "Expecting value" not in out
