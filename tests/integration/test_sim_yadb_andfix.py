"""`farm sim android`'s phones refuse yadb's commands until yadb is pushed, as a phone does:
the simulator ran `app_process -Djava.class.path=/data/local/tmp/yadb ... com.ysbing.yadb.Main`
without it, so a suite's pinch or imeStrategy: always-yadb passed on the simulator and failed on
every real phone that lacked it."""

from __future__ import annotations

import re

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration

KEYBOARD = ("app_process -Djava.class.path=/data/local/tmp/yadb /data/local/tmp "
            "com.ysbing.yadb.Main -keyboard hi")


def _yadb_then_pushed(port: int, serial: str) -> tuple[tuple[str, int], tuple[str, int]]:
    """What yadb's -keyboard says before and after `adb push yadb /data/local/tmp/yadb`."""
    import adbutils
    dev = adbutils.AdbClient(port=port).device(serial)
    before = dev.shell2(KEYBOARD)
    dev.sync.push(b"PK\x03\x04 yadb", "/data/local/tmp/yadb")
    after = dev.shell2(KEYBOARD)
    return (before.output, before.returncode), (after.output, after.returncode)


def test_farm_sim_android_refuses_yadb_until_it_is_pushed(farm: FarmCli):
    sim = farm.start("sim", "android", "--port", "0")
    line = sim.wait_for_line("adb server on 127.0.0.1:")
    port = re.search(r"127\.0\.0\.1:(\d+)", line)
    assert port, sim.output
    (out, code), (pushed_out, pushed_code) = _yadb_then_pushed(int(port[1]), "emulator-5554")
    assert code == 1 and "ClassNotFoundException: com.ysbing.yadb.Main" in out, out
    assert pushed_code == 0, pushed_out


def test_a_run_s_simulated_phones_have_yadb_pushed():
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        (out, code), _ = _yadb_then_pushed(sim.port, sim.serials[0])
    assert code == 0, out
