"""A blank value in farm.toml / [tool.farm] (``report_dir = ""``, a template's placeholder) is
not set, as a blank FARM_* variable is not: it was taken as the path "." (runs and their
reports written into the project's own folder) or as the Redis key prefix "". A blank item of
a list setting (``device_plugins = ["", "m"]``) is dropped (it was a module named '')."""

from __future__ import annotations

import os

import pytest

from farm.config import load_settings
from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def test_blank_values_in_farm_toml_leave_the_default(tmp_path):
    (tmp_path / "farm.toml").write_text('report_dir = ""\nstate_dir = " "\ncluster_prefix = ""\n'
                                        'device_plugins = ["", " tests.support.devices "]\n')
    settings = load_settings()
    assert settings.report_dir is None
    assert str(settings.state_dir) == ".farm"
    assert settings.cluster_prefix == "farm"
    assert settings.device_plugins == ["tests.support.devices"]
    assert settings.source("report_dir") is None


def test_a_blank_in_farm_toml_lets_tool_farm_speak(tmp_path, monkeypatch, capsys):
    (tmp_path / "farm.toml").write_text('report_dir = ""\n')
    (tmp_path / "pyproject.toml").write_text('[tool.farm]\nreport_dir = "out"\n')
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert (code, err) == (0, "")
    assert "\nreport_dir               out\n" in out
    assert "\n  report_dir pyproject.toml:2 [tool.farm]\n" in out
