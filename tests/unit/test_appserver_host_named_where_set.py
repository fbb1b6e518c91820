"""A serve host that is no address of this machine is named where it was set: farm.toml's
`serve_host = ...` (with its line), [tool.farm] of pyproject.toml, or FARM_SERVE_HOST. The
error said FARM_SERVE_HOST whatever set it, sending the user to a variable they never set."""

from __future__ import annotations

import os

import pytest

from tests.support.farm_cli import run_main

IOS_CASE = "ios:\n  launch: com.x\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"
APPS = "apps:\n  shop:\n    serve: app\n    env: FARM_SHOP_URL\n"
HOST = "192.0.2.1"      # TEST-NET-1 (RFC 5737): documentation only, no machine's address


@pytest.fixture(autouse=True)
def suite(monkeypatch, tmp_path):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("FARM_IOS_WDA_URLS", "http://127.0.0.1:1")   # never reached
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s" / "app").mkdir(parents=True)
    (tmp_path / "s" / "farm.yaml").write_text(APPS)
    (tmp_path / "s" / "a.yaml").write_text(IOS_CASE)


@pytest.mark.parametrize("file, text, named", [
    ("farm.toml", f'# apps\nserve_host = "{HOST}"\n', "farm.toml:2 serve_host"),
    ("pyproject.toml", f'[tool.farm]\nserve_host = "{HOST}"\n',
     "pyproject.toml:2 [tool.farm] serve_host"),
    (None, HOST, "FARM_SERVE_HOST"),
])
def test_the_error_names_where_the_host_was_set(tmp_path, monkeypatch, capsys, file, text,
                                                named):
    if file is None:
        monkeypatch.setenv("FARM_SERVE_HOST", text)
    else:
        (tmp_path / file).write_text(text)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "ios:1")
    assert code == 4
    assert err.startswith(f"farm: error: {named} {HOST}: cannot serve the suite's apps there")
    assert "FARM_SERVE_HOST" not in err or file is None
