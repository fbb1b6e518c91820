"""A secret an Android app shows in a view ("Your password is …" in a TextView) is blacked
out of its screenshots, as the browser's is: on a real simulated phone, with the case's mask
set as the runner sets it, the view's box is solid black and a text elsewhere is not, whether
the tree was read for this screen (no second dump) or the screen changed since."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.support.http_site import QuietHandler, serving

pytestmark = pytest.mark.integration

SECRET = "Hunter2-Secret!"
PAGE = f"""<!doctype html><html><body style="margin: 0; font: 20px monospace">
<div id="pw" style="position: absolute; top: 40px; left: 20px">Your password is {SECRET}</div>
<div id="other" style="position: absolute; top: 200px; left: 20px">Nothing to hide here</div>
</body></html>""".encode()


class Page(QuietHandler):
    def do_GET(self) -> None:
        self.send_page(PAGE)


def mask(text: str) -> str:
    return text.replace(SECRET, "***")


def darkest_and_lightest(png: bytes, rect) -> tuple[int, int]:
    img = Image.open(io.BytesIO(png)).convert("L")
    return img.crop((rect.x, rect.y, rect.x + rect.width, rect.y + rect.height)).getextrema()


@pytest.fixture
def phone():
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with serving(Page) as url, AndroidSimulator(1, {"com.farm.secret": url + "/"}) as sim:
        device = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        device.open()
        try:
            device.launch("com.farm.secret")
            yield device
        finally:
            device.close()


def boxes(phone) -> tuple:
    tree = phone.hierarchy()
    secret = next(n.rect for n in tree.nodes if SECRET in n.text)
    other = next(n.rect for n in tree.nodes if n.text == "Nothing to hide here")
    return secret, other


def test_a_secret_the_app_shows_is_black_in_its_screenshot(phone):
    secret, other = boxes(phone)
    plain = phone.screenshot()                  # no mask: the image as taken
    assert darkest_and_lightest(plain, secret)[1] > 200
    phone.hide = mask
    before = phone.hidden
    for fresh in (True, False):
        if fresh:
            boxes(phone)                        # the tree read for this screen
        else:
            phone.shell("true")                 # a command since: the tree is old
        png = phone.screenshot()
        assert darkest_and_lightest(png, secret)[1] < 40, f"fresh tree: {fresh}"
        lo, hi = darkest_and_lightest(png, other)
        assert lo < 100 and hi > 200, f"the text elsewhere is blacked out (fresh: {fresh})"
    assert phone.hidden == before + 2


def test_a_screen_without_a_secret_is_as_taken(phone):
    secret, other = boxes(phone)
    phone.hide = lambda text: text.replace("not shown anywhere", "***")
    png = phone.screenshot()
    assert darkest_and_lightest(png, secret)[1] > 200
    assert phone.hidden == 0
