"""A text check on a phone whose UI tree comes back empty (Flutter, games) reads the screen by
OCR: the engine's start (seconds, once a process) runs while the check takes its screenshot,
not before it, and farm.log says once a run that checks fall back to OCR (each takes seconds)."""

from __future__ import annotations

import logging
import threading

import farm.agent.ocr as ocr
from farm.agent.api import Agent
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice

BOX = [[0, 0], [30, 0], [30, 10], [0, 10]]


def _reader(image, use_cls=True):
    return [(BOX, "Farm Shop", 0.9)], 0.0


class _Phone(FakeDevice):
    """An empty tree; its screenshot notes whether the OCR engine's start had begun."""

    def __init__(self, began: threading.Event, shot: threading.Event) -> None:
        super().__init__(UITree(source="uiautomator", nodes=[]), platform="android")
        self.began, self.shot, self.engine_started_first = began, shot, None

    def screenshot(self) -> bytes:
        self.engine_started_first = self.began.wait(30)     # (a hang only when it never does)
        self.shot.set()
        return super().screenshot()


def _engine_start(monkeypatch, began: threading.Event, shot: threading.Event) -> list[bool]:
    """The engine's start, faked: it begins, then ends only once the screenshot is taken (or
    it gives up): a start before the screenshot, in the check's own thread, would wait."""
    overlapped: list[bool] = []

    def start() -> None:
        began.set()
        overlapped.append(shot.wait(30))
        ocr._engine = _reader
    monkeypatch.setattr(ocr, "_start", start)
    monkeypatch.setattr(ocr, "_engine", None)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_loading", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())
    return overlapped


def test_the_ocr_engine_starts_while_the_check_takes_its_screenshot_slow50(monkeypatch):
    began, shot = threading.Event(), threading.Event()
    overlapped = _engine_start(monkeypatch, began, shot)
    phone = _Phone(began, shot)
    agent = Agent(phone)
    agent.assert_text("Farm Shop")
    assert agent.by_ocr
    assert phone.engine_started_first is True
    assert overlapped == [True]         # started once, and it did not wait for a timeout


def test_a_second_check_starts_no_engine_again_slow50(monkeypatch):
    began, shot = threading.Event(), threading.Event()
    overlapped = _engine_start(monkeypatch, began, shot)
    agent = Agent(_Phone(began, shot))
    agent.assert_text("Farm Shop")
    agent.assert_no_text("Sign in")
    ocr.warm()
    assert ocr.engine() is _reader and overlapped == [True]


def test_an_ocr_fallback_is_said_once_a_run_slow50(monkeypatch, caplog):
    monkeypatch.setattr(ocr, "_engine", _reader)
    monkeypatch.setattr(ocr, "_broken", None)
    monkeypatch.setattr(ocr, "_read", type(ocr._read)())
    run, next_run = threading.Event(), threading.Event()
    empty = UITree(source="uiautomator", nodes=[])
    with caplog.at_level(logging.INFO, logger="farm.agent.ocr"):
        for stop in (run, run, next_run):
            agent = Agent(FakeDevice(empty, platform="android"), cancel=stop)
            agent.assert_no_text("Sign in")
            agent.assert_text("Farm Shop")
    said = [r.getMessage() for r in caplog.records if "reads the screen by OCR" in
            r.getMessage()]
    assert len(said) == 2, said                 # the first run once, the next run once
    assert "the UI tree is empty" in said[0] and caplog.records[0].levelno == logging.WARNING
