"""farm attaches to an adb server, it never starts one (issue 9, item 11): adbutils runs
`adb start-server` when nothing answers, which left a daemon behind after every `farm devices`
and after a phone whose (simulated) server had gone away."""

from __future__ import annotations

import socket
from typing import Iterator

import psutil
import pytest

from farm.errors import DeviceLost


def adb_daemons(port: int) -> list[psutil.Process]:
    """adb processes serving ``port`` (``adb -L tcp:PORT fork-server server``)."""
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "adb" and any(f"tcp:{port}" in arg for arg in cmdline):
            found.append(proc)
    return found


def answers(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def no_server_port() -> Iterator[int]:
    """A free port nothing listens on. An adb daemon that appears there was started by the
    code under test: it is stopped afterwards so a failure leaves nothing behind."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert not adb_daemons(port) and not answers(port)
    yield port
    stray = adb_daemons(port)
    for proc in stray:
        proc.kill()
    psutil.wait_procs(stray, timeout=10)


def test_farm_devices_reports_no_server_and_starts_none(farm, no_server_port):
    done = farm.run("devices", ANDROID_ADB_SERVER_PORT=str(no_server_port))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"android   no adb server on 127.0.0.1:{no_server_port}" in done.stdout
    assert "daemon started" not in done.stderr
    assert adb_daemons(no_server_port) == []
    assert not answers(no_server_port)


def test_farm_devices_tells_a_frozen_adb_server_from_none(farm):
    """One listens and never answers (SIGSTOP, wedged): "no adb server … `adb start-server`"
    sent the user to start a second one."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        done = farm.run("devices", ANDROID_ADB_SERVER_PORT=str(port))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (f"android   the adb server on 127.0.0.1:{port} does not answer (stopped or "
            "wedged: restart it)") in done.stdout
    assert "start-server" not in done.stdout


def test_an_android_run_with_no_server_starts_none(farm, tmp_path, no_server_port):
    suite = tmp_path / "phone"
    suite.mkdir()
    (suite / "open.yaml").write_text("name: open\nandroid:\n  launch: com.example\n"
                                     "tasks:\n  - name: t\n    flow:\n      - sleep: 1\n")
    done = farm.run("run", suite, "--devices", "android:1", "--report-dir", tmp_path / "run",
                    ANDROID_ADB_SERVER_PORT=str(no_server_port))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "no adb server answers" in done.stderr
    assert adb_daemons(no_server_port) == []
    assert not answers(no_server_port)


def test_a_phone_whose_server_is_gone_is_lost_and_starts_none(monkeypatch, no_server_port):
    from farm.devices.android import AndroidDevice
    # adb start-server would use the environment's port, the device asks for the same one
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(no_server_port))
    phone = AndroidDevice("gone", None, "emulator-5554", host="127.0.0.1", port=no_server_port)
    with pytest.raises(DeviceLost):
        phone.open()
    assert adb_daemons(no_server_port) == []
    assert not answers(no_server_port)


def test_an_adb_server_that_stops_answering_ends_a_call_at_farm_s_limit_not_adbutils():
    """A frozen adb server (SIGSTOP, a wedged daemon) accepts connections and never answers.
    adbutils gives every call it is not given a timeout for 10 minutes (get_state,
    open_transport, …), which held a device's restart, and the run, for minutes: farm's
    client keeps its own limit for those (here 0.5 s; SHELL_TIMEOUT_S in a run)."""
    import threading

    from farm.devices.android import adb_client

    with socket.socket() as silent:          # listens (the kernel accepts), never reads
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        client = adb_client("127.0.0.1", port, socket_timeout=0.5)
        assert client.make_connection(timeout=600).conn.gettimeout() == 0.5
        assert client.make_connection(timeout=90).conn.gettimeout() == 90    # farm's own
        ended: list[BaseException] = []

        def call() -> None:
            try:
                client.device("emulator-5554").get_state()
            except BaseException as exc:      # noqa: BLE001 (what ended it is the point)
                ended.append(exc)
        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join(120)        # a bound for a hung test only: the call ends in 0.5 s
        assert ended and type(ended[0]).__name__ == "AdbTimeout", ended
