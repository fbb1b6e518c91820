"""A list setting written in the environment without its JSON brackets is refused, and the
error quotes what was given: a proxy password in it (``FARM_BROWSER_ARGS=--proxy-server=
http://ci:pw@proxy:3128``, the shape people copy from Chromium's docs) is masked there, as
`farm config show` masks it once the value is written right."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("command", [("config", "show"), ("run", "--collect-only", ".")])
def test_a_proxy_password_in_a_refused_list_variable_is_masked(monkeypatch, capsys,
                                                               command):
    monkeypatch.setenv("FARM_BROWSER_ARGS", "--proxy-server=http://ci:hunter22-pw@proxy:3128")
    code, out, err = run_main(monkeypatch, capsys, *command)
    assert code == 4, out + err
    assert "hunter22-pw" not in out + err
    assert ("environment variable FARM_BROWSER_ARGS: setting 'browser_args' is a list, "
            "written as JSON (e.g. [\"a\", \"b\"]), got "
            "'--proxy-server=http://ci:***@proxy:3128'") in err
