"""A FARM_IOS_WDA_URLS entry whose port no connection can use (`:99999`) or that is no URL
(`http://[::1`) stops farm with exit 4 naming it, its password masked; `farm run` went on to
start the run and stopped with an internal error (ValueError: Port out of range 0-65535)."""

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
    ("http://127.0.0.1:8100,http://wda:s3cret-pw@127.0.0.1:99999",
     "http://wda:***@127.0.0.1:99999 has a port that is not a number from 1 to 65535"),
    ("http://h:abc", "http://h:abc has a port that is not a number from 1 to 65535"),
    ("http://[::1", "an entry is not a usable URL (Invalid IPv6 URL)"),
])
def test_an_endpoint_no_connection_can_use_stops_farm_naming_it(monkeypatch, capsys, urls,
                                                                 said):
    monkeypatch.setenv("FARM_IOS_WDA_URLS", urls)
    code, out, err = run_main(monkeypatch, capsys, "run", "ios.yaml", "--devices", "ios:1")
    assert (code, out) == (4, "")
    assert err == ("farm: error: invalid configuration:\n  setting 'ios_wda_urls' (env "
                   f"FARM_IOS_WDA_URLS): {said}\n")


def test_farm_toml_endpoints_are_checked_too(tmp_path, monkeypatch, capsys):
    (tmp_path / "farm.toml").write_text('ios_wda_urls = ["http://127.0.0.1:65536"]\n')
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert ("setting 'ios_wda_urls' (farm.toml:1): http://127.0.0.1:65536 has a port that is "
            "not a number from 1 to 65535") in err
