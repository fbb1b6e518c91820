"""A plugin device author's findings at farm's wrapper (`PluginDevice`): a secret its screen
shows is blacked out of the screenshots farm keeps and sends, as a phone's; a close() that
hangs is named; wrong answers (size() as text, a tap off the screen, a 12000x12000 image) are
said, not taken as they are; ``Rect(x, y, w, h)`` works as the README writes it; a
ValidationError in a plugin says its field on the console's one line."""

from __future__ import annotations

import io
import logging
import struct
import threading
import zlib

import pytest
from PIL import Image

from farm.devices import phone_edges
from farm.devices.base import PluginDevice, Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import DeviceError, DeviceLost
from farm.text import unmasked

SECRET = "tv-secret-pass-42"
ORIGIN = "device plugin 'tvplug'"
FIELD = Rect(100, 200, 300, 40)         # (positional, as the README writes it)


def login_screen() -> UITree:
    return UITree(source="tv", nodes=[
        UINode(id=0, role="screen", rect=Rect(0, 0, 1280, 720)),
        UINode(id=1, parent=0, role="field", text=SECRET, rect=FIELD),
        UINode(id=2, parent=0, role="label", text="Password", rect=Rect(100, 150, 300, 40))])


def wrapped(device: FakeDevice, **kw) -> PluginDevice:
    return PluginDevice.around(device, ORIGIN, 300.0, **kw)


def mask(text: str) -> str:
    return text.replace(SECRET, "***")


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").getpixel((x, y))


@pytest.fixture(autouse=True)
def said_afresh():
    phone_edges._UNHIDDEN.clear()
    yield
    phone_edges._UNHIDDEN.clear()


# -- 1. secrets blacked out of a plugin device's screenshots --------------------------------
def test_a_secret_the_tv_screen_shows_is_blacked_out_of_what_farm_keeps_and_sends():
    tv = FakeDevice(login_screen(), name="tv-1", platform="android", size=(1280, 720))
    device = wrapped(tv)
    assert hasattr(device, "hide")      # (the runner gives a device with one the case's mask)
    device.hide = mask
    png = ScreenshotGrabber(device).grab()
    assert pixel(png, 250, 220) == (0, 0, 0)            # the field holding the secret
    assert pixel(png, 250, 170) != (0, 0, 0)            # its label is left as it is
    assert pixel(tv.screenshot(), 250, 220) != (0, 0, 0)


def test_a_case_referring_to_no_secret_reads_no_tree_for_its_images():
    tv = FakeDevice(login_screen(), name="tv-1", platform="android", size=(1280, 720))
    device = wrapped(tv)
    device.hide = unmasked
    png = ScreenshotGrabber(device).grab()
    assert tv.hierarchies == 0
    assert pixel(png, 250, 220) != (0, 0, 0)


def test_a_tree_just_read_serves_the_screenshot_and_an_action_makes_it_stale():
    tv = FakeDevice(login_screen(), name="tv-1", platform="android", size=(1280, 720))
    device = wrapped(tv)
    device.hide = mask
    device.hierarchy()
    grabber = ScreenshotGrabber(device)
    grabber.grab()
    assert tv.hierarchies == 1          # the step's read, not a second one
    device.press("Down")
    grabber.invalidate()
    assert pixel(grabber.grab(), 250, 220) == (0, 0, 0)
    assert tv.hierarchies == 2          # after an action: the screen's tree read again


def test_an_unreadable_tree_drops_the_image_rather_than_keep_a_secret():
    tv = FakeDevice(login_screen(), name="tv-1", platform="android", size=(1280, 720),
                    errors={"hierarchy": RuntimeError("tree endpoint 500")})
    device = wrapped(tv)
    device.hide = mask
    with pytest.raises(DeviceError, match="could not be blacked out"):
        ScreenshotGrabber(device).grab()


