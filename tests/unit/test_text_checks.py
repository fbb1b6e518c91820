"""assertText / assertNoText / waitForText where the screen's tree says nothing: without OCR
farm cannot read the screen, and says so instead of passing every assertNoText."""

from __future__ import annotations

import sys

import pytest

import farm.agent.ocr as ocr
from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed, StepFailed


@pytest.fixture
def no_ocr(monkeypatch):
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)   # the import fails


def _tree(*nodes: UINode) -> UITree:
    return UITree(source="uiautomator", nodes=list(nodes))


def test_an_empty_tree_without_ocr_fails_the_check_saying_why(no_ocr):
    agent = Agent(FakeDevice(_tree(), platform="android"))
    for check in (agent.assert_no_text, agent.assert_text):
        with pytest.raises(StepFailed, match="cannot read the screen's text: the UI tree has "
                                             "none and OCR is unavailable"):
            check("Sign in")


def test_a_canvas_beside_readable_text_without_ocr_checks_the_tree(no_ocr):
    agent = Agent(FakeDevice(_tree(
        UINode(id=0, role="android.widget.TextView", text="Score 10",
               rect=Rect(x=0, y=0, width=100, height=20)),
        UINode(id=1, role="android.view.SurfaceView", rect=Rect(x=0, y=40, width=300, height=300)),
    ), platform="android"))
    agent.assert_text("Score 10")
    agent.assert_no_text("Game over")
    with pytest.raises(AssertionFailed):
        agent.assert_no_text("score 10")


def _png(colour: str) -> bytes:
    import io

    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (40, 20), colour).save(out, format="PNG")
    return out.getvalue()


def test_an_unchanged_screen_is_read_by_ocr_once(monkeypatch):
    """Each text check on an unreadable phone screen reads a fresh screenshot; three checks on
    one screen took OCR three times (1-2 s each on a phone screen): the same image is read once."""
    calls: list[tuple] = []

    def engine(image, use_cls=True):
        calls.append(image.shape)
        return [([[0, 0], [30, 0], [30, 10], [0, 10]], "Game over", 0.9)], 0.0
    monkeypatch.setattr(ocr, "_engine", engine)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())
    agent = Agent(FakeDevice(_tree(), platform="android"))
    agent.assert_text("Game over")
    agent.assert_no_text("Score 10")
    agent.wait_for_text("game over", timeout_s=0)
    assert len(calls) == 1
    first = ocr.read_lines(_png("black"))
    first.clear()                                   # a caller's list is its own
    assert [line.text for line in ocr.read_lines(_png("black"))] == ["Game over"]
    assert len(calls) == 2
    ocr.read_lines(_png("white"))                   # another screen is read
    assert len(calls) == 3


def test_a_stopped_run_ends_a_wait_for_text_at_once():
    """waitForText slept between its looks whatever happened: a Ctrl-C that came during a
    10 s wait waited for it (then the device was killed, its captures lost)."""
    import threading

    from farm.errors import Interrupted
    stop = threading.Event()
    agent = Agent(FakeDevice(_tree(UINode(id=0, role="button", text="Sign in",
                                          rect=Rect(x=0, y=0, width=100, height=20)))),
                  cancel=stop)
    stop.set()
    with pytest.raises(Interrupted, match='waiting for text "Welcome"'):
        agent.wait_for_text("Welcome", timeout_s=0.5, interval_s=0.01)
