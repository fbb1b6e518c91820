"""A step's XPath that matched nothing is said on the hit another tier made; OCR reads only
what the UI tree could not (a canvas, a frame it did not read into), so "Username" on a form
is never taken for "User name" by OCR after the text tier called it a near miss."""

from __future__ import annotations

import pytest

from farm.agent import ocr
from farm.agent.locator import LocatorChain, TextMatchTier, XPathTier
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError


def node(i: int, role: str, parent: int | None = None, rect=(0, 0, 100, 30), **kw) -> UINode:
    return UINode(id=i, parent=parent, role=role, rect=Rect(x=rect[0], y=rect[1],
                  width=rect[2], height=rect[3]), **kw)


FORM = [node(0, "label", rect=(10, 10, 80, 20), text="Username"),
        node(1, "input:text", rect=(100, 10, 200, 20), label="Username", editable=True,
             clickable=True),
        node(2, "button", rect=(10, 50, 80, 30), text="Log in", clickable=True)]
READ_FRAME = UITree(source="dom", nodes=[*FORM, node(3, "iframe", rect=(10, 100, 300, 80),
                                                     name="inner"),
                                         node(4, "p", 3, (20, 110, 200, 20), text="Inside")])
CANVAS = UITree(source="dom", nodes=[*FORM, node(3, "canvas", rect=(0, 200, 400, 160))])


def test_a_step_xpath_that_matched_nothing_is_noted_on_the_text_tiers_hit() -> None:
    chain = LocatorChain([XPathTier(), TextMatchTier()])
    hit = chain.locate("Log in", FakeDevice(UITree(source="dom", nodes=FORM)),
                       xpath="//button[@id='nope']")
    assert hit.tier == "text"
    assert hit.notes == ("its xpath //button[@id='nope'] matched nothing; "
                         'found "Log in" (button) by the text tier instead',)


def test_an_xpath_that_matched_or_was_not_tried_says_nothing() -> None:
    dev = FakeDevice(UITree(source="dom", nodes=FORM),
                     xpaths={"//button": [Rect(x=10, y=50, width=80, height=30)]})
    assert LocatorChain([XPathTier(), TextMatchTier()]).locate(
        "Log in", dev, xpath="//button").notes == ()
    off = LocatorChain([XPathTier(), TextMatchTier()], off=("xpath",))
    assert off.locate("Log in", dev, xpath="//nope").notes == ()
    assert LocatorChain([XPathTier(), TextMatchTier()]).locate("Log in", dev).notes == ()


def test_only_what_the_tree_could_not_read_needs_pixels() -> None:
    assert ocr.unread_areas(None) is None
    assert ocr.unread_areas(UITree(source="dom", nodes=[node(0, "div")])) is None
    assert ocr.unread_areas(READ_FRAME) == [] and not ocr.needs_pixels(READ_FRAME)
    unread = UITree(source="dom", nodes=[*FORM, node(3, "iframe", rect=(10, 100, 300, 80))])
    assert ocr.unread_areas(unread) == [Rect(x=10, y=100, width=300, height=80)]
    assert ocr.unread_areas(CANVAS) == [Rect(x=0, y=200, width=400, height=160)]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """OCR reads the form's label and the canvas's button (image = screen pixels here)."""
    def engine(image, use_cls=True):
        return [([[10, 10], [90, 10], [90, 30], [10, 30]], "Username", 0.99),
                ([[60, 250], [200, 250], [200, 280], [60, 280]], "Start game", 0.95)], 0.0
    monkeypatch.setattr(ocr, "_engine", engine)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())


def test_ocr_finds_the_canvas_text_but_not_the_forms_near_miss(reads) -> None:
    chain = LocatorChain([TextMatchTier(), ocr.OcrTier()])
    dev = FakeDevice(CANVAS)
    hit = chain.locate("Start game", dev)
    assert hit.tier == "ocr" and 200 <= hit.rect.y <= 360
    with pytest.raises(LocateError) as info:
        chain.locate("User name", dev)
    assert str(info.value).splitlines()[0] == (
        'no element matches "User name"; the closest on screen is "Username" (label)')


def test_ocr_still_reads_the_whole_screen_when_the_tree_has_no_text(reads) -> None:
    textless = UITree(source="wda", nodes=[node(0, "XCUIElementTypeOther",
                                                rect=(0, 0, 400, 400))])
    hit = LocatorChain([TextMatchTier(), ocr.OcrTier()]).locate("Username",
                                                                FakeDevice(textless))
    assert hit.tier == "ocr" and hit.rect.y == 10