def test_a_device_with_no_tree_is_said_once_to_keep_its_images_as_they_are(caplog):
    class NoTree(FakeDevice):
        def hierarchy(self):
            return None
    devices = [wrapped(NoTree(login_screen(), name=f"tv-{i}", platform="android"))
               for i in (1, 2)]
    with caplog.at_level(logging.WARNING, logger="farm.devices"):
        for device in devices:
            device.hide = mask
            grabber = ScreenshotGrabber(device)
            grabber.grab()
            grabber.invalidate()
            grabber.grab()
    said = [r.getMessage() for r in caplog.records if "not blacked out" in r.getMessage()]
    assert len(said) == 1
    assert said[0].startswith("tv-1: hierarchy() of device plugin 'tvplug' gives no UI tree")


# -- 2. a close() that hangs is named -----------------------------------------------------
class HangingClose(FakeDevice):
    """close() waits until kill() (``obeys``) or the test's end."""

    def __init__(self, obeys: bool) -> None:
        super().__init__(name="tv-1", platform="android")
        self.obeys = obeys
        self.release = threading.Event()

    def close(self) -> None:
        self.release.wait(10)

    def kill(self) -> None:
        super().kill()
        if self.obeys:
            self.release.set()


def test_a_close_that_hangs_is_killed_and_named(caplog):
    tv = HangingClose(obeys=True)
    with caplog.at_level(logging.WARNING, logger="farm.devices"):
        wrapped(tv, close_timeout=0.05).close()
    assert "tv-1: close() of device plugin 'tvplug' did not finish within 0.05s: killing " \
           "the device" in caplog.text


def test_a_close_that_hangs_through_kill_is_given_up_and_named(caplog):
    tv = HangingClose(obeys=False)
    try:
        with caplog.at_level(logging.WARNING, logger="farm.devices"):
            with pytest.raises(DeviceLost, match=r"tv-1: close\(\) of device plugin 'tvplug' "
                                                 r"did not return within 0.05s of kill\(\)"):
                wrapped(tv, close_timeout=0.05, kill_grace=0.05).close()
    finally:
        tv.release.set()
    assert "close() of device plugin 'tvplug' did not finish" in caplog.text


# -- 3. wrong answers checked at the wrapper ----------------------------------------------
def test_size_as_text_is_the_devices_error_naming_its_type_not_its_value():
    class TextSize(FakeDevice):
        def size(self):
            return "1280x720"
    with pytest.raises(DeviceError) as raised:
        wrapped(TextSize(name="tv-1", platform="android")).size()
    assert str(raised.value) == ("tv-1: size() of device plugin 'tvplug' returned a str: "
                                 "expected (width, height), two positive ints")


def test_a_tap_point_off_the_screen_or_not_a_point_is_ignored_and_said_once(caplog):
    class Answers(FakeDevice):
        answer: object = None

        def tap(self, x, y):
            super().tap(x, y)
            return self.answer
    tv = Answers(name="tv-1", platform="android", size=(1280, 720))
    device = wrapped(tv)
    with caplog.at_level(logging.WARNING, logger="farm.devices"):
        tv.answer = (-5, 99999)
        assert device.tap(10, 20) is None
        assert device.tap(10, 20) is None
        tv.answer = "tapped!"
        assert device.tap(10, 20) is None
    tv.answer = (30, 40)
    assert device.tap(10, 20) == (30, 40)
    said = [r.getMessage() for r in caplog.records if "tap()" in r.getMessage()]
    assert said == ["tv-1: tap() of device plugin 'tvplug' returned (-5, 99999), off its "
                    "1280x720 screen (size()): ignored (the report marks (10, 20))"]


