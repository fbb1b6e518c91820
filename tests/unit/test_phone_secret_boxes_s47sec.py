"""A secret a phone's screen shows is blacked out of the screenshots farm keeps and sends, as
the browser's are: each node of the screen's UI tree (uiautomator dump, WDA source) whose text,
content-desc, value or label holds a secret has its box filled black, scaled from the tree's
units to the image's pixels. A secret typed into a plain text field showed in the report's
images and the model's prompt. A run without a secret reads no tree for it; a tree the step
read since its last action, within the grabber's frame time-to-live before the screenshot, is
used again (one from before a wait is not: the app may have shown a secret meanwhile), and a
tree read for a screenshot is the step's next read while fresh. A tree that stays unreadable
has the image dropped. Real drivers, fake phones, a fake clock."""

from __future__ import annotations

import io
import logging
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from farm.agent.images import blacked_out_at
from farm.devices import phone_edges
from farm.devices.android import DUMP_TRIES, AndroidDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.devices.ios import IosDevice
from farm.devices.ios import SOURCE_TRIES
from farm.devices.native_tree import parse_uiautomator, parse_wda, secret_boxes
from farm.errors import DeviceError
from farm.suite.vars import Variables

SECRET = "Hunter2-Secret!"
MASK = Variables({"LOGIN_PASSWORD": SECRET}, secrets=["LOGIN_PASSWORD"]).mask

# a login form: a label, the username field a secret was typed into, a view whose
# content-desc repeats its text's (the text, not the whole view, is blacked out), a note
DUMP = f"""<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0"><node index="0" text="" class="android.widget.FrameLayout"
 package="com.qa.lab" content-desc="" bounds="[0,0][400,800]">
<node text="Username" class="android.widget.TextView" bounds="[20,40][380,80]"/>
<node text="{SECRET}" class="android.widget.EditText" bounds="[20,100][380,160]"/>
<node content-desc="token {SECRET}" class="android.view.View" bounds="[20,200][380,300]">
<node text="token {SECRET.upper()}" class="android.widget.TextView" bounds="[30,210][370,250]"/>
</node>
<node text="Nothing to hide" class="android.widget.TextView" bounds="[20,400][380,440]"/>
</node></hierarchy>"""
FIELD, TOKEN, LABEL, NOTE = (20, 100, 380, 160), (30, 210, 370, 250), (20, 40, 380, 80), \
    (20, 400, 380, 440)


