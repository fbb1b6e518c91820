"""`farm devices` with a USB-connected iPhone's WebDriverAgent (FARM_IOS_WDA_URLS=
http+usbmux://<udid>:8100, which the runs reach through facebook-wda's usbmux support): the
listing asked it with urllib, which knows no such scheme, and said `not answering: unknown url
type: http+usbmux` whatever the phone did. It now asks as the runs do, and says usbmuxd's part
when that is what is missing."""

from __future__ import annotations

import os

import pytest

from tests.support.farm_cli import run_main

URL = "http+usbmux://00008030-000A1B2C3D4E5F60:8100"


@pytest.mark.skipif(os.path.exists("/var/run/usbmuxd"), reason="this machine runs usbmuxd")
def test_devices_asks_a_usb_iphone_as_runs_do_and_names_the_missing_usbmuxd(
        monkeypatch, capsys, tmp_path):
    for key in ("FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_DEVICE_PLUGINS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")     # no adb server there
    monkeypatch.setenv("FARM_IOS_WDA_URLS", URL)
    code, out, err = run_main(monkeypatch, capsys, "devices")
    ios = [line.strip() for line in out.splitlines() if "usbmux" in line]
    assert ios == [f"{URL}  not answering: no usbmuxd answers on /var/run/usbmuxd (it connects "
                   "USB iPhones: is it running, the iPhone plugged in and trusted?)"], out + err
    assert "Traceback" not in err


@pytest.mark.skipif(os.path.exists("/var/run/usbmuxd"), reason="this machine runs usbmuxd")
def test_a_run_on_a_usb_iphone_without_usbmuxd_says_so():
    """The device itself (a run's open) says the same, not `[Errno 2] No such file or
    directory`."""
    from farm.devices.ios import unreachable_why
    from wda.usbmux import fetch
    from wda.usbmux.exceptions import HTTPError

    with pytest.raises(HTTPError) as failed:
        fetch(URL + "/status", timeout=2)
    assert unreachable_why(URL, failed.value).startswith("no usbmuxd answers on /var/run/usbmuxd")
    assert unreachable_why("http://127.0.0.1:1", HTTPError(ConnectionRefusedError(
        111, "Connection refused"))) == "[Errno 111] Connection refused"