def png_header(width: int, height: int) -> bytes:
    """The start of a PNG as big as that (its header: no pixels follow)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
            + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))


def jpeg_sized(width: int, height: int) -> bytes:
    """A small real JPEG whose frame header says ``width`` x ``height``."""
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 20, 30)).save(out, "JPEG")
    data = bytearray(out.getvalue())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize("image, what", [(png_header(12000, 12000), "PNG"),
                                         (jpeg_sized(12000, 12000), "JPEG")])
def test_a_screenshot_over_the_pixel_cap_is_refused_saying_why(image, what, capfd):
    class Huge(FakeDevice):
        def screenshot(self):
            return image
    with pytest.raises(DeviceError) as raised:
        wrapped(Huge(name="tv-1", platform="android", size=(1280, 720))).screenshot()
    assert (f"expected the PNG or JPEG bytes of the screen (a 12000x12000 {what}: "
            f"144,000,000 pixels, over farm's cap of 50,000,000") in str(raised.value)
    assert "DecompressionBomb" not in capfd.readouterr().err


def test_a_screenshot_far_from_its_size_is_said_once(caplog):
    class SmallSize(FakeDevice):
        def size(self):
            return (100, 50)
    device = wrapped(SmallSize(name="tv-1", platform="android", size=(1280, 800)))
    with caplog.at_level(logging.WARNING, logger="farm.devices"):
        device.screenshot()
        device.screenshot()
    said = [r.getMessage() for r in caplog.records if "image, but its size()" in r.getMessage()]
    assert said == ["tv-1: screenshot() of device plugin 'tvplug' returned a 1280x800 image, "
                    "but its size() says 100x50: farm scales a screenshot to size() (the units "
                    "of tap(x, y) and the report's marks), so what is located on it misses (is "
                    "size() the screen's size in tap()'s units, and the image the whole "
                    "screen?)"]


def test_a_screenshot_at_a_phones_scale_or_turned_is_not_said(caplog):
    for points in ((390, 844), (844, 390)):
        class Points(FakeDevice):
            def size(self, said=points):
                return said
        device = wrapped(Points(name="tv-1", platform="ios", size=(1170, 2532)))
        with caplog.at_level(logging.WARNING, logger="farm.devices"):
            device.screenshot()
    assert "image, but its size()" not in caplog.text


def test_a_jpeg_screenshot_is_taken():
    out = io.BytesIO()
    Image.new("RGB", (1280, 720), (1, 2, 3)).save(out, "JPEG")

    class Jpeg(FakeDevice):
        def screenshot(self):
            return out.getvalue()
    assert wrapped(Jpeg(name="tv-1", platform="android", size=(1280, 720))).screenshot() \
        == out.getvalue()


# -- 5. the README's Rect, and a ValidationError's field on one line -----------------------
def test_rect_takes_its_values_by_position_as_the_readme_writes_it():
    assert Rect(1, 2, 3, 4) == Rect(x=1, y=2, width=3, height=4)
    assert Rect(1, 2, width=3, height=4).as_list() == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="x twice"):
        Rect(1, 2, 3, 4, x=5)
    with pytest.raises(TypeError, match="takes 4 values, 5 given"):
        Rect(1, 2, 3, 4, 5)


def test_a_validation_error_in_a_plugin_names_its_field_on_the_one_line():
    class BadNode(FakeDevice):
        def hierarchy(self):
            return UITree(source="tv", nodes=[UINode(id="first", rect=Rect(0, 0, 9, 9))])
    with pytest.raises(DeviceError) as raised:
        wrapped(BadNode(name="tv-1", platform="android")).hierarchy()
    line = str(raised.value).splitlines()[0]
    assert ("hierarchy() of device plugin 'tvplug' raised ValidationError: UINode.id: Input "
            "should be a valid integer, unable to parse string as an integer (got str) (at "
            "tests/unit/test_plugin_wrapper_jplug.py:") in line
    assert "first" not in line


def test_a_report_image_of_a_plugin_with_its_own_capture_is_blacked_out_too():
    class OwnCapture(FakeDevice):
        def capture_evidence(self):
            png = self.screenshot()
            return lambda: png
    device = wrapped(OwnCapture(login_screen(), name="tv-1", platform="android",
                                size=(1280, 720)))
    device.hide = mask
    assert pixel(ScreenshotGrabber(device).capture_evidence()(), 250, 220) == (0, 0, 0)
