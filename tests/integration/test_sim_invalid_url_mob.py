"""A simulated phone asked to open a URL its browser cannot parse (``launch: "http://"``)
opens the browser on its error page, as a phone does: the Android simulator's adb request
died on it (the phone "lost (am): the adb server closed the connection", an error retried
on another phone) and the iOS one refused it with Playwright's words."""

from __future__ import annotations

from farm.devices.android import AndroidDevice
from farm.devices.ios import IosDevice
from farm.devices.sim import AndroidSimulator, IosSimulator
from farm.suite.model import AndroidTarget, IosTarget


def _shown(tree) -> str:
    return " ".join(n.text or n.name for n in tree.nodes if n.visible)


def test_android_opens_the_browser_on_its_error_page():
    with AndroidSimulator(1, {"com.x": "about:blank"}) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            phone.start_session(AndroidTarget(launch="http://"))
            assert phone.current_app() == "com.android.chrome"
            assert "ERR_INVALID_URL" in _shown(phone.hierarchy())
            assert phone.healthy()
        finally:
            phone.close()


def test_ios_opens_safari_on_its_error_page():
    with IosSimulator(1, {"com.x": "about:blank"}) as sim:
        phone = IosDevice("i1", None, sim.urls[0])
        phone.open()
        try:
            phone.start_session(IosTarget(launch="http://"))
            assert "ERR_INVALID_URL" in _shown(phone.hierarchy())
        finally:
            phone.close()
