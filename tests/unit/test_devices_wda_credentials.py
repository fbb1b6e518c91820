"""`farm devices` with a WebDriverAgent endpoint behind basic auth (FARM_IOS_WDA_URLS=
http://user:password@host:port, as a device lab's reverse proxy wants it): the password is
never printed, and the endpoint is asked with those credentials, as the iOS driver asks it."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.farm_cli import run_main

PASSWORD = "wda-s3cret"


class _Wda(BaseHTTPRequestHandler):
    """A WDA that answers /status and /wda/device/info only with the right credentials."""

    def do_GET(self) -> None:          # noqa: N802 - http.server's name
        wanted = "Basic " + base64.b64encode(f"lab:{PASSWORD}".encode()).decode()
        if self.headers.get("Authorization") != wanted:
            self.send_response(401)
            self.end_headers()
            return
        value = ({"os": {"name": "iOS", "version": "17.4"}, "ready": True}
                 if self.path == "/status" else {"name": "Lab iPhone", "model": "iPhone 15"})
        body = json.dumps({"value": value}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def wda_port():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Wda)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_devices_asks_a_wda_behind_basic_auth_and_never_prints_its_password(
        wda_port, monkeypatch, capsys, tmp_path):
    """It printed `http://lab:wda-s3cret@127.0.0.1:PORT  not answering: [Errno -2] Name or
    service not known`: the password in clear on a CI log, and a working iPhone reported
    dead (urllib looked `lab:wda-s3cret@127.0.0.1` up as a host name)."""
    for key in ("FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_DEVICE_PLUGINS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")     # no adb server there
    monkeypatch.setenv("FARM_IOS_WDA_URLS", f"http://lab:{PASSWORD}@127.0.0.1:{wda_port}")
    code, out, err = run_main(monkeypatch, capsys, "devices")
    assert PASSWORD not in out + err
    ios = [line.strip() for line in out.splitlines() if f":{wda_port}" in line]
    assert ios == [f"http://lab:***@127.0.0.1:{wda_port}  Lab iPhone (iPhone 15), iOS 17.4"]


def test_the_cluster_listing_masks_the_password_of_the_phone_a_worker_drives(
        monkeypatch, capsys, tmp_path):
    """A `farm worker` on an iPhone behind basic auth keeps its WDA URL in its lease; `farm
    devices --broker` printed it, password and all (`on http://lab:wda-s3cret@...`), and the
    quarantine reason that names it too."""
    import uuid

    from farm.cluster import store
    for key in ("FARM_IOS_WDA_URLS", "FARM_DEVICE_PLUGINS", "CELERY_BROKER_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")
    prefix = f"farm-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("FARM_CLUSTER_PREFIX", prefix)
    url = f"http://lab:{PASSWORD}@10.0.0.7:8100"
    store.use_prefix(prefix)
    r = store.connect("redis://127.0.0.1:6379/0")
    try:
        store.acquire_lease(r, "mac1-ios-1", {"platform": "ios", "group": "ios", "state": "idle",
                                              "target": url})
        store.acquire_lease(r, "mac1-ios-2", {"platform": "ios", "group": "ios", "state": "idle",
                                              "target": url.replace("7:", "8:")})
        r.hset(store.key("quarantine"), "mac1-ios-2", f"WDA at {url} did not answer")
        code, out, err = run_main(monkeypatch, capsys, "devices", "--broker",
                                  "redis://127.0.0.1:6379/0")
    finally:
        for name in r.scan_iter(match=f"{prefix}:*"):
            r.delete(name)
        store.use_prefix("farm")
    assert code == 0, out + err
    assert PASSWORD not in out + err
    assert "idle  on http://lab:***@10.0.0.7:8100" in out, out
    assert "quarantined: WDA at http://lab:***@10.0.0.7:8100 did not answer" in out, out
