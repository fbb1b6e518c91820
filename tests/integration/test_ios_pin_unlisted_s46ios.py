"""A case pinned (Midscene's ``wdaHost``/``wdaPort``) to a WebDriverAgent FARM_IOS_WDA_URLS
does not list ends alone as an error, saying so, and the other cases run, as a ``deviceId``
the adb server does not list does (README): the whole run stopped (exit 4, every case not
run) with "give --devices ios:N to take more", which takes no unlisted iPhone. Through the
real facebook-wda against the simulated WebDriverAgent."""

from __future__ import annotations

import json
import socket

import pytest

from farm.devices.sim import IosSimulator
from tests.support.farm_cli import run_main

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"
FREE = f"ios:\n  launch: {PKG}\ntasks:\n  - name: t\n    flow:\n      - assertText: Sign in\n"


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_case_pinned_to_an_unlisted_wda_ends_alone(demo_app, tmp_path, monkeypatch, capsys):
    port = _unused_port()
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "free.yaml").write_text(FREE)
    (suite / "pinned.yaml").write_text(FREE.replace(
        "\ntasks:", f"\n  wdaHost: 127.0.0.1\n  wdaPort: {port}\ntasks:"))
    with IosSimulator(1, {PKG: demo_app + "/"}) as sim:
        url = sim.urls[0]
        monkeypatch.setenv("FARM_IOS_WDA_URLS", url)
        monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
        code, _, err = run_main(monkeypatch, capsys, "run", suite, "--devices", "ios:1",
                                "--report-dir", tmp_path / "run", "--no-progress")
    cases = {c["name"]: c for c in
             json.loads((tmp_path / "run" / "results.json").read_text())["cases"]}
    assert "Traceback" not in err
    assert code == 3, err
    assert cases["free"]["status"] == "passed", err
    pinned = cases["pinned"]
    assert pinned["status"] == "error", err
    said = pinned["error"]["message"]
    assert (f"pinned.yaml:3: wdaHost:wdaPort 127.0.0.1:{port}: no such iPhone: "
            f"http://127.0.0.1:{port} is not in FARM_IOS_WDA_URLS (it lists {url}"
            in said), said
    assert "--devices ios:N" not in said
