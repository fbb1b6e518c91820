"""An iPhone whose WebDriverAgent sits behind a proxy or a device cloud's gateway: while WDA
restarts, what answers is an HTML error page (503), not WDA's JSON. The iPhone is lost (not an
action it refused), said in words, and waited for when farm reopens it between cases, as when
nothing answers; before, facebook-wda's tuple with the page's markup was the message
(``status failed on iphone-1: ('GET', 'http://…/status', '<html><head>…')``) and the iPhone
was written off at its first reopen.

The simulator's ``unavailable`` fault answers COUNT requests with a 503 page.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

BUNDLE = "com.example.notes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><button>New note</button></body></html>"""


@pytest.fixture(scope="module")
def iphone(tmp_path_factory):
    from farm.appserver import AppServer
    from farm.devices.sim import IosSimulator
    from farm.suite.model import AppSpec

    app = tmp_path_factory.mktemp("app")
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        with IosSimulator(1, {BUNDLE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim


@pytest.fixture
def device(iphone):
    from farm.devices.ios import IosDevice
    phone = IosDevice("iphone-1", None, iphone.urls[0])
    phone.open()
    yield phone
    iphone.fault(0, "unavailable", 0)
    phone.close()


def test_an_error_page_instead_of_wda_is_the_iphone_lost_said_in_words(iphone, device):
    from farm.errors import DeviceLost
    iphone.fault(0, "unavailable", -1)
    with pytest.raises(DeviceLost) as lost:
        device.screenshot()
    said = str(lost.value)
    assert said.startswith("iphone-1 lost (screenshot): GET /screenshot was answered by "
                           "something other than WebDriverAgent"), said
    assert "503 Service Unavailable" in said and "<" not in said, said
    assert not device.healthy()


def test_reopening_an_iphone_waits_while_an_error_page_answers_for_it(iphone, device):
    iphone.fault(0, "unavailable", 3)       # three 503 pages, then WDA is back
    device.open()
    assert device.size() == (390, 844)
    assert device.healthy()
