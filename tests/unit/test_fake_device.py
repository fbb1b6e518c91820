"""FakeDevice: screens, transitions, recorded actions, PNG screenshots, kill."""

import io
import threading
import time

import pytest
from PIL import Image

from farm.devices.base import Device, Rect, UINode, UITree
from farm.devices.fake import HANG, FakeDevice
from farm.errors import DeviceError, DeviceLost, StepFailed
from farm.suite.model import WebTarget


def login_screens() -> dict[str, UITree]:
    login = UITree(source="dom", page_text="Please sign in", nodes=[
        UINode(id=0, role="form", rect=Rect(x=0, y=0, width=400, height=300)),
        UINode(id=1, parent=0, role="input:text", label="User", editable=True, clickable=True,
               rect=Rect(x=10, y=10, width=200, height=30)),
        UINode(id=2, parent=0, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=60, width=100, height=30)),
        UINode(id=3, parent=2, role="b", text="in", rect=Rect(x=50, y=65, width=20, height=20)),
    ])
    home = UITree(source="dom", page_text="Welcome home", nodes=[])
    return {"login": login, "home": home}


def test_is_a_device() -> None:
    assert isinstance(FakeDevice(), Device)


def test_tap_follows_transition_via_ancestor_text_and_records_actions() -> None:
    dev = FakeDevice(screens=login_screens(), transitions={"Sign in": "home"})
    dev.open()
    dev.start_session(WebTarget(url="http://app/"))
    dev.tap(60, 75)                     # hits the <b>, whose ancestor is the button
    assert dev.screen == "home"
    assert dev.hierarchy().visible_text() == "Welcome home"
    assert dev.actions == [("open",), ("start_session", "http://app/"), ("tap", 60, 75)]
    dev.start_session(WebTarget(url="http://app/"))
    assert dev.screen == "login"        # every session starts fresh


def test_screen_scoped_transitions_and_typing() -> None:
    dev = FakeDevice(screens=login_screens(), transitions={("home", "Sign in"): "login"})
    dev.tap(20, 20)
    dev.type_text("ann")
    dev.type_text("e")
    assert dev.value_of(1) == "anne"
    dev.clear_text()
    assert dev.value_of(1) == ""
    dev.tap(20, 70)
    assert dev.screen == "login"        # transition only applies on "home"
    dev.press("Enter")
    assert dev.actions[-1] == ("press", "Enter")


def test_screenshot_is_a_png_of_the_device_size() -> None:
    dev = FakeDevice(screens=login_screens(), size=(320, 200))
    png = dev.screenshot()
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (320, 200)
    assert dev.screenshots == 1


def test_scripts_xpaths_and_injected_errors() -> None:
    dev = FakeDevice(scripts={"1+1": 2, "boom": StepFailed("javascript error: boom"),
                              "title": lambda d: d.screen},
                     xpaths={"//button": [Rect(x=1, y=2, width=3, height=4)]},
                     errors={"screenshot": DeviceError("no screen")})
    assert dev.run_script("1+1", 1) == 2
    assert dev.run_script("title", 1) == "main"
    assert dev.run_script("unknown", 1) is None
    with pytest.raises(StepFailed):
        dev.run_script("boom", 1)
    assert dev.query_xpath("//button")[0].center == (2, 4)
    with pytest.raises(StepFailed):
        dev.query_xpath("not xpath")
    with pytest.raises(DeviceError):
        dev.screenshot()


def test_hanging_script_times_out() -> None:
    dev = FakeDevice(scripts={"hang": HANG})
    with pytest.raises(StepFailed, match="did not finish within 0.05s"):
        dev.run_script("hang", 0.05)


def test_kill_from_another_thread_unblocks_and_later_calls_fail() -> None:
    dev = FakeDevice(scripts={"hang": HANG})
    threading.Timer(0.05, dev.kill).start()
    started = time.monotonic()
    with pytest.raises(DeviceLost):
        dev.run_script("hang", 10)
    assert time.monotonic() - started < 5
    assert not dev.healthy()
    with pytest.raises(DeviceLost):
        dev.tap(1, 1)
    dev.end_session()                   # teardown after a kill must not raise
    dev.close()
