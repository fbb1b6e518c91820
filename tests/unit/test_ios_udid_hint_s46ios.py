"""A USB iPhone's UDID where farm wants a WebDriverAgent URL: `--devices ios:UDID` suggested
``FARM_IOS_WDA_URLS=00008030-…``, which then failed "has no scheme: write http://00008030-…"
(no iPhone answers there). Both now suggest the usbmux form farm reaches a USB iPhone with:
``http+usbmux://<udid>:8100``."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main

UDID = "00008030-001A2B3C4D5E802E"
OLD_UDID = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"       # before the iPhone XS: 40 hex


@pytest.fixture()
def suite(tmp_path, monkeypatch):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "t.yaml").write_text(
        "ios:\n  launch: com.qa.shop\ntasks:\n  - name: t\n    flow:\n      - sleep: 10\n")
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FARM_IOS_WDA_URLS", raising=False)
    return tmp_path


@pytest.mark.parametrize("udid", [UDID, OLD_UDID])
def test_devices_naming_a_udid_suggests_its_usbmux_url(suite, monkeypatch, capsys, udid):
    code, _, err = run_main(monkeypatch, capsys, "run", suite / "s", "--devices",
                            f"ios:{udid}", "--report-dir", suite / "run")
    assert code == 4, err
    assert f"choose them with FARM_IOS_WDA_URLS=http+usbmux://{udid}:8100 " in err, err


@pytest.mark.parametrize("udid", [UDID, OLD_UDID])
def test_a_udid_in_farm_ios_wda_urls_suggests_its_usbmux_url(suite, monkeypatch, capsys, udid):
    monkeypatch.setenv("FARM_IOS_WDA_URLS", udid)
    code, _, err = run_main(monkeypatch, capsys, "run", suite / "s", "--devices", "ios:1",
                            "--report-dir", suite / "run")
    assert code == 4, err
    assert (f"{udid} has no scheme: a USB iPhone's UDID is reached through usbmuxd: write "
            f"http+usbmux://{udid}:8100") in err, err
    assert f"http://{udid}" not in err


def test_a_host_without_a_scheme_is_still_told_http(suite, monkeypatch, capsys):
    monkeypatch.setenv("FARM_IOS_WDA_URLS", "127.0.0.1:8100")
    code, _, err = run_main(monkeypatch, capsys, "run", suite / "s", "--devices", "ios:1",
                            "--report-dir", suite / "run")
    assert code == 4, err
    assert "has no scheme: write http://127.0.0.1:8100" in err, err


def test_farm_ios_wda_urls_not_set_says_so_and_how(suite, monkeypatch, capsys):
    """It said "FARM_IOS_WDA_URLS lists 0 device(s), 0 ready (none)"."""
    code, _, err = run_main(monkeypatch, capsys, "run", suite / "s", "--devices", "ios:2",
                            "--report-dir", suite / "run")
    assert code == 4, err
    assert ("--devices ios:2: FARM_IOS_WDA_URLS is not set: list the iPhones' WebDriverAgent "
            "URLs in it, e.g. export FARM_IOS_WDA_URLS=http://127.0.0.1:8100,"
            "http://127.0.0.1:8101 (`farm sim ios` prints that line") in err, err
    assert "ios-sim:2 for simulated ones" in err and "lists 0 device(s)" not in err
