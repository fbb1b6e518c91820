"""Text checks on a browser (a device with its own rendered text) read the screenshot by OCR
only when the text is not in that text and the read saw a canvas that can hold text; without
OCR, the rendered text is all there is, as before. Fakes: no browser, no OCR model."""

from __future__ import annotations

import sys

import pytest

import farm.agent.ocr as ocr
from farm.agent.api import Agent
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed


class PageDevice(FakeDevice):
    """A browser page as `Agent.shows` reads it: its rendered text, and whether that read saw
    a canvas."""

    def __init__(self, text: str, canvas: bool) -> None:
        super().__init__(None)
        self.text, self.canvas = text, canvas

    def screen_text(self) -> str:
        return self.text

    def canvas_shown(self) -> bool:
        return self.canvas


@pytest.fixture
def ocr_reads(monkeypatch) -> list[int]:
    """OCR reading "Revenue 4200" on any image; each read noted."""
    calls: list[int] = []

    def engine(image, use_cls=True):
        calls.append(1)
        return [([[0, 0], [30, 0], [30, 10], [0, 10]], "Revenue4200", 0.9)], 0.0
    monkeypatch.setattr(ocr, "_engine", engine)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())
    return calls


def test_a_canvas_is_read_by_ocr_for_a_text_not_in_the_page_text(ocr_reads):
    agent = Agent(PageDevice("Quarterly report", canvas=True))
    agent.assert_text("Quarterly report")
    assert ocr_reads == []                      # in the page's text: no OCR
    agent.assert_text("Revenue 4200")
    with pytest.raises(AssertionFailed, match=r'"Revenue 4200" is on screen but should not be: '
                                              r'the screen shows it in "Revenue4200" '
                                              r'\(read by OCR of a screenshot: the page shows'):
        agent.assert_no_text("Revenue 4200")
    agent.assert_no_text("Orders 17")


def test_a_page_without_a_canvas_is_not_read_by_ocr(ocr_reads):
    agent = Agent(PageDevice("Quarterly report", canvas=False))
    agent.assert_no_text("Revenue 4200")
    with pytest.raises(AssertionFailed) as failed:
        agent.assert_text("Revenue 4200")
    assert "OCR" not in str(failed.value)
    assert ocr_reads == []


def test_a_canvas_without_ocr_leaves_the_page_text_alone(monkeypatch):
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setitem(sys.modules, "rapidocr_onnxruntime", None)   # the import fails
    agent = Agent(PageDevice("Quarterly report", canvas=True))
    agent.assert_text("Quarterly report")
    agent.assert_no_text("Revenue 4200")
    with pytest.raises(AssertionFailed) as failed:
        agent.assert_text("Revenue 4200")
    assert "OCR" not in str(failed.value)
