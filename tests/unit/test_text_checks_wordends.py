"""Text checks (assertText, assertNoText, waitForText) find the expected text only where its
ends are word ends on screen: after 10 taps "Count 10" shows and `assertText: Count 1` used to
pass; `assertNoText: Row 1` failed on rows 9-16 (it matched "Row 10") without saying what it
matched. Chinese, Japanese and Korean text has no word ends (a substring still matches), OCR's
reading stays space-blind ("Sign in" is "Signin"), and an assertNoText that fails names the
line it matched. Fakes: no device, no OCR model."""

from __future__ import annotations

import pytest

import farm.agent.ocr as ocr
from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import AssertionFailed
from farm.text import word_match


class PageDevice(FakeDevice):
    """A browser page as `Agent.shows` reads it: its rendered text, no canvas."""

    def __init__(self, text: str) -> None:
        super().__init__(None)
        self.text = text

    def screen_text(self) -> str:
        return self.text

    def canvas_shown(self) -> bool:
        return False


def phone(*texts: str) -> FakeDevice:
    """A phone whose UI tree shows ``texts``, one element each."""
    nodes = [UINode(id=i, role="android.widget.TextView", text=t,
                    rect=Rect(x=0, y=40 * i, width=300, height=30)) for i, t in enumerate(texts)]
    return FakeDevice(UITree(source="uiautomator", nodes=nodes), platform="android")


ROWS = [f"Row {n}" for n in range(9, 17)]


@pytest.mark.parametrize("device", [phone("Count 10"), PageDevice("Counter\nCount 10")],
                         ids=["phone", "page"])
def test_count_1_is_not_found_in_count_10(device):
    agent = Agent(device)
    agent.assert_text("Count 10")
    with pytest.raises(AssertionFailed, match=r'expected text "Count 1" is not on screen; '
                                              r'the closest text on it is "Count 10"'):
        agent.assert_text("Count 1")
    agent.assert_no_text("Count 1")


@pytest.mark.parametrize("device", [phone(*ROWS), PageDevice("\n".join(ROWS))],
                         ids=["phone", "page"])
def test_assert_no_text_row_1_passes_on_rows_9_to_16(device):
    Agent(device).assert_no_text("Row 1")


def test_a_failed_assert_no_text_names_the_line_it_matched():
    agent = Agent(phone("Row 10", "Row 1 of 16", "Row 11"))
    with pytest.raises(AssertionFailed) as failed:
        agent.assert_no_text("Row 1")
    assert str(failed.value) == ('text "Row 1" is on screen but should not be: '
                                 'the screen shows it in "Row 1 of 16"')


def test_wait_for_text_waits_past_a_longer_number():
    device = phone("Count 10")
    with pytest.raises(AssertionFailed, match='text "Count 1" did not appear within 0s'):
        Agent(device).wait_for_text("Count 1", timeout_s=0)


@pytest.mark.parametrize("want,screen", [
    ("Saved: a", "Saved: a."), ("Saved", "(Saved)"), ("Total: $5", "Total: $5.00"),
    ("Welcome back", "Hi!\nWelcome back, demo"), ("3件", "共3件商品"), ("登录", "请登录按钮"),
    ("iPhone", "iPhone版"), ("Don't Allow", "Don\u2019t Allow"), ("count 10", "COUNT 10"),
])
def test_ends_at_punctuation_spaces_and_cjk_still_match(want, screen):
    Agent(PageDevice(screen)).assert_text(want)


@pytest.mark.parametrize("want,screen", [
    ("Count 1", "Count 10"), ("Row 1", "Row 10 Row 11"), ("Log", "Login"), ("in", "Sign inside"),
    ("5", "Total 15"),
])
def test_a_word_or_number_that_is_part_of_a_longer_one_is_not_found(want, screen):
    agent = Agent(PageDevice(screen))
    agent.assert_no_text(want)
    assert word_match(want.casefold(), screen.casefold()) is None


@pytest.fixture
def ocr_reads(monkeypatch) -> list[str]:
    """OCR reading the lines put in the returned list, on any screenshot."""
    lines: list[str] = []

    def engine(image, use_cls=True):
        return [([[0, 20 * i], [90, 20 * i], [90, 20 * i + 10], [0, 20 * i + 10]], line, 0.9)
                for i, line in enumerate(lines)], 0.0
    monkeypatch.setattr(ocr, "_engine", engine)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())
    return lines


def test_ocr_reading_stays_space_blind_and_ends_at_word_ends(ocr_reads):
    ocr_reads += ["Signin", "Count10", "Welcome", "back"]
    agent = Agent(phone())           # a tree with no text: the screenshot is read by OCR
    agent.assert_text("Sign in")
    agent.assert_text("Count 10")
    agent.assert_text("Welcome back")
    agent.assert_no_text("Count 1")
    agent.assert_no_text("Sign")
    with pytest.raises(AssertionFailed, match=r'should not be: the screen shows it in '
                                              r'"Welcome back" \(read by OCR'):
        agent.assert_no_text("Welcome back")
