"""`FARM_HEADLESS=false farm run ...` with no $DISPLAY: 'cannot launch Chromium ...: Target
page, context or browser has been closed', exit 3, the device marked lost. Now a settings
error said before anything starts (exit 4), and a device opened so (a worker's) says the same
without launching."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.browser import BrowserDevice, no_display
from farm.errors import ConfigError
from tests.support.farm_cli import FarmCli

SAID = ("a visible browser (FARM_HEADLESS=false) needs a display: $DISPLAY is not set (run "
        "headless, or under xvfb-run)")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux displays")


def test_a_visible_browser_with_no_display_stops_the_run_before_it_starts(tmp_path: Path,
                                                                          farm: FarmCli):
    (tmp_path / "about.yaml").write_text(
        "name: about\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
        "      - sleep: 10\n")
    done = farm.run("run", tmp_path / "about.yaml", "--report-dir", tmp_path / "run",
                    FARM_HEADLESS="false", DISPLAY="", WAYLAND_DISPLAY="")
    assert (done.returncode, done.stderr) == (4, f"farm: error: {SAID}\n"), done.stdout
    assert not (tmp_path / "run").exists()


def test_a_device_opened_headed_with_no_display_says_so_without_launching(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    dev = BrowserDevice("headed-1", Settings(headless=False))
    with pytest.raises(ConfigError, match=r"needs a display: \$DISPLAY is not set"):
        dev.open()
    assert dev.browser_pid is None


def test_a_display_or_headless_needs_none():
    assert no_display(Settings(headless=False), {"DISPLAY": ":99"}) is None
    assert no_display(Settings(headless=False), {"WAYLAND_DISPLAY": "wayland-0"}) is None
    assert no_display(Settings(headless=True), {}) is None
    assert no_display(Settings(headless=False), {}) == SAID
