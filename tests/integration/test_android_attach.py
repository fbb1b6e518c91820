"""`--devices android:N` says why phones are not usable: the ones the adb server lists as
unauthorized or offline are named with what to do, and an ANDROID_SERIAL that filters out
every phone is named with the serials that are there. The adb server here is a small one that
lists phones in those states (as Debian's `adb devices` shows a phone waiting for its USB
debugging prompt); farm reads it through the real adbutils."""

from __future__ import annotations

import socketserver
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.support.farm_cli import run_main

pytestmark = pytest.mark.integration

CASE = "android:\n  launch: com.example.app\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


class _Listing(socketserver.BaseRequestHandler):
    """The adb host protocol's version and device-list requests; anything else refused."""

    server: "FakeAdbServer"

    def handle(self) -> None:
        size = self.request.recv(4)
        if not size:
            return
        request = self.request.recv(int(size, 16)).decode()
        answer = {"host:version": "0029", "host:devices": self.server.listing,
                  "host:devices-l": self.server.listing.replace("\t", "  ")}.get(request)
        if answer is None:
            message = b"device unauthorized."
            self.request.sendall(b"FAIL%04x" % len(message) + message)
        else:
            self.request.sendall(b"OKAY%04x" % len(answer) + answer.encode())


class FakeAdbServer(socketserver.ThreadingTCPServer):
    daemon_threads = True

    def __init__(self, listing: str) -> None:
        super().__init__(("127.0.0.1", 0), _Listing)
        self.listing = listing


@pytest.fixture
def adb_server(monkeypatch) -> Iterator[Callable[[str], int]]:
    """``adb_server("SERIAL\\tSTATE\\n...")`` serves that listing on a free port, which
    ANDROID_ADB_SERVER_PORT then names; the port."""
    started: list[FakeAdbServer] = []

    def start(listing: str) -> int:
        server = FakeAdbServer(listing)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.server_address[1]))
        return server.server_address[1]
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("FARM_ANDROID_SERIAL", raising=False)
    yield start
    for server in started:
        server.shutdown()
        server.server_close()


def farm_run(monkeypatch, capsys, tmp_path: Path, devices: str) -> tuple[int, str]:
    suite = tmp_path / "phone"
    suite.mkdir(exist_ok=True)
    (suite / "open.yaml").write_text(CASE)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--devices", devices,
                              "--report-dir", tmp_path / "run", "--no-progress")
    assert "Traceback" not in err
    return code, err


def test_unauthorized_and_offline_phones_are_named_with_what_to_do(adb_server, monkeypatch,
                                                                   capsys, tmp_path):
    port = adb_server("R58M12345\tunauthorized\nemulator-5560\toffline\n")
    code, err = farm_run(monkeypatch, capsys, tmp_path, "android:1")
    assert code == 4, err
    assert err == (
        f"farm: error: --devices android:1: the adb server 127.0.0.1:{port} has 0 device(s) "
        "ready (none); not ready: R58M12345 (unauthorized: accept the USB debugging prompt on "
        "the phone), emulator-5560 (offline: replug its cable, or run `adb reconnect`); try "
        "android-sim for simulated ones\n")


def test_a_ready_phone_and_an_unauthorized_one(adb_server, monkeypatch, capsys, tmp_path):
    adb_server("emulator-5554\tdevice\nR58M12345\tunauthorized\n")
    code, err = farm_run(monkeypatch, capsys, tmp_path, "android:2")
    assert code == 4, err
    assert "has 1 device(s) ready (emulator-5554); not ready: R58M12345 (unauthorized: " \
        "accept the USB debugging prompt on the phone)" in err


def test_an_android_serial_that_names_no_phone_names_the_ones_there(adb_server, monkeypatch,
                                                                    capsys, tmp_path):
    port = adb_server("emulator-5554\tdevice\nemulator-5556\tdevice\nemulator-5558\tdevice\n")
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-9999")
    code, err = farm_run(monkeypatch, capsys, tmp_path, "android:1")
    assert code == 4, err
    assert err == (
        f"farm: error: --devices android:1: ANDROID_SERIAL=emulator-9999 names no phone on the "
        f"adb server 127.0.0.1:{port} (it lists emulator-5554, emulator-5556, emulator-5558): "
        "unset ANDROID_SERIAL, or set it to one of those\n")


def test_an_android_serial_allows_one_phone_only(adb_server, monkeypatch, capsys, tmp_path):
    adb_server("emulator-5554\tdevice\nemulator-5556\tdevice\n")
    monkeypatch.setenv("ANDROID_SERIAL", "emulator-5554")
    code, err = farm_run(monkeypatch, capsys, tmp_path, "android:2")
    assert code == 4, err
    assert "ANDROID_SERIAL=emulator-5554 limits farm to that one phone: unset it to use 2" in err


def test_farm_devices_lists_phones_that_are_not_ready_with_what_to_do(adb_server, monkeypatch,
                                                                      capsys, tmp_path):
    port = adb_server("R58M12345\tunauthorized\nemulator-5560\toffline\n")
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FARM_IOS_WDA_URLS", "")
    code, out, err = run_main(monkeypatch, capsys, "devices")
    assert code == 0 and "Traceback" not in err, err
    lines = out.splitlines()
    at = lines.index(f"android   0 device(s) on adb server 127.0.0.1:{port}:")
    assert lines[at + 1:at + 3] == [
        "          R58M12345 (unauthorized: accept the USB debugging prompt on the phone)",
        "          emulator-5560 (offline: replug its cable, or run `adb reconnect`)"]
