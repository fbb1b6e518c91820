"""`farm sim android` stopped by SIGTERM while a client's requests are in flight (screencaps in a
loop, as a `farm run` takes them): it ends with `farm: interrupted`, exit 2 (README: a
simulator stops on `kill`, exit 2), and no traceback: a request the stop cut off (its screen
gone: ScreensStopped) used to print ~30 lines of one before `farm: interrupted`."""

from __future__ import annotations

import re
import signal
import threading

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration


def test_a_simulator_stopped_with_requests_in_flight_ends_quietly(tmp_path) -> None:
    from farm.devices.android import adb_client

    farm = FarmCli(tmp_path)
    try:
        proc = farm.start("sim", "android", "--count", "1", "--port", "0")
        line = proc.wait_for_line("adb server on 127.0.0.1:")
        port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
        phone = adb_client(port=port).device("emulator-5554")
        answered = threading.Event()

        def take() -> None:         # screencaps until the simulator is gone
            while proc.popen.poll() is None:
                try:
                    phone.shell("screencap -p", encoding=None)
                    phone.shell("uiautomator dump /data/local/tmp/d.xml")
                except Exception:
                    return
                answered.set()

        threads = [threading.Thread(target=take, daemon=True) for _ in range(3)]
        for t in threads:
            t.start()
        assert answered.wait(60)
        proc.send_signal(signal.SIGTERM)
        out = proc.finish()
    finally:
        farm.close()
    assert proc.returncode == 2, out
    assert "Traceback" not in out and "ScreensStopped" not in out, out
    assert "farm: interrupted" in out, out
