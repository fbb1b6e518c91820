"""A comma-separated list setting (FARM_LOCATE_OFF, FARM_IOS_WDA_URLS, FARM_DEVICE_PLUGINS)
given as a JSON list, the form FARM_BROWSER_ARGS takes, was split at its commas: '["ocr"' and
'"ai"]' (an unknown tier), one WDA endpoint '["http://…"]' that `farm devices` did not list, a
plugin module named '["mod"]'. Either form is read; one that is neither is refused naming both."""

from __future__ import annotations

import os

import pytest

from farm.config import Settings
from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("raw", ['["ocr", "ai"]', " [\"ocr\",\"ai\"] ", "ocr,ai", " ocr , ai "])
def test_a_json_or_comma_list_is_read(monkeypatch, raw):
    monkeypatch.setenv("FARM_LOCATE_OFF", raw)
    assert Settings().locate_off == ["ocr", "ai"]


def test_wda_endpoints_as_json(monkeypatch):
    monkeypatch.setenv("FARM_IOS_WDA_URLS", '["http://10.0.0.5:8100", "http://10.0.0.6:8100"]')
    assert Settings().ios_wda_urls == ["http://10.0.0.5:8100", "http://10.0.0.6:8100"]


@pytest.mark.parametrize("raw", ['["mod"', "[1, 2]", '[["a"]]'])
def test_a_broken_json_list_is_refused_naming_both_forms(monkeypatch, capsys, raw):
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", raw)
    code, _, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert ("setting 'device_plugins' (env FARM_DEVICE_PLUGINS): is a comma-separated list "
            '(a,b) or a JSON list of strings (["a", "b"])') in err
