"""A JavaScript confirm() a failed case left unanswered on a simulated iPhone (through the
real facebook-wda, as farm drives a phone) no longer breaks the next case there: the app that
case launches was never shown (the simulator's launch waited on the dialog of the page in
front), so WDA named the app in front while the screen showed the home page, and the next
case failed on a misleading locate-cache message or was skipped as "needs a model". On an
iPhone the dialog stays with Safari's page in the background and the app launched shows."""

from __future__ import annotations

import pytest

from farm.appserver import AppServer
from farm.devices.ios import IosDevice
from farm.devices.sim import IosSimulator
from farm.suite.model import AppSpec, IosTarget

pytestmark = pytest.mark.integration

BUNDLE = "com.qa.lab"
PAGE = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="font:20px sans-serif"><h1>Lab home</h1>
<button onclick="document.getElementById('out').textContent = confirm('Delete all items?')
? 'Deleted' : 'Kept'">Delete everything</button><p id="out">Nothing yet</p></body></html>"""


def _texts(phone: IosDevice) -> list[str]:
    tree = phone.hierarchy()
    return [n.text for n in (tree.nodes if tree is not None else ()) if n.text]


def _leave_a_confirm_up(url: str, launch: str) -> None:
    """A case that taps the button and ends (fails) with the confirm() unanswered."""
    phone = IosDevice("i1", None, url)
    phone.open()
    phone.start_session(IosTarget(launch=launch))
    node = next(n for n in phone.hierarchy().nodes if n.text == "Delete everything")
    phone.tap(node.rect.x + node.rect.width // 2, node.rect.y + node.rect.height // 2)
    assert phone.error_page() and "Delete all items?" in phone.error_page()
    phone.end_session()
    phone.close()


@pytest.mark.parametrize("left_in", ["safari", "the app"])
def test_the_next_case_starts_with_its_app_showing(tmp_path, left_in):
    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="lab", serve=app)])
        page = served.urls[app.resolve()] + "/"
        with IosSimulator(1, {BUNDLE: page}) as sim:
            _leave_a_confirm_up(sim.urls[0], page if left_in == "safari" else BUNDLE)
            phone = IosDevice("i1", None, sim.urls[0])
            phone.open()
            phone.start_session(IosTarget(launch=BUNDLE))
            try:
                assert phone.current_app() == BUNDLE
                assert "Lab home" in _texts(phone) and "Nothing yet" in _texts(phone)
                assert phone.error_page() is None       # no alert in front
            finally:
                phone.close()
