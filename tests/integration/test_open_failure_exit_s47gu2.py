"""A `farm run` one of whose browsers does not start ends as any run does: through Python's
own exit, its exit handlers run (the cache's stores closed, phones' lock files and an unused
journal claim let go, a device plugin's own). Before, the failed device's own thread
(`OwnThread`), idle but never stopped, was taken for a device call left running, and the run
left through os._exit, skipping them all. A real Chromium for the device that starts; the
other is a program that exits at once; a device plugin (devices_s47gu2.py) tells whether the
exit handlers ran."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.chromium import find_chromium
from tests.support.suites import demo_copy, write_case

pytestmark = pytest.mark.integration


def chromium_that_starts_once(tmp: Path) -> Path:
    """A FARM_CHROMIUM_PATH whose first launch is the real Chromium, every later one fails."""
    real = find_chromium(Settings())
    if real is None:
        pytest.skip("no Chromium on this machine")
    script = tmp / "chromium-once"
    script.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = --version ]; then exec {real.path} "$@"; fi\n'
        f'if mkdir {tmp / "launched"} 2>/dev/null; then exec {real.path} "$@"; fi\n'
        'echo "this Chromium does not start" >&2\nexit 1\n')
    script.chmod(0o755)
    return script


def test_a_run_whose_device_could_not_start_ends_through_python_s_exit(tmp_path, farm):
    suite = demo_copy(tmp_path / "demo", "login_success.yaml")
    write_case(suite, "second", ["sleep: 1"])       # (a case for each device)
    mark = tmp_path / "exited"
    done = farm.run("run", suite, "--devices", "browser:2", "--report-dir", tmp_path / "report",
                    FARM_CHROMIUM_PATH=str(chromium_that_starts_once(tmp_path)),
                    FARM_DEVICE_PLUGINS="tests.integration.devices_s47gu2",
                    FARM_TEST_EXIT_MARK=str(mark))
    out = done.stdout + done.stderr
    # (either may be the one that launched first)
    assert re.search(r"\[browser-[12]\] dead: could not start: cannot launch Chromium", out), out
    assert re.search(r"farm: 2 passed in [0-9.]+s; lost: browser-[12] ", out), out     # both ran on the other
    assert done.returncode == 0, out
    # its exit handlers ran (a plugin's, as farm's own: cache.db closed, lock files let go)
    assert mark.read_text() == "exited", out