def _white(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(out, format="PNG")
    return out.getvalue()


def _black(png: bytes, box: tuple[int, int, int, int], scale: float = 1.0) -> bool:
    x1, y1, x2, y2 = (round(v * scale) for v in box)
    return Image.open(io.BytesIO(png)).convert("L").crop((x1, y1, x2, y2)).getextrema() \
        == (0, 0)


def _white_box(png: bytes, box: tuple[int, int, int, int], scale: float = 1.0) -> bool:
    x1, y1, x2, y2 = (round(v * scale) for v in box)
    return Image.open(io.BytesIO(png)).convert("L").crop((x1, y1, x2, y2)).getextrema() \
        == (255, 255)


class _Phone:
    """An adb device answering screencap, uiautomator dump, wm size and input; records what
    it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.sync = SimpleNamespace(read_bytes=lambda path: DUMP.encode())

    def get_features(self) -> str:
        return "shell_v2,cmd"

    def shell2(self, cmd: str, timeout=None, encoding=None, v2=True):
        self.asked.append(cmd)
        out = b""
        if cmd.startswith("screencap"):
            out = _white(400, 800)
        elif "uiautomator dump" in cmd:
            out = b"UI hierchary dumped to: /sdcard/x.xml\nsuccess\n"
        elif cmd == "wm size":
            out = b"Physical size: 400x800\n"
        return SimpleNamespace(stdout=out, stderr=b"", output=out, returncode=0)

    def dumps(self) -> int:
        return sum("uiautomator dump" in cmd for cmd in self.asked)


class _Clock:
    """`phone_edges.now`, moved by the test."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> _Clock:
    """Every test's (a tree's age is the clock's, not how fast the machine runs them)."""
    clock = _Clock()
    monkeypatch.setattr(phone_edges, "now", clock)
    return clock


def _android() -> tuple[AndroidDevice, _Phone]:
    dev = AndroidDevice("a1", None, "a1")
    dev._dev = _Phone()
    return dev, dev._dev


def test_the_innermost_nodes_holding_a_secret_in_any_form_are_found():
    tree = parse_uiautomator(DUMP, 400, 800)
    assert secret_boxes(tree, MASK) == [[20, 100, 360, 60], [30, 210, 340, 40]]
    assert secret_boxes(tree, lambda text: text) == []


def test_a_secret_typed_into_a_plain_field_is_blacked_out_of_the_screenshot(caplog):
    dev, phone = _android()
    dev.hide = MASK
    with caplog.at_level(logging.INFO, logger="farm"):
        png = ScreenshotGrabber(dev).grab()
    assert _black(png, FIELD) and _black(png, TOKEN)
    assert _white_box(png, LABEL) and _white_box(png, NOTE)
    assert phone.dumps() == 1
    assert "a1: 2 region(s) of the screen's text holding a secret blacked out of a " \
           "screenshot" in caplog.text
    assert SECRET not in caplog.text


def test_a_run_without_a_secret_reads_no_tree_for_its_screenshots():
    dev, phone = _android()         # (no runner gave it a mask: `unmasked`)
    png = ScreenshotGrabber(dev).grab()
    assert phone.dumps() == 0 and png == _white(400, 800)


def test_the_tree_the_step_read_is_used_again_until_an_action():
    dev, phone = _android()
    dev.hide = MASK
    grabber = ScreenshotGrabber(dev, ttl=0)
    dev.hierarchy()                 # the step's own read (a locate)
    assert _black(grabber.grab(), FIELD) and phone.dumps() == 1
    assert _black(grabber.grab(), FIELD) and phone.dumps() == 1   # a screencap changes nothing
    dev.tap(10, 10)
    assert _black(grabber.grab(), FIELD) and phone.dumps() == 2


def test_the_blackout_leaves_the_step_s_own_tree_and_scroll_frame_alone():
    dev, phone = _android()
    dev.hide = MASK
    png = ScreenshotGrabber(dev).grab()
    assert _black(png, FIELD)
    assert dev._last_tree is None and not dev._dump_fresh
    # what a scroll compares its next screen with (`_shot`): the screen as taken, not the
    # image with its secrets blacked out (a scroll would see a change that is none)
    assert dev._shot == _white(400, 800)


def test_a_tree_read_before_a_wait_is_read_again_for_the_screenshot_after_it(clock):
    """A sleep step's after-image, aiWaitFor's next look: no command was sent, but the screen
    may have changed (the app filled a field with a secret): the tree a step read before the
    wait is not the screen's after it."""
    dev, phone = _android()
    dev.hide = MASK
    screen = {"xml": DUMP.replace(SECRET, "loading")}
    phone.sync = SimpleNamespace(read_bytes=lambda path: screen["xml"].encode())
    grabber = ScreenshotGrabber(dev, ttl=0)
    dev.hierarchy()                         # a step's locate: the field still empty
    screen["xml"] = DUMP                    # meanwhile the app shows the secret
    clock.t += phone_edges.TREE_KEPT_S      # (just within the frame's time: kept)
    assert not _black(grabber.grab(), FIELD) and phone.dumps() == 1
    clock.t += 2.0                          # a sleep step, a pause between looks
    assert _black(grabber.grab(), FIELD) and phone.dumps() == 2


def test_a_tree_read_for_a_screenshot_is_the_step_s_next_read_while_fresh(clock):
    dev, phone = _android()
    dev.hide = MASK
    ScreenshotGrabber(dev).grab()
    assert phone.dumps() == 1 and dev._last_tree is None     # (not a step's tree yet)
    tree = dev.hierarchy()                  # the next step's locate: the same screen
    assert phone.dumps() == 1 and dev._last_tree is tree and dev._dump_fresh
    clock.t += 5.0
    dev.hierarchy()                         # a step's later read: read again
    assert phone.dumps() == 2
    dev.tap(10, 10)
    ScreenshotGrabber(dev).grab()           # the screen after the tap, read for its image
    assert phone.dumps() == 3
    dev.tap(10, 10)                         # a command: that tree is no longer the screen's
    dev.hierarchy()
    assert phone.dumps() == 4


def test_a_tree_that_cannot_be_read_drops_the_image_and_says_why(caplog, monkeypatch):
    """An image that may show a secret is neither kept nor sent: the grab fails (a report's
    image then says "no image: not taken: ..."), after the retries a step's read makes."""
    dev, phone = _android()
    dev.hide = MASK
    monkeypatch.setattr("farm.devices.android.time.sleep", lambda s: None)
    phone.sync = SimpleNamespace(read_bytes=lambda path: b"<hierarchy><node")
    grabber = ScreenshotGrabber(dev)
    with caplog.at_level(logging.INFO, logger="farm"), pytest.raises(DeviceError) as failed:
        grabber.grab()
    assert "the screen's UI tree could not be read (uiautomator dump: not XML" \
        in str(failed.value)
    assert "neither kept nor sent to a model" in str(failed.value)
    assert phone.dumps() == DUMP_TRIES and grabber.cached is None
    assert "a1: the screen's UI tree was not read (uiautomator dump: not XML" in caplog.text
    assert "its screenshot is dropped" in caplog.text


def test_a_dump_readable_at_its_second_try_blacks_the_image_out(monkeypatch):
    dev, phone = _android()
    dev.hide = MASK
    monkeypatch.setattr("farm.devices.android.time.sleep", lambda s: None)
    answers = [b"<hierarchy><node", DUMP.encode()]
    phone.sync = SimpleNamespace(read_bytes=lambda path: answers.pop(0))
    assert _black(ScreenshotGrabber(dev).grab(), FIELD) and phone.dumps() == 2


SOURCE = f"""<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Lab" label="Lab"
 x="0" y="0" width="200" height="400" visible="true">
<XCUIElementTypeTextField type="XCUIElementTypeTextField" value="{SECRET}" x="10" y="50"
 width="180" height="30" visible="true"/>
<XCUIElementTypeStaticText type="XCUIElementTypeStaticText" label="Nothing to hide"
 value="Nothing to hide" x="10" y="100" width="180" height="20" visible="true"/>
</XCUIElementTypeApplication>"""


class _Session:
    def __init__(self) -> None:
        self.sources = 0
        self.answers: list[str] = []        # sources given before SOURCE

    def screenshot(self, format: str = "raw") -> bytes:
        return _white(200, 400)

    def source(self) -> str:
        self.sources += 1
        return self.answers.pop(0) if self.answers else SOURCE

    def tap(self, x: int, y: int) -> None:
        pass

    def app_state(self, bundle: str) -> Any:
        return SimpleNamespace(value=4)         # running in front


def _iphone() -> tuple[IosDevice, _Session]:
    dev = IosDevice("i1", None, "http://127.0.0.1:1")
    dev._client, dev._session, dev._size = object(), _Session(), (200, 400)
    return dev, dev._session


def test_an_iphone_field_holding_a_secret_is_blacked_out():
    dev, session = _iphone()
    dev.hide = MASK
    png = ScreenshotGrabber(dev).grab()
    assert _black(png, (10, 50, 190, 80)) and _white_box(png, (10, 100, 190, 120))
    assert session.sources == 1 and dev._last_tree is None


def test_an_iphone_s_source_the_step_read_is_used_again_until_an_action():
    dev, session = _iphone()
    dev.hide = MASK
    dev._bundle = "com.other.app"           # (its state is asked after the source is read)
    grabber = ScreenshotGrabber(dev, ttl=0)
    dev.hierarchy()
    assert _black(grabber.grab(), (10, 50, 190, 80)) and session.sources == 1
    assert _black(grabber.grab(), (10, 50, 190, 80)) and session.sources == 1
    dev.tap(5, 5)
    assert _black(grabber.grab(), (10, 50, 190, 80)) and session.sources == 2


def test_an_iphone_s_empty_source_is_asked_again_for_a_screenshot(monkeypatch):
    """WDA's source is empty for a moment (an app between screens): asked again, as a
    step's read does, and the image blacked out; one that stays empty drops the image."""
    monkeypatch.setattr("farm.devices.ios.time.sleep", lambda s: None)
    dev, session = _iphone()
    dev.hide = MASK
    empty = '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Lab"/>'
    session.answers = [empty]
    png = ScreenshotGrabber(dev).grab()
    assert _black(png, (10, 50, 190, 80)) and session.sources == 2
    dev.tap(5, 5)
    session.answers = [empty] * SOURCE_TRIES
    with pytest.raises(DeviceError, match="WDA's /source: no visible elements"):
        ScreenshotGrabber(dev).grab()
    assert session.sources == 2 + SOURCE_TRIES


def test_an_iphone_s_source_from_before_a_wait_is_read_again(clock):
    dev, session = _iphone()
    dev.hide = MASK
    grabber = ScreenshotGrabber(dev, ttl=0)
    dev.hierarchy()
    grabber.grab()
    assert session.sources == 1
    clock.t += 2.0
    grabber.grab()
    assert session.sources == 2
    dev.hierarchy()                         # the step's next read: that source, fresh
    assert session.sources == 2


def test_an_iphone_in_a_run_without_a_secret_is_not_asked_its_source():
    dev, session = _iphone()
    ScreenshotGrabber(dev).grab()
    assert session.sources == 0


def test_boxes_are_scaled_from_the_tree_s_units_to_the_image_s_pixels():
    tree = parse_wda(SOURCE, 200, 400)
    boxes = secret_boxes(tree, MASK)
    png = blacked_out_at(_white(600, 800), boxes, (200, 400))   # 3x wide, 2x high
    img = Image.open(io.BytesIO(png)).convert("L")
    assert img.crop((30, 100, 570, 160)).getextrema() == (0, 0)
    assert img.crop((30, 200, 570, 240)).getextrema() == (255, 255)
    assert img.crop((0, 0, 600, 90)).getextrema() == (255, 255)


def test_a_short_credential_is_found_where_a_node_holds_it_whole():
    """A credential-named variable of 4-7 characters is masked only where a text is that value
    alone (the browser veils a field it is typed into): on a phone, the field whose text it
    is; a text holding it among other words is no secret's."""
    mask = Variables({"VAULT_PASSWORD": "48213"}).mask
    tree = parse_uiautomator(DUMP.replace(SECRET, "48213"), 400, 800)
    assert secret_boxes(tree, mask) == [[20, 100, 360, 60]]


def test_a_step_whose_screen_s_tree_cannot_be_read_says_why_it_has_no_image(tmp_path,
                                                                            monkeypatch):
    """The report's step row: "no image: not taken: the screen's UI tree could not be read
    (...)", not an image that may show a secret."""
    from farm.evidence import CaseEvidence
    from farm.results import ArtifactStore, StepRecord
    dev, phone = _android()
    dev.hide = MASK
    monkeypatch.setattr("farm.devices.android.time.sleep", lambda s: None)
    phone.sync = SimpleNamespace(read_bytes=lambda path: b"<hierarchy><node")
    evidence = CaseEvidence("all", ScreenshotGrabber(dev), ArtifactStore(tmp_path), "c", 1,
                            mask=MASK)
    rec = StepRecord(task="t", index=1, kind="aiTap", label="Sign in")
    assert evidence.after_step(rec, looks_only=False) is None
    assert rec.no_image is not None and rec.no_image.startswith(
        "not taken: the screen's UI tree could not be read (uiautomator dump: not XML")
    assert not list(tmp_path.rglob("*.jpg")) and not list(tmp_path.rglob("*.png"))
