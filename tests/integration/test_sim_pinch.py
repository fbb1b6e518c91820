"""A pinch zooms wherever it is made, by an edge of the screen too, and what was under the
fingers stays on the screen: farm's drivers (facebook-wda's W3C actions on iOS, yadb's -pinch
on Android) against the simulators, read back through the UI tree."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from tests.support.farm_cli import wait_for

pytestmark = pytest.mark.integration

BUNDLE = "com.farm.sim.map"
# Labels at the very top and the very bottom of a page exactly one screen tall; the status
# line says how far the page is zoomed once a pinch has changed it. It sits just below the
# top label, so a zoom into the top edge keeps it on screen: a phone's UI dump lists only
# what shows, and the zoom is read from it.
MAP_PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Map</title><style>html, body {margin: 0; height: 100%; overflow: hidden}
p {position: absolute; left: 120px; margin: 0; font: 16px sans-serif}</style></head><body>
<p id="top" style="top: 2px">North pole</p>
<p id="zoom" style="top: 30px">not zoomed</p>
<p id="middle" style="top: 420px">Equator</p>
<p id="bottom" style="bottom: 2px">South pole</p>
<script>visualViewport.addEventListener('resize', () => {
  document.getElementById('zoom').textContent = 'zoom ' + visualViewport.scale.toFixed(2); });
</script></body></html>"""


@pytest.fixture(scope="module")
def app_url(tmp_path_factory) -> Iterator[str]:
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    folder = tmp_path_factory.mktemp("map")
    (folder / "index.html").write_text(MAP_PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="map", serve=folder)])
        yield served.urls[folder.resolve()] + "/"


@pytest.fixture(scope="module")
def iphone(app_url) -> Iterator[Any]:
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator
    with IosSimulator(1, {BUNDLE: app_url}) as sim:
        dev = IosDevice("i1", None, sim.urls[0])
        dev.open()
        yield dev
        dev.close()


@pytest.fixture(scope="module")
def android(app_url) -> Iterator[Any]:
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator
    with AndroidSimulator(1, {BUNDLE: app_url}) as sim:
        dev = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        dev.open()
        yield dev
        dev.close()


def node(device: Any, text: str) -> Any:
    return next(n for n in device.hierarchy().nodes if n.text == text)


def zoom_reaching(device: Any, what: str, ok: Any) -> float:
    """Wait for the status line to show a zoom that is ``ok`` (the page's resize event comes
    a frame after the gesture); that zoom."""
    def shown() -> float | None:
        text = next((n.text for n in device.hierarchy().nodes if n.text.startswith("zoom ")), "")
        return float(text[5:]) if text and ok(float(text[5:])) else None
    return wait_for(shown, 30, f"a zoom {what}")


@pytest.mark.parametrize("label", ["North pole", "South pole", "Equator"])
def test_ios_pinch_zooms_by_an_edge_as_in_the_middle(iphone, label):
    from farm.suite.model import IosTarget
    iphone.start_session(IosTarget(launch=BUNDLE))
    w, h = iphone.size()
    before = node(iphone, label).rect
    iphone.pinch(*before.center, min(w, h) // 4, True)          # fingers apart: zoom in
    zoom_reaching(iphone, "above 2.5", lambda z: z > 2.5)
    after = node(iphone, label).rect
    assert after.height > 2 * before.height                      # bigger, and still on screen
    assert 0 <= after.y and after.y + after.height <= h, (label, after)

    iphone.pinch(*after.center, min(w, h) // 4, False)          # together: zoom out
    zoom_reaching(iphone, "below 1.5", lambda z: z < 1.5)


def test_android_pinch_at_the_top_edge_zooms(android):
    from farm.suite.model import AndroidTarget
    android.start_session(AndroidTarget(launch=BUNDLE))
    w, h = android.size()
    before = node(android, "North pole").rect
    android.pinch(*before.center, min(w, h) // 4, True)
    zoom_reaching(android, "above 2.5", lambda z: z > 2.5)
    after = node(android, "North pole").rect
    assert after.height > 2 * before.height and after.y >= 0
