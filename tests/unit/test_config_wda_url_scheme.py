"""A FARM_IOS_WDA_URLS entry with no scheme (`127.0.0.1:8100`, as iproxy prints it) or one
farm's WebDriverAgent client does not speak (`ws://`) is refused with the other settings
mistakes: exit 4 naming the setting, its password masked, and no report. It was found once
the device was built: `farm run` wrote a "1 error" report of a run that never ran."""

from __future__ import annotations

import os

import pytest

from tests.support.farm_cli import run_main

IOS_CASE = "ios:\n  launch: com.x\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ios.yaml").write_text(IOS_CASE)


@pytest.mark.parametrize("urls, said", [
    ("127.0.0.1:8100", "127.0.0.1:8100 has no scheme: write http://127.0.0.1:8100 (or "
     "http+usbmux://<udid>:8100 for a USB iPhone)"),
    ("http://127.0.0.1:8100,wda:s3cret@10.0.0.2:8100", "wda:***@10.0.0.2:8100 has no scheme: "
     "write http://wda:***@10.0.0.2:8100 (or http+usbmux://<udid>:8100 for a USB iPhone)"),
    ("ws://10.0.0.2:8100", "ws://10.0.0.2:8100: farm's WebDriverAgent client speaks http, "
     "https, http+usbmux, not ws"),
])
def test_an_endpoint_without_a_usable_scheme_stops_farm_before_the_run(
        monkeypatch, capsys, tmp_path, urls, said):
    monkeypatch.setenv("FARM_IOS_WDA_URLS", urls)
    code, out, err = run_main(monkeypatch, capsys, "run", "ios.yaml", "--devices", "ios:1")
    assert (code, out) == (4, "")
    assert err == ("farm: error: invalid configuration:\n  setting 'ios_wda_urls' (env "
                   f"FARM_IOS_WDA_URLS): {said}\n")
    assert not (tmp_path / ".farm" / "runs").exists()


def test_farm_toml_endpoints_are_checked_too(tmp_path, monkeypatch, capsys):
    (tmp_path / "farm.toml").write_text('ios_wda_urls = ["http://a:8100", "b:8100"]\n')
    code, _, err = run_main(monkeypatch, capsys, "devices")
    assert code == 4
    assert "setting 'ios_wda_urls' (farm.toml:1): b:8100 has no scheme" in err
