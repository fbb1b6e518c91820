"""Back on the simulated Android phone: at the app's first page the app goes to the
background where it was and its next launch resumes it (it resumed a blank page: Back had
navigated to the home screen's blank page the app was opened on), and a Back within the page
(a pushState entry) stays in the app (it sent the app to the background)."""

from __future__ import annotations

import pytest

from farm.appserver import AppServer
from farm.errors import StepFailed
from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator
from farm.suite.model import AndroidTarget, AppSpec

pytestmark = pytest.mark.integration

PKG = "com.farm.back.test"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
</head><body><h1>Back app</h1>
<button onclick="document.getElementById('c').textContent='Clicked'">Press</button>
<button onclick="history.pushState({}, '', '#two');
document.getElementById('v').textContent='View two'">Next view</button>
<p id="c">Not clicked</p><p id="v">View one</p></body></html>"""


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    root = tmp_path_factory.mktemp("backapp")
    (root / "index.html").write_text(PAGE)
    with AppServer() as apps:
        apps.serve([AppSpec(name="b", serve=root, env="BACK_URL")])
        with AndroidSimulator(1, {PKG: apps.env["BACK_URL"] + "/index.html"}) as sim:
            dev = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
            dev.open()
            yield dev
            dev.close()


def _tap(dev: AndroidDevice, text: str) -> None:
    node = next(n for n in dev.hierarchy().nodes if n.text == text)
    dev.tap(*node.rect.center)


def test_back_at_the_first_page_backgrounds_the_app_and_launch_resumes_it(phone):
    phone.start_session(AndroidTarget(launch=PKG))
    _tap(phone, "Press")
    assert "Clicked" in phone.hierarchy().visible_text()
    phone.back()
    assert phone.current_app() != PKG
    phone.launch(PKG)
    shown = phone.hierarchy().visible_text()
    assert "Back app" in shown and "Not clicked" not in shown, shown


def test_back_after_a_pushstate_stays_in_the_app(phone):
    phone.start_session(AndroidTarget(launch=PKG))
    _tap(phone, "Next view")
    assert "View two" in phone.hierarchy().visible_text()
    phone.back()
    assert phone.current_app() == PKG
    assert "Back app" in phone.hierarchy().visible_text()


def test_an_iphone_s_edge_swipe_at_the_first_page_stays_on_it(tmp_path):
    """iOS has no Back button: the edge swipe (IosDevice.back) goes back in the app, and at its
    first page changes nothing (it showed a blank page with no UI tree): the step fails saying
    so, the app still on its page."""
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator
    from farm.suite.model import IosTarget

    (tmp_path / "index.html").write_text(PAGE)
    with AppServer() as apps:
        apps.serve([AppSpec(name="b", serve=tmp_path, env="BACK_URL")])
        with IosSimulator(1, {PKG: apps.env["BACK_URL"] + "/index.html"}) as sim:
            dev = IosDevice("i1", None, sim.urls[0])
            dev.open()
            dev.start_session(IosTarget(launch=PKG))
            # nothing to go back to: the step says so (commit cd576b2), and the page stays
            with pytest.raises(StepFailed, match=r"^iOS has no Back key: .*the screen did not "
                                                 r"change"):
                dev.back()
            tree = dev.hierarchy()
            assert tree is not None and "Back app" in tree.visible_text()
            assert dev.current_app() == PKG
            dev.close()
