"""A phone whose screen went off between cases is locked when farm wakes it; the health check
before the next case takes its (swipe) lock screen away, as it wakes it: the app was started
behind the lock screen, "did not come to the front ... is the phone locked or stuck?", the
phone's error case after case until it was quarantined."""

from __future__ import annotations

import pytest

from farm.suite.model import AndroidTarget


@pytest.mark.parametrize("shell_v2", [True, False], ids=["android-8+", "android-6"])
def test_a_phone_locked_as_its_screen_went_off_is_unlocked_before_a_case(shell_v2):
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1, {"com.x": "about:blank"}) as sim:
        sim.server.shells[0].shell_v2 = shell_v2
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            phone.shell("input keyevent 26")      # the power key: screen off, phone locked
            assert "mShowingLockscreen=true" in phone.shell("dumpsys window")
            assert phone.healthy()
            phone.start_session(AndroidTarget(launch="com.x"))
            assert phone.current_app() == "com.x"
        finally:
            phone.close()
